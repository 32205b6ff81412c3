//! The fusion report as the page reads it: typed views of the JSON that every fusion
//! pass writes (`fuselab_passes::fusion::report`, the format of `fuse-opt
//! --fusion-report`). A missing field is an error naming it, not a blank drawing.

use serde_json::Value;

/// A report that does not have the fusion report's shape.
#[derive(Debug, thiserror::Error)]
#[error("fusion report: {0}")]
pub struct ReportError(pub String);

fn field<'a>(v: &'a Value, key: &str, what: &str) -> Result<&'a Value, ReportError> {
    v.get(key)
        .ok_or_else(|| ReportError(format!("{what} has no '{key}'")))
}

fn string(v: &Value, key: &str, what: &str) -> Result<String, ReportError> {
    field(v, key, what)?
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| ReportError(format!("{what}'s '{key}' is not a string")))
}

fn number(v: &Value, key: &str, what: &str) -> Result<u64, ReportError> {
    field(v, key, what)?
        .as_u64()
        .ok_or_else(|| ReportError(format!("{what}'s '{key}' is not a count")))
}

fn strings(v: &Value, key: &str, what: &str) -> Result<Vec<String>, ReportError> {
    field(v, key, what)?
        .as_array()
        .ok_or_else(|| ReportError(format!("{what}'s '{key}' is not a list")))?
        .iter()
        .map(|s| {
            s.as_str()
                .map(str::to_string)
                .ok_or_else(|| ReportError(format!("{what}'s '{key}' holds a non-string")))
        })
        .collect()
}

fn list<'a>(v: &'a Value, key: &str, what: &str) -> Result<&'a Vec<Value>, ReportError> {
    field(v, key, what)?
        .as_array()
        .ok_or_else(|| ReportError(format!("{what}'s '{key}' is not a list")))
}

/// One analysis node of the graph the strategy decided over.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Buffer name.
    pub name: String,
    /// `pointwise`, `reduction` or `extern`.
    pub kind: String,
    /// Aten ops it computes.
    pub origins: Vec<String>,
    /// `file:line:col` of its aten op.
    pub loc: Option<String>,
    /// Buffers it reads.
    pub reads: Vec<String>,
    /// Bytes it writes.
    pub bytes: u64,
    /// Whether the function returns it.
    pub output: bool,
}

impl Node {
    /// The text in its box: its aten origins (its buffer name when it has none).
    pub fn label(&self) -> String {
        let text = if self.origins.is_empty() {
            self.name.clone()
        } else {
            self.origins.join("+")
        };
        if text.chars().count() > 30 {
            text.chars().take(29).chain(std::iter::once('…')).collect()
        } else {
            text
        }
    }
}

/// One kernel of the decision.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// Kernel name (`fused_add_gelu_0`, or the buffer of a library call).
    pub name: String,
    /// The library call (`mm`), for an extern kernel.
    pub extern_kind: Option<String>,
    /// Member buffers.
    pub members: Vec<String>,
    /// `(numel, rnumel)`.
    pub iteration: (u64, u64),
    /// Bytes read from memory.
    pub bytes_read: u64,
    /// Bytes written to memory.
    pub bytes_written: u64,
    /// Launches (0 for a kernel folded into another call).
    pub launches: u64,
    /// Members whose buffer never leaves the kernel.
    pub kernel_local: Vec<String>,
}

/// A candidate pair the strategy did not fuse.
#[derive(Clone, Debug, PartialEq)]
pub struct Rejection {
    /// Members of the first group (comma-separated buffer names).
    pub node1: String,
    /// Members of the second group.
    pub node2: String,
    /// Why.
    pub reason: String,
}

/// One function's fusion report.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// Function name.
    pub function: String,
    /// Strategy name.
    pub strategy: String,
    /// Kernels in execution order.
    pub kernels: Vec<Kernel>,
    /// The graph decided over.
    pub nodes: Vec<Node>,
    /// Rejected pairs.
    pub rejected: Vec<Rejection>,
    /// The report's `totals` object, as written.
    pub totals: Value,
    /// The eager baseline (`unfused`), as written, if present.
    pub unfused: Option<Value>,
    /// Seconds the fusion passes took on the module holding the function (not in the
    /// JSON; the caller who timed the passes sets it).
    pub fusion_time_s: Option<f64>,
}

