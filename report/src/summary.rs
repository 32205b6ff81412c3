//! One row of a fusion comparison — kernels, library kernels, launches, bytes read from
//! and written to memory (HBM), the largest kernel, the fusion passes' time — read off
//! a fusion report. `fuse-opt --fusion-compare` prints these rows as text or JSON, and
//! the HTML page's summary table shows the same rows.

use crate::model::Report;
use serde_json::{json, Value};

/// One row of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryRow {
    /// `eager`, `inductor`, `tvm`.
    pub strategy: String,
    /// Generated kernels.
    pub kernels: u64,
    /// Library calls (mm, bmm, convolution); not split out for the eager baseline.
    pub extern_kernels: Option<u64>,
    /// Kernel launches (kernels + extern kernels).
    pub launches: u64,
    /// Bytes read from memory.
    pub bytes_read: u64,
    /// Bytes written to memory.
    pub bytes_written: u64,
    /// Member nodes of the largest kernel (after inlining, for Inductor).
    pub largest_kernel: u64,
    /// Seconds the fusion passes took (none for the eager baseline).
    pub fusion_time_s: Option<f64>,
}

/// Bytes as the tables print them (`44.02 MiB`).
pub fn mib(bytes: u64) -> String {
    format!("{:.2} MiB", bytes as f64 / (1024.0 * 1024.0))
}

fn count(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

impl SummaryRow {
    /// The eager baseline of `report` (one kernel per aten op, as `--lower-aten-to-loop`
    /// recorded it); zeros where the report has none.
    pub fn eager(report: &Report) -> Self {
        let unfused = report.unfused.clone().unwrap_or(Value::Null);
        let kernels = count(&unfused, "kernels");
        Self {
            strategy: "eager".into(),
            kernels,
            extern_kernels: None,
            launches: kernels,
            bytes_read: count(&unfused, "bytes_read"),
            bytes_written: count(&unfused, "bytes_written"),
            largest_kernel: 1,
            fusion_time_s: None,
        }
    }

    /// The row of `report`'s strategy.
    pub fn of(report: &Report) -> Self {
        let totals = &report.totals;
        Self {
            strategy: report.strategy.clone(),
            kernels: count(totals, "kernels"),
            extern_kernels: Some(count(totals, "extern_kernels")),
            launches: count(totals, "launches"),
            bytes_read: count(totals, "bytes_read"),
            bytes_written: count(totals, "bytes_written"),
            largest_kernel: report.largest_kernel(),
            fusion_time_s: report.fusion_time_s,
        }
    }

    /// The row as `fuse-opt --fusion-compare=json` writes it.
    pub fn to_json(&self) -> Value {
        json!({
            "strategy": self.strategy,
            "kernels": self.kernels,
            "extern_kernels": self.extern_kernels,
            "launches": self.launches,
            "bytes_read": self.bytes_read,
            "bytes_written": self.bytes_written,
            "bytes_total": self.bytes_read + self.bytes_written,
            "largest_kernel": self.largest_kernel,
            "fusion_time_s": self.fusion_time_s,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::chain_report;

    #[test]
    fn rows_read_the_totals_and_the_eager_baseline() {
        let mut r = chain_report(&[2, 3]);
        r.fusion_time_s = Some(0.5);
        let row = SummaryRow::of(&r);
        assert_eq!(
            (
                row.kernels,
                row.extern_kernels,
                row.launches,
                row.bytes_read,
                row.bytes_written,
                row.largest_kernel
            ),
            (2, Some(0), 2, 1, 2, 3)
        );
        let eager = SummaryRow::eager(&r);
        assert_eq!(
            (
                eager.kernels,
                eager.launches,
                eager.bytes_read,
                eager.bytes_written
            ),
            (5, 5, 10, 20)
        );
        assert_eq!(row.to_json()["bytes_total"], 3);
        assert_eq!(row.fusion_time_s, Some(0.5));
    }
}
