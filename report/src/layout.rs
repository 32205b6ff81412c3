//! Geometry of one strategy's drawing: every analysis node a box inside its kernel's
//! box, data edges between them, placed by dagre's layered layout (the `dagre` crate,
//! a port of dagre.js).
//!
//! The layout is two-level, the way a reader looks at a fusion decision: dagre places
//! the kernels as boxes (one node per kernel, one edge per pair of kernels that pass a
//! buffer), and each kernel's members inside its box (a second, small layout per
//! kernel). dagre's own compound-graph mode does this in one run, but its cost grows
//! quadratically with the clusters (measured on this VM: 1,000 nodes in 250 clusters
//! 3.0 s, 3,500 in 875 clusters 41 s), while the two levels take 2 s at 3,500 nodes.
//! Edges from function arguments are not drawn (the details pane lists them).

use crate::model::{Kernel, Node, Report};
use dagre::graph::{Graph, GraphOptions};
use dagre::{layout, EdgeLabel, LayoutOptions, NodeLabel, Point, RankDir};
use std::collections::HashMap;

/// Height of a node box.
pub const NODE_HEIGHT: f64 = 26.0;
/// Space above a kernel's members for its name.
pub const TITLE_HEIGHT: f64 = 18.0;
/// Space between a kernel's border and its members.
pub const PADDING: f64 = 8.0;

/// A placed rectangle (top-left corner and size).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

impl Rect {
    /// Whether `other` lies inside this rectangle.
    pub fn contains(&self, other: &Rect) -> bool {
        other.x >= self.x
            && other.y >= self.y
            && other.x + other.width <= self.x + self.width
            && other.y + other.height <= self.y + self.height
    }

    /// Whether the two rectangles share interior points.
    pub fn overlaps(&self, other: &Rect) -> bool {
        self.x < other.x + other.width
            && other.x < self.x + self.width
            && self.y < other.y + other.height
            && other.y < self.y + self.height
    }
}

/// An edge: a polyline from one box to another.
#[derive(Clone, Debug, PartialEq)]
pub struct Edge {
    /// Source: a node index (inside a kernel) or a kernel index (between kernels).
    pub from: usize,
    /// Target, as `from`.
    pub to: usize,
    /// The polyline.
    pub points: Vec<(f64, f64)>,
}

/// The drawing of one report.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Drawing {
    /// Width of the whole drawing.
    pub width: f64,
    /// Height of the whole drawing.
    pub height: f64,
    /// One box per kernel, in report order.
    pub kernels: Vec<Rect>,
    /// One box per node, in graph order.
    pub nodes: Vec<Rect>,
    /// Edges between nodes of one kernel.
    pub inner_edges: Vec<Edge>,
    /// Edges between kernels (one per pair of kernels that pass buffers).
    pub outer_edges: Vec<Edge>,
}

/// The text above a kernel's members: its name, the library call of an extern, and its
/// measured time (µs per call) where one is known.
pub fn kernel_title(kernel: &Kernel, time_us: Option<f64>) -> String {
    let mut title = match &kernel.extern_kind {
        Some(kind) => format!("{} · extern {kind}", kernel.name),
        None => kernel.name.clone(),
    };
    if let Some(us) = time_us {
        title.push_str(&format!(" · {us:.1} µs"));
    }
    title
}

/// Width of a box holding `label` (11px monospace, 6.6px a character, clamped).
pub fn node_width(label: &str) -> f64 {
    (label.chars().count() as f64 * 6.6 + 14.0).clamp(44.0, 400.0)
}

fn graph() -> Graph<NodeLabel, EdgeLabel> {
    Graph::with_options(GraphOptions {
        directed: true,
        multigraph: false,
        compound: false,
    })
}

fn sized(width: f64, height: f64) -> NodeLabel {
    NodeLabel {
        width,
        height,
        ..NodeLabel::default()
    }
}

fn options(nodesep: f64, ranksep: f64) -> LayoutOptions {
    LayoutOptions {
        rankdir: RankDir::TB,
        nodesep,
        ranksep,
        edgesep: 10.0,
        marginx: 0.0,
        marginy: 0.0,
        ..LayoutOptions::default()
    }
}

/// dagre's centre of node `id`, or the origin where it placed none.
fn centre(g: &Graph<NodeLabel, EdgeLabel>, id: &str) -> (f64, f64) {
    g.node(id)
        .map(|n| (n.x.unwrap_or(0.0), n.y.unwrap_or(0.0)))
        .unwrap_or((0.0, 0.0))
}

fn points(g: &Graph<NodeLabel, EdgeLabel>, v: &str, w: &str, dx: f64, dy: f64) -> Vec<(f64, f64)> {
    g.edge(v, w, None)
        .map(|e| e.points.iter().map(|&Point { x, y }| (x + dx, y + dy)).collect())
        .unwrap_or_default()
}

/// One kernel's members laid out on their own: boxes relative to the kernel's content
/// origin, the content's size, and the edges between members.
struct Inner {
    boxes: Vec<(usize, Rect)>,
    width: f64,
    height: f64,
    /// Between members, relative to the content origin.
    edges: Vec<Edge>,
}

