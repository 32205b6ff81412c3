//! The HTML page: one self-contained file (its style, script and data inline; nothing
//! fetched when it is viewed). Per function: the summary table (eager and every
//! strategy), a tab per strategy with its drawing as inline SVG (kernels as coloured
//! groups, library calls hatched, data edges), and a details pane that the page's
//! script fills from the embedded report data when a kernel or node is clicked.
//!
//! The drawing is written here, not by the script, so the page shows every kernel even
//! before (or without) its script running; the script adds tabs, zoom/pan and details.

use crate::layout::{draw, kernel_title, Drawing, Edge, NODE_HEIGHT, TITLE_HEIGHT};
use crate::model::Report;
use crate::summary::{mib, SummaryRow};
use crate::timings::Timings;
use crate::StrategyResult;
use serde_json::{json, Value};
use std::fmt::Write as _;

const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");

/// Rejected pairs embedded per report: the rest are counted, not listed (a 3,500-node
/// graph has hundreds of thousands, and only the pairs touching one kernel are shown).
pub const MAX_REJECTIONS: usize = 20_000;

/// Text escaped for HTML and SVG content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn seconds(s: f64) -> String {
    if s < 1e-3 {
        format!("{:.1} µs", s * 1e6)
    } else {
        format!("{:.2} ms", s * 1e3)
    }
}

/// One function of the page: its summary rows and, per strategy, its report.
struct FunctionView<'a> {
    name: &'a str,
    rows: Vec<SummaryRow>,
    strategies: Vec<(&'a StrategyResult, &'a Report)>,
}

fn functions(results: &[StrategyResult]) -> Vec<FunctionView<'_>> {
    let mut views: Vec<FunctionView<'_>> = Vec::new();
    for result in results {
        for (i, report) in result.reports.iter().enumerate() {
            if views.len() <= i {
                views.push(FunctionView {
                    name: &report.function,
                    rows: vec![SummaryRow::eager(report)],
                    strategies: Vec::new(),
                });
            }
            views[i].rows.push(SummaryRow::of(report));
            views[i].strategies.push((result, report));
        }
    }
    views
}

