//! The generated graphs `fuse-bench` times: one seeded structure per kind and size, and
//! two renderings of it — `loop` IR (the fusion passes' input) and aten ops (the input
//! of a strategy's whole pipeline, as `fuse-opt --<strategy pass> model.mlir` runs it).
//! - `chain`: every node reads the previous one (one long pointwise chain);
//! - `tree`: a balanced in-tree: the first half of the nodes read a graph input, every
//!   later node combines two earlier nodes that nothing else reads (a reduction tree);
//! - `random`: every node reads one or two of the previous 8 nodes, sometimes a graph
//!   input, and every 16th node is a row reduction (a random DAG with locality, like
//!   real models);
//! - `fan`: a wide fan-out: the first node reads a graph input, the rest of the first
//!   half read the first node, and every later node combines the previous node and the
//!   next fan node (one buffer with tens of thousands of consumers, summed by a chain).

use std::{collections::VecDeque, fmt::Write as _};

/// A small deterministic generator (xorshift), so graphs are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// The shape of a generated graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphKind {
    /// A single pointwise chain.
    Chain,
    /// A balanced in-tree (each node read once).
    Tree,
    /// A random DAG with locality and periodic reductions.
    Random,
    /// One node read by half the graph, summed by a chain.
    Fan,
}

impl GraphKind {
    /// Every kind, in the order runs and messages list them.
    pub const ALL: [GraphKind; 4] = [
        GraphKind::Chain,
        GraphKind::Tree,
        GraphKind::Random,
        GraphKind::Fan,
    ];

    /// The name `--graphs` and `--emit` take.
    pub fn name(self) -> &'static str {
        match self {
            GraphKind::Chain => "chain",
            GraphKind::Tree => "tree",
            GraphKind::Random => "random",
            GraphKind::Fan => "fan",
        }
    }

    /// The kinds' names joined by `sep`.
    pub fn names(sep: &str) -> String {
        GraphKind::ALL.map(GraphKind::name).join(sep)
    }

    /// The kind named `name`.
    pub fn parse(name: &str) -> Option<GraphKind> {
        GraphKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// What a node reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Read {
    /// An earlier node.
    Node(usize),
    /// Graph input 0 or 1.
    Input(u64),
}

/// One generated node: what it reads, and whether it is a row reduction.
struct Node {
    reads: Vec<Read>,
    reduction: bool,
}

const ROWS: i64 = 64;
const COLS: i64 = 64;

/// The seed every timed run and `--emit` use for a graph of `nodes` nodes.
pub fn seed(nodes: usize) -> u64 {
    0x5eed + nodes as u64
}

/// The seeded structure of a graph: every node is read by a later node or is a result.
fn structure(kind: GraphKind, nodes: usize, seed: u64) -> Vec<Node> {
    let mut rng = Rng(seed | 1);
    let mut out = Vec::with_capacity(nodes);
    // Tree and fan: nodes not yet read by a later node, oldest first.
    let mut unread: VecDeque<usize> = VecDeque::new();
    for i in 0..nodes {
        let pick = |rng: &mut Rng| -> Option<usize> {
            if i == 0 || (kind == GraphKind::Random && rng.below(10) == 0) {
                None
            } else if kind == GraphKind::Chain {
                Some(i - 1)
            } else {
                Some(i - 1 - rng.below(i.min(8) as u64) as usize)
            }
        };
        let picks: Vec<Option<usize>> = match kind {
            GraphKind::Fan => match i {
                0 => vec![None],
                _ if i < nodes.div_ceil(2) => vec![Some(0)],
                _ => std::iter::once(Some(i - 1))
                    .chain(unread.pop_front().map(Some))
                    .collect(),
            },
            // A binary tree of L leaves has L - 1 inner nodes: with L = (nodes + 1) / 2 the
            // last node of an odd count is the root (an even count leaves one more result).
            GraphKind::Tree if i < nodes.div_ceil(2) || unread.len() < 2 => vec![None],
            GraphKind::Tree => vec![unread.pop_front(), unread.pop_front()],
            GraphKind::Random => {
                let count = 1 + rng.below(2);
                (0..count).map(|_| pick(&mut rng)).collect()
            }
            GraphKind::Chain => vec![pick(&mut rng)],
        };
        // The fan's chain reads the fan nodes but the last (it reads that one as the
        // previous node).
        if kind == GraphKind::Tree || (kind == GraphKind::Fan && i > 0 && i + 1 < nodes.div_ceil(2)) {
            unread.push_back(i);
        }
        let reads = picks
            .into_iter()
            .map(|picked| match picked {
                Some(p) => Read::Node(p),
                None => Read::Input(rng.below(2)),
            })
            .collect();
        out.push(Node {
            reads,
            reduction: kind == GraphKind::Random && i % 16 == 15,
        });
    }
    out
}

