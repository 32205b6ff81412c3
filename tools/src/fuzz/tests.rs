//! Tests of the graph generator.
use super::*;

/// A multi-line error stays inside comments, so the reproducer parses as written
/// (issue 13, item 14: its second line was left uncommented).
#[test]
fn reproducer_headers_comment_every_line() {
    let problems = vec!["inductor: a.mlir:2:3: error: bad\na.mlir:2:3: note: see op".to_string()];
    let text = reproducer_text(
        7,
        &problems,
        Mode::cpu(true),
        "out/fuzz-7.mlir",
        "func.func @f() {\n  return\n}\n",
    );
    let header: Vec<&str> = text.lines().take_while(|l| !l.starts_with("func.func")).collect();
    assert_eq!(header.len(), 3, "{text}");
    assert!(header.iter().all(|l| l.starts_with("//")), "{text}");
    assert!(
        header[2].contains("fuse-run --seed 7 --jit out/fuzz-7.mlir"),
        "{text}"
    );
    let fuse = fuselab_dialects::FuseContext::new().expect("context");
    let sink = fuselab_dialects::DiagnosticSink::new();
    assert!(fuselab_dialects::source::parse_module(fuse.context(), &text, "r.mlir", &sink).is_some());
}

/// `cargo test` runs 300 random graphs through every strategy against the oracle.
#[test]
fn three_hundred_random_graphs_match_the_oracle_under_every_strategy() {
    let mut failed = Vec::new();
    for seed in 1..=300u64 {
        let text = generate(seed);
        let problems = failures(&text, seed);
        if !problems.is_empty() {
            failed.push(format!("seed {seed}: {}\n{text}", problems.join("; ")));
        }
    }
    assert!(
        failed.is_empty(),
        "{} graphs failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

/// And 40 of them with every strategy's result compiled (CPU code + LLVM JIT).
#[test]
fn forty_random_graphs_match_the_oracle_when_compiled() {
    let failed: Vec<String> = (301..=340u64)
        .filter_map(|seed| {
            let text = generate(seed);
            let problems = failures_with(&text, seed, Mode::cpu(true));
            (!problems.is_empty()).then(|| format!("seed {seed}: {}\n{text}", problems.join("; ")))
        })
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn graphs_are_deterministic_per_seed_and_varied() {
    assert_eq!(generate(5), generate(5));
    let distinct: std::collections::HashSet<String> = (0..50).map(generate).collect();
    assert_eq!(distinct.len(), 50);
    // The generator reaches the op families it promises.
    let all: String = (0..300).map(generate).collect();
    for op in [
        "aten.softmax",
        "aten.layer_norm",
        "aten.group_norm",
        "aten.gather",
        "aten.cat",
        "aten.transpose",
        "aten.where",
        "aten.var",
        "aten.expand",
        "aten.linear",
    ] {
        assert!(all.contains(op), "no {op} in 300 graphs");
    }
}

/// Near misses of the pattern passes (issue 44, item 1): 150 graphs of unrolled cells,
/// stacked attention and cumsums, damaged or intact, checked on the GPU target (where
/// the passes rewrite) against the oracle: no crash, no wrong answer.
#[test]
fn pattern_near_misses_match_the_oracle_on_the_gpu_target() {
    let gpu = Mode {
        target: fuselab_targets::target("gpu").expect("gpu target"),
        ..Mode::cpu(false)
    };
    let failed: Vec<String> = (1..=150u64)
        .filter_map(|seed| {
            let text = patterns::generate(seed);
            let problems = failures_with(&text, seed, gpu);
            (!problems.is_empty()).then(|| format!("seed {seed}: {}\n{text}", problems.join("; ")))
        })
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// The near-miss generator hits the passes: of 150 graphs, the intact forms are
/// rewritten (fused cells, one attention call, a cumsum replaced by an arange), and
/// damaged ones are left alone, so both kinds occur.
#[test]
fn pattern_near_misses_are_rewritten_where_intact_and_kept_where_damaged() {
    let fuse = fuselab_dialects::FuseContext::new().expect("context");
    let gpu = fuselab_targets::target("gpu").expect("gpu target");
    let (mut cells, mut attention, mut cumsum, mut kept) = (0, 0, 0, 0);
    for seed in 1..=150u64 {
        let text = patterns::generate(seed);
        let module = crate::driver::pipeline_module(
            &fuse,
            &text,
            "p.mlir",
            "fuse-rnn-cells,fuse-attention,pointless-cumsum",
            gpu,
        )
        .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        let out = module.as_operation().to_string();
        cells += out.matches("aten.fused_lstm_cell").count() + out.matches("aten.fused_gru_cell").count();
        attention += out.matches("aten.scaled_dot_product_attention").count();
        cumsum += usize::from(
            text.contains("\"cumsum\"") && !out.contains("aten.le\"") && !out.contains("aten.ge\""),
        );
        kept += usize::from(
            out.contains("aten.sigmoid") || out.contains("aten.softmax") || out.contains("aten.le\""),
        );
    }
    assert!(cells >= 20, "{cells} fused cells");
    assert!(attention >= 20, "{attention} attention calls");
    assert!(cumsum >= 10, "{cumsum} cumsums replaced");
    assert!(kept >= 20, "{kept} graphs kept a damaged form");
}
