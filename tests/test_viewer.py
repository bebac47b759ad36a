"""The run viewer, opened in a real headless Chromium (Debian's) driven by Playwright, on a run of
the toy suite (gait's episode picture and its scripts: test_gait_viewer.py)."""

from __future__ import annotations

import json
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import numpy as np
import pytest
from PIL import Image

from simreflect.run.runner import RunConfig, run
from simreflect.testing.scripted_llm import ScriptedLLMServer
from simreflect.testing.toy import ANSWER_FILE, NAME, ToySuite, toy_suite_registered, write_task_list
from simreflect.viewer import write_viewer

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
HOSTILE = "<img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>"
needs_chromium = pytest.mark.skipif(CHROMIUM is None,
                                    reason="Debian's chromium is not installed (scripts/setup.sh installs it)")


def scripted_run(out: Path, suite: str, bench: Path, first_script: str, fix: str) -> Path:
    """A two-round LLM run at L2 whose first diagnosis carries HTML that must never execute."""
    replies = [{"content": json.dumps({"diagnosis": HOSTILE, "script": first_script})},
               {"content": json.dumps({"diagnosis": "restore it", "script": fix})}]
    with ScriptedLLMServer(replies) as server:
        run(out, RunConfig(suite=suite, bench=str(bench), agent="llm", levels=("L2",),
                           agent_options={"model": "m", "base_url": server.base_url, "backoff_s": 0.01}))
    return out


@contextmanager
def episode_in_chromium(run_dir: Path, link: str, shot: Path) -> Iterator:
    """The viewer's index opened in headless Chromium, checked, then the episode `link` opened;
    a screenshot of it is saved to `shot` (and checked to be a real page) after the block."""
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
        page.click(f"text={link}")
        assert page.locator(".round").count() == 2
        assert HOSTILE in page.locator(".diagnosis").first.inner_text()  # shown as text ...
        assert page.title() != "pwned"  # ... never run
        assert page.locator("pre.diff .add").count() > 0
        yield page
        page.screenshot(path=str(shot), full_page=False)
        browser.close()
    pixels = np.asarray(Image.open(shot).convert("L"), dtype=float)
    assert pixels.shape == (900, 1200) and pixels.std() > 10  # a real page, not a blank one


@pytest.fixture(scope="module")
def toy_task_and_run(tmp_path_factory):
    bench = write_task_list(tmp_path_factory.mktemp("toy"), 1, seed=2)
    task = ToySuite().load_tasks(bench)[0]
    with toy_suite_registered():
        yield task, scripted_run(tmp_path_factory.mktemp("viewrun"), NAME, bench,
                                 f"open('{ANSWER_FILE}', 'w').write('1')\n", ToySuite().oracle(task))


def test_pages_are_written(toy_task_and_run):
    task, run_dir = toy_task_and_run
    index = write_viewer(run_dir)
    page = (index.parent / "episodes" / f"{task.id}-L2.html").read_text()
    assert "<script>document" not in page and "&lt;script&gt;" in page
    assert "diff against the previous round" in page and "Round 2" in page
    assert (index.parent / "media" / "solved.png").is_file() and (index.parent / "media" / "solved.svg").is_file()


@needs_chromium
def test_viewer_in_headless_chromium(toy_task_and_run, tmp_path):
    task, run_dir = toy_task_and_run
    with episode_in_chromium(run_dir, task.id, tmp_path / "episode.png") as page:
        assert ".write('1')" in page.locator(".script").nth(0).inner_text()
        assert f"{task.params['a']} * {task.params['b']}" in page.locator(".script").nth(1).inner_text()
        assert [page.locator(".round .score").nth(i).inner_text() for i in range(2)] == ["0", "1"]  # the verdicts'
        assert page.locator("img").count() == 0  # the toy suite draws nothing: no broken image


def test_summary_markdown_headings_and_aligned_tables():
    from simreflect.viewer import _markdown_tables

    html = _markdown_tables("# Run\n### Pass@2 by stage\nstage | Pass@2\n---|---:\n1 | 33.3%\nn = 36 pairs")
    assert "<h4>Pass@2 by stage</h4>" in html and "###" not in html
    assert "<th>stage</th><th>Pass@2</th>" in html and "<td>1</td><td>33.3%</td>" in html
    assert "---" not in html and "<p>n = 36 pairs</p>" in html
