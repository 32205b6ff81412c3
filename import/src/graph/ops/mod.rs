//! The importer's target tables, one file per op family. Each [`Rule`] names the
//! `torch.ops.*` targets (op and overload) it imports and how; [`rule`] finds the one
//! for a node, and a target in no table is an error at the node's source line. The
//! list of supported targets (docs, `--help`) is read from these tables.

mod creation;
mod elementwise;
mod indexing;
mod matmul;
mod pooling;
mod reductions;
mod shape;

use super::{Emitter, Node, R};

/// How a node of a target is imported: `(emitter, node, target)`.
pub(super) type Import = for<'m, 'a, 'n> fn(&'a mut Emitter<'m>, &'n Node<'m>, &'n str) -> R<()>;

/// One row of a family table.
pub(super) struct Rule {
    /// The targets (`aten.add.Tensor`) this row imports.
    pub targets: &'static [&'static str],
    /// The import.
    pub import: Import,
}

impl<'m> Emitter<'m> {
    /// Imports one node by the rule of its target.
    pub(super) fn emit_node(&mut self, node: &Node<'m>) -> R<()> {
        let target = node.target.strip_prefix("torch.ops.").unwrap_or(&node.target);
        match rule(target) {
            Some(rule) => (rule.import)(self, node, target),
            None => Err(self.node_error(node, "fuse-import does not support this op")),
        }
    }
}

/// Every family's rows, in documentation order.
const FAMILIES: &[&[Rule]] = &[
    elementwise::RULES,
    reductions::RULES,
    matmul::RULES,
    pooling::RULES,
    shape::RULES,
    indexing::RULES,
    creation::RULES,
];

/// The rule importing `target`.
pub(super) fn rule(target: &str) -> Option<&'static Rule> {
    FAMILIES
        .iter()
        .flat_map(|family| family.iter())
        .find(|rule| rule.targets.contains(&target))
}

/// Every target of every table.
pub(super) fn targets() -> impl Iterator<Item = &'static str> {
    FAMILIES
        .iter()
        .flat_map(|family| family.iter())
        .flat_map(|rule| rule.targets.iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No target is claimed by two rows (the first would silently win).
    #[test]
    fn every_target_has_one_rule() {
        let all: Vec<&str> = targets().collect();
        let mut unique = all.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(all.len(), unique.len(), "a target is in two tables");
        assert!(all.len() > 80, "{}", all.len());
        assert!(rule("aten.add.Tensor").is_some() && rule("aten.eq.Scalar").is_some());
        assert!(
            rule("aten.eq.Foo").is_none(),
            "prefix rules must not accept unknown overloads"
        );
    }
}
