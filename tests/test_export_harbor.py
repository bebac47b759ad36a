"""Harbor export: the layout, and one exported task's verifier and solution run locally."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib

import pytest

from simreflect.export.harbor import export_harbor
from simreflect.suites.pace.task import TARGETS
from pace_helpers import task_folder_names


@pytest.fixture(scope="module")
def exported(small_bench, tmp_path_factory):
    out = tmp_path_factory.mktemp("harbor")
    return export_harbor("gait", small_bench, out)


def test_layout(exported):
    assert [d.name for d in exported] == ["gait-ep01", "gait-ep02", "gait-ep03"]
    for d in exported:
        names = {str(p.relative_to(d)) for p in d.rglob("*") if p.is_file()}
        assert {"instruction.md", "task.toml", "environment/Dockerfile", "environment/app/rig.json",
                "solution/solve.sh", "tests/test.sh", "tests/task/episode.json", "tests/task/rig.json"} <= names
        assert any(n.startswith("tests/simreflect-") and n.endswith(".whl") for n in names)
        toml = tomllib.loads((d / "task.toml").read_text())
        assert toml["environment"]["allow_internet"] is False and toml["verifier"]["timeout_sec"] > 0
        instruction = (d / "instruction.md").read_text()
        assert "/app/fix.py" in instruction and "RESULT: FAIL" in instruction
        # the agent's side holds no hidden ground truth
        app_files = {p.name for p in (d / "environment").rglob("*") if p.is_file()}
        assert "episode.json" not in app_files and "oracle_fix.py" not in app_files


def run_task(task_dir, tmp_path, solve: bool, verifier_python: str | None = None) -> dict:
    """Run an exported task as Harbor would: solve.sh (optionally), then test.sh, then read reward.json.

    By default test.sh installs the shipped wheel into a fresh venv over the system Python (as in the
    task's image); `verifier_python` runs the verifier with a Python that has simreflect instead.
    """
    app = tmp_path / "app"
    shutil.copytree(task_dir / "environment" / "app", app)
    env = {**os.environ, "APP_DIR": str(app), "TESTS_DIR": str(task_dir / "tests"), "LOGS_DIR": str(tmp_path / "logs")}
    if verifier_python:
        env["SIMREFLECT_VERIFIER_PYTHON"] = verifier_python
    if solve:
        subprocess.run(["bash", str(task_dir / "solution" / "solve.sh")], env=env, check=True)
    subprocess.run(["bash", str(task_dir / "tests" / "test.sh")], env=env, check=True, capture_output=True, timeout=300)
    return json.loads((tmp_path / "logs" / "verifier" / "reward.json").read_text())


@pytest.mark.slow
def test_solution_earns_the_reward_and_nothing_earns_none(exported, tmp_path):
    solved = run_task(exported[0], tmp_path / "solved", solve=True)
    assert solved["reward"] == 1.0 and solved["passed"] is True
    unsolved = run_task(exported[0], tmp_path / "unsolved", solve=False)
    assert unsolved["reward"] == 0.0 and "no program" in unsolved["invalid"]


@pytest.mark.slow
def test_an_exported_audit_task_runs_its_verifier_and_solution(tmp_path):
    from simreflect.suites.audit.cards import tasks_dir

    exported = export_harbor("audit", tasks_dir() / "ols-risk", tmp_path / "harbor")
    assert [d.name for d in exported] == ["audit-ols-risk"]
    d = exported[0]
    assert not (d / "environment" / "app" / "keys.json").exists()
    assert (d / "tests" / "task" / "ols-risk" / "card.toml").is_file()
    assert run_task(d, tmp_path / "solved", solve=True)["reward"] == 1.0
    assert run_task(d, tmp_path / "unsolved", solve=False)["reward"] == 0.0


@pytest.mark.slow
def test_an_exported_pace_task_runs_its_verifier_and_solution(tmp_path, pace_sample_root):
    exported = export_harbor("pace", pace_sample_root, tmp_path / "harbor")
    assert len(exported) == len(task_folder_names(pace_sample_root)) * len(TARGETS)  # tasks x target stages
    d = next(e for e in exported if "statics_bridge" in e.name)
    # the system Python here lacks Box2D (the task's image installs it), so verify with ours
    assert run_task(d, tmp_path / "solved", solve=True, verifier_python=sys.executable)["reward"] == 1.0
    # the source design the agent starts from does not pass the target
    assert run_task(d, tmp_path / "unsolved", solve=False, verifier_python=sys.executable)["reward"] < 1.0


@pytest.mark.slow
def test_an_exported_workshop_task_runs_its_verifier_and_solution(tmp_path):
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "workshop.json").write_text(json.dumps({"builds": ["place"], "seeds": [0]}))
    exported = export_harbor("workshop", bench, tmp_path / "harbor")
    assert [d.name for d in exported] == ["workshop-place-0"]
    d = exported[0]
    assert {"INTERFACE.md", "task.json"} == {p.name for p in (d / "environment" / "app").iterdir()}
    assert "/app/agent.py" in (d / "instruction.md").read_text()
    assert "WorkshopClient" in (d / "solution" / "solve.sh").read_text()
    # the system Python here lacks MuJoCo (the task's image installs it), so verify with ours
    solved = run_task(d, tmp_path / "solved", solve=True, verifier_python=sys.executable)
    assert solved["reward"] == 1.0 and solved["passed"] is True
    assert solved["program"]["isolation"]["mode"] in ("bwrap", "plain")
    unsolved = run_task(d, tmp_path / "unsolved", solve=False, verifier_python=sys.executable)
    assert unsolved["reward"] == 0.0 and "no program" in unsolved["invalid"]
