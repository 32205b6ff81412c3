// RUN: python3 %S/../../tools/fidelity/compare.py --reference %S/Inputs/inductor-h200.json --archives %S/Inputs --count calls --allow-errors | FileCheck %s

// The model corpus (issue 15; tools/models/corpus.py, run on the device with torch 2.11,
// transformers and torchvision, tiny configs, random weights): 41 architectures and
// blocks exported with torch.export + run_decompositions (Inputs/*.pt2, stripped), and
// TorchInductor's generated-kernel *calls* on the H200 (Inputs/inductor-h200.json).
// This pins how far fuse-import gets and fuselab's Inductor strategy (--target=gpu)
// against those calls; an importer or fusion change that moves a row changes this test.
// Language models. The encoders match Inductor call for call (BERT, DistilBERT, ALBERT,
// ELECTRA: 15; RoBERTa: 16, its int32 position ids a cumsum). Decoders import (their
// empty KV cache, a cloned [0] tensor, drops out of the cats). Their attention is one
// library call (--fuse-attention: PyTorch's memory-efficient kernel, which Inductor
// keeps), the causal mask a kernel of its own per layer, the rotary q and k one kernel:
// GPT-2, Llama, Mistral, Qwen2, Gemma, Phi and GPT-NeoX match (GPT-2's key and value
// and GPT-NeoX's value, sliced out of a fused projection at an offset, copied first).
// The encoders' padding mask is expanded along the keys (stride 0), which the fused
// kernel refuses: math, as in Inductor.
// OPT's cumsum of a full mask is Inductor's pointless_cumsum_replacement
// (--pointless-cumsum: arange * fill, no scan). A mask or bucket computed from arange is
// recomputed in each user where its body stays within Inductor's op count (index
// arithmetic is sympy there, not ops: OPT's and BLOOM's masks, MPNet's relative position
// buckets inside each layer's softmax kernel). A residual add over [1, 16, 32] and the
// layer norm reading it through a view as [16] x [32] fuse (Inductor's scheduler nodes
// drop size-1 dims: T5). BLOOM: 11 against 16 (its fused qkv split into q, k and v
// copies — Inductor's cat/select kernels — not modelled). Mixtral's router needs topk,
// sort, histc and index_put.
// CHECK: gpt2 13 13 yes
// CHECK: bert 15 15 yes
// CHECK: roberta 16 16 yes
// CHECK: distilbert 15 15 yes
// CHECK: albert 15 15 yes
// CHECK: electra 15 15 yes
// CHECK: llama 12 12 yes
// CHECK: mistral 12 12 yes
// CHECK: qwen2 12 12 yes
// CHECK: gemma 12 12 yes
// CHECK: phi 10 10 yes
// CHECK: gpt_neox 12 12 yes
// CHECK: opt 11 11 yes
// CHECK: bloom 16 11 NO
// CHECK: t5_encoder 15 15 yes
// CHECK: mixtral 20 - ERROR {{.*}}op 'aten.topk'
// Vision. On the GPU Inductor runs 2-D convolutions channels-last (a copy kernel per
// graph-input image or weight whose order changes) and peels the bias off into a
// pointwise add; its max pool realizes its input (realize_hint). A computed input only
// the convolution reads is laid out channels-last where it is computed (FlexibleLayout;
// Inductor's clone lowering ignores memory_format): SegFormer's layer norm writes the
// next stage's convolution input in its own row order, one kernel (15 before). A
// convolution's result is channels-last when its input is, and a 4-D buffer realized
// for reuse before the last convolution is stored channels-last
// (find_nodes_prefer_channels_last, maybe_apply_channels_last_stride_order):
// EfficientNet's first batch norm is stored [N, H, W, C], so the squeeze-excite mean
// over it is an outer reduction that splits in two, as Inductor's red/per kernels (44
// before). Modelled, the convolutional models match, and CLIP with its attention one
// library call; LeViT and Swin differ elsewhere (docs/import.md).
// CHECK: vit 17 17 yes
// CHECK: convnext 11 11 yes
// CHECK: resnet_hf 12 12 yes
// CHECK: regnet 15 15 yes
// CHECK: swin 17 13 NO
// CHECK: mobilenet_v2 54 54 yes
// CHECK: mobilenet_v3 60 60 yes
// CHECK: resnet18 36 36 yes
// CHECK: squeezenet 31 31 yes
// CHECK: deit 17 17 yes
// CHECK: clip_vision 9 9 yes
// CHECK: efficientnet 46 46 yes
// CHECK: segformer 14 14 yes
// CHECK: levit 45 43 NO
// Encoders of encoder-decoder models (BART's matches Inductor's 15 calls; Whisper's
// attention without a mask is one library call, 14).
// CHECK: bart_encoder 15 15 yes
// CHECK: whisper_encoder 14 14 yes
// CHECK: mpnet 12 12 yes
// Blocks and losses. On CUDA the LSTM and GRU cells are two unbiased mms and ATen's
// fused cell kernels (_thnn_fused_lstm_cell, _thnn_fused_gru_cell), library calls for
// Inductor: no generated kernel. --fuse-rnn-cells puts the fused cell back into the
// CPU-traced export (1 fused kernel before it).
// CHECK: lstm_cell 0 0 yes
// CHECK: unet_attention 7 7 yes
// CHECK: pool_ceil 5 5 yes
// CHECK: unet_resblock 8 8 yes
// CHECK: gru_cell 0 0 yes
// CHECK: dense_layer 4 4 yes
// CHECK: cross_entropy_ignore 2 2 yes
// CHECK: cross_entropy_smooth 2 2 yes
// CHECK: exact kernel-count matches: 37 of 41
// CHECK: programs that do not import or compile: 1 of 41
