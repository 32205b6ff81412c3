// The language models of the corpus that import, run by every strategy on torch's own
// inputs (weights included) and checked against torch's outputs recorded at export
// (tools/models/corpus.py; Inputs/NAME.expect.json): the aten reference interpreter
// and each strategy's fused loop IR. The decoders' empty KV-cache constants are left
// out of the signature by fuse-import and of the recorded inputs. OPT's position ids
// are a cumsum (a masked reduction) and its padding mask an index.Tensor with two
// index tensors. RoBERTa, BLOOM and MPNet compute position ids in int32 (RoBERTa also
// compiled, --jit). BLOOM without a KV cache (the TVM corpus's export, Inputs/tvm/) builds
// its ALiBi bias with aten.repeat. Vision models and blocks: numerics-vision.mlir.
// RUN: fuse-import %S/Inputs/bert.pt2 | fuse-run - --expect %S/Inputs/bert.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/albert.pt2 | fuse-run - --expect %S/Inputs/albert.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/distilbert.pt2 | fuse-run - --expect %S/Inputs/distilbert.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/electra.pt2 | fuse-run - --expect %S/Inputs/electra.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/t5_encoder.pt2 | fuse-run - --expect %S/Inputs/t5_encoder.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/gpt2.pt2 | fuse-run - --expect %S/Inputs/gpt2.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/llama.pt2 | fuse-run - --expect %S/Inputs/llama.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/mistral.pt2 | fuse-run - --expect %S/Inputs/mistral.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/qwen2.pt2 | fuse-run - --expect %S/Inputs/qwen2.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/gemma.pt2 | fuse-run - --expect %S/Inputs/gemma.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/phi.pt2 | fuse-run - --expect %S/Inputs/phi.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/gpt_neox.pt2 | fuse-run - --expect %S/Inputs/gpt_neox.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/tvm/bloom.pt2 | fuse-run - --expect %S/Inputs/tvm/bloom.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/opt.pt2 | fuse-run - --expect %S/Inputs/opt.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/roberta.pt2 | fuse-run - --expect %S/Inputs/roberta.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/bloom.pt2 | fuse-run - --expect %S/Inputs/bloom.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/mpnet.pt2 | fuse-run - --expect %S/Inputs/mpnet.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/roberta.pt2 | fuse-run - --expect %S/Inputs/roberta.expect.json --jit | FileCheck %s
// RUN: fuse-import %S/Inputs/bart_encoder.pt2 | fuse-run - --expect %S/Inputs/bart_encoder.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/whisper_encoder.pt2 | fuse-run - --expect %S/Inputs/whisper_encoder.expect.json | FileCheck %s
// RUN: fuse-import %S/Inputs/opt.pt2 | fuse-run - --expect %S/Inputs/opt.expect.json --jit | FileCheck %s
// RUN: fuse-import %S/Inputs/dense_layer.pt2 | fuse-run - --expect %S/Inputs/dense_layer.expect.json --jit | FileCheck %s
// RUN: fuse-import %S/Inputs/bert.pt2 | fuse-run - --expect %S/Inputs/bert.expect.json --jit | FileCheck %s
// The Ascend and Spyre targets' compiled forms on their interpreters. The tile kernels'
// index math reaches the Ascend kernels canonicalized to shifts and masks (a row of 32
// as `i >> 5`, `i & 31`), which the Ascend interpreter runs on the values' bits.
// RUN: fuse-import %S/Inputs/bert.pt2 | fuse-run - --expect %S/Inputs/bert.expect.json --target ascend --jit | FileCheck %s
// RUN: fuse-import %S/Inputs/llama.pt2 | fuse-run - --expect %S/Inputs/llama.expect.json --target ascend --jit | FileCheck %s
// CHECK: reference output #0 {{.*}} PASS
// CHECK: inductor output #0 {{.*}} PASS
// CHECK: tvm output #0 {{.*}} PASS
// CHECK: ascend output #0 {{.*}} PASS
// CHECK-NOT: FAIL
// CHECK-NOT: ERROR
