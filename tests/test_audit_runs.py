"""The audit suite in the run loop, the RL environment and the command line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from gymnasium.utils.env_checker import check_env

from simreflect.core.env import RepairEnv
from simreflect.core.registry import get_suite
from simreflect.run.report import rows_of, write_report
from simreflect.run.runner import RunConfig, run
from simreflect.suites.audit.cards import tasks_dir
from simreflect.testing.scripted_llm import ScriptedLLMServer

TASK = "logistic-lyapunov"  # the quickest reference (each grade runs it and the script three times)


def reference() -> str:
    return (tasks_dir() / TASK / "reference.py").read_text()


def test_verify_gain_flag(tmp_path):
    wrong = reference().replace('"supported" if abs(lam - k * np.log(2)) < 0.02 * k else "falsified"', '"inconclusive"')
    assert wrong != reference()
    replies = [{"content": json.dumps({"diagnosis": "unsure", "script": wrong})},
               {"content": json.dumps({"diagnosis": "the numbers agree", "script": reference()})}]
    with ScriptedLLMServer(replies) as server:
        run(tmp_path, RunConfig(suite="audit", bench=str(tasks_dir() / TASK), agent="llm", levels=("L2",),
                                agent_options={"model": "m", "base_url": server.base_url}))
    _, rows = rows_of(tmp_path)
    assert rows[0]["solved_round"] == 2 and rows[0]["flags"] == ["verify_gain"]
    assert "verify_gain 1" in write_report(tmp_path)


def test_context_window_option():
    suite = get_suite("audit")
    task = suite.load_tasks(tasks_dir() / TASK)[0]
    full = suite.instruction(task)
    short = suite.with_options(context_chars=40).instruction(task)
    assert "[excerpt: the first 40 of" in short and len(short) < len(full)
    with pytest.raises(ValueError, match="no option"):
        suite.with_options(colour="red")


def test_audit_env_checker():
    env = RepairEnv("audit", bench=tasks_dir() / TASK, level="L2", timeout_s=30)
    check_env(env, skip_render_check=True)
    obs, info = env.reset(seed=0)
    assert "SUMMARY_JSON" in obs
    _, reward, terminated, _, info = env.step(reference())
    assert reward == 1.0 and terminated
    env.close()


def test_run_audit_reference_from_the_command_line(tmp_path):
    res = subprocess.run([sys.executable, "-m", "simreflect.cli", "run", "audit", "--agent", "reference",
                          "--bench", str(tasks_dir() / TASK), "--levels", "L1", "--out", str(tmp_path),
                          "--suite-option", "context_chars=20000"], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "1/1" in res.stdout
    assert json.loads((tmp_path / "config.json").read_text())["suite_options"] == {"context_chars": "20000"}
