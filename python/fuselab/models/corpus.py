"""The corpus of real architectures: common PyTorch models at tiny sizes with random
weights (Hugging Face transformers and torchvision classes built from configs, and
blocks written here; nothing is downloaded). ``MODELS`` maps a name to ``(build,
make_inputs)``: ``build()`` returns the module, ``make_inputs()`` a tuple of seeded
example inputs.

The one copy of these definitions: the package's tests (``python/tests/test_corpus.py``)
compile them through ``torch.compile(backend="fuselab")``, ``python -m fuselab.bench
--models fuselab.models.corpus`` times them, and ``tools/models/corpus.py`` exports them
with ``torch.export`` for ``fuse-import``.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

SEQ, VOCAB = 16, 128


def ids():
    return (torch.randint(0, VOCAB, (1, SEQ), generator=torch.Generator().manual_seed(1)),)


def image(c=3, s=32):
    return (torch.randn(1, c, s, s, generator=torch.Generator().manual_seed(2)),)


class Hidden(nn.Module):
    """A Hugging Face model returning its first output tensor."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, *args):
        out = self.model(*args)
        if isinstance(out, torch.Tensor):
            return out
        if isinstance(out, (tuple, list)):
            return out[0]
        return out[0] if not hasattr(out, "last_hidden_state") else out.last_hidden_state


def hf(cls_name, config_name, **cfg):
    def build():
        import transformers

        config = getattr(transformers, config_name)(**cfg)
        model = getattr(transformers, cls_name)(config)
        return Hidden(model.eval())

    return build


LM = dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64)
DECODER = dict(LM, num_key_value_heads=2, max_position_embeddings=64)


class UNetResBlock(nn.Module):
    """A diffusion UNet ResBlock: GroupNorm, SiLU, conv, time-embedding add, conv, skip."""

    def __init__(self, c=32, t=16):
        super().__init__()
        self.n1, self.c1 = nn.GroupNorm(8, c), nn.Conv2d(c, c, 3, padding=1)
        self.t = nn.Linear(t, c)
        self.n2, self.c2 = nn.GroupNorm(8, c), nn.Conv2d(c, c, 3, padding=1)

    def forward(self, x, temb):
        h = self.c1(F.silu(self.n1(x)))
        h = h + self.t(F.silu(temb))[:, :, None, None]
        return x + self.c2(F.silu(self.n2(h)))


class GRUCell(nn.Module):
    def __init__(self, d=32, h=32):
        super().__init__()
        self.cell = nn.GRUCell(d, h)

    def forward(self, x, h):
        return self.cell(x, h)