/// The nodes nothing reads (the graph's results), in order.
fn sinks(nodes: &[Node]) -> Vec<usize> {
    let mut read = vec![false; nodes.len()];
    for node in nodes {
        for r in &node.reads {
            if let Read::Node(p) = *r {
                read[p] = true;
            }
        }
    }
    (0..nodes.len()).filter(|&i| !read[i]).collect()
}

/// `func.func @bench(inputs) -> (results)` around `body`, returning the sinks with the
/// types `row` says.
fn function(body: &str, nodes: &[Node], row: &[bool]) -> String {
    let t = format!("tensor<{ROWS}x{COLS}xf32>");
    let sinks = sinks(nodes);
    let ty = |i: usize| {
        if row[i] {
            format!("tensor<{ROWS}x1xf32>")
        } else {
            t.clone()
        }
    };
    let types = sinks.iter().map(|&i| ty(i)).collect::<Vec<_>>().join(", ");
    let values = sinks
        .iter()
        .map(|i| format!("%n{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    format!("func.func @bench(%in0: {t}, %in1: {t}) -> ({types}) {{\n{body}  return {values} : {types}\n}}\n")
}

/// `loop` IR text of a generated graph with `nodes` nodes: each node loads what it
/// reads (a row reduction's result broadcast along the row), adds the values and takes
/// their sine; every 16th node of `random` sums the row.
pub fn loop_text(kind: GraphKind, nodes: usize, seed: u64) -> String {
    let graph = structure(kind, nodes, seed);
    let t = format!("tensor<{ROWS}x{COLS}xf32>");
    let full = "affine_map<(d0, d1) -> (d0 * 64 + d1)>";
    let row = "affine_map<(d0, d1) -> (d0)>";
    let is_row: Vec<bool> = graph.iter().map(|n| n.reduction).collect();
    let mut text = String::new();
    for (i, node) in graph.iter().enumerate() {
        let _ = writeln!(
            text,
            "  %n{i} = \"loop.{}\"() ({{",
            if node.reduction { "reduction" } else { "pointwise" }
        );
        let _ = writeln!(text, "  ^bb0(%d0: index, %d1: index):");
        for (k, r) in node.reads.iter().enumerate() {
            let load = match *r {
                Read::Node(p) if is_row[p] => {
                    format!("\"loop.load\"(%n{p}) {{index = {row}}} : (tensor<{ROWS}x1xf32>) -> f32")
                }
                Read::Node(p) => format!("\"loop.load\"(%n{p}) {{index = {full}}} : ({t}) -> f32"),
                Read::Input(j) => format!("\"loop.load\"(%in{j}) {{index = {full}}} : ({t}) -> f32"),
            };
            let _ = writeln!(text, "    %v{k} = {load}");
        }
        let mut acc = "%v0".to_string();
        for k in 1..node.reads.len() {
            let _ = writeln!(text, "    %s{k} = arith.addf {acc}, %v{k} : f32");
            acc = format!("%s{k}");
        }
        let _ = writeln!(text, "    %o = math.sin {acc} : f32");
        let _ = writeln!(text, "    gpu.yield %o : f32");
        if node.reduction {
            let _ = writeln!(
                text,
                "  }}) {{name = \"buf{i}\", ranges = array<i64: {ROWS}>, reduction_ranges = array<i64: {COLS}>, kind = \"sum\", origins = [\"sum\"]}} : () -> tensor<{ROWS}x1xf32>"
            );
        } else {
            let _ = writeln!(
                text,
                "  }}) {{name = \"buf{i}\", ranges = array<i64: {ROWS}, {COLS}>, origins = [\"sin\"]}} : () -> {t}"
            );
        }
    }
    function(&text, &graph, &is_row)
}

/// aten text of the same graph: a node of two reads is `aten.add`, `aten.mul` or
/// `aten.sub` of them (by its index), a node of one read the same op of it and graph
/// input 1 (the shape of the 100k-op chain of issue 44: `add/mul/sub` with `y`); a row
/// reduction is `aten.sum` over the last dim with `keepdim` of that op's result (two
/// ops). A node whose reads are all row sums is a row too (64x1, broadcast by its
/// readers as PyTorch broadcasts).
pub fn aten_text(kind: GraphKind, nodes: usize, seed: u64) -> String {
    let graph = structure(kind, nodes, seed);
    let full = format!("tensor<{ROWS}x{COLS}xf32>");
    let row_type = format!("tensor<{ROWS}x1xf32>");
    let mut is_row: Vec<bool> = Vec::with_capacity(graph.len());
    let mut text = String::new();
    for (i, node) in graph.iter().enumerate() {
        let operand = |r: &Read| match *r {
            Read::Node(p) => (format!("%n{p}"), is_row[p]),
            Read::Input(j) => (format!("%in{j}"), false),
        };
        let mut operands: Vec<(String, bool)> = node.reads.iter().map(operand).collect();
        if operands.len() == 1 {
            operands.push(("%in1".to_string(), false));
        }
        let ty = |row: bool| if row { &row_type } else { &full };
        let combined_row = operands.iter().all(|(_, row)| *row);
        let op = ["add", "mul", "sub"][i % 3];
        let name = if node.reduction {
            format!("%n{i}_c")
        } else {
            format!("%n{i}")
        };
        let _ = writeln!(
            text,
            "  {name} = \"aten.{op}\"({}, {}) : ({}, {}) -> {}",
            operands[0].0,
            operands[1].0,
            ty(operands[0].1),
            ty(operands[1].1),
            ty(combined_row)
        );
        if node.reduction {
            let _ = writeln!(
                text,
                "  %n{i} = \"aten.sum\"({name}) {{dims = array<i64: 1>, keepdim = true}} : ({}) -> {row_type}",
                ty(combined_row)
            );
        }
        is_row.push(node.reduction || combined_row);
    }
    function(&text, &graph, &is_row)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every generated node is read by a later node or returned, so the passes (which
    /// drop dead nodes first) time the whole graph; an odd tree returns its root only.
    #[test]
    fn generated_graphs_have_no_dead_nodes() {
        for kind in GraphKind::ALL {
            for n in [1usize, 7, 100, 1001] {
                for text in [loop_text(kind, n, seed(n)), aten_text(kind, n, seed(n))] {
                    let returned: Vec<&str> = text
                        .lines()
                        .find_map(|l| l.trim_start().strip_prefix("return "))
                        .and_then(|r| r.split(" : ").next())
                        .map(|values| values.split(", ").collect())
                        .unwrap_or_default();
                    for i in 0..n {
                        let name = format!("%n{i}");
                        let read = text.contains(&format!("({name})"))
                            || text.contains(&format!("({name},"))
                            || text.contains(&format!(" {name})"));
                        assert!(
                            read || returned.contains(&name.as_str()),
                            "{kind:?} {n}: {name} is dead\n{text}"
                        );
                    }
                }
            }
        }
        let tree = loop_text(GraphKind::Tree, 7, 1);
        assert!(tree.contains("return %n6 : tensor<64x64xf32>\n"), "{tree}");
        // The fan: nodes 1..=4 read node 0; 5 adds 4 and 1, 6 adds 5 and 2, ... and the
        // last sum is the only result.
        let fan = loop_text(GraphKind::Fan, 10, 1);
        assert_eq!(fan.matches("\"loop.load\"(%n0)").count(), 4, "{fan}");
        assert!(fan.contains("%n5 = \"loop.pointwise\"() ({\n  ^bb0(%d0: index, %d1: index):\n    %v0 = \"loop.load\"(%n4)"), "{fan}");
        assert!(fan.contains("return %n9 : tensor<64x64xf32>\n"), "{fan}");
    }

    /// The aten rendering is the loop rendering's graph: the same reads per node, one op
    /// per node (two for a row sum), a row sum's readers broadcasting it.
    #[test]
    fn aten_graphs_follow_the_same_structure() {
        let fan = aten_text(GraphKind::Fan, 10, 1);
        assert!(fan.contains("  %n1 = \"aten.mul\"(%n0, %in1)"), "{fan}");
        assert!(fan.contains("  %n5 = \"aten.sub\"(%n4, %n1)"), "{fan}");
        assert!(fan.contains("return %n9 : tensor<64x64xf32>\n"), "{fan}");
        let chain = aten_text(GraphKind::Chain, 4, 1);
        assert!(chain.contains("  %n0 = \"aten.add\"(%in"), "{chain}");
        assert!(chain.contains("  %n3 = \"aten.add\"(%n2, %in1)"), "{chain}");
        let random = aten_text(GraphKind::Random, 64, 3);
        assert_eq!(random.matches("\"aten.sum\"").count(), 4, "{random}");
        assert_eq!(
            random.lines().filter(|l| l.contains(" = \"aten.")).count(),
            68,
            "{random}"
        );
        // Some reader of a row sum mixes it with a full tensor (a broadcast).
        assert!(
            random.contains("(tensor<64x1xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>")
                || random.contains("(tensor<64x64xf32>, tensor<64x1xf32>) -> tensor<64x64xf32>"),
            "{random}"
        );
    }
}
