"""Harbor export: what Harbor's own models accept, what the agent's image holds, and one exported
task's verifier and solution run locally."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from harbor_models import harbor
from pace_helpers import task_folder_names
from simreflect.core.registry import get_suite
from simreflect.export.difficulty import label, measured_difficulties
from simreflect.export.harbor import build_wheel, export_harbor
from simreflect.export.harbor_verify import harbor_reward, verify_program, _unit_reward
from simreflect.export.pins import pinned_requirements, python_image
from simreflect.run.runner import RunConfig, run
from simreflect.suites.pace.task import TARGETS


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """simreflect's wheel, built once for this module's exports."""
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def exported(small_bench, tmp_path_factory, wheel):
    out = tmp_path_factory.mktemp("harbor")
    return export_harbor("gait", small_bench, out, wheel=wheel)


def harbor_reads_reward(path: Path) -> dict:
    """Harbor's reward-file rule (harbor/verifier/verifier.py, whose module needs Python 3.12): a
    reward.json is a number or an object whose values are all numbers, finite where they are floats;
    then its VerifierResult model."""
    assert path.stat().st_size > 0
    rewards = json.loads(path.read_text())
    values = rewards.values() if isinstance(rewards, dict) else [rewards]
    for value in values:
        assert isinstance(value, (int, float)) and not isinstance(value, bool), value
        assert not isinstance(value, float) or math.isfinite(value), value
    result = harbor().models.verifier.result.VerifierResult(rewards=rewards)
    return result.rewards


def test_task_toml_is_harbors_current_schema_with_a_name(exported):
    h = harbor()
    config_mod, mode_mod = h.models.task.config, h.models.task.verifier_mode
    assert [d.name for d in exported] == ["gait-ep01", "gait-ep02", "gait-ep03"]
    for d in exported:
        config = config_mod.TaskConfig.model_validate_toml((d / "task.toml").read_text())
        assert config.schema_version == config_mod.TaskConfig.model_fields["schema_version"].default
        assert config.task.name == f"simreflect/{d.name}"
        assert config.environment.network_mode == config_mod.NetworkMode.NO_NETWORK
        assert config.verifier.timeout_sec > 0 and config.agent.timeout_sec > 0
        assert [str(a) for a in config.artifacts] == ["/app/fix.py"]
        # the verifier runs in its own image built from tests/ (Harbor's rule), never the agent's container
        assert mode_mod.resolve_task_verifier_mode(config) == config_mod.VerifierEnvironmentMode.SEPARATE
        definition = mode_mod.resolve_verifier_environment_definition(config, h.models.task.paths.TaskPaths(d))
        assert definition.directory == d / "tests" and definition.bundled_tests is True
        assert config.metadata["difficulty"] == "unmeasured"  # no baseline run given: no made-up label


def test_layout_and_one_shared_wheel(exported):
    out = exported[0].parent
    shared = list(out.glob("simreflect-*.whl"))
    assert len(shared) == 1
    for d in exported:
        names = {str(p.relative_to(d)) for p in d.rglob("*") if p.is_file()}
        assert {"instruction.md", "task.toml", "environment/Dockerfile", "environment/requirements.txt",
                "environment/app/rig.json", "solution/solve.sh", "tests/test.sh", "tests/Dockerfile",
                "tests/requirements.txt", "tests/task/episode.json", "tests/task/rig.json"} <= names
        wheels = [n for n in names if n.endswith(".whl")]
        assert wheels == [f"tests/{shared[0].name}"]
        assert os.path.samefile(d / wheels[0], shared[0])  # a hard link: one wheel on disk
        verifier_image = (d / "tests" / "Dockerfile").read_text()
        assert "COPY test.sh /tests/test.sh" in verifier_image and shared[0].name in verifier_image
        instruction = (d / "instruction.md").read_text()
        assert "/app/fix.py" in instruction and "RESULT: FAIL" in instruction


def agent_image_files(task_dir: Path) -> dict[str, bytes]:
    """Everything the agent's image is built from (its Dockerfile's context)."""
    env = task_dir / "environment"
    return {str(p.relative_to(env)): p.read_bytes() for p in env.rglob("*") if p.is_file()}


def assert_no_answers(suite_name: str, task_dir: Path, task) -> None:
    files = agent_image_files(task_dir)
    names = " ".join(files)
    for forbidden in (".whl", "reference", "ref_stage", "keys.json", "oracle", "episode.json", "robot.py"):
        assert forbidden not in names, (forbidden, sorted(files))
    dockerfile = files["Dockerfile"].decode()
    requirements = files["requirements.txt"].decode()
    assert "simreflect" not in dockerfile.lower() and "simreflect" not in requirements.lower()
    assert "COPY app/ /app/" in dockerfile
    suite = get_suite(suite_name)
    secrets = [suite.oracle(task).strip().encode()]
    secrets += [json.dumps(v).encode() for v in task.hidden.values() if len(json.dumps(v)) >= 12]
    for name, data in files.items():
        for secret in secrets:
            assert secret not in data, (name, secret[:80])


def test_the_agents_image_holds_no_answers_gait(exported, small_bench):
    tasks = {t.id: t for t in get_suite("gait").load_tasks(small_bench)}
    for d in exported:
        assert_no_answers("gait", d, tasks[d.name.removeprefix("gait-")])


def test_the_agents_image_holds_no_answers_audit_and_pace(tmp_path, pace_sample_root, wheel):
    from simreflect.suites.audit.cards import tasks_dir

    for suite_name, bench, pattern in (("audit", tasks_dir(), "ols-*"), ("pace", pace_sample_root, "statics_*")):
        written = export_harbor(suite_name, bench, tmp_path / suite_name, tasks=(pattern,), wheel=wheel)
        tasks = {t.id: t for t in get_suite(suite_name).load_tasks(bench)}
        assert written
        for d in written:
            assert_no_answers(suite_name, d, tasks[d.name.removeprefix(f"{suite_name}-")])


def test_tasks_selects_and_a_typo_is_an_error(small_bench, tmp_path, wheel):
    written = export_harbor("gait", small_bench, tmp_path / "one", tasks=("ep02",), wheel=wheel)
    assert [d.name for d in written] == ["gait-ep02"]
    with pytest.raises(ValueError, match="no task matches 'ep9'.*ep01"):
        export_harbor("gait", small_bench, tmp_path / "none", tasks=("ep9",))


def test_dependencies_are_pinned_to_the_pinned_metrics_versions(exported):
    import Box2D

    from simreflect.suites.pace.task import tasks_dir

    requirements = (exported[0] / "tests" / "requirements.txt").read_text().split()
    assert requirements == pinned_requirements() == (exported[0] / "environment" / "requirements.txt").read_text().split()
    assert all("==" in r for r in requirements)
    assert f"box2d=={Box2D.__version__}" in requirements
    import numpy

    assert f"numpy=={numpy.__version__}" in requirements
    # the images' Python and Box2D are those the pinned metrics were fingerprinted with
    platform = json.loads(next(tasks_dir().glob("*/pinned_metrics.json")).read_text())["platform"]
    assert f"box2d-{Box2D.__version__}" in platform
    assert f"python-{python_image().removeprefix('python:').removesuffix('-slim')}" in platform
    assert f"FROM {python_image()}" in (exported[0] / "tests" / "Dockerfile").read_text()


def test_difficulty_comes_from_a_measured_baseline_run(small_bench, tmp_path, wheel):
    for agent in ("oracle", "noop"):
        run(tmp_path / agent, RunConfig(suite="gait", bench=str(small_bench), agent=agent, levels=("L1",), rounds=1))
    easy, hard = measured_difficulties(tmp_path / "oracle", "gait"), measured_difficulties(tmp_path / "noop", "gait")
    assert {t: d.label for t, d in easy.items()} == {"ep01": "easy", "ep02": "easy", "ep03": "easy"}
    assert {t: (d.label, d.pass_rate) for t, d in hard.items()} == {t: ("hard", 0.0) for t in ("ep01", "ep02", "ep03")}
    assert (label(0.5), label(1 / 3), label(0.3)) == ("medium", "medium", "hard")
    written = export_harbor("gait", small_bench, tmp_path / "harbor", tasks=("ep01",), baseline_run=tmp_path / "noop",
                            wheel=wheel)
    config = harbor().models.task.config.TaskConfig.model_validate_toml((written[0] / "task.toml").read_text())
    assert config.metadata["difficulty"] == "hard" and config.metadata["baseline_pass_rate"] == 0.0
    assert config.metadata["baseline_agent"] == "noop" and config.metadata["baseline_episodes"] == 1
    with pytest.raises(ValueError, match="of suite 'gait', not 'pace'"):
        measured_difficulties(tmp_path / "noop", "pace")


@settings(max_examples=300, derandomize=True, deadline=None)
@given(reward=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**30, 10**30)),
       passed=st.booleans())
def test_any_verdict_reward_gives_a_reward_file_harbor_accepts(tmp_path_factory, reward, passed):
    suite = get_suite("gait")
    report = {"reward": _unit_reward(suite, reward), "passed": passed}
    path = tmp_path_factory.mktemp("reward") / "reward.json"
    path.write_text(json.dumps(harbor_reward(report)))
    rewards = harbor_reads_reward(path)
    assert 0.0 <= rewards["reward"] <= 1.0 and rewards["passed"] == int(passed)


def test_a_hostile_program_path_is_a_verdict(small_bench, tmp_path):
    suite = get_suite("gait")
    task = suite.load_tasks(small_bench)[0]
    (tmp_path / "fix.py").symlink_to("/etc/passwd")
    os.mkfifo(tmp_path / "fifo.py")
    for name, why in (("fix.py", "cannot be read"), ("fifo.py", "cannot be read"), ("absent.py", "no program")):
        report = verify_program(suite, task, tmp_path / name, 30)
        assert report["reward"] == 0.0 and report["passed"] is False and why in report["invalid"]


def verifier_venv(task_dir: Path, tmp_path: Path) -> str:
    """The verifier image's Python, as tests/Dockerfile makes it: the shipped wheel without its
    dependencies over a Python that has them (here: this one's)."""
    venv = tmp_path / "verifier-venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True)
    wheel = next((task_dir / "tests").glob("simreflect-*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                    "--no-index", "--no-deps", "--force-reinstall", str(wheel)], check=True, capture_output=True)
    return str(venv / "bin" / "python")


def run_task(task_dir: Path, tmp_path: Path, solve: bool, verifier_python: str = sys.executable) -> tuple[dict, dict]:
    """Run an exported task as Harbor would: solve.sh (optionally), then test.sh; Harbor's reward and our verdict."""
    app = tmp_path / "app"
    shutil.copytree(task_dir / "environment" / "app", app)
    env = {**os.environ, "APP_DIR": str(app), "TESTS_DIR": str(task_dir / "tests"), "LOGS_DIR": str(tmp_path / "logs"),
           "SIMREFLECT_VERIFIER_PYTHON": verifier_python}
    if solve:
        subprocess.run(["bash", str(task_dir / "solution" / "solve.sh")], env=env, check=True)
    subprocess.run(["bash", str(task_dir / "tests" / "test.sh")], env=env, check=True, capture_output=True, timeout=300)
    verifier = tmp_path / "logs" / "verifier"
    return harbor_reads_reward(verifier / "reward.json"), json.loads((verifier / "verdict.json").read_text())


@pytest.mark.slow
def test_solution_earns_the_reward_and_nothing_earns_none(exported, tmp_path):
    python = verifier_venv(exported[0], tmp_path)  # the shipped wheel itself, not this checkout
    solved, verdict = run_task(exported[0], tmp_path / "solved", solve=True, verifier_python=python)
    assert solved == {"reward": 1.0, "passed": 1} and verdict["passed"] is True and verdict["errors"] == []
    unsolved, verdict = run_task(exported[0], tmp_path / "unsolved", solve=False, verifier_python=python)
    assert unsolved == {"reward": 0.0, "passed": 0} and "no program" in verdict["invalid"]


@pytest.mark.slow
def test_an_exported_audit_task_runs_its_verifier_and_solution(tmp_path, wheel):
    from simreflect.suites.audit.cards import tasks_dir

    exported = export_harbor("audit", tasks_dir() / "ols-risk", tmp_path / "harbor", wheel=wheel)
    assert [d.name for d in exported] == ["audit-ols-risk"]
    d = exported[0]
    assert not (d / "environment" / "app" / "keys.json").exists()
    assert (d / "tests" / "task" / "ols-risk" / "card.toml").is_file()
    assert run_task(d, tmp_path / "solved", solve=True)[0] == {"reward": 1.0, "passed": 1}
    assert run_task(d, tmp_path / "unsolved", solve=False)[0] == {"reward": 0.0, "passed": 0}


@pytest.mark.slow
def test_an_exported_pace_task_runs_its_verifier_and_solution(tmp_path, pace_sample_root, wheel):
    exported = export_harbor("pace", pace_sample_root, tmp_path / "harbor", wheel=wheel)
    assert len(exported) == len(task_folder_names(pace_sample_root)) * len(TARGETS)  # tasks x target stages
    d = next(e for e in exported if "statics_bridge" in e.name)
    assert run_task(d, tmp_path / "solved", solve=True)[0] == {"reward": 1.0, "passed": 1}
    # the source design the agent starts from does not pass the target
    unsolved, verdict = run_task(d, tmp_path / "unsolved", solve=False)
    assert unsolved["reward"] < 1.0 and unsolved["passed"] == 0 and verdict["passed"] is False


@pytest.mark.slow
def test_an_exported_workshop_task_runs_its_verifier_and_solution(tmp_path, wheel):
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "workshop.json").write_text(json.dumps({"builds": ["place"], "seeds": [0]}))
    exported = export_harbor("workshop", bench, tmp_path / "harbor", wheel=wheel)
    assert [d.name for d in exported] == ["workshop-place-0"]
    d = exported[0]
    assert {"INTERFACE.md", "task.json"} == {p.name for p in (d / "environment" / "app").iterdir()}
    assert "/app/agent.py" in (d / "instruction.md").read_text()
    assert "WorkshopClient" in (d / "solution" / "solve.sh").read_text()
    solved, verdict = run_task(d, tmp_path / "solved", solve=True)
    assert solved == {"reward": 1.0, "passed": 1} and verdict["program"]["isolation"]["mode"] in ("bwrap", "plain")
    unsolved, verdict = run_task(d, tmp_path / "unsolved", solve=False)
    assert unsolved == {"reward": 0.0, "passed": 0} and "no program" in verdict["invalid"]
