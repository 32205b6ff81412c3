//! fuselab's visual fusion report: fusion decisions drawn as one self-contained HTML
//! page (`fuse-opt --fusion-compare=html`, `--fusion-report=FILE.html`, and the HTML
//! view of the Python `fuselab.compare` table).
//!
//! Its input is the fusion report every fusion pass writes (JSON, with the graph the
//! strategy decided over), so the page needs no IR and no MLIR: this crate depends on
//! the report's format only. [`model`] reads the reports, [`summary`] makes the rows of
//! the comparison table (also `--fusion-compare`'s text and JSON), [`layout`] places the
//! drawing with dagre's layered layout, [`timings`] reads measured times, [`parity`]
//! matches fuselab's profiled kernels to Inductor's, [`page`] writes the page.

pub mod layout;
pub mod model;
pub mod page;
pub mod parity;
pub mod summary;
pub mod timings;

pub use model::{Report, ReportError};
pub use summary::SummaryRow;
pub use timings::{TimingError, Timings};

use serde_json::Value;

/// One strategy's result: its reports, one per function, in function order.
#[derive(Clone, Debug, PartialEq)]
pub struct StrategyResult {
    /// Strategy name.
    pub strategy: String,
    /// One report per function.
    pub reports: Vec<Report>,
}

impl StrategyResult {
    /// Reads the reports a fusion pass wrote (`fuse-opt --fusion-report` documents'
    /// `functions` entries) for `strategy`, its passes having taken `fusion_time_s` on
    /// their module.
    pub fn from_reports(
        strategy: &str,
        fusion_time_s: Option<f64>,
        reports: &[Value],
    ) -> Result<Self, ReportError> {
        let mut reports: Vec<Report> = reports.iter().map(Report::from_json).collect::<Result<_, _>>()?;
        for report in &mut reports {
            report.fusion_time_s = fusion_time_s;
        }
        Ok(Self {
            strategy: strategy.to_string(),
            reports,
        })
    }

    /// Groups reports by the strategy each names, in first-seen order (one
    /// `--fusion-report=FILE.html` run may hold several fusion passes).
    pub fn by_strategy(reports: &[Value]) -> Result<Vec<Self>, ReportError> {
        let mut results: Vec<Self> = Vec::new();
        for value in reports {
            let report = Report::from_json(value)?;
            let strategy = report.strategy.clone();
            Self::merge(
                &mut results,
                Self {
                    strategy,
                    reports: vec![report],
                },
            );
        }
        Ok(results)
    }

    /// Appends `more`'s reports to the result of the same strategy in `results` (the
    /// functions of another module), or `more` itself when `results` has none.
    pub fn merge(results: &mut Vec<Self>, more: Self) {
        match results.iter_mut().find(|r| r.strategy == more.strategy) {
            Some(existing) => existing.reports.extend(more.reports),
            None => results.push(more),
        }
    }
}

/// The page of `results`, titled `title`, with measured times where given.
pub fn html(title: &str, results: &[StrategyResult], timings: Option<&Timings>) -> String {
    page::render(title, results, timings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::chain_report_json;

    fn page(timings: Option<&Timings>) -> String {
        let a = chain_report_json(&[2, 2, 1]);
        let mut b = chain_report_json(&[5]);
        b["strategy"] = "tvm".into();
        let results = StrategyResult::by_strategy(&[a, b]).expect("reports");
        html("model.py <1>", &results, timings)
    }

    #[test]
    fn the_page_holds_one_group_per_kernel_per_strategy_and_the_summary_rows() {
        let text = page(None);
        assert!(text.starts_with("<!DOCTYPE html>"));
        assert_eq!(text.matches("<g class=\"kernel\"").count(), 4);
        assert_eq!(
            text.matches("<tr data-strategy=").count(),
            3,
            "eager, inductor, tvm"
        );
        assert_eq!(text.matches("<g class=\"node ").count(), 10);
        assert!(text.contains("model.py &lt;1&gt;"), "the title is escaped");
        // Self-contained: no external script, style or image.
        for reference in ["src=", "href=\"http", "<link", "@import"] {
            assert!(
                !text.contains(reference),
                "page refers outside itself: {reference}"
            );
        }
    }

    #[test]
    fn embedded_data_cannot_close_its_script_element() {
        let mut a = chain_report_json(&[1]);
        a["rejected"][0]["reason"] = "</script><script>alert(1)</script>".into();
        let results = StrategyResult::by_strategy(&[a]).expect("reports");
        let text = html("x", &results, None);
        assert_eq!(
            text.matches("</script>").count(),
            2,
            "only the page's own two script elements"
        );
    }

    #[test]
    fn measured_times_add_a_column() {
        let t = Timings::from_json(&serde_json::json!({"functions": [{"function": "chain",
            "strategies": [{"strategy": "tvm", "median_s": 0.0025}]}]}))
        .expect("timings");
        let text = page(Some(&t));
        assert!(text.contains("<th>measured</th>"));
        assert!(text.contains("<td class=\"measured\">2.50 ms</td>"));
    }

    #[test]
    fn the_page_is_deterministic() {
        assert_eq!(page(None), page(None));
    }
}
