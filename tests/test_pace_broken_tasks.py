"""One broken pace task folder is reported for that task, with its reason, and the other tasks run:
discovery, `load_tasks` (what a run uses), `pace list`, `pace validate`, `check_suite` and `simreflect run`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simreflect.core.contract import BrokenTasks
from simreflect.core.registry import get_suite
from simreflect.suites.pace.commands import app
from simreflect.suites.pace.task import TARGETS, BrokenTaskWarning, TaskFormatError, TaskSpec, discover, tasks_dir
from simreflect.testing.check import check_suite

GOOD, BAD = "dynamics_launcher", "statics_bridge"


def _card_without_visible(folder: Path) -> None:
    card = folder / "card.toml"
    card.write_text(card.read_text().replace("visible = ", "shown = ", 1))


#: How a hand-written folder breaks, and a word its reason must carry.
BREAKS = {
    "card_not_toml": (lambda f: (f / "card.toml").write_text('id = "statics_bridge"\n[variables\n'), "TOMLDecodeError"),
    "card_not_utf8": (lambda f: (f / "card.toml").write_bytes(b"\xff\xfe id = 1\n"), "UnicodeDecodeError"),
    "missing_reference": (lambda f: (f / "ref_stage3.py").unlink(), "missing ref_stage3.py"),
    "stages_not_toml": (lambda f: (f / "stages.toml").write_text("[source]\nx = = 1\n"), "TOMLDecodeError"),
    "reference_not_python": (lambda f: (f / "ref_stage2.py").write_text("def build(api:\n"),
                             "ref_stage2.py does not parse (line 1"),
    "world_has_nul": (lambda f: (f / "world.py").write_bytes(b"x = 1\x00\n"), "world.py does not parse"),
    "variable_without_visible": (_card_without_visible, "lacks the key 'visible'"),
    "variables_not_a_table": (lambda f: (f / "card.toml").write_text(
        "variables = 3\n" + (f / "card.toml").read_text().replace("[variables.", "[ignored.")), "AttributeError"),
    "card_id_differs": (lambda f: (f / "card.toml").write_text(
        (f / "card.toml").read_text().replace('id = "statics_bridge"', 'id = "other"', 1)), "differs from the folder"),
}


def _root(tmp_path: Path, brk: str) -> Path:
    root = tmp_path / "tasks"
    for name in (GOOD, BAD):
        shutil.copytree(tasks_dir() / name, root / name)
    BREAKS[brk][0](root / BAD)
    return root


@pytest.mark.parametrize("brk", sorted(BREAKS))
def test_discovery_names_the_broken_folder_and_loads_the_others(tmp_path, brk):
    root = _root(tmp_path, brk)
    found = discover(root)
    assert [s.id for s in found.specs] == [GOOD]
    assert [b.id for b in found.broken] == [BAD]
    assert BREAKS[brk][1] in found.broken[0].reason, found.broken[0].reason
    with pytest.raises(TaskFormatError, match=BAD):  # the folder alone: a format error, never another exception
        TaskSpec(root / BAD)
    suite = get_suite("pace")
    assert isinstance(suite, BrokenTasks) and suite.broken_tasks(root) == found.broken
    with pytest.warns(BrokenTaskWarning, match=f"pace task {BAD} skipped"):
        tasks = suite.load_tasks(root)
    assert [t.id for t in tasks] == [f"{GOOD}.{st}" for st in TARGETS]


def test_the_packaged_tasks_all_load():
    with warnings.catch_warnings():
        warnings.simplefilter("error", BrokenTaskWarning)
        assert get_suite("pace").broken_tasks() == () and discover().specs


def test_list_names_the_broken_task_and_lists_the_others(tmp_path):
    root = _root(tmp_path, "card_not_toml")
    r = CliRunner().invoke(app, ["list", "--root", str(root)])
    assert r.exit_code == 1
    assert GOOD in r.output and f"error: pace task {BAD} does not load" in r.output and "TOMLDecodeError" in r.output
    r = CliRunner().invoke(app, ["list", "--root", str(tmp_path / "missing")])
    assert r.exit_code == 2 and "No such file" in r.output


def test_validate_names_the_broken_task_validates_the_others_and_pins_nothing(tmp_path):
    root = _root(tmp_path, "missing_reference")
    pins_before = (root / GOOD / "pinned_metrics.json").read_bytes()
    r = CliRunner().invoke(app, ["validate", "--root", str(root), "--workers", "2", "--json", "--pin"])
    rows = [json.loads(line) for line in r.output.splitlines() if line.startswith("{")]
    assert r.exit_code == 1, r.output
    assert {x["task"] for x in rows} == {GOOD} and all(x["ok"] for x in rows) and len(rows) == 1 + 2 * len(TARGETS)
    assert f"error: pace task {BAD} does not load" in r.output and "missing ref_stage3.py" in r.output
    assert "not pinned" in r.output and (root / GOOD / "pinned_metrics.json").read_bytes() == pins_before
    # naming only the broken task: it is reported, not called unknown
    r = CliRunner().invoke(app, ["validate", "--root", str(root), "--task", BAD])
    assert r.exit_code == 1 and "missing ref_stage3.py" in r.output and "unknown" not in r.output


def test_check_reports_the_broken_task_as_a_finding_and_checks_the_others(tmp_path):
    root = _root(tmp_path, "stages_not_toml")
    with pytest.warns(BrokenTaskWarning):
        report = check_suite(get_suite("pace"), root, tasks=(f"{GOOD}.stage1",), oracle=False, cross_process=False,
                             hostile=False)
    assert not report.ok and report.tasks == (f"{GOOD}.stage1",)
    assert [(f.task, f.check) for f in report.findings] == [(BAD, "loads")]
    assert "TOMLDecodeError" in report.findings[0].problem


def test_a_run_names_the_broken_task_and_runs_the_others(tmp_path):
    root = _root(tmp_path, "reference_not_python")
    out = tmp_path / "run"
    res = subprocess.run([sys.executable, "-m", "simreflect.cli", "run", "pace", "--agent", "oracle", "--bench",
                          str(root), "--out", str(out), "--tasks", f"{GOOD}.stage1", "--rounds", "1", "--runs", "1"],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"pace task {BAD} skipped" in res.stderr and "ref_stage2.py does not parse" in res.stderr
    rows = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    assert [(r["task"], r["solved_round"]) for r in rows] == [(f"{GOOD}.stage1", 1)]