impl Report {
    /// Reads one function's report.
    pub fn from_json(v: &Value) -> Result<Self, ReportError> {
        let function = string(v, "function", "a report")?;
        let what = format!("the report of @{function}");
        let kernels = list(v, "kernels", &what)?
            .iter()
            .map(|k| {
                let name = string(k, "name", "a kernel")?;
                let what = format!("kernel {name}");
                let iteration = list(k, "iteration", &what)?;
                let dim = |i: usize| iteration.get(i).and_then(Value::as_u64).unwrap_or(1);
                Ok(Kernel {
                    extern_kind: k.get("extern").and_then(Value::as_str).map(str::to_string),
                    members: strings(k, "members", &what)?,
                    iteration: (dim(0), dim(1)),
                    bytes_read: number(k, "bytes_read", &what)?,
                    bytes_written: number(k, "bytes_written", &what)?,
                    launches: number(k, "launches", &what)?,
                    kernel_local: strings(k, "kernel_local", &what)?,
                    name,
                })
            })
            .collect::<Result<Vec<_>, ReportError>>()?;
        let graph = field(v, "graph", &what)?;
        let nodes = list(graph, "nodes", &what)?
            .iter()
            .map(|n| {
                let name = string(n, "name", "a node")?;
                let what = format!("node {name}");
                Ok(Node {
                    kind: string(n, "kind", &what)?,
                    origins: strings(n, "origins", &what)?,
                    loc: n.get("loc").and_then(Value::as_str).map(str::to_string),
                    reads: strings(n, "reads", &what)?,
                    bytes: number(n, "bytes", &what)?,
                    output: n.get("output").and_then(Value::as_bool).unwrap_or(false),
                    name,
                })
            })
            .collect::<Result<Vec<_>, ReportError>>()?;
        let rejected = list(v, "rejected", &what)?
            .iter()
            .map(|r| {
                Ok(Rejection {
                    node1: string(r, "node1", "a rejection")?,
                    node2: string(r, "node2", "a rejection")?,
                    reason: string(r, "reason", "a rejection")?,
                })
            })
            .collect::<Result<Vec<_>, ReportError>>()?;
        Ok(Self {
            strategy: string(v, "strategy", &what)?,
            kernels,
            nodes,
            rejected,
            totals: field(v, "totals", &what)?.clone(),
            unfused: v.get("unfused").cloned(),
            fusion_time_s: None,
            function,
        })
    }

    /// Members of the largest kernel.
    pub fn largest_kernel(&self) -> u64 {
        self.kernels
            .iter()
            .map(|k| k.members.len() as u64)
            .max()
            .unwrap_or(0)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    /// A chain `buf0 -> buf1 -> ...` (each odd node from 3 on also reads the node two
    /// before it) cut into kernels of the given sizes, as a fusion pass reports it.
    pub(crate) fn chain_report_json(sizes: &[usize]) -> Value {
        let total: usize = sizes.iter().sum();
        let nodes: Vec<Value> = (0..total)
            .map(|i| {
                let mut reads = vec![if i == 0 { "arg0_1".to_string() } else { format!("buf{}", i - 1) }];
                if i >= 3 && i % 2 == 1 {
                    reads.push(format!("buf{}", i - 2));
                }
                reads.sort();
                json!({"name": format!("buf{i}"), "kind": if i % 4 == 3 { "reduction" } else { "pointwise" },
                       "origins": [if i % 3 == 0 { "add" } else { "mul" }], "loc": format!("model.py:{}:5", i + 1),
                       "reads": reads, "bytes": 4096, "output": i + 1 == total})
            })
            .collect();
        let mut start = 0;
        let kernels: Vec<Value> = sizes
            .iter()
            .enumerate()
            .map(|(k, &n)| {
                let members: Vec<String> = (start..start + n).map(|i| format!("buf{i}")).collect();
                start += n;
                json!({"name": format!("fused_add_mul_{k}"), "extern": null, "members": members,
                       "origins": ["add", "mul"], "iteration": [1024, 1], "bytes_read": 4096 * (k as u64 + 1),
                       "bytes_written": 4096, "kernel_local": [], "launches": 1})
            })
            .collect();
        json!({"function": "chain", "strategy": "inductor", "kernels": kernels,
               "totals": {"kernels": sizes.len(), "extern_kernels": 0, "launches": sizes.len(),
                          "bytes_read": 1, "bytes_written": 2, "bytes_total": 3},
               "rejected": [{"node1": "buf0", "node2": "buf1", "reason": "too large"}],
               "graph": {"nodes": nodes},
               "unfused": {"kernels": total, "bytes_read": 10, "bytes_written": 20, "bytes_total": 30}})
    }

    pub(crate) fn chain_report(sizes: &[usize]) -> Report {
        Report::from_json(&chain_report_json(sizes)).expect("a well-formed report")
    }

    #[test]
    fn a_report_reads_back_its_kernels_nodes_and_rejections() {
        let r = chain_report(&[2, 1]);
        assert_eq!(r.kernels.len(), 2);
        assert_eq!(r.kernels[0].members, vec!["buf0", "buf1"]);
        assert_eq!(r.nodes[2].reads, vec!["buf1"]);
        assert_eq!(r.nodes[0].loc.as_deref(), Some("model.py:1:5"));
        assert_eq!(r.rejected[0].reason, "too large");
        assert_eq!(r.largest_kernel(), 2);
    }

    #[test]
    fn a_report_without_its_graph_is_an_error_naming_the_field() {
        let mut v = chain_report_json(&[1]);
        v.as_object_mut().map(|o| o.remove("graph"));
        let e = Report::from_json(&v).expect_err("no graph");
        assert_eq!(
            e.to_string(),
            "fusion report: the report of @chain has no 'graph'"
        );
        let mut v = chain_report_json(&[1]);
        v["kernels"][0]["members"] = json!("buf0");
        let e = Report::from_json(&v).expect_err("members not a list");
        assert_eq!(
            e.to_string(),
            "fusion report: kernel fused_add_mul_0's 'members' is not a list"
        );
    }

    #[test]
    fn long_labels_are_cut() {
        let mut n = chain_report(&[1]).nodes[0].clone();
        n.origins = vec!["native_layer_norm".into(), "scaled_dot_product_attention".into()];
        assert_eq!(n.label().chars().count(), 30);
        assert!(n.label().ends_with('…'));
        n.origins.clear();
        assert_eq!(n.label(), "buf0");
    }
}
