// fuselab fusion report: tabs, zoom/pan and the details pane. The drawing itself is in
// the page; this script only reads the embedded data (#fuselab-data) and the DOM.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("fuselab-data").textContent);
  const mib = (b) => (b / 1048576).toFixed(2) + " MiB";

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }

  function row(table, cells) {
    const tr = el("tr");
    for (const c of cells) {
      const td = el("td");
      if (c instanceof Node) td.appendChild(c); else td.textContent = c === null || c === undefined ? "" : String(c);
      tr.appendChild(td);
    }
    table.appendChild(tr);
  }

  function location(loc) {
    if (!loc) return "";
    // The file's last component in the text, the whole location as its tooltip.
    const code = el("code", loc.split("/").pop(), "loc");
    code.title = loc;
    const file = loc.replace(/:\d+:\d+$/, "");
    if (!file.startsWith("/")) return code;
    const a = el("a");
    a.href = "file://" + file;
    a.appendChild(code);
    return a;
  }

  function strategyData(view) {
    const f = Number(view.closest("section.function").dataset.function);
    return data.functions[f].strategies[Number(view.dataset.view)];
  }

  function nodeIndex(s) {
    if (!s._nodes) {
      s._nodes = new Map();
      for (const n of s.nodes) s._nodes.set(n.name, n);
    }
    return s._nodes;
  }

  function showKernel(view, k, nodeName) {
    const s = strategyData(view);
    const kernel = s.kernels[k];
    const nodes = nodeIndex(s);
    const pane = view.querySelector(".details");
    pane.replaceChildren();
    for (const g of view.querySelectorAll(".selected")) g.classList.remove("selected");
    const group = view.querySelector('g.kernel[data-kernel="' + k + '"]');
    if (group) group.classList.add("selected");
    pane.appendChild(el("h4", kernel.name + (kernel.extern ? " (library call: " + kernel.extern + ")" : "")));
    const facts = el("table");
    row(facts, ["members", kernel.members.length]);
    row(facts, ["launches", kernel.launches]);
    row(facts, ["iteration (numel, rnumel)", kernel.iteration.join(" × ")]);
    row(facts, ["HBM read", mib(kernel.bytes_read)]);
    row(facts, ["HBM written", mib(kernel.bytes_written)]);
    if (kernel.time_us !== null && kernel.time_us !== undefined) row(facts, ["measured", kernel.time_us.toFixed(2) + " µs per call"]);
    pane.appendChild(facts);
    pane.appendChild(el("h4", "Members"));
    const members = el("table");
    row(members, ["node", "kind", "aten ops", "source", "bytes"].map((h) => el("b", h)));
    const inside = new Set(kernel.members);
    const inputs = new Set();
    for (const m of kernel.members) {
      const n = nodes.get(m);
      if (!n) continue;
      for (const r of n.reads) if (!inside.has(r)) inputs.add(r);
      const local = kernel.kernel_local.includes(m) ? " (local)" : "";
      row(members, [m + local, n.kind, n.origins.join(", "), location(n.loc), n.bytes]);
      if (nodeName === m) {
        const g = view.querySelector('g.node[data-node="' + CSS.escape(m) + '"]');
        if (g) g.classList.add("selected");
      }
    }
    pane.appendChild(members);
    pane.appendChild(el("h4", "Reads from outside"));
    pane.appendChild(el("p", [...inputs].sort().join(", ") || "nothing"));
    pane.appendChild(el("h4", "Not fused with a neighbour because"));
    const why = el("table");
    let shown = 0;
    const seen = new Set();
    for (const [a, b, reason] of s.rejected) {
      const inA = a.split(",").some((m) => inside.has(m));
      const inB = b.split(",").some((m) => inside.has(m));
      if (inA === inB) continue;
      const other = inA ? b : a;
      // A pair is tried again after each fusion round: one line per neighbour and reason.
      if (seen.has(other + "\u0000" + reason)) continue;
      seen.add(other + "\u0000" + reason);
      if (++shown > 50) break;
      row(why, [other, reason]);
    }
    if (shown === 0) pane.appendChild(el("p", "no rejected pair touches this kernel"));
    else pane.appendChild(why);
    if (s.rejected_total > s.rejected.length) {
      pane.appendChild(el("p", "(" + s.rejected.length + " of " + s.rejected_total + " rejected pairs are in this page)", "hint"));
    }
    if (s.unmatched_us) pane.appendChild(el("p", "library kernels and copies: " + s.unmatched_us.toFixed(2) + " µs per call", "hint"));
  }

  function zoomable(canvas) {
    const svg = canvas.querySelector("svg");
    const w = Number(svg.dataset.width), h = Number(svg.dataset.height);
    let full = [0, 0, w, h], box = full.slice(), shown = false;
    const apply = () => svg.setAttribute("viewBox", box.map((v) => v.toFixed(1)).join(" "));
    // Sizes the view to its frame, the first time the frame is on screen (a hidden tab
    // has none): the whole drawing, never magnified (a small one keeps its size,
    // centred); a drawing larger than its frame opens on its first kernel, unscaled, so
    // it is readable (double-click fits it whole).
    const show = () => {
      const frame = svg.getBoundingClientRect();
      if (shown || !frame.width) return;
      shown = true;
      const fw = Math.max(w, frame.width), fh = Math.max(h, frame.height);
      full = [(w - fw) / 2, (h - fh) / 2, fw, fh];
      box = full.slice();
      const first = svg.querySelector("g.kernel");
      if (first && (w > frame.width || h > frame.height)) {
        const b = first.getBBox();
        box = [b.x + b.width / 2 - frame.width / 2, b.y - 12, frame.width, frame.height];
      }
      apply();
    };
    show();
    const point = (ev) => {
      const r = svg.getBoundingClientRect();
      const scale = Math.max(box[2] / r.width, box[3] / r.height);
      const ox = box[0] + (box[2] - r.width * scale) / 2, oy = box[1] + (box[3] - r.height * scale) / 2;
      return [ox + (ev.clientX - r.left) * scale, oy + (ev.clientY - r.top) * scale, scale];
    };
    canvas.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      const [x, y] = point(ev);
      const f = ev.deltaY < 0 ? 0.8 : 1.25;
      box = [x - (x - box[0]) * f, y - (y - box[1]) * f, box[2] * f, box[3] * f];
      apply();
    }, { passive: false });
    let drag = null;
    canvas.addEventListener("mousedown", (ev) => { drag = [ev.clientX, ev.clientY, box[0], box[1], point(ev)[2]]; });
    window.addEventListener("mouseup", () => { drag = null; });
    canvas.addEventListener("mousemove", (ev) => {
      if (!drag) return;
      box[0] = drag[2] - (ev.clientX - drag[0]) * drag[4];
      box[1] = drag[3] - (ev.clientY - drag[1]) * drag[4];
      apply();
    });
    canvas.addEventListener("dblclick", () => { box = full.slice(); apply(); });
    // Centres the view on an element of the drawing, unscaled.
    const centre = (target) => {
      const b = target.getBBox();
      const r = svg.getBoundingClientRect();
      box = [b.x + b.width / 2 - r.width / 2, b.y + b.height / 2 - r.height / 2, r.width, r.height];
      apply();
    };
    return { show, centre };
  }

  const views = new Map();
  const showAll = () => { for (const z of views.values()) z.show(); };

  // The first kernel or node whose name, or whose node's aten ops, hold `text`.
  function find(view, text) {
    const needle = text.trim().toLowerCase();
    if (!needle) return null;
    for (const g of view.querySelectorAll("g.kernel")) {
      if (g.dataset.name.toLowerCase().includes(needle)) return [g, null];
    }
    for (const g of view.querySelectorAll("g.node")) {
      if (g.dataset.node.toLowerCase() === needle || g.textContent.toLowerCase().includes(needle)) {
        return [g.closest("g.kernel"), g];
      }
    }
    return null;
  }

  for (const section of document.querySelectorAll("section.function")) {
    const buttons = section.querySelectorAll("nav.tabs button");
    for (const b of buttons) {
      b.addEventListener("click", () => {
        for (const o of buttons) o.classList.toggle("active", o === b);
        for (const v of section.querySelectorAll(".view")) v.classList.toggle("active", v.dataset.view === b.dataset.view);
        showAll();
      });
    }
  }
  for (const view of document.querySelectorAll(".view")) {
    const zoom = zoomable(view.querySelector(".canvas"));
    views.set(view, zoom);
    const input = view.querySelector("input.find");
    input.addEventListener("keydown", (ev) => {
      if (ev.key !== "Enter") return;
      const hit = find(view, input.value);
      input.classList.toggle("missing", !hit);
      if (!hit) return;
      zoom.centre(hit[1] || hit[0]);
      showKernel(view, Number(hit[0].dataset.kernel), hit[1] ? hit[1].dataset.node : null);
    });
    view.querySelector("svg").addEventListener("click", (ev) => {
      const g = ev.target.closest("g.kernel");
      if (!g) return;
      const node = ev.target.closest("g.node");
      showKernel(view, Number(g.dataset.kernel), node ? node.dataset.node : null);
    });
  }
  const side = document.getElementById("side-by-side");
  side.addEventListener("change", () => {
    document.body.classList.toggle("side-by-side", side.checked);
    showAll();
  });
  document.body.dataset.ready = "true";
})();
