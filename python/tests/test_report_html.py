"""The visual fusion report in a real browser: every example's page and the imported
50-layer transformer encoder's (``fuse-opt --fusion-compare=html``) open in headless
Chromium (Debian's package, driven by Playwright) with no console error; the DOM holds
one group per kernel of every strategy, every node inside its kernel's box as the
browser lays it out, and the summary numbers of ``--fusion-compare=json``; the tabs
and the details pane work. ``fuselab.compare``'s HTML view is the same page.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Iterator

import pytest
import torch

import fuselab

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir"))
ENCODER = ROOT / "test" / "Import" / "Inputs" / "transformer_encoder_50.pt2"


def tool(name: str) -> Path:
    """A fuselab command-line tool of this checkout's build (``make test`` builds them
    in target/debug first; ``FUSELAB_BIN_DIR`` picks another build, as for lit)."""
    path = Path(os.environ.get("FUSELAB_BIN_DIR", ROOT / "target" / "debug")) / name
    assert path.exists(), f"{path} is missing: build the tools first (cargo build)"
    return path


def chromium() -> str:
    """Debian's chromium (scripts/install-deps.sh installs it), or ``FUSELAB_CHROMIUM``."""
    path = os.environ.get("FUSELAB_CHROMIUM") or shutil.which("chromium")
    assert path, "chromium is missing: scripts/install-deps.sh installs Debian's package"
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright  # scripts/install-python-deps.sh installs it

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        yield b
        b.close()


