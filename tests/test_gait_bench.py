"""The built benchmark: the plan, every episode's controls, determinism across processes, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from simreflect.suites.gait.defects import defect_kinds
from simreflect.suites.gait.suite import GaitSuite

CLI = [sys.executable, "-m", "simreflect.cli"]


def rows(bench: Path) -> list[dict]:
    return [json.loads(line) for line in (bench / "episodes.jsonl").read_text().splitlines()]


def test_plan_and_files(gait_bench):
    data = rows(gait_bench)
    assert len(data) == 30
    sizes = Counter(len(r["kinds"]) for r in data)
    assert sizes == {1: 10, 2: 12, 3: 8}
    kinds = Counter(k for r in data for k in r["kinds"])
    assert kinds["leak"] >= 15 and kinds["balance"] >= 15 and kinds["knee"] >= 15
    manifest = json.loads((gait_bench / "manifest.json").read_text())
    assert manifest["episodes"] == 30
    for r in data:
        folder = gait_bench / "episodes" / r["id"]
        assert {"rig.json", "episode.json", "oracle_fix.py"} <= {p.name for p in folder.iterdir()}
        leaks = [d for d in r["defects"] if d["kind"] == "leak"]
        for leak in leaks:  # ground truth includes the leaked vertex indices
            assert leak["vertices"] and leak["foreign_bone"] != leak["bone"]
        assert r["walk_check"]["travel"] > 0
        assert r["controls"]["ok"] is True


def test_controls_hold_for_every_episode(gait_bench, tmp_path):
    """No fix: fails with exactly the planted kinds. Oracle fix, run as a real fix script: passes."""
    suite = GaitSuite()
    for task in suite.load_tasks(gait_bench):
        noop_dir = tmp_path / task.id / "noop"
        suite.prepare_workspace(task, noop_dir)
        noop = suite.verify(task, noop_dir)
        assert not noop.passed
        assert defect_kinds(noop) == set(task.hidden["kinds"]), task.id
        fixed_dir = tmp_path / task.id / "oracle"
        suite.prepare_workspace(task, fixed_dir)
        result = suite.run_program(task, suite.oracle(task), fixed_dir).result
        assert result.ok, result.output_tail
        verdict = suite.verify(task, fixed_dir)
        assert verdict.passed, (task.id, verdict.errors)
        assert verdict.check("walk_preserved").passed  # walks forward, toes ahead


def _build_in_subprocess(out: Path) -> None:
    subprocess.run(CLI + ["gait", "build", "--out", str(out), "--seed", "7", "--episodes", "4", "--workers", "1"],
                   check=True, capture_output=True)


def test_same_seed_gives_identical_bytes_across_processes(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    _build_in_subprocess(a)
    _build_in_subprocess(b)
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert files_a == files_b and any(str(p).endswith(".gif") for p in files_a)
    for rel in files_a:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel


def test_different_seeds_differ(tmp_path):
    from simreflect.suites.gait.build import build_benchmark

    build_benchmark(tmp_path / "s1", seed=1, episodes=2, workers=1, gifs=False)
    build_benchmark(tmp_path / "s2", seed=2, episodes=2, workers=1, gifs=False)
    assert (tmp_path / "s1/episodes/ep01/rig.json").read_bytes() != (tmp_path / "s2/episodes/ep01/rig.json").read_bytes()


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(CLI + list(args), capture_output=True, text=True, timeout=120)


def test_verify_cli_json(gait_bench):
    ep = gait_bench / "episodes" / "ep01"
    kinds = set(json.loads((ep / "episode.json").read_text())["kinds"])
    broken = run_cli("gait", "verify", str(ep), "--json")
    assert broken.returncode == 1
    verdict = json.loads(broken.stdout)
    assert verdict["passed"] is False and verdict["errors"]
    assert {c["name"] for c in verdict["checks"]} >= {"balance", "weight_audit", "joint_limits"}
    fixed = run_cli("gait", "verify", str(ep), "--script", str(ep / "oracle_fix.py"), "--json")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    out = json.loads(fixed.stdout)
    assert out["passed"] is True and out["errors"] == []
    assert kinds


@pytest.mark.parametrize("level, marker", [("L1", None), ("L2", "bone axes in world space"), ("L3", "likely leak group")])
def test_verify_cli_levels(gait_bench, level, marker):
    data = rows(gait_bench)
    ep_id = next(r["id"] for r in data if "leak" in r["kinds"])
    report = run_cli("gait", "verify", str(gait_bench / "episodes" / ep_id), "--level", level)
    assert report.returncode == 1
    assert f"evidence level {level}" in report.stdout
    if marker:
        assert marker in report.stdout
    else:
        assert "bone axes" not in report.stdout and "likely leak" not in report.stdout


def test_help_on_every_command():
    for args in ([], ["gait"], ["gait", "build"], ["gait", "verify"], ["suites"]):
        res = run_cli(*args, "--help")
        assert res.returncode == 0 and "Usage" in res.stdout, args