class CrossEntropy(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.kw = kw

    def forward(self, logits, target):
        return F.cross_entropy(logits, target, **self.kw)


class DenseLayer(nn.Module):
    """DenseNet's dense layer (BN, ReLU, 1x1 conv, BN, ReLU, 3x3 conv, concat)."""

    def __init__(self, c=16, g=8):
        super().__init__()
        self.b1, self.c1 = nn.BatchNorm2d(c), nn.Conv2d(c, 4 * g, 1, bias=False)
        self.b2, self.c2 = nn.BatchNorm2d(4 * g), nn.Conv2d(4 * g, g, 3, padding=1, bias=False)

    def forward(self, x):
        y = self.c2(F.relu(self.b2(self.c1(F.relu(self.b1(x))))))
        return torch.cat([x, y], 1)


class LSTMCell(nn.Module):
    def __init__(self, d=32, h=32):
        super().__init__()
        self.cell = nn.LSTMCell(d, h)

    def forward(self, x, h, c):
        return self.cell(x, (h, c))


class UnrolledLSTM(nn.Module):
    """An LSTM cell stepped `steps` times (each step reads the previous step's h and c)."""

    def __init__(self, d=32, h=32, steps=4):
        super().__init__()
        self.cell, self.steps = nn.LSTMCell(d, h), steps

    def forward(self, x, h, c):
        outs = []
        for _ in range(self.steps):
            h, c = self.cell(x, (h, c))
            outs.append(h)
        return torch.stack(outs), c


class UNetAttention(nn.Module):
    """A diffusion UNet attention block: GroupNorm, 1x1 q/k/v, softmax over positions,
    1x1 projection, residual (the LDM/diffusers AttnBlock)."""

    def __init__(self, c=32):
        super().__init__()
        self.norm = nn.GroupNorm(8, c)
        self.q, self.k, self.v, self.o = (nn.Conv2d(c, c, 1) for _ in range(4))

    def forward(self, x):
        b, c, h, w = x.shape
        y = self.norm(x)
        q = self.q(y).reshape(b, c, h * w).transpose(1, 2)
        k = self.k(y).reshape(b, c, h * w)
        v = self.v(y).reshape(b, c, h * w).transpose(1, 2)
        a = torch.softmax(q @ k * c**-0.5, dim=-1)
        return x + self.o((a @ v).transpose(1, 2).reshape(b, c, h, w))


class PoolCeil(nn.Module):
    """Max pooling whose last window hangs over the input (ceil_mode) and a padded one."""

    def __init__(self, c=8):
        super().__init__()
        self.conv = nn.Conv2d(3, c, 3, padding=1)
        self.p1 = nn.MaxPool2d(3, 2, ceil_mode=True)
        self.p2 = nn.MaxPool2d(2, 2, padding=1, ceil_mode=True)

    def forward(self, x):
        return self.p2(self.p1(torch.relu(self.conv(x))))


def hf_part(cls_name, config_name, part, **cfg):
    """One part (an encoder) of a Hugging Face model."""

    def build():
        import transformers

        config = getattr(transformers, config_name)(**cfg)
        return Hidden(getattr(getattr(transformers, cls_name)(config).eval(), part))

    return build


def tv(name, **kw):
    def build():
        import torchvision

        return getattr(torchvision.models, name)(weights=None, **kw).eval()

    return build


def seeded(*shapes):
    g = torch.Generator().manual_seed(3)
    return tuple(torch.randn(*s, generator=g) for s in shapes)


# name -> (builder, example inputs)
MODELS = {
    # Language models (Hugging Face transformers, tiny configs).
    "gpt2": (hf("GPT2Model", "GPT2Config", vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=2, n_positions=64), ids),
    "bert": (hf("BertModel", "BertConfig", **LM), ids),
    "roberta": (hf("RobertaModel", "RobertaConfig", **LM), ids),
    "distilbert": (hf("DistilBertModel", "DistilBertConfig", vocab_size=VOCAB, dim=32, n_layers=2, n_heads=2, hidden_dim=64), ids),
    "albert": (hf("AlbertModel", "AlbertConfig", embedding_size=16, **LM), ids),
    "electra": (hf("ElectraModel", "ElectraConfig", embedding_size=16, **LM), ids),
    "llama": (hf("LlamaModel", "LlamaConfig", **DECODER), ids),
    "mistral": (hf("MistralModel", "MistralConfig", **DECODER), ids),
    "qwen2": (hf("Qwen2Model", "Qwen2Config", **DECODER), ids),
    "gemma": (hf("GemmaModel", "GemmaConfig", head_dim=16, **DECODER), ids),
    "phi": (hf("PhiModel", "PhiConfig", **DECODER), ids),
    "gpt_neox": (hf("GPTNeoXModel", "GPTNeoXConfig", **LM), ids),
    "opt": (hf("OPTModel", "OPTConfig", vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, ffn_dim=64, word_embed_proj_dim=32), ids),
    "bloom": (hf("BloomModel", "BloomConfig", vocab_size=VOCAB, hidden_size=32, n_layer=2, n_head=2), ids),
    "t5_encoder": (hf("T5EncoderModel", "T5Config", vocab_size=VOCAB, d_model=32, d_kv=16, d_ff=64, num_layers=2, num_heads=2), ids),
    "mixtral": (hf("MixtralModel", "MixtralConfig", num_local_experts=4, num_experts_per_tok=2, **DECODER), ids),
    # Vision.
    "vit": (hf("ViTModel", "ViTConfig", image_size=32, patch_size=8, num_channels=3, **{k: v for k, v in LM.items() if k != "vocab_size"}), image),
    "convnext": (hf("ConvNextModel", "ConvNextConfig", num_channels=3, hidden_sizes=[16, 32], depths=[1, 1], num_stages=2), image),
    "resnet_hf": (hf("ResNetModel", "ResNetConfig", num_channels=3, embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], layer_type="basic"), image),
    "regnet": (hf("RegNetModel", "RegNetConfig", num_channels=3, embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1], groups_width=8), image),
    "swin": (hf("SwinModel", "SwinConfig", image_size=32, patch_size=4, num_channels=3, embed_dim=16, depths=[1, 1], num_heads=[2, 2], window_size=4), image),
    "mobilenet_v2": (tv("mobilenet_v2", width_mult=0.25, num_classes=10), image),
    "mobilenet_v3": (tv("mobilenet_v3_small", width_mult=0.25, num_classes=10), image),
    "resnet18": (tv("resnet18", num_classes=10), lambda: image(3, 32)),
    "squeezenet": (tv("squeezenet1_1", num_classes=10), lambda: image(3, 64)),
    "deit": (hf("DeiTModel", "DeiTConfig", image_size=32, patch_size=8, num_channels=3, **{k: v for k, v in LM.items() if k != "vocab_size"}), image),
    "clip_vision": (hf("CLIPVisionModel", "CLIPVisionConfig", image_size=32, patch_size=8, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2), image),
    "efficientnet": (hf("EfficientNetModel", "EfficientNetConfig", image_size=32, width_coefficient=0.25, depth_coefficient=0.25, hidden_dim=320), image),
    "segformer": (hf("SegformerModel", "SegformerConfig", num_channels=3, num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[16, 32], patch_sizes=[7, 3], strides=[4, 2], num_attention_heads=[1, 2], mlp_ratios=[2, 2]), image),
    "levit": (hf("LevitModel", "LevitConfig", image_size=32, hidden_sizes=[16, 32, 48], num_attention_heads=[1, 2, 3], depths=[1, 1, 1], key_dim=[8, 8, 8]), image),
    # Encoders of encoder-decoder models.
    "bart_encoder": (hf_part("BartModel", "BartConfig", "encoder", vocab_size=VOCAB, d_model=32, encoder_layers=2, decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64), ids),
    "whisper_encoder": (
        hf_part("WhisperModel", "WhisperConfig", "encoder", vocab_size=VOCAB, d_model=32, encoder_layers=2, decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, num_mel_bins=16, max_source_positions=16, max_target_positions=16, pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1),
        lambda: seeded((1, 16, 32)),
    ),
    "mpnet": (hf("MPNetModel", "MPNetConfig", **LM), ids),
    # Blocks and losses.
    "lstm_cell": (LSTMCell, lambda: seeded((4, 32), (4, 32), (4, 32))),
    "lstm_unrolled": (UnrolledLSTM, lambda: seeded((4, 32), (4, 32), (4, 32))),
    "unet_attention": (UNetAttention, lambda: seeded((1, 32, 8, 8))),
    "pool_ceil": (PoolCeil, lambda: image(3, 14)),
    "unet_resblock": (UNetResBlock, lambda: seeded((1, 32, 8, 8), (1, 16))),
    "gru_cell": (GRUCell, lambda: seeded((4, 32), (4, 32))),
    "dense_layer": (DenseLayer, lambda: seeded((1, 16, 8, 8))),
    "cross_entropy_ignore": (
        lambda: CrossEntropy(ignore_index=0),
        lambda: (torch.randn(8, 10, generator=torch.Generator().manual_seed(4)), torch.arange(8) % 10),
    ),
    "cross_entropy_smooth": (
        lambda: CrossEntropy(label_smoothing=0.1),
        lambda: (torch.randn(8, 10, generator=torch.Generator().manual_seed(4)), torch.arange(8) % 10),
    ),
}