fn layout_members(members: &[usize], nodes: &[Node], index: &HashMap<&str, usize>) -> Inner {
    let inside: HashMap<usize, ()> = members.iter().map(|&m| (m, ())).collect();
    let mut pairs = Vec::new();
    for &m in members {
        for read in &nodes[m].reads {
            if let Some(&p) = index.get(read.as_str()) {
                if p != m && inside.contains_key(&p) {
                    pairs.push((p, m));
                }
            }
        }
    }
    if members.len() == 1 {
        let m = members[0];
        let width = node_width(&nodes[m].label());
        return Inner {
            boxes: vec![(
                m,
                Rect {
                    x: 0.0,
                    y: 0.0,
                    width,
                    height: NODE_HEIGHT,
                },
            )],
            width,
            height: NODE_HEIGHT,
            edges: Vec::new(),
        };
    }
    let mut g = graph();
    for &m in members {
        g.set_node(
            m.to_string(),
            Some(sized(node_width(&nodes[m].label()), NODE_HEIGHT)),
        );
    }
    for &(p, m) in &pairs {
        g.set_edge(p.to_string(), m.to_string(), Some(EdgeLabel::default()), None);
    }
    layout(&mut g, Some(options(14.0, 22.0)));
    // dagre's coordinates start at its margin; normalise to the members' bounding box.
    let mut placed: Vec<(usize, Rect)> = members
        .iter()
        .map(|&m| {
            let (cx, cy) = centre(&g, &m.to_string());
            let width = node_width(&nodes[m].label());
            (
                m,
                Rect {
                    x: cx - width / 2.0,
                    y: cy - NODE_HEIGHT / 2.0,
                    width,
                    height: NODE_HEIGHT,
                },
            )
        })
        .collect();
    let left = placed.iter().map(|(_, r)| r.x).fold(f64::INFINITY, f64::min);
    let top = placed.iter().map(|(_, r)| r.y).fold(f64::INFINITY, f64::min);
    for (_, r) in &mut placed {
        r.x -= left;
        r.y -= top;
    }
    let width = placed.iter().map(|(_, r)| r.x + r.width).fold(0.0, f64::max);
    let height = placed.iter().map(|(_, r)| r.y + r.height).fold(0.0, f64::max);
    let edges = pairs
        .iter()
        .map(|&(p, m)| Edge {
            from: p,
            to: m,
            points: points(&g, &p.to_string(), &m.to_string(), -left, -top),
        })
        .collect();
    Inner {
        boxes: placed,
        width,
        height,
        edges,
    }
}

