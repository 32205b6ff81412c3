//! A node's body evaluated at block coordinates, kernel-local producers recomputed at
//! their reads (once per position and kernel state: [`Recomputed`]), and the buffers a
//! node reads through them.

use super::*;
use fuselab_passes::analysis::rows::{reads_at_own_position, Recomputed};

impl Lowering {
    /// Builds `node`'s body at `coords`; returns the yielded value.
    pub(super) fn eval(&mut self, k: &mut Kernel, node: MlirOperation, coords: &[V]) -> Result<V, TileError> {
        let outer = self.b.location();
        let v = self.eval_ops(k, node, coords);
        self.b.at(outer);
        v
    }

    fn eval_ops(&mut self, k: &mut Kernel, node: MlirOperation, coords: &[V]) -> Result<V, TileError> {
        let block = ir::first_block(ir::region(node, 0)).ok_or_else(|| err(node, "node without a body"))?;
        let mut values: HashMap<usize, V> = HashMap::new();
        for (a, &c) in ir::block_arguments(block).iter().zip(coords) {
            values.insert(a.ptr as usize, c);
        }
        for op in ir::block_ops(block) {
            self.b.at(ir::location(op));
            let name = ir::op_name(op);
            let operands = ir::operands(op);
            let get = |v: &mlir_sys::MlirValue| {
                values
                    .get(&(v.ptr as usize))
                    .copied()
                    .ok_or_else(|| err(op, "operand defined outside the body"))
            };
            if name == names::YIELD {
                return get(&operands[0]);
            }
            let result = ir::result(op, 0).ptr as usize;
            if name == names::LOAD {
                let syms: Vec<V> = operands[1..].iter().map(get).collect::<Result<_, _>>()?;
                let source = operands[0].ptr as usize;
                if let Some(&held) = k.regs.get(&source) {
                    // A reduction of this program, read at its own row: in registers.
                    values.insert(result, V::B(held, [k.xb, 1]));
                    continue;
                }
                if let Some(&producer) = self.inline.get(&source) {
                    let ranges = i64s(producer, "ranges");
                    let same_space = reads_at_own_position(op, node, producer, coords.len(), syms.len());
                    let read_with: &[V] = if same_space {
                        &coords[..ranges.len()]
                    } else {
                        coords
                    };
                    // What a load in the member's body depends on besides its position:
                    // the mask and the transposed rows. Not which reductions are held in
                    // registers: a member reads only reductions before it, so one of
                    // this program's is held at every read of the member (values built
                    // before and after a later reduction are the same).
                    let state = [
                        Self::value_of(k.mask).ptr as usize,
                        usize::from(k.transposed.is_some()),
                    ];
                    let key = self.b.block().map(|block| {
                        let values = read_with.iter().chain(&syms).map(|&v| Self::value_of(v));
                        Recomputed::new(producer, block, op, same_space, values, &state)
                    });
                    if let Some(&v) = key.as_ref().and_then(|key| k.recomputed.get(key)) {
                        values.insert(result, v);
                        continue;
                    }
                    let pdims = if same_space {
                        read_with.to_vec()
                    } else {
                        let flat = self.load_offset(op, coords, &syms)?;
                        self.unravel(flat, &ranges)
                    };
                    let v = self.eval(k, producer, &pdims)?;
                    if let Some(key) = key {
                        k.recomputed.insert(key, v);
                    }
                    values.insert(result, v);
                    continue;
                }
                let buf = self.buffer(op, operands[0])?;
                // At the program's own rows, under the rows' mask (the transposed order
                // has no other).
                let own_rows = Self::value_of(k.mask).ptr == k.xmask.ptr && k.at_rows(coords);
                let index = ir::attr(op, "index")
                    .and_then(fuselab_dialects::loops::index::from_affine_map_attr)
                    .filter(|(_, dims, _)| syms.is_empty() && *dims == coords.len())
                    .map(|(e, _, _)| e);
                let transposed = match (&index, k.transposed.as_mut()) {
                    (Some(e), Some(t)) if own_rows => t.dims_for(e, &k.prefix, coords),
                    _ => None,
                };
                let v = match (transposed, k.tiles) {
                    (Some(dims), Some((t, _))) => {
                        let offset = self.load_offset(op, &dims, &syms)?;
                        let v = self.load(k, &buf, offset);
                        self.transpose_back(v, t)
                    }
                    // The program's own rows of a buffer of its shape: the flat rows
                    // themselves (no index arithmetic; adjacent for the GPU lowering).
                    _ if index.is_some_and(|e| k.reads_own_rows(&e, coords)) => {
                        self.load(k, &buf, V::B(k.x, [k.xb, 1]))
                    }
                    _ => {
                        let offset = self.load_offset(op, coords, &syms)?;
                        self.load(k, &buf, offset)
                    }
                };
                values.insert(result, v);
                continue;
            }
            let args: Vec<V> = operands.iter().map(get).collect::<Result<_, _>>()?;
            if name == "affine.apply" {
                // Index arithmetic in a body (a gather's computed index): the map on
                // index values, as for load offsets.
                let map = ir::attr(op, "map").ok_or_else(|| err(op, "affine.apply without a map"))?;
                let map = unsafe { mlir_sys::mlirAffineMapAttrGetValue(map) };
                let dims = unsafe { mlir_sys::mlirAffineMapGetNumDims(map) } as usize;
                let e = unsafe { mlir_sys::mlirAffineMapGetResult(map, 0) };
                let v = self.affine(e, &args[..dims], &args[dims..]);
                values.insert(result, v);
                continue;
            }
            let declared = ir::value_type(ir::result(op, 0));
            let half =
                DType::from_mlir(unsafe { melior::ir::Type::from_raw(declared) }).filter(|d| d.is_half());
            let result_ty = widen(declared);
            let same = |a: MlirType, b: MlirType| unsafe { mlir_sys::mlirTypeEqual(a, b) };
            if (name == "arith.extf" || name == "arith.truncf")
                && operands
                    .first()
                    .is_some_and(|&o| same(widen(ir::value_type(o)), result_ty))
            {
                // (An op-math rounding is skipped in a kernel that keeps f32.)
                let skip = self.config.fp32_inside && ir::attr(op, fuselab_dialects::loops::OPMATH).is_some();
                values.insert(result, self.round(args[0], half.filter(|_| !skip)));
                continue;
            }
            let named = ir::named_attributes(op);
            let attributes: Vec<(&str, mlir_sys::MlirAttribute)> =
                named.iter().map(|(k, a)| (k.as_str(), widen_attr(*a))).collect();
            let v = self.op_on(&name, &args, result_ty, &attributes);
            values.insert(result, self.round(v, half.filter(|_| !self.config.fp32_inside)));
        }
        Err(err(node, "body without gpu.yield"))
    }

    /// The buffers `node` reads (through recomputed producers too), in order; each
    /// producer is looked through once (`expanded`: a second visit adds nothing, and
    /// in a chain of `x * x` the visits would double at each node).
    pub(super) fn reads(&self, node: MlirOperation, out: &mut Vec<usize>, expanded: &mut HashSet<usize>) {
        let Some(block) = ir::first_block(ir::region(node, 0)) else {
            return;
        };
        for op in ir::block_ops(block) {
            if ir::op_name(op) != names::LOAD {
                continue;
            }
            let source = ir::operand(op, 0).ptr as usize;
            match self.inline.get(&source) {
                Some(&producer) => {
                    if expanded.insert(source) {
                        self.reads(producer, out, expanded);
                    }
                }
                None => {
                    if !out.contains(&source) {
                        out.push(source);
                    }
                }
            }
        }
    }
}
