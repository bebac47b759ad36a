"""Runs compared in the viewer (`simreflect view RUN RUN ...`), opened in a real headless Chromium
(Debian's) driven by Playwright: three small real pace runs made offline through the CLI and the
runner (the oracle, noop, and a scripted model whose endpoint fails part-way, so two of its episodes
end on infrastructure errors), the comparison's table and paired difference, the episode list's
filter, search and sort, the SVG charts with their points and bars, the pictures of the agent's
attempts, screenshots that are real pages; a hostile task id and model text stay escaped."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from simreflect.analysis.taxonomy import LABELS
from simreflect.core.registry import register_suite, unregister_suite
from simreflect.run.runner import RunConfig, run
from simreflect.suites.pace.suite import PaceSuite
from simreflect.suites.pace.task import tasks_dir
from simreflect.testing.scripted_llm import ScriptedLLMServer
from simreflect.testing.toy import ToySuite, write_task_list
from simreflect.viewer import NotARun, write_views
from test_viewer import CHROMIUM, HOSTILE, needs_chromium

CLI = [sys.executable, "-m", "simreflect.cli"]
TASKS = ("statics_bridge.stage1", "kinematics_rover.stage1", "statics_cantilever.stage2")
ARGS = ["--tasks", ",".join(TASKS), "--levels", "L1", "--rounds", "2", "--runs", "1", "--workers", "2"]
HOSTILE_ID = "toy<img src=x onerror=\"document.title='pwned'\">"


def cli_run(out: Path, agent: str) -> Path:
    res = subprocess.run(CLI + ["run", "pace", "--agent", agent, "--out", str(out), *ARGS], capture_output=True,
                         text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    return out


def failing_endpoint_run(out: Path) -> Path:
    """A scripted model (its name and diagnoses hostile HTML) that solves the bridge, answers the rover once
    with a program that fails, then the endpoint fails: the rover and the cantilever end on infrastructure
    errors (the rover after one round, the cantilever before any)."""
    suite = PaceSuite()
    tasks = {t.id: t for t in suite.load_tasks(tasks_dir())}
    answered: set[str] = set()

    def reply(request: dict) -> dict:
        text = json.dumps(request.get("messages", []))
        for task in ("statics_bridge", "kinematics_rover"):
            if task in text and task not in answered:
                answered.add(task)
                script = suite.oracle(tasks[TASKS[0]]) if task == "statics_bridge" else "raise SystemExit(3)\n"
                return {"content": json.dumps({"diagnosis": HOSTILE, "script": script})}
        return {"status": 500}

    with ScriptedLLMServer([reply]) as server:
        run(out, RunConfig(suite="pace", bench=str(tasks_dir()), agent="llm", levels=("L1",), rounds=2,
                           timeout_s=120.0, tasks=TASKS, agent_options={"model": HOSTILE, "base_url": server.base_url,
                                                                        "max_retries": 0, "backoff_s": 0.01}))
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("compare")
    return {"oracle": cli_run(base / "oracle", "oracle"), "noop": cli_run(base / "noop", "noop"),
            "model": failing_endpoint_run(base / "model")}


@pytest.fixture(scope="module")
def view(runs, tmp_path_factory) -> Path:
    return write_views([runs["oracle"], runs["noop"], runs["model"]], tmp_path_factory.mktemp("view") / "cmp")


def failed_check_names(run_dir: Path) -> set[str]:
    names = set()
    for line in (run_dir / "attempts.jsonl").read_text().splitlines():
        rec = json.loads(line)
        for c in (rec.get("verdict") or {}).get("checks", []):
            if not c["passed"]:
                names.add(c["name"])
    return names


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"])
        yield b
        b.close()


def opened(browser, path: Path):
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.goto(path.as_uri())
    page.errors = errors
    return page


def assert_real_screenshot(page, path: Path) -> None:
    page.screenshot(path=str(path), full_page=False)
    pixels = np.asarray(Image.open(path).convert("L"), dtype=float)
    assert pixels.shape == (900, 1200) and pixels.std() > 10  # a real page, not a blank one


def visible_tasks(page, table: str = "#episodes") -> list[str]:
    return page.eval_on_selector_all(f"{table} tbody tr", "rows => rows.filter(r => !r.hidden).map(r => r.dataset.task)")


def test_the_compare_page_holds_the_runs_their_shared_tasks_and_the_differences(view):
    html = view.read_text()
    assert html.count("<tr class='run'>") == 3 and "3 task(s) x level shared" not in html  # C finished one task
    assert "1 task(s) x level shared by every run" in html
    assert "A &minus; B</td><td class='num'>3</td>" in html  # oracle and noop share all three tasks
    for name in ("A", "B", "C"):
        assert (view.parent / "runs" / name / "index.html").is_file()


@needs_chromium
def test_compare_page_in_chromium(view, browser, tmp_path):
    page = opened(browser, view)
    assert page.locator("#runs tbody tr").count() == 3
    ab = page.locator("#differences tr.difference").first
    assert ab.locator("td").first.inner_text().replace("\u2212", "-") == "A - B"
    assert ab.locator(".solved-diff").inner_text() == "+100"  # the oracle solves all three, noop none
    assert float(ab.locator(".score-diff").inner_text()) > 0
    assert page.locator("#shared tbody tr").count() == 3
    # the curve: one series per run, a point per round budget; a bar per run
    assert page.locator("svg.compare-curve circle.point").count() == 3 * 2
    assert page.locator("svg.compare-solved rect.bar").count() == 3
    # the tasks list narrows to the search
    assert len(visible_tasks(page, "#items")) == 3
    page.fill("form[data-table='items'] input[name='search']", "rover")
    assert visible_tasks(page, "#items") == ["kinematics_rover.stage1"]
    assert page.errors == [] and page.title() != "pwned"
    assert_real_screenshot(page, tmp_path / "compare.png")


@needs_chromium
def test_episode_list_filters_searches_and_sorts(view, browser, tmp_path):
    page = opened(browser, view.parent / "runs" / "C" / "index.html")
    assert sorted(visible_tasks(page)) == sorted(TASKS)
    outcomes = page.eval_on_selector_all("select[name='outcome'] option", "os => os.map(o => o.value)")
    assert "infrastructure error" in outcomes and "solved" in outcomes and "not solved" in outcomes
    page.select_option("select[name='outcome']", "infrastructure error")
    assert sorted(visible_tasks(page)) == ["kinematics_rover.stage1", "statics_cantilever.stage2"]
    page.select_option("select[name='outcome']", "solved")
    assert visible_tasks(page) == ["statics_bridge.stage1"]
    page.select_option("select[name='outcome']", "")
    page.select_option("select[name='subset']", "stage 2")
    assert visible_tasks(page) == ["statics_cantilever.stage2"]
    page.select_option("select[name='subset']", "")
    page.fill("input[name='search']", "ROVER")
    assert visible_tasks(page) == ["kinematics_rover.stage1"]
    page.fill("input[name='search']", "")
    assert "infrastructure error" in page.locator("#episodes tbody tr[data-task='kinematics_rover.stage1']").inner_text()

    page = opened(browser, view.parent / "runs" / "B" / "index.html")
    page.select_option("select[name='sort']", "task")
    assert visible_tasks(page) == sorted(TASKS)
    page.select_option("select[name='order']", "desc")
    assert visible_tasks(page) == sorted(TASKS, reverse=True)
    page.select_option("select[name='sort']", "score")
    scores = page.eval_on_selector_all("#episodes tbody tr", "rows => rows.map(r => parseFloat(r.dataset.score))")
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == 3
    page.select_option("select[name='order']", "asc")
    assert page.eval_on_selector_all("#episodes tbody tr", "rows => rows.map(r => parseFloat(r.dataset.score))") == sorted(scores)
    assert page.errors == []


@needs_chromium
def test_run_charts_have_their_points_and_bars(view, runs, browser, tmp_path):
    page = opened(browser, view.parent / "runs" / "B" / "index.html")
    assert page.locator("svg.passk circle.point").count() == 2  # Pass@1 at budgets 1 and 2
    assert page.locator("svg.score-by-round circle.point").count() == 3  # before round 1, rounds 1 and 2
    assert page.locator("svg.failed-checks rect.bar").count() == len(failed_check_names(runs["noop"]))
    assert page.locator("svg.taxonomy rect.bar").count() == len(LABELS)
    box, width = page.locator("svg.taxonomy").bounding_box(), page.evaluate("document.documentElement.clientWidth")
    assert box["x"] + box["width"] <= width and page.evaluate("document.documentElement.scrollWidth") <= width
    assert "Design fixation |" not in page.inner_text("body")  # the chart, not the wide table
    assert_real_screenshot(page, tmp_path / "run.png")


@needs_chromium
def test_rounds_show_their_score_and_pictures_of_the_attempt(view, browser):
    page = opened(browser, view.parent / "runs" / "A" / "episodes" / "statics_bridge.stage1-L1.html")
    assert page.locator(".round .score").first.inner_text() == "100"
    assert "solved" in page.locator(".round-result").first.inner_text()
    assert page.locator("img.attempt").count() == 1  # round 1 is the last and the best
    assert page.evaluate("document.querySelector('img.attempt').naturalWidth") > 0  # the GIF loaded
    page = opened(browser, view.parent / "runs" / "C" / "episodes" / "statics_cantilever.stage2-L1.html")
    assert "infrastructure error" in page.inner_text("h1") and page.locator("img.attempt").count() == 0
    page = opened(browser, view.parent / "runs" / "C" / "episodes" / "kinematics_rover.stage1-L1.html")
    assert "infrastructure error" in page.inner_text("h1")
    assert page.locator("img.attempt").count() == 0  # its program did not run: nothing drawn, no broken image
    assert HOSTILE in page.locator(".diagnosis").first.inner_text() and page.title() != "pwned"


def test_runs_without_shared_tasks_say_so(runs, tmp_path):
    with toy_runs(tmp_path) as (oracle, _):
        index = write_views([runs["oracle"], oracle], tmp_path / "cmp", pictures=False)
    html = index.read_text()
    assert "These runs share no task" in html and "A and B share no task" in html


class HostileToy(ToySuite):
    """The toy suite with task ids holding HTML (a suite's ids are any text to the viewer)."""

    name = "hostiletoy"

    def load_tasks(self, root=None):
        tasks = super().load_tasks(root)
        return [replace(t, id=f"{HOSTILE_ID}-{i}") if i == 0 else t for i, t in enumerate(tasks)]


class toy_runs:
    """An oracle and a noop run of HostileToy (2 tasks, the first id hostile)."""

    def __init__(self, base: Path):
        self.base = base

    def __enter__(self):
        register_suite(HostileToy.name, HostileToy)
        bench = write_task_list(self.base / "bench", 2, seed=3)
        out = []
        for agent in ("oracle", "noop"):
            run(self.base / agent, RunConfig(suite=HostileToy.name, bench=str(bench), agent=agent, levels=("L1",),
                                            rounds=1))
            out.append(self.base / agent)
        return tuple(out)

    def __exit__(self, *exc):
        unregister_suite(HostileToy.name)


@needs_chromium
def test_a_hostile_task_id_and_model_text_stay_escaped(runs, browser, tmp_path):
    with toy_runs(tmp_path) as (oracle, noop):
        index = write_views([oracle, noop, runs["model"]], tmp_path / "cmp")
        html = index.read_text()
        run_page = (index.parent / "runs" / "A" / "index.html").read_text()
        for text in (html, run_page, (index.parent / "runs" / "C" / "index.html").read_text()):
            assert "<img src=x" not in text and "<script>document" not in text
        assert "&lt;img src=x onerror=" in html and "&lt;script&gt;" in html  # the model's name, as text
        assert f"data-task='{HOSTILE_ID.replace('<', '&lt;').replace('>', '&gt;').replace(chr(34), '&quot;').replace(chr(39), '&#x27;')}-0'" in run_page
        for path in (index, index.parent / "runs" / "A" / "index.html"):
            page = opened(browser, path)
            table = "#items" if path == index else "#episodes"
            page.fill(f"form[data-table='{table[1:]}'] input[name='search']", "onerror")
            assert visible_tasks(page, table) == [f"{HOSTILE_ID}-0"]  # the search data is the id, as text
            assert page.title() != "pwned" and page.errors == []
        page = opened(browser, index.parent / "runs" / "A" / "index.html")
        page.click("#episodes tbody a >> nth=0")
        assert HOSTILE_ID in page.inner_text("h1") and page.title() != "pwned"
        assert page.locator("img").count() == 0  # the toy suite draws nothing: no broken image


def test_a_directory_that_is_not_a_run_is_a_clear_error(runs, tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(NotARun, match="is not a run directory"):
        write_views([runs["oracle"], tmp_path / "empty"], tmp_path / "out")
    assert not (tmp_path / "out").exists()  # every run is read before anything is written
    (tmp_path / "damaged").mkdir()
    (tmp_path / "damaged" / "config.json").write_text("{not json")
    (tmp_path / "a-file").write_text("x")
    for args in ([str(runs["oracle"]), str(tmp_path / "empty")], [str(tmp_path / "missing")],
                 [str(tmp_path / "a-file"), str(runs["oracle"])], [str(runs["noop"]), str(tmp_path / "damaged")]):
        res = subprocess.run(CLI + ["view", *args, "--out", str(tmp_path / "out")], capture_output=True, text=True,
                             timeout=300)
        assert res.returncode == 2 and ("is not a run directory" in res.stdout + res.stderr
                                        or "is damaged" in res.stdout + res.stderr), res.stdout + res.stderr
        assert "Traceback" not in res.stdout + res.stderr


def test_the_cli_writes_the_comparison(runs, tmp_path):
    res = subprocess.run(CLI + ["view", str(runs["oracle"]), str(runs["noop"]), "--out", str(tmp_path / "cmp"),
                                "--no-pictures"], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    html = (tmp_path / "cmp" / "index.html").read_text()
    assert "2 runs compared" in html and "A &minus; B" in html
    assert not list((tmp_path / "cmp" / "runs" / "A" / "media").glob("*-round*"))  # --no-pictures


@needs_chromium
def test_the_pages_policy_runs_only_the_viewers_own_script(browser, tmp_path):
    """Defence in depth: were a model's script ever let through unescaped, the page's policy would
    not run it, while the viewer's own list script still runs."""
    from simreflect.viewer.listing import LISTING_SCRIPT, controls
    from simreflect.viewer.markup import page as html_page

    body = (controls("t") + "<table id='t'><tbody><tr data-task='a'><td>a</td></tr><tr data-task='b'><td>b</td></tr>"
            "</tbody></table><script>document.title='pwned'</script><img src=x onerror=\"document.title='pwned'\">")
    path = tmp_path / "page.html"
    path.write_text(html_page("safe", body, LISTING_SCRIPT))
    page = opened(browser, path)
    page.fill("input[name='search']", "b")
    assert visible_tasks(page, "#t") == ["b"] and page.inner_text(".count") == "1 of 2 shown"
    assert page.title() == "safe"