/// Lays out `report`: kernels as boxes holding their members under their titles
/// (`titles[k]`, [`kernel_title`]), data edges between them.
pub fn draw(report: &Report, titles: &[String]) -> Drawing {
    let nodes = &report.nodes;
    let index: HashMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.as_str(), i))
        .collect();
    let members: Vec<Vec<usize>> = report
        .kernels
        .iter()
        .map(|k: &Kernel| {
            k.members
                .iter()
                .filter_map(|m| index.get(m.as_str()).copied())
                .collect()
        })
        .collect();
    let inners: Vec<Inner> = members
        .iter()
        .map(|ms| layout_members(ms, nodes, &index))
        .collect();
    let mut kernel_of: HashMap<usize, usize> = HashMap::new();
    for (k, ms) in members.iter().enumerate() {
        for &m in ms {
            kernel_of.insert(m, k);
        }
    }
    // Kernel sizes: the members' box, the padding, the title above.
    let size = |inner: &Inner, k: usize| -> (f64, f64) {
        let title = titles.get(k).map_or(0.0, |t| node_width(t) + 8.0);
        (
            (inner.width + 2.0 * PADDING).max(title),
            inner.height + 2.0 * PADDING + TITLE_HEIGHT,
        )
    };
    let mut outer_pairs: Vec<(usize, usize)> = Vec::new();
    for (k, ms) in members.iter().enumerate() {
        for &m in ms {
            for read in &nodes[m].reads {
                let producer = index.get(read.as_str()).and_then(|p| kernel_of.get(p));
                if let Some(&pk) = producer {
                    if pk != k {
                        outer_pairs.push((pk, k));
                    }
                }
            }
        }
    }
    outer_pairs.sort_unstable();
    outer_pairs.dedup();
    let mut g = graph();
    for (k, inner) in inners.iter().enumerate() {
        let (w, h) = size(inner, k);
        g.set_node(k.to_string(), Some(sized(w, h)));
    }
    for &(a, b) in &outer_pairs {
        g.set_edge(a.to_string(), b.to_string(), Some(EdgeLabel::default()), None);
    }
    let margin = 12.0;
    let mut opts = options(24.0, 36.0);
    opts.marginx = margin;
    opts.marginy = margin;
    layout(&mut g, Some(opts));
    let mut drawing = Drawing {
        nodes: vec![
            Rect {
                x: 0.0,
                y: 0.0,
                width: 0.0,
                height: 0.0
            };
            nodes.len()
        ],
        ..Drawing::default()
    };
    for (k, inner) in inners.iter().enumerate() {
        let (w, h) = size(inner, k);
        let (cx, cy) = centre(&g, &k.to_string());
        let rect = Rect {
            x: cx - w / 2.0,
            y: cy - h / 2.0,
            width: w,
            height: h,
        };
        // Members centred under the name.
        let ox = rect.x + (w - inner.width) / 2.0;
        let oy = rect.y + TITLE_HEIGHT + PADDING;
        for &(m, r) in &inner.boxes {
            drawing.nodes[m] = Rect {
                x: r.x + ox,
                y: r.y + oy,
                ..r
            };
        }
        for e in &inner.edges {
            drawing.inner_edges.push(Edge {
                points: e.points.iter().map(|&(x, y)| (x + ox, y + oy)).collect(),
                ..e.clone()
            });
        }
        drawing.width = drawing.width.max(rect.x + rect.width + margin);
        drawing.height = drawing.height.max(rect.y + rect.height + margin);
        drawing.kernels.push(rect);
    }
    for &(a, b) in &outer_pairs {
        let pts = points(&g, &a.to_string(), &b.to_string(), 0.0, 0.0);
        for &(x, y) in &pts {
            drawing.width = drawing.width.max(x + margin);
            drawing.height = drawing.height.max(y + margin);
        }
        drawing.outer_edges.push(Edge {
            from: a,
            to: b,
            points: pts,
        });
    }
    drawing
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::chain_report;

    fn draw(report: &Report) -> Drawing {
        let titles: Vec<String> = report.kernels.iter().map(|k| kernel_title(k, None)).collect();
        super::draw(report, &titles)
    }

    #[test]
    fn members_lie_inside_their_kernel_and_kernels_do_not_overlap() {
        // 12 nodes in kernels of 1..=4 members, a chain with skips.
        let report = chain_report(&[1, 3, 2, 4, 1, 1]);
        let d = draw(&report);
        assert_eq!(d.kernels.len(), 6);
        for (k, kernel) in report.kernels.iter().enumerate() {
            for m in &kernel.members {
                let n = report.nodes.iter().position(|n| &n.name == m).expect("member");
                assert!(d.kernels[k].contains(&d.nodes[n]), "{m} outside kernel {k}");
            }
            for j in 0..k {
                assert!(
                    !d.kernels[k].overlaps(&d.kernels[j]),
                    "kernels {j} and {k} overlap"
                );
            }
            // The members are centred under the kernel's title.
            let boxes: Vec<&Rect> = kernel
                .members
                .iter()
                .filter_map(|m| report.nodes.iter().position(|n| &n.name == m))
                .map(|n| &d.nodes[n])
                .collect();
            let left = boxes.iter().map(|r| r.x).fold(f64::INFINITY, f64::min);
            let right = boxes.iter().map(|r| r.x + r.width).fold(0.0, f64::max);
            let centre = d.kernels[k].x + d.kernels[k].width / 2.0;
            assert!(
                ((left + right) / 2.0 - centre).abs() < 1e-6,
                "kernel {k}'s members are off centre"
            );
        }
        for (i, a) in d.nodes.iter().enumerate() {
            for b in &d.nodes[..i] {
                assert!(!a.overlaps(b), "node boxes overlap");
            }
            assert!(a.x + a.width <= d.width && a.y + a.height <= d.height);
        }
    }

    #[test]
    fn an_edge_joins_each_pair_of_kernels_that_pass_a_buffer_once() {
        let report = chain_report(&[2, 2, 2]);
        let d = draw(&report);
        // The chain crosses kernels 0 -> 1 -> 2; the skips (node 3 reads node 1, node 5
        // reads node 3) join the same pairs again.
        let pairs: Vec<(usize, usize)> = d.outer_edges.iter().map(|e| (e.from, e.to)).collect();
        assert_eq!(pairs, vec![(0, 1), (1, 2)]);
        assert!(d.outer_edges.iter().all(|e| e.points.len() >= 2));
        // Inside each kernel of two, one edge.
        assert_eq!(d.inner_edges.len(), 3);
        // Data flows down: every kernel is below the one it reads.
        assert!(d.kernels[1].y > d.kernels[0].y + d.kernels[0].height - 1e-9);
    }

    #[test]
    fn a_kernel_is_as_wide_as_its_title() {
        let report = chain_report(&[1, 1]);
        let long = kernel_title(&report.kernels[0], Some(1234.5)) + " and a long tail of text";
        let d = super::draw(&report, &[long.clone(), "k".into()]);
        assert!(d.kernels[0].width >= node_width(&long));
        assert!(d.kernels[1].width < d.kernels[0].width);
        assert!(kernel_title(&report.kernels[0], Some(1234.54)).ends_with(" · 1234.5 µs"));
    }

    #[test]
    fn the_layout_is_deterministic() {
        let report = chain_report(&[3, 1, 4, 1, 5, 9, 2, 6]);
        assert_eq!(draw(&report), draw(&report));
    }
}
