//! fuselab's dialects and the IR plumbing every tool shares.
//!
//! - [`aten`]: ATen tensor ops (the input): op table, accessors, builders, shape verifier.
//! - [`loops`]: Inductor's loop-level IR: op kinds, accessors, builders, verifier.
//! - [`tile`], [`ascend`], [`spyre`]: the device dialects' op names (their IRDL files are
//!   the definitions; the name lists are tested against them).
//! - [`context`]: an MLIR context with upstream and fuselab (IRDL) dialects loaded.
//! - [`source`]: parsing with real buffer names and an implicit top-level module.
//! - [`diagnostics`]: located diagnostics collected from MLIR and from Rust code.
//! - [`types`], [`attrs`]: plain-data views of tensor types and attributes.

/// Declares a dialect's op names once: a constant per op (`"<dialect>.<op>"`), the
/// dialect's prefix and `ALL`, in the IRDL file's order (a test compares the two).
macro_rules! op_names {
    ($dialect:literal; $($(#[$doc:meta])* $name:ident = $op:literal,)+) => {
        #[doc = concat!("The `", $dialect, ".` prefix every op name of the dialect starts with.")]
        pub const PREFIX: &str = concat!($dialect, ".");
        $(
            $(#[$doc])*
            #[doc = concat!("`", $dialect, ".", $op, "`.")]
            pub const $name: &str = concat!($dialect, ".", $op);
        )+
        /// Every op of the dialect, in the order of its IRDL definition.
        pub const ALL: &[&str] = &[$($name),+];
    };
}

pub mod ascend;
pub mod aten;
pub mod attrs;
pub mod build;
pub mod context;
pub mod diagnostics;
pub mod ir;
pub mod loops;
pub mod source;
pub mod spyre;
pub mod tile;
pub mod types;

pub use context::FuseContext;
pub use diagnostics::{Diagnostic, DiagnosticSink, Severity, SourceLoc};

use melior::ir::OperationRef;

/// Errors at the edge of this crate.
#[derive(Debug, thiserror::Error)]
pub enum DialectError {
    /// An embedded IRDL definition failed to parse or load (a build bug, not user error).
    #[error("the embedded IRDL definition of dialect '{dialect}' is invalid")]
    InvalidIrdl {
        /// The dialect whose definition failed.
        dialect: &'static str,
    },
}

/// Runs every fuselab verifier (aten shapes, loop structure) over `root`.
/// Returns `true` when no error was reported to `sink`.
pub fn verify_fuselab(root: OperationRef, sink: &DiagnosticSink) -> bool {
    let aten_ok = aten::verify_aten(root, sink);
    let loop_ok = loops::verify_loop(root, sink);
    aten_ok && loop_ok
}

#[cfg(test)]
mod tests {
    use crate::{
        aten::{AtenBuilder, AtenOpKind},
        loops::{index::contiguous_index, LoopBuilder},
        source::parse_module,
        DiagnosticSink, FuseContext,
    };
    use melior::ir::{
        block::BlockLike, operation::OperationLike, r#type::RankedTensorType, Block, Location, Region,
        RegionLike, Type,
    };

    /// The typed builders produce ops that pass the IRDL and fuselab verifiers.
    #[test]
    fn builders_make_verified_ops() {
        let fuse = FuseContext::new().expect("dialects load");
        let context = fuse.context();
        let sink = DiagnosticSink::new();
        sink.capture(context);
        let module = parse_module(
            context,
            "func.func @f(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {\n  return %x : tensor<4x8xf32>\n}",
            "builders.mlir",
            &sink,
        )
        .expect("parses");
        let func = module.body().first_operation().expect("a function");
        let entry = func.region(0).expect("body").first_block().expect("block");
        let ret = entry.terminator().expect("return");
        let (x, b) = (
            entry.argument(0).expect("x").into(),
            entry.argument(1).expect("b").into(),
        );
        let loc = Location::unknown(context);
        let f32 = Type::float32(context);
        let tensor: Type = RankedTensorType::new(&[4, 8], f32, None).into();

        let aten = AtenBuilder::new(context);
        let add = aten
            .build(AtenOpKind::Add, loc, &[x, b], &[], tensor)
            .expect("builds");
        entry.insert_operation_before(ret, add);

        let loops = LoopBuilder::new(context);
        let index = Type::index(context);
        let body = Block::new(&[(index, loc), (index, loc)]);
        let map = melior::ir::Attribute::parse(context, &contiguous_index(&[4, 8]).to_affine_map(2, 0))
            .expect("map");
        let load = body.append_operation(loops.load(loc, x, map, f32).expect("load builds"));
        let value = load.result(0).expect("value").into();
        body.append_operation(
            melior::ir::operation::OperationBuilder::new(crate::loops::BODY_TERMINATOR, loc)
                .add_operands(&[value])
                .build()
                .expect("yield builds"),
        );
        let region = Region::new();
        region.append_block(body);
        let node = loops
            .pointwise(loc, "buf0", &[4, 8], &["clone"], region, tensor)
            .expect("node builds");
        entry.insert_operation_before(ret, node);

        assert!(module.as_operation().verify(), "{:?}", sink.take());
        assert!(
            crate::verify_fuselab(module.as_operation(), &sink),
            "{:?}",
            sink.take()
        );
        let text = module.as_operation().to_string();
        assert!(text.contains("\"aten.add\""), "{text}");
        assert!(text.contains("\"loop.pointwise\""), "{text}");
        // A wrong result shape is caught by the aten verifier at the op.
        let bad: Type = RankedTensorType::new(&[8, 4], f32, None).into();
        entry.insert_operation_before(
            ret,
            aten.build(AtenOpKind::Add, loc, &[x, b], &[], bad)
                .expect("builds"),
        );
        assert!(!crate::verify_fuselab(module.as_operation(), &sink));
        assert!(sink
            .take()
            .iter()
            .any(|d| d.message.contains("does not match the expected shape [4, 8]")));
    }
}