fn summary_table(out: &mut String, view: &FunctionView<'_>, timings: Option<&Timings>) {
    let inductor = timings.and_then(|t| t.inductor(view.name)).map(|(_, us)| us);
    let _ = write!(
        out,
        "<table class=\"summary\"><thead><tr><th>strategy</th><th>kernels</th><th>extern</th>\
         <th>launches</th><th>HBM read</th><th>HBM written</th><th>HBM total</th>\
         <th>largest kernel (nodes)</th><th>fusion time</th>{}</tr></thead><tbody>",
        match (timings, inductor) {
            (Some(_), Some(_)) => "<th>measured</th><th>× Inductor</th>",
            (Some(_), None) => "<th>measured</th>",
            _ => "",
        }
    );
    for row in &view.rows {
        let cell = |class: &str, value: u64, text: String| {
            format!("<td class=\"{class}\" data-value=\"{value}\" title=\"{value} bytes\">{text}</td>")
        };
        let _ = write!(
            out,
            "<tr data-strategy=\"{s}\"><td class=\"strategy\">{s}</td><td class=\"kernels\" data-value=\"{k}\">{k}</td>\
             <td class=\"extern\" data-value=\"{e}\">{e}</td><td class=\"launches\" data-value=\"{l}\">{l}</td>{r}{w}{t}\
             <td class=\"largest\" data-value=\"{lg}\">{lg}</td><td class=\"fusion-time\">{ft}</td>",
            s = escape(&row.strategy),
            k = row.kernels,
            e = row.extern_kernels.map_or_else(|| "-".to_string(), |e| e.to_string()),
            l = row.launches,
            r = cell("bytes-read", row.bytes_read, mib(row.bytes_read)),
            w = cell("bytes-written", row.bytes_written, mib(row.bytes_written)),
            t = cell("bytes-total", row.bytes_read + row.bytes_written, mib(row.bytes_read + row.bytes_written)),
            lg = row.largest_kernel,
            ft = row.fusion_time_s.map_or_else(|| "-".to_string(), |s| format!("{:.2} ms", s * 1e3)),
        );
        if let Some(t) = timings {
            let measured = t
                .call_s(view.name, &row.strategy)
                .map_or_else(|| "-".to_string(), seconds);
            let _ = write!(out, "<td class=\"measured\">{measured}</td>");
            if let Some(base) = inductor {
                let ratio = t
                    .call_s(view.name, &row.strategy)
                    .map_or_else(|| "-".to_string(), |s| format!("{:.2}", s * 1e6 / base));
                let _ = write!(out, "<td class=\"vs-inductor\">{ratio}</td>");
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>");
    if let (Some(t), Some(us)) = (timings, inductor) {
        let _ = write!(
            out,
            "<p class=\"inductor-time\">torch.compile (Inductor) of the same module: {} per call ({})</p>",
            seconds(us * 1e-6),
            escape(t.source)
        );
    }
}

/// The per-kernel parity table of one strategy's view ([`crate::parity`]).
fn parity_table(out: &mut String, report: &Report, strategy: &str, timings: &Timings) {
    let Some((inductor, _)) = timings.inductor(&report.function) else {
        return;
    };
    let fuselab = timings.events(&report.function, strategy);
    if fuselab.is_empty() {
        return;
    }
    out.push_str(
        "<table class=\"parity\"><caption>Kernel by kernel against Inductor (measured, µs per call; \
         matched by library name, then by the aten ops in Inductor's kernel name)</caption><thead><tr>\
         <th>fuselab kernel</th><th>µs</th><th>HBM bytes</th><th>GB/s</th><th>Inductor kernel</th><th>µs</th>\
         <th>× Inductor</th></tr></thead><tbody>",
    );
    let cell = |side: &Option<(String, f64)>| match side {
        Some((name, us)) => (escape(name), format!("{us:.2}")),
        None => ("-".to_string(), "-".to_string()),
    };
    for row in crate::parity::parity(report, fuselab, inductor) {
        let (fname, fus) = cell(&row.fuselab);
        let (iname, ius) = cell(&row.inductor);
        let bandwidth = match (&row.fuselab, row.bytes) {
            (Some((_, us)), Some(bytes)) if *us > 0.0 => format!("{:.0}", bytes as f64 / (us * 1e3)),
            _ => "-".to_string(),
        };
        let ratio = match (&row.fuselab, &row.inductor) {
            (Some((_, a)), Some((_, b))) if *b > 0.0 => format!("{:.2}", a / b),
            _ => "-".to_string(),
        };
        let _ = write!(
            out,
            "<tr><td>{fname}</td><td>{fus}</td><td>{}</td><td>{bandwidth}</td><td>{iname}</td><td>{ius}</td><td>{ratio}</td></tr>",
            row.bytes.map_or_else(|| "-".to_string(), |b| b.to_string()),
        );
    }
    out.push_str("</tbody></table>");
}

fn path(points: &[(f64, f64)]) -> String {
    let mut d = String::new();
    for (i, (x, y)) in points.iter().enumerate() {
        let _ = write!(d, "{}{x:.1} {y:.1}", if i == 0 { "M" } else { " L" });
    }
    d
}

fn edges(out: &mut String, edges: &[Edge], class: &str, marker: &str) {
    for e in edges {
        if e.points.len() >= 2 {
            let _ = write!(
                out,
                "<path class=\"{class}\" data-from=\"{}\" data-to=\"{}\" d=\"{}\" marker-end=\"url(#{marker})\"/>",
                e.from,
                e.to,
                path(&e.points)
            );
        }
    }
}

fn svg(out: &mut String, report: &Report, drawing: &Drawing, titles: &[String], id: &str) {
    let marker = format!("arrow-{id}");
    let _ = write!(
        out,
        "<svg class=\"graph\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w:.0} {h:.0}\" \
         data-width=\"{w:.0}\" data-height=\"{h:.0}\" width=\"{w:.0}\" height=\"{h:.0}\">\
         <defs><marker id=\"{marker}\" viewBox=\"0 0 8 8\" refX=\"8\" refY=\"4\" markerWidth=\"6\" \
         markerHeight=\"6\" orient=\"auto\"><path d=\"M0 0 L8 4 L0 8 z\"/></marker>\
         <pattern id=\"hatch-{id}\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" \
         patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#eceff1\"/>\
         <line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#b0bec5\" stroke-width=\"2\"/></pattern></defs>",
        w = drawing.width.max(1.0),
        h = drawing.height.max(1.0),
    );
    out.push_str("<g class=\"outer-edges\">");
    edges(out, &drawing.outer_edges, "edge outer", &marker);
    out.push_str("</g>");
    let index: std::collections::HashMap<&str, usize> = report
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.as_str(), i))
        .collect();
    for (k, (kernel, rect)) in report.kernels.iter().zip(&drawing.kernels).enumerate() {
        let hue = (k as f64 * 137.508) % 360.0;
        let (fill, class) = match &kernel.extern_kind {
            Some(_) => (format!("url(#hatch-{id})"), "kernel extern"),
            None => (format!("hsl({hue:.0},70%,93%)"), "kernel"),
        };
        let title = titles.get(k).cloned().unwrap_or_default();
        let _ = write!(
            out,
            "<g class=\"{class}\" data-kernel=\"{k}\" data-name=\"{name}\" tabindex=\"0\">\
             <rect class=\"box\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" rx=\"6\" \
             fill=\"{fill}\" stroke=\"hsl({hue:.0},45%,45%)\"/>\
             <text class=\"kernel-name\" x=\"{tx:.1}\" y=\"{ty:.1}\">{title}</text><title>{title}</title>",
            name = escape(&kernel.name),
            x = rect.x,
            y = rect.y,
            w = rect.width,
            h = rect.height,
            tx = rect.x + 6.0,
            ty = rect.y + TITLE_HEIGHT - 5.0,
            title = escape(&title),
        );
        for member in &kernel.members {
            let Some(&n) = index.get(member.as_str()) else {
                continue;
            };
            let node = &report.nodes[n];
            let r = drawing.nodes[n];
            let tip = format!(
                "{} ({}) {}{}",
                node.name,
                node.kind,
                node.origins.join(", "),
                node.loc.as_ref().map(|l| format!(" at {l}")).unwrap_or_default()
            );
            let _ = write!(
                out,
                "<g class=\"node {kind}{local}\" data-node=\"{name}\"><rect x=\"{x:.1}\" y=\"{y:.1}\" \
                 width=\"{w:.1}\" height=\"{h:.1}\" rx=\"4\"/><text x=\"{cx:.1}\" y=\"{cy:.1}\">{label}</text>\
                 <title>{tip}</title></g>",
                kind = escape(&node.kind),
                local = if kernel.kernel_local.contains(member) { " local" } else { "" },
                name = escape(&node.name),
                x = r.x,
                y = r.y,
                w = r.width,
                h = r.height,
                cx = r.x + r.width / 2.0,
                cy = r.y + NODE_HEIGHT / 2.0 + 4.0,
                label = escape(&node.label()),
                tip = escape(&tip),
            );
        }
        out.push_str("</g>");
    }
    out.push_str("<g class=\"inner-edges\">");
    edges(out, &drawing.inner_edges, "edge inner", &marker);
    out.push_str("</g></svg>");
}

/// The data the script reads: per function and strategy, kernels (with measured
/// times), nodes and rejections.
fn data(views: &[FunctionView<'_>], timings: Option<&Timings>) -> Value {
    let functions: Vec<Value> = views
        .iter()
        .map(|view| {
            let strategies: Vec<Value> = view
                .strategies
                .iter()
                .map(|(result, report)| {
                    let names: Vec<&str> = report.kernels.iter().map(|k| k.name.as_str()).collect();
                    let kernels: Vec<Value> = report
                        .kernels
                        .iter()
                        .map(|k| {
                            json!({
                                "name": k.name, "extern": k.extern_kind, "members": k.members,
                                "iteration": [k.iteration.0, k.iteration.1], "bytes_read": k.bytes_read,
                                "bytes_written": k.bytes_written, "launches": k.launches,
                                "kernel_local": k.kernel_local,
                                "time_us": timings.and_then(|t| t.kernel_us(&report.function, &result.strategy, &k.name)),
                            })
                        })
                        .collect();
                    let nodes: Vec<Value> = report
                        .nodes
                        .iter()
                        .map(|n| {
                            json!({"name": n.name, "kind": n.kind, "origins": n.origins, "loc": n.loc,
                                   "reads": n.reads, "bytes": n.bytes, "output": n.output})
                        })
                        .collect();
                    let rejected: Vec<Value> = report
                        .rejected
                        .iter()
                        .take(MAX_REJECTIONS)
                        .map(|r| json!([r.node1, r.node2, r.reason]))
                        .collect();
                    json!({
                        "strategy": result.strategy, "kernels": kernels, "nodes": nodes,
                        "rejected": rejected, "rejected_total": report.rejected.len(),
                        "unmatched_us": timings.map(|t| t.unmatched_us(&report.function, &result.strategy, &names)),
                    })
                })
                .collect();
            json!({"function": view.name, "strategies": strategies})
        })
        .collect();
    json!({"functions": functions, "timings": timings.map(|t| t.source)})
}

/// Renders the page of `results` (one per strategy, each with one report per
/// function), titled `title` (the input file), with measured times where given.
pub fn render(title: &str, results: &[StrategyResult], timings: Option<&Timings>) -> String {
    let views = functions(results);
    let titles: Vec<Vec<Vec<String>>> = views
        .iter()
        .map(|v| {
            v.strategies
                .iter()
                .map(|(result, report)| {
                    let time = |k: &crate::model::Kernel| {
                        timings.and_then(|t| t.kernel_us(&report.function, &result.strategy, &k.name))
                    };
                    report.kernels.iter().map(|k| kernel_title(k, time(k))).collect()
                })
                .collect()
        })
        .collect();
    // Layouts are independent per strategy and function: one thread each.
    let drawings: Vec<Vec<Drawing>> = std::thread::scope(|scope| {
        let handles: Vec<Vec<_>> = views
            .iter()
            .zip(&titles)
            .map(|(v, ts)| {
                v.strategies
                    .iter()
                    .zip(ts)
                    .map(|((_, report), t)| scope.spawn(move || draw(report, t)))
                    .collect()
            })
            .collect();
        handles
            .into_iter()
            .map(|hs| hs.into_iter().map(|h| h.join().unwrap_or_default()).collect())
            .collect()
    });
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"generator\" content=\"fuselab {version}\">\
         <title>fuselab fusion report: {t}</title><style>{STYLE}</style></head><body>\
         <header><h1>fuselab fusion report</h1><p class=\"source\">{t}</p>\
         <label class=\"side-by-side\"><input type=\"checkbox\" id=\"side-by-side\"> strategies side by side</label>\
         </header><main>",
        version = env!("CARGO_PKG_VERSION"),
        t = escape(title),
    );
    for (f, ((view, drawings), titles)) in views.iter().zip(&drawings).zip(&titles).enumerate() {
        let _ = write!(
            out,
            "<section class=\"function\" data-function=\"{f}\"><h2>@{}</h2>",
            escape(view.name)
        );
        summary_table(&mut out, view, timings);
        out.push_str("<nav class=\"tabs\">");
        for (s, (result, _)) in view.strategies.iter().enumerate() {
            let _ = write!(
                out,
                "<button type=\"button\" data-view=\"{s}\"{}>{}</button>",
                if s == 0 { " class=\"active\"" } else { "" },
                escape(&result.strategy)
            );
        }
        out.push_str("</nav><div class=\"views\">");
        for (s, (((result, report), drawing), titles)) in
            view.strategies.iter().zip(drawings).zip(titles).enumerate()
        {
            let _ = write!(
                out,
                "<div class=\"view{}\" data-view=\"{s}\" data-strategy=\"{}\"><h3>{} · {} \
                 <input class=\"find\" type=\"search\" placeholder=\"find a kernel, node or aten op\"></h3>\
                 <div class=\"canvas\">",
                if s == 0 { " active" } else { "" },
                escape(&result.strategy),
                escape(&result.strategy),
                {
                    let library = report.kernels.iter().filter(|k| k.extern_kind.is_some()).count();
                    format!(
                        "{} kernels, {library} library calls",
                        report.kernels.len() - library
                    )
                },
            );
            svg(&mut out, report, drawing, titles, &format!("{f}-{s}"));
            out.push_str(
                "</div><aside class=\"details\"><p class=\"hint\">Click a kernel or a node for its members, \
                 bytes and why its neighbours were not fused. Wheel: zoom; drag: pan; double-click: fit.</p></aside>",
            );
            if let Some(t) = timings {
                parity_table(&mut out, report, &result.strategy, t);
            }
            out.push_str("</div>");
        }
        out.push_str("</div></section>");
    }
    // `<` never appears raw inside the script element, so no string can close it.
    let data = data(&views, timings).to_string().replace('<', "\\u003c");
    let _ = writeln!(
        out,
        "</main><script type=\"application/json\" id=\"fuselab-data\">{data}</script><script>{SCRIPT}</script></body></html>"
    );
    out
}
