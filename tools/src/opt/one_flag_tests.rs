//! The mission's command as written (issue 45): a strategy's own flag, and
//! `--fuse=strategy=S`, on a program in the aten dialect give the decisions
//! `--fusion-compare` reports for S on every target — kernels, their members and the
//! launches — on every example and every imported test model.

use super::{compare::run_strategy, process_chunk, Options};
use fuselab_dialects::{source::Source, DiagnosticSink};
use fuselab_passes::{
    fusion::table::strategy_pipeline, fusion::STRATEGIES, DriverSettings, ReportCollector, TargetRef,
};
use serde_json::Value;

/// One function's decisions: its name, each kernel's name and members, the launches.
type Decisions = (String, Vec<(String, String)>, Value);

/// The decisions of a report, per function.
fn decisions(reports: &[Value]) -> Vec<Decisions> {
    reports
        .iter()
        .map(|r| {
            let kernels = r["kernels"]
                .as_array()
                .map(|ks| {
                    ks.iter()
                        .map(|k| (k["name"].to_string(), k["members"].to_string()))
                        .collect()
                })
                .unwrap_or_default();
            (
                r["function"].to_string(),
                kernels,
                r["totals"]["launches"].clone(),
            )
        })
        .collect()
}

/// The reports of `fuse-opt FLAG --target=T` on `text`.
fn one_flag(text: &str, flag: &str, target: TargetRef) -> Vec<Value> {
    let collector = ReportCollector::default();
    let (name, value) = flag.split_once('=').map_or((flag, ""), |(n, v)| (n, v));
    let info = crate::passes::lookup(name).expect("a registered pass");
    let options = Options {
        steps: vec![crate::driver::fuselab_step(info, value).expect("options")],
        settings: DriverSettings {
            target: Some(target),
            report_collector: Some(collector.clone()),
            ..DriverSettings::default()
        },
        ..Options::default()
    };
    let result = process_chunk(Source::Text(text), "input.mlir", &options).expect("runs");
    assert!(result.output.is_some(), "{flag}: {:?}", result.diagnostics);
    collector.take()
}

fn inputs() -> Vec<(String, String)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mut all = Vec::new();
    for entry in std::fs::read_dir(format!("{root}/examples")).expect("examples") {
        let path = entry.expect("entry").path();
        let text = std::fs::read_to_string(&path).expect("example");
        all.push((path.display().to_string(), text));
    }
    for dir in ["test/Models/Inputs", "test/Import/Inputs"] {
        for entry in std::fs::read_dir(format!("{root}/{dir}")).expect("models") {
            let path = entry.expect("entry").path();
            let name = path.display().to_string();
            if !name.ends_with(".pt2") {
                continue;
            }
            // Archives the importer refuses (the error tests' inputs) are no programs.
            if let Ok(imported) =
                fuselab_import::import_file(&name, &fuselab_import::ImportOptions::default())
            {
                all.push((name, imported.text));
            }
        }
    }
    all.sort();
    all
}

/// Every input, every strategy on `target`: the strategy's own flag (and, on the
/// examples, `--fuse=strategy=S`) against `--fusion-compare`'s pipeline.
fn check_target(target: &str) {
    let entry = fuselab_targets::target(target).expect("a target");
    let target = TargetRef(entry.target);
    let mut checked = 0;
    let mut mismatches = Vec::new();
    for (name, text) in inputs() {
        for &strategy in STRATEGIES {
            let sink = DiagnosticSink::new();
            let Some((reports, _)) = run_strategy(
                &strategy_pipeline(strategy),
                Some(target),
                Source::Text(&text),
                &name,
                &sink,
            )
            .expect("compare runs") else {
                // The strategy refuses the program on this target (a located error).
                continue;
            };
            let want = decisions(&reports);
            let mut flags = vec![strategy.pass().argument.to_string()];
            if name.contains("/examples/") {
                flags.push(format!("fuse=strategy={}", strategy.name()));
            }
            for flag in flags {
                checked += 1;
                if decisions(&one_flag(&text, &flag, target)) != want {
                    mismatches.push(format!("{name} --{flag} --target={}", entry.target.name()));
                }
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    assert!(checked > 100, "{checked} runs");
}

#[test]
fn strategy_flags_on_aten_input_decide_as_fusion_compare_on_cpu() {
    check_target("cpu");
}

#[test]
fn strategy_flags_on_aten_input_decide_as_fusion_compare_on_gpu() {
    check_target("gpu");
}

#[test]
fn strategy_flags_on_aten_input_decide_as_fusion_compare_on_ascend() {
    check_target("ascend");
}

#[test]
fn strategy_flags_on_aten_input_decide_as_fusion_compare_on_spyre() {
    check_target("spyre");
}

/// `--help` lists every row of the strategy table and every target, from the tables.
#[test]
fn help_lists_every_strategy_and_target_from_the_tables() {
    let help = super::help_text();
    for pipeline in fuselab_passes::fusion::table::execution_pipelines() {
        if pipeline.fusion.is_empty() {
            continue;
        }
        let row = format!("      pipeline from aten: {}\n", pipeline.text());
        assert!(
            help.contains(&format!("\n  {:<29}", pipeline.name)),
            "{}",
            pipeline.name
        );
        assert!(help.contains(&row), "{row}");
    }
    for entry in fuselab_targets::TARGETS {
        assert!(help.contains(&format!(
            "\n  {:<29}{}",
            entry.target.name(),
            entry.target.summary()
        )));
    }
    for strategy in STRATEGIES {
        assert!(help.contains(&format!(
            "--{:<27}{}\n      on aten input: the {} strategy's whole pipeline",
            strategy.pass().argument,
            strategy.pass().summary,
            strategy.name()
        )));
    }
}
