"""The command line's conventions: -h everywhere, one exit code scheme for verify and grade commands
(0 pass, 1 fail, 2 usage), and a one-line error, never a traceback, for a user's mistake."""

from __future__ import annotations

import os
import socket

import pytest
from typer.testing import CliRunner

from simreflect.cli import app, default_workers
from simreflect.core import registry

runner = CliRunner()


def invoke(*args: str):
    res = runner.invoke(app, list(args))
    assert not isinstance(res.exception, Exception) or isinstance(res.exception, SystemExit), res.output
    return res


@pytest.mark.parametrize("command", [[], ["run"], ["export", "harbor"], ["audit", "grade"], ["gait", "verify"],
                                     ["pace", "verify"], ["workshop", "grade"], ["view"]])
def test_dash_h_is_help(command):
    res = invoke(*command, "-h")
    assert res.exit_code == 0 and "Usage:" in res.output


def test_audit_grade_exits_1_on_fail_and_0_on_pass(tmp_path):
    from simreflect.suites.audit.cards import tasks_dir

    nothing = tmp_path / "nothing.py"
    nothing.write_text("print('no audit here')\n")
    res = invoke("audit", "grade", "--task", "ols-risk", "--script", str(nothing))
    assert res.exit_code == 1 and "FAIL" in res.output
    res = invoke("audit", "grade", "--task", "ols-risk", "--script", str(tasks_dir() / "ols-risk" / "reference.py"))
    assert res.exit_code == 0 and "PASS" in res.output


def test_an_unknown_task_lists_the_valid_ones(tmp_path, small_bench):
    script = tmp_path / "x.py"
    script.write_text("pass\n")
    res = invoke("audit", "grade", "--task", "ols-rsik", "--script", str(script))
    assert res.exit_code == 2 and "no audit task 'ols-rsik'" in res.output and "ols-risk" in res.output
    res = invoke("pace", "verify", "--task", "bridge", "--stage", "1", "--program", str(script))
    assert res.exit_code == 2 and "statics_bridge" in res.output
    res = invoke("run", "gait", "--agent", "noop", "--bench", str(small_bench), "--out", str(tmp_path / "r"),
                 "--tasks", "ep9")
    assert res.exit_code == 2 and "no task matches 'ep9'" in res.output and "ep01, ep02, ep03" in res.output
    res = invoke("export", "harbor", "--suite", "gait", "--bench", str(small_bench), "--out", str(tmp_path / "h"),
                 "--tasks", "ep9")
    assert res.exit_code == 2 and "no task matches 'ep9'" in res.output
    assert not (tmp_path / "r").exists()


def test_a_missing_path_is_one_line_not_a_traceback(tmp_path):
    res = invoke("run", "gait", "--agent", "noop", "--bench", str(tmp_path / "nowhere"), "--out", str(tmp_path / "r"))
    assert res.exit_code == 2 and "does not exist" in res.output and "Traceback" not in res.output
    for command in (["report", str(tmp_path / "nowhere")], ["view", str(tmp_path / "nowhere")]):
        res = invoke(*command)
        assert res.exit_code == 2 and "not a run directory" in res.output


def test_an_unknown_suite_reads_without_stray_quotes(tmp_path):
    res = invoke("run", "nosuch", "--agent", "noop", "--out", str(tmp_path / "r"))
    assert res.exit_code == 2
    known = ", ".join(registry.names("suite"))
    assert f"error: unknown suite 'nosuch'; known suites: {known}" in res.output
    assert "pace" in known and "workshop" in known
    assert "\"unknown" not in res.output


def test_a_busy_port_is_one_line(tmp_path):
    run_dir = tmp_path / "run"
    res = invoke("run", "pace", "--agent", "noop", "--tasks", "statics_bridge.stage1", "--rounds", "1", "--runs", "1",
                 "--levels", "L1", "--out", str(run_dir))
    assert res.exit_code == 0, res.output
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        res = invoke("view", str(run_dir), "--serve", "--port", str(busy.getsockname()[1]))
        assert res.exit_code == 2 and "cannot serve on 127.0.0.1" in res.output and "choose another --port" in res.output
        res = invoke("workshop", "serve", "--build", "place", "--port", str(busy.getsockname()[1]))
        assert res.exit_code == 2 and "cannot serve on 127.0.0.1" in res.output and "Address already in use" in res.output


def test_the_default_worker_count_uses_the_machine():
    assert default_workers() == len(os.sched_getaffinity(0)) >= 1
    res = invoke("run", "-h")
    assert "one per core" in res.output


@pytest.mark.parametrize("command", [["check", "pacebench", "--no-oracle"], ["run", "pacebench", "--agent", "oracle"]])
def test_a_suite_that_cannot_load_here_is_one_line(tmp_path, command):
    """pacebench without a PACE-Bench checkout: the console entry point prints what to set, exit 2."""
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "SIMREFLECT_PACEBENCH"}
    args = [*command, "--out", str(tmp_path / "r")] if command[0] == "run" else command
    res = subprocess.run([sys.executable, "-c", "from simreflect.cli import app; app()", *args], env=env,
                         capture_output=True, text=True, timeout=120)
    out = res.stdout + res.stderr
    assert res.returncode == 2, out
    assert "SIMREFLECT_PACEBENCH" in out and "Traceback" not in out and "╭" not in out


def test_the_program_timeout_defaults_to_the_suites_own(tmp_path):
    """run --timeout unset: each suite's own program timeout (a workshop client runs minutes, not 60 s)."""
    from simreflect.run.runner import RunConfig
    from simreflect.run.store import RunStore
    from simreflect.suites.workshop.suite import PROGRAM_TIMEOUT_S

    assert registry.get_suite("workshop").protocol.timeout_s == PROGRAM_TIMEOUT_S > 60
    out = tmp_path / "r"
    res = invoke("run", "workshop", "--agent", "noop", "--tasks", "place*", "--limit", "1", "--levels", "L1",
                 "--out", str(out))
    assert res.exit_code == 0, res.output
    assert RunConfig.from_dict(RunStore(out).config()).timeout_s == PROGRAM_TIMEOUT_S
    res = invoke("run", "workshop", "--agent", "noop", "--tasks", "place*", "--limit", "1", "--levels", "L1",
                 "--timeout", "90", "--out", str(tmp_path / "r2"))
    assert res.exit_code == 0, res.output
    assert RunConfig.from_dict(RunStore(tmp_path / "r2").config()).timeout_s == 90
    # resuming without --timeout keeps what the run recorded (a run from before the suite default resumes)
    res = invoke("run", "workshop", "--agent", "noop", "--tasks", "place*", "--limit", "1", "--levels", "L1",
                 "--out", str(tmp_path / "r2"))
    assert res.exit_code == 0, res.output
    assert RunConfig.from_dict(RunStore(tmp_path / "r2").config()).timeout_s == 90
