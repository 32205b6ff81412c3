//! Loads of a tile block that read what an earlier load of the same block read: the
//! same buffer, offsets, mask and `other` computed by the same pure ops, and no store to
//! that buffer in between. The later one reuses the earlier one's registers — as a
//! persistent reduction in Triton loads its row once for every reduction over it.
//! (LLVM would find most of these itself, but not when each load is split into a
//! vector path and a masked path: then the loads sit in branches.)

use fuselab_dialects::tile::names as tile_op;
use fuselab_dialects::{build::Value, ir};
use mlir_sys::{MlirOperation, MlirValue};
use std::collections::HashMap;

/// What a `tile.load` reads: its tile block, its buffer and the structural keys of its
/// offsets, mask and `other`.
type Key = (usize, usize, [usize; 3]);

/// Earlier loads by what they read.
#[derive(Default)]
pub(super) struct LoadCache {
    /// Each value's structural key.
    keys: HashMap<usize, usize>,
    /// Structural keys, hash-consed: an op's name, attributes, operand keys and type (a
    /// shared subexpression is one number, so a key's text never holds a whole DAG).
    interned: HashMap<String, usize>,
    loads: HashMap<Key, Vec<Value>>,
}

impl LoadCache {
    /// The key of `tile.load` `op`.
    pub(super) fn key(&mut self, op: MlirOperation) -> Key {
        let o = ir::operands(op);
        let what = [self.of(o[1]), self.of(o[2]), self.of(o[3])];
        (ir::parent_block(op).ptr as usize, o[0].ptr as usize, what)
    }

    /// The slots an earlier load with `key` produced.
    pub(super) fn get(&self, key: &Key) -> Option<Vec<Value>> {
        self.loads.get(key).cloned()
    }

    /// Records a load's slots.
    pub(super) fn insert(&mut self, key: Key, slots: Vec<Value>) {
        self.loads.insert(key, slots);
    }

    /// Forgets the loads of `buffer` (a store to it).
    pub(super) fn forget(&mut self, buffer: MlirValue) {
        self.loads.retain(|k, _| k.1 != buffer.ptr as usize);
    }

    /// A structural key of `v`: pure ops (arith, math, the tile index ops) by name,
    /// attributes and operands; anything else (block arguments, loads, reductions) by
    /// identity.
    fn of(&mut self, v: MlirValue) -> usize {
        if let Some(&k) = self.keys.get(&(v.ptr as usize)) {
            return k;
        }
        let text = match ir::defining_op(v) {
            Some(op) if pure(&ir::op_name(op)) && ir::result_count(op) == 1 => {
                let attrs: Vec<String> = ir::named_attributes(op)
                    .into_iter()
                    .map(|(n, a)| format!("{n}={}", ir::attr_string(a)))
                    .collect();
                let operands: Vec<String> = ir::operands(op)
                    .into_iter()
                    .map(|o| self.of(o).to_string())
                    .collect();
                format!(
                    "{}{{{}}}({}):{}",
                    ir::op_name(op),
                    attrs.join(","),
                    operands.join(","),
                    ir::type_string(ir::value_type(v))
                )
            }
            _ => format!("%{:x}", v.ptr as usize),
        };
        let next = self.interned.len();
        let key = *self.interned.entry(text).or_insert(next);
        self.keys.insert(v.ptr as usize, key);
        key
    }
}

fn pure(name: &str) -> bool {
    (name.starts_with("arith.") || name.starts_with("math."))
        || matches!(
            name,
            tile_op::SPLAT | tile_op::BROADCAST | tile_op::ARANGE | tile_op::PROGRAM_ID
        )
}
