"""Which backend PyTorch's CUDA dispatcher picks for each `F.scaled_dot_product_attention`
call of the corpus models (fuselab.models.corpus), eagerly and as `torch.compile` sees
the call (traced by `torch.export`: Hugging Face builds its masks differently while
tracing). Prints, per call, the query / key / value / mask shapes, strides and dtypes and
`can_use_efficient_attention` / `can_use_flash_attention`: the facts behind
`--fuse-attention` (docs/strategies/inductor.md). Needs a CUDA device.

    python3 tools/fidelity/sdpa_probe.py bert llama vit ...
"""

import sys
import warnings

import torch
import torch.nn.functional as F
from torch.backends.cuda import SDPAParams, can_use_efficient_attention, can_use_flash_attention

sys.path.append("python")  # fuselab.models, installed or not
from fuselab.models import corpus  # noqa: E402

ORIGINAL = F.scaled_dot_product_attention


def described(t):
    return None if t is None else (tuple(t.shape), t.stride(), t.dtype)


def probe(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    print("  q", described(q), "k", described(k), "v", described(v), "mask", described(attn_mask),
          "causal", is_causal, "gqa", enable_gqa, "dropout", dropout_p)
    params = SDPAParams(q, k, v, attn_mask, dropout_p, is_causal, enable_gqa)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        efficient = can_use_efficient_attention(params, True)
        flash = can_use_flash_attention(params, True)
    print("  efficient", efficient, "flash", flash, [str(w.message)[:200] for w in caught])
    return ORIGINAL(q, k, v, attn_mask=attn_mask, dropout_p=dropout_p, is_causal=is_causal, scale=scale,
                    enable_gqa=enable_gqa)


def main(names):
    F.scaled_dot_product_attention = probe
    for name in names:
        build, inputs = corpus.MODELS[name]
        model = build().cuda()
        args = tuple(a.cuda() for a in inputs())
        print(name, "(eager)")
        with torch.no_grad():
            model(*args)
        print(name, "(traced by torch.export, as torch.compile sees it)")
        torch.export.export(model, args, strict=False)


if __name__ == "__main__":
    main(sys.argv[1:])