def fuse_opt(*args: str) -> str:
    done = subprocess.run([str(tool("fuse-opt")), *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("encoder") / "transformer_encoder_50.mlir"
    done = subprocess.run([str(tool("fuse-import")), str(ENCODER), "-o", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return out


def open_page(browser: Any, path: Path) -> tuple[Any, list[str]]:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready=true]")
    return page, errors


def check_page(browser: Any, source: Path, tmp_path: Path) -> None:
    html = tmp_path / (source.stem + ".html")
    fuse_opt("--fusion-compare=html", str(source), "-o", str(html))
    want = json.loads(fuse_opt("--fusion-compare=json", str(source)))["functions"]
    page, errors = open_page(browser, html)
    sections = page.locator("section.function")
    assert sections.count() == len(want)
    for i, function in enumerate(want):
        section = sections.nth(i)
        assert section.locator("h2").inner_text() == "@" + function["function"]
        rows = section.locator("table.summary tbody tr")
        assert rows.count() == len(function["rows"])
        for r, row in enumerate(function["rows"]):
            cells = rows.nth(r)
            assert cells.get_attribute("data-strategy") == row["strategy"]
            for cls, key in [("kernels", "kernels"), ("launches", "launches"), ("bytes-read", "bytes_read"),
                             ("bytes-written", "bytes_written"), ("bytes-total", "bytes_total"),
                             ("largest", "largest_kernel")]:
                got = cells.locator(f"td.{cls}").get_attribute("data-value")
                assert got == str(row[key]), (source.name, row["strategy"], key)
            extern = cells.locator("td.extern").get_attribute("data-value")
            assert extern == ("-" if row["extern_kernels"] is None else str(row["extern_kernels"]))
        strategies = [row for row in function["rows"] if row["strategy"] != "eager"]
        buttons = section.locator("nav.tabs button")
        assert buttons.count() == len(strategies)
        for s, row in enumerate(strategies):
            view = section.locator(f'.view[data-view="{s}"]')
            assert view.get_attribute("data-strategy") == row["strategy"]
            # One group per kernel: generated and library kernels.
            assert view.locator("g.kernel").count() == row["kernels"] + row["extern_kernels"], row["strategy"]
            assert view.locator("g.node").count() == view.locator("g.kernel g.node").count()
            buttons.nth(s).click()
            assert section.locator(".view.active").get_attribute("data-strategy") == row["strategy"]
        # Every node lies inside its kernel's box, as the browser lays the page out.
        outside = page.evaluate("""() => [...document.querySelectorAll('g.kernel')].flatMap(k => {
            const b = k.querySelector('rect.box').getBBox();
            return [...k.querySelectorAll('g.node rect')].map(r => r.getBBox()).filter(n =>
                n.x < b.x || n.y < b.y || n.x + n.width > b.x + b.width + 0.01 || n.y + n.height > b.y + b.height + 0.01)
            .map(() => k.dataset.name); })""")
        assert outside == []
    # The details pane of the first kernel of the active view.
    view = page.locator("section.function").first.locator(".view.active")
    first = view.locator("g.kernel").first
    first.locator("text.kernel-name").click()
    details = view.locator(".details")
    assert details.locator("h4").first.inner_text().startswith(first.get_attribute("data-name") or "?")
    assert "Members" in details.inner_text()
    assert errors == [], errors
    page.close()


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.stem for e in EXAMPLES])
def test_every_example_page_renders_every_kernel(browser: Any, example: Path, tmp_path: Path) -> None:
    check_page(browser, example, tmp_path)


def test_the_50_layer_encoder_page_renders_every_kernel(browser: Any, encoder: Path, tmp_path: Path) -> None:
    check_page(browser, encoder, tmp_path)


def test_find_centres_and_selects_a_kernel(browser: Any, tmp_path: Path) -> None:
    html = tmp_path / "layernorm.html"
    fuse_opt("--fusion-compare=html", str(ROOT / "examples" / "layernorm.mlir"), "-o", str(html))
    page, errors = open_page(browser, html)
    view = page.locator(".view.active")
    view.locator("input.find").fill("layer_norm")
    view.locator("input.find").press("Enter")
    assert view.locator("g.kernel.selected").count() == 1
    assert "layer_norm" in view.locator(".details").inner_text()
    view.locator("input.find").fill("no such op")
    view.locator("input.find").press("Enter")
    assert "missing" in (view.locator("input.find").get_attribute("class") or "")
    assert errors == []
    page.close()


def test_compare_shows_the_same_page(browser: Any, tmp_path: Path) -> None:
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.LayerNorm(32))
    result = fuselab.compare(model, (torch.randn(4, 16),), strategies=["inductor", "tvm"])
    text = result.html("mlp")
    assert text.startswith("<!DOCTYPE html>") and "fuselab fusion report: mlp" in text
    assert "<iframe class='fuselab-report'" in result._repr_html_()
    path = tmp_path / "compare.html"
    path.write_text(text)
    page, errors = open_page(browser, path)
    views = page.locator(".view")
    assert [views.nth(i).get_attribute("data-strategy") for i in range(views.count())] == ["inductor", "tvm"]
    for i, row in enumerate(result.rows):
        kernels = views.nth(i).locator("g.kernel").count()
        assert kernels == row.kernels + row.extern_kernels
    assert errors == []
    page.close()


def test_a_timed_page_shows_times_and_the_parity_table(browser: Any, tmp_path: Path) -> None:
    html = tmp_path / "gelu_mlp.html"
    timing = ROOT / "test" / "Tools" / "fuse-opt" / "Inputs" / "gpu-timing.json"
    fuse_opt("--fusion-compare=html", f"--fusion-timing={timing}", str(ROOT / "examples" / "gelu_mlp.mlir"),
             "-o", str(html))
    page, errors = open_page(browser, html)
    view = page.locator(".view.active")
    assert view.get_attribute("data-strategy") == "inductor"
    assert view.locator("table.parity tbody tr").count() == 3
    kernel = view.locator('g.kernel[data-name="fused_gelu_0"]')
    assert (kernel.locator("text.kernel-name").text_content() or "").endswith("132.3 µs")
    kernel.locator("text.kernel-name").click()
    assert "132.31 µs per call" in view.locator(".details").inner_text()
    assert errors == []
    page.close()
