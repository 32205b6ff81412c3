//! What a Spyre program costs, as plain data (the content of `--spyre-report`):
//! device-memory traffic, restickify cost, per-core LX use and every op's split.
//!
//! Traffic counts host elements (torch-spyre's accounting in the softmax example): an op
//! reads, from each buffer not in LX, the elements its index addresses (the product of
//! the dims it uses; an extern: the whole buffer) and writes its result unless the
//! result is in LX; a restickify reads and writes its buffer once; a graph input cloned
//! into LX is read once. Bytes are elements
//! times the element size.

use super::attrs::DeviceLayout;
use super::divide_work::describe;
use super::layout::element_bytes;
use super::plan::{work_dims, Decisions};
use super::program::{BufferDef, Program};
use serde_json::{json, Value};

/// Device-memory traffic of `p` under `d`: (elements, bytes).
pub fn traffic(p: &Program, d: &Decisions) -> (i64, i64) {
    let mut elements = 0;
    let mut bytes = 0;
    let mut add = |n: i64, b: usize| {
        elements += n;
        bytes += n * element_bytes(p.buffers[b].dtype);
    };
    for op in &p.ops {
        for r in &op.reads {
            if d.lx[r.buffer].is_some() {
                continue;
            }
            let n = match &r.index {
                Some(index) => (0..op.dims.len())
                    .filter(|&j| index.uses_dim(j))
                    .map(|j| op.dims[j])
                    .product(),
                None => p.buffers[r.buffer].shape.iter().product(),
            };
            add(n, r.buffer);
        }
        if d.lx[op.out].is_none() {
            add(p.buffers[op.out].shape.iter().product(), op.out);
        }
    }
    for (b, buffer) in p.buffers.iter().enumerate() {
        let numel: i64 = buffer.shape.iter().product();
        match buffer.def {
            BufferDef::Restickify(_) => add(2 * numel, b),
            // A graph input cloned into LX is read from device memory once.
            BufferDef::Input(_) if d.lx[b].is_some() => add(numel, b),
            _ => {}
        }
    }
    (elements, bytes)
}

/// The largest LX bytes in use on one core at any op step.
pub fn peak_lx_bytes(p: &Program, d: &Decisions) -> i64 {
    (0..p.ops.len() as i64)
        .map(|step| {
            let mut live: Vec<(i64, i64)> =
                d.lx.iter()
                    .flatten()
                    .filter(|l| l.start <= step && step < l.end)
                    .map(|l| (l.address, l.bytes))
                    .collect();
            // In-place pairs share their bytes: count each address range once.
            live.sort_unstable();
            live.dedup();
            live.iter().map(|&(_, b)| b).sum::<i64>()
        })
        .max()
        .unwrap_or(0)
}

/// The report of `function` (see the module documentation).
pub fn report(function: &str, p: &Program, d: &Decisions, hbm_reasons: &[(usize, String)]) -> Value {
    let (elements, bytes) = traffic(p, d);
    let restickify: Vec<Value> = p
        .buffers
        .iter()
        .enumerate()
        .filter_map(|(b, buffer)| match (buffer.def, &d.layouts[b]) {
            (BufferDef::Restickify(src), DeviceLayout::Dense(l)) => Some(json!({
                "buffer": p.buffers[src].name,
                "to_stick_dim": l.stick_dim,
                "device_elements": l.device_elements(),
            })),
            (BufferDef::Restickify(src), DeviceLayout::View { from, inner, .. }) => Some(json!({
                "buffer": p.buffers[src].name,
                "to_stick_dim": from,
                "merged": true,
                "device_elements": inner.device_elements(),
            })),
            _ => None,
        })
        .collect();
    let cost: i64 = restickify
        .iter()
        .filter_map(|r| r["device_elements"].as_i64())
        .sum();
    let placed: Vec<Value> = p
        .buffers
        .iter()
        .enumerate()
        .filter_map(|(b, buffer)| {
            d.lx[b].map(|l| {
                json!({"buffer": buffer.name, "address": l.address, "bytes": l.bytes, "start": l.start, "end": l.end})
            })
        })
        .collect();
    let device: Vec<Value> = hbm_reasons
        .iter()
        .map(|(b, reason)| json!({"buffer": p.buffers[*b].name, "reason": reason}))
        .collect();
    let ops: Vec<Value> = (0..p.ops.len())
        .map(|o| {
            let (dims, _) = work_dims(p, o, d.stick[o]);
            let op = &p.ops[o];
            json!({
                "op": op.name,
                "kernel": op.kernel.map(|k| p.kernels[k].clone()),
                "stick": d.stick[o].map(|j| dims[j].name.clone()),
                "split": describe(&dims, &d.split[o]),
                "cores": d.split[o].iter().product::<i64>(),
            })
        })
        .collect();
    json!({
        "function": function,
        "traffic": {"elements": elements, "bytes": bytes},
        "restickify": {"count": restickify.len(), "device_elements": cost, "copies": restickify},
        "lx": {"peak_bytes_per_core": peak_lx_bytes(p, d), "placed": placed, "device_memory": device},
        "ops": ops,
    })
}
