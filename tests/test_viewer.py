"""The run viewer, opened in a real headless Chromium (Debian's) driven by Playwright."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from PIL import Image

from simreflect.run.runner import RunConfig, run
from simreflect.testing.scripted_llm import ScriptedLLMServer
from simreflect.viewer import write_viewer

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
HOSTILE = "<img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>"


@pytest.fixture(scope="module")
def run_dir(one_bench, tmp_path_factory):
    """A two-round LLM run whose diagnosis carries HTML that must never execute."""
    from simreflect.suites.gait.suite import GaitSuite

    oracle = GaitSuite().load_tasks(one_bench)[0].hidden["oracle_fix"]
    out = tmp_path_factory.mktemp("viewrun")
    replies = [{"content": json.dumps({"diagnosis": HOSTILE, "script": "rig.fcurve('torso', 'location')[:, 0] += 0.0\n"})},
               {"content": json.dumps({"diagnosis": "restore the walk", "script": oracle})}]
    with ScriptedLLMServer(replies) as server:
        run(out, RunConfig(suite="gait", bench=str(one_bench), agent="llm", levels=("L2",),
                           agent_options={"model": "m", "base_url": server.base_url, "backoff_s": 0.01}))
    return out


def test_pages_are_written(run_dir):
    index = write_viewer(run_dir)
    page = (index.parent / "episodes" / "ep01-L2.html").read_text()
    assert "<script>document" not in page and "&lt;script&gt;" in page
    assert "diff against the previous round" in page and "Round 2" in page
    assert (index.parent / "media" / "solved.png").is_file() and (index.parent / "media" / "solved.svg").is_file()


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (scripts/setup.sh installs it)")
def test_viewer_in_headless_chromium(run_dir, tmp_path):
    from playwright.sync_api import sync_playwright

    index = write_viewer(run_dir)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"])
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.goto(index.as_uri())
        assert "Solved within 3" in page.inner_text("body")
        assert page.locator("#episodes tr").count() == 2  # header + one episode
        page.click("text=ep01")
        assert page.locator(".round").count() == 2
        assert HOSTILE in page.locator(".diagnosis").first.inner_text()  # shown as text ...
        assert page.title() != "pwned"  # ... never run
        assert "rig.fcurve" in page.locator(".script").nth(0).inner_text()
        assert "Oracle repair" in page.locator(".script").nth(1).inner_text()
        assert page.locator("pre.diff .add").count() > 0
        assert page.evaluate("document.querySelector('img.pic').naturalWidth") > 0  # the GIF loaded
        shot = tmp_path / "episode.png"
        page.screenshot(path=str(shot), full_page=False)
        browser.close()
    pixels = np.asarray(Image.open(shot).convert("L"), dtype=float)
    assert pixels.shape == (900, 1200) and pixels.std() > 10  # a real page, not a blank one


def test_summary_markdown_headings_and_aligned_tables():
    from simreflect.viewer import _markdown_tables

    html = _markdown_tables("# Run\n### Pass@2 by stage\nstage | Pass@2\n---|---:\n1 | 33.3%\nn = 36 pairs")
    assert "<h4>Pass@2 by stage</h4>" in html and "###" not in html
    assert "<th>stage</th><th>Pass@2</th>" in html and "<td>1</td><td>33.3%</td>" in html
    assert "---" not in html and "<p>n = 36 pairs</p>" in html
