"""The GPU bundle's reader (``fuselab-gpu-bundle/1``, docs/gpu.md): the portable input
generator and the plan runner — buffers from torch's caching allocator, PTX kernels
loaded with cupy and launched on torch's current CUDA stream, library steps (mm, bmm,
convolution, sdpa, fused RNN cells) through torch, i.e. cuBLAS/cuDNN as Inductor's
extern kernels. Needs torch, numpy and, to run, cupy and a GPU — not the compiler
extension: ``tools/gpu/run.py`` (the device harness) and :func:`fuselab.aot.load` use it
where no fuselab build exists. The Rust side of the schema is
``fuselab_targets::gpu::bundle``; both generators are tested on one fixture."""

import json
import os

import numpy as np
import torch

from fuselab.dtypes import DTYPES

FORMAT = "fuselab-gpu-bundle/1"

M64 = (1 << 64) - 1


def mix(z):
    """splitmix64's finalizer on a Python int."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def mix_array(z):
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def portable_input(seed, index, shape, dtype, bound):
    """fuse-gpu's portable generator (targets/src/gpu/bundle/inputs.rs, portable_inputs;
    both tested on test/Tools/fuse-gpu/Inputs/portable-inputs.json)."""
    n = int(np.prod(shape)) if shape else 1
    base = mix(seed ^ (((index + 1) * 0xD1B54A32D192ED03) & M64))
    with np.errstate(over="ignore"):
        k = np.arange(1, n + 1, dtype=np.uint64)
        z = mix_array(np.uint64(base) + k * np.uint64(0x9E3779B97F4A7C15))
    if dtype in ("i64", "i32"):
        return torch.from_numpy((z % np.uint64(max(bound, 1))).astype(np.int64)).reshape(shape).to(DTYPES[dtype])
    if dtype == "i1":
        return torch.from_numpy((z & np.uint64(1)).astype(np.bool_)).reshape(shape)
    u = (z >> np.uint64(40)).astype(np.float64) / float(1 << 23) - 1.0
    t = torch.from_numpy(u.astype(np.float32)).reshape(shape)
    return t.to(DTYPES[dtype])


def view_of(flat, view, shape):
    if view:
        rank = (len(view) - 1) // 2
        return flat.as_strided(view[1 : rank + 1], view[rank + 1 :], view[0])
    return flat.view(shape)


class Bundle:
    """A bundle's launch plan on this GPU: every buffer allocated (inputs given, or
    regenerated from the manifest's seed), steps run in order on torch's current CUDA
    stream."""

    def __init__(self, path, inputs=None):
        try:
            import cupy
        except ImportError as e:
            raise RuntimeError("fuselab.runtime needs cupy and a CUDA GPU to load PTX") from e
        if not torch.cuda.is_available():
            raise RuntimeError("fuselab.runtime needs a CUDA GPU (torch.cuda.is_available() is False)")
        self.path = path
        with open(os.path.join(path, "manifest.json")) as f:
            self.m = json.load(f)
        if self.m.get("format") != FORMAT:
            raise ValueError(f"{path}: not a {FORMAT} bundle (format {self.m.get('format')!r})")
        self._cupy = cupy
        self._streams = {}
        self.module = cupy.RawModule(path=os.path.join(path, self.m["ptx"]))
        self.kernels = {}
        # Step index -> (kernel, block) launched instead of the step's own kernel.
        self.choice = {}
        self.bind(inputs)

    def bind(self, inputs=None):
        """Buffers for the next run: ``inputs`` (by input index; None: regenerated from
        the manifest's seed) as the inputs, fresh temporaries and outputs."""
        seed = self.m["inputs"]["seed"]
        self.flat = []
        self.inputs = []
        for b in self.m["buffers"]:
            shape = b["shape"]
            n = int(np.prod(shape)) if shape else 1
            if b["role"] == "input":
                if inputs is None:
                    t = portable_input(seed, b["index"], shape, b["dtype"], b.get("int_bound", 8)).cuda()
                else:
                    t = inputs[b["index"]]
                    if list(t.shape) != list(shape) or t.dtype != DTYPES[b["dtype"]]:
                        raise ValueError(f"input #{b['index']} is {t.dtype}{list(t.shape)}, "
                                         f"the bundle takes {b['dtype']}{shape}")
                    t = t.to("cuda").contiguous()
                self.inputs.append(t)
                self.flat.append(t.reshape(-1))
            else:
                self.flat.append(torch.zeros(max(n, 1), dtype=DTYPES[b["dtype"]], device="cuda"))

    def shape(self, i):
        return self.m["buffers"][i]["shape"]

    def candidates(self, s):
        """A launch step's kernels: its own, then its variants, as (kernel, block)."""
        return [(s["kernel"], s["block"])] + [(v["kernel"], v["block"]) for v in s.get("variants", [])]

    def _stream(self):
        """torch's current CUDA stream as cupy's, made once per stream (not per launch)."""
        handle = torch.cuda.current_stream().cuda_stream
        if self._streams.get("handle") != handle:
            self._streams = {"handle": handle, "stream": self._cupy.cuda.ExternalStream(handle)}
        return self._streams["stream"]

    def launch(self, s, kernel, block):
        f = self.kernels.get(kernel)
        if f is None:
            f = self.kernels[kernel] = self.module.get_function(kernel)
        args = tuple(np.uint64(self.flat[a].data_ptr()) for a in s["args"])
        f(tuple(s["grid"]), tuple(block), args, stream=self._stream())

    def run(self):
        for i, s in enumerate(self.m["steps"]):
            if s["op"] == "launch":
                self.launch(s, *self.choice.get(i, (s["kernel"], s["block"])))
            elif s["op"] == "copy":
                self.flat[s["dst"]].copy_(self.flat[s["src"]])
            else:
                self.external(s)

    def external(self, s):
        args = s["args"]
        views = s.get("views") or []
        ins = [
            view_of(self.flat[a], views[i] if i < len(views) else [], self.shape(a))
            for i, a in enumerate(args[:-1])
        ]
        # The library kernel's own result shape: its buffer may be an output of another
        # shape (a returned reshape of it).
        # An mm written into its slice of a concatenation (Inductor's NonOwningLayout):
        # its output is a strided view of the concatenation's buffer.
        if s.get("out_view"):
            out = view_of(self.flat[args[-1]], s["out_view"], None)
        else:
            out = self.flat[args[-1]].view(s.get("out_shape") or self.shape(args[-1]))
        kind = s["kind"]
        if kind in ("mm", "bmm") and len(ins) > 2:
            # The folded bias in the GEMM's epilogue (beta = 1), as Inductor's
            # extern_kernels.addmm / baddbmm.
            fold = torch.addmm if ins[0].dim() == 2 else torch.baddbmm
            fold(ins[2], ins[0], ins[1], out=out)
        elif kind == "mm" and s.get("out_view"):
            torch.mm(ins[0], ins[1], out=out)
        elif kind in ("mm", "bmm"):
            torch.matmul(ins[0], ins[1], out=out)
        elif kind == "sdpa":
            # Query, key, value and mask at the positions sdpa_operands gives; the fused
            # kernel's output [B, L, H, Ev] (PyTorch's efficient attention writes heads
            # after rows), as Inductor's _scaled_dot_product_efficient_attention call.
            at = s["sdpa_operands"]
            q, k, v = ins[at[0]], ins[at[1]], ins[at[2]]
            mask = ins[at[3]] if len(at) == 4 else None
            y = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=s["scale"])
            out.copy_(y.transpose(1, 2))
        elif kind in ("lstm_cell", "gru_cell"):
            # ATen's fused cell kernels, as Inductor's fallback calls them: the two gate
            # products (stacked [2B, G*H] by fuselab), the state, the biases if any.
            rows = ins[1].shape[0]
            gates = ins[0].reshape(2, rows, -1)
            biases = ins[2:4] if len(ins) == 4 else [None, None]
            if kind == "lstm_cell":
                hy, cy, _ = torch.ops.aten._thnn_fused_lstm_cell(gates[0], gates[1], ins[1], *biases)
                out.copy_(torch.stack([hy, cy]))
            else:
                hy, _ = torch.ops.aten._thnn_fused_gru_cell(gates[0], gates[1], ins[1], *biases)
                out.copy_(hy)
        elif kind == "convolution":
            x, w = ins[0], ins[1]
            bias = ins[2] if len(ins) > 2 else None
            conv = {3: torch.nn.functional.conv1d, 4: torch.nn.functional.conv2d, 5: torch.nn.functional.conv3d}[x.dim()]
            spatial = x.dim() - 2
            y = conv(
                x,
                w,
                bias,
                stride=s.get("stride", [1] * spatial),
                padding=s.get("padding", [0] * spatial),
                dilation=s.get("dilation", [1] * spatial),
                groups=(s.get("groups") or [1])[0],
            )
            dense = y.is_contiguous() or y.is_contiguous(memory_format=torch.channels_last)
            if dense and y.shape == out.shape and y.stride() == out.stride() and y.dtype == out.dtype:
                # The library's output becomes the buffer (later steps read the new
                # pointer), as Inductor's extern convolution returns its own
                # buffer: no copy kernel. Its strides are the plan's (contiguous, or
                # channels-last: the out_view of a `result_order` convolution).
                self.flat[args[-1]] = y.as_strided((y.numel(),), (1,))
            else:
                out.copy_(y)
        else:
            raise ValueError(f"unknown extern kind {kind}")

    def outputs(self):
        outs = [b for b in self.m["buffers"] if b["role"] == "output"]
        outs.sort(key=lambda b: b["index"])
        return [self.flat[b["id"]].view(b["shape"]) for b in outs]


