//! `fuse-bench`'s output: one column list per kind of row, which both the text table and
//! the JSON rows follow (so they cannot disagree), and the growth of a time from one
//! size to the next.

/// A value of a report column.
pub enum Cell {
    /// Text (unquoted in the table).
    Text(&'static str),
    /// A count.
    Count(usize),
    /// Seconds (3 decimals in the table, 4 in JSON).
    Seconds(f64),
    /// A figure with this many decimals.
    Number(f64, usize),
}

impl Cell {
    /// The value as text, seconds with `seconds_decimals` decimals (text unquoted).
    fn text(&self, seconds_decimals: usize) -> String {
        match *self {
            Cell::Text(text) => text.to_string(),
            Cell::Count(n) => n.to_string(),
            Cell::Seconds(s) => format!("{s:.seconds_decimals$}"),
            Cell::Number(x, decimals) => format!("{x:.decimals$}"),
        }
    }
}

/// One column of a report of rows `R`: its JSON key, its table header (left-aligned
/// when `width` is negative) and its value.
pub struct Column<R> {
    key: &'static str,
    header: &'static str,
    width: i32,
    value: fn(&R) -> Cell,
}

/// A [`Column`].
pub const fn col<R>(key: &'static str, header: &'static str, width: i32, value: fn(&R) -> Cell) -> Column<R> {
    Column {
        key,
        header,
        width,
        value,
    }
}

/// One row as a JSON object.
pub fn json_row<R>(columns: &[Column<R>], r: &R) -> String {
    let fields: Vec<String> = columns
        .iter()
        .map(|c| match (c.value)(r) {
            Cell::Text(text) => format!("\"{}\": \"{text}\"", c.key),
            cell => format!("\"{}\": {}", c.key, cell.text(4)),
        })
        .collect();
    format!("{{{}}}", fields.join(", "))
}

/// The rows as a JSON array.
pub fn json<R>(columns: &[Column<R>], rows: &[R]) -> String {
    let rows: Vec<String> = rows.iter().map(|r| json_row(columns, r)).collect();
    format!("[\n  {}\n]\n", rows.join(",\n  "))
}

/// The rows as a text table.
pub fn table<R>(columns: &[Column<R>], rows: &[R]) -> String {
    let pad = |text: &str, width: i32| {
        let w = width.unsigned_abs() as usize;
        if width < 0 {
            format!("{text:<w$}")
        } else {
            format!("{text:>w$}")
        }
    };
    let line = |cells: Vec<String>| cells.join(" ").trim_end().to_string() + "\n";
    let mut table = line(columns.iter().map(|c| pad(c.header, c.width)).collect());
    for r in rows {
        table += &line(
            columns
                .iter()
                .map(|c| pad(&(c.value)(r).text(3), c.width))
                .collect(),
        );
    }
    table
}

/// How a time grows from `n1` to `n2` nodes: the ratio and the exponent `k` of
/// `t ~ n^k` through the two points (1 is linear).
pub fn growth(n1: usize, t1: f64, n2: usize, t2: f64) -> (f64, f64) {
    let ratio = t2 / t1;
    (ratio, ratio.ln() / (n2 as f64 / n1 as f64).ln())
}

/// The median of `v` (the upper one of an even count); 0 for none.
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn growth_is_the_ratio_and_its_exponent() {
        let (ratio, k) = growth(10_000, 0.2, 100_000, 2.0);
        assert!(
            (ratio - 10.0).abs() < 1e-9 && (k - 1.0).abs() < 1e-9,
            "{ratio} {k}"
        );
        let (ratio, k) = growth(1_000, 0.01, 10_000, 1.0);
        assert!(
            (ratio - 100.0).abs() < 1e-9 && (k - 2.0).abs() < 1e-9,
            "{ratio} {k}"
        );
    }

    #[test]
    fn median_takes_the_middle_run() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![5.0]), 5.0);
        assert_eq!(median(vec![]), 0.0);
    }
}
