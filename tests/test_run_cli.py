"""`simreflect run`, `report` and `rescore` from the command line, on the toy suite (a fresh
process finds it through its entry point alone)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from simreflect.testing.toy import NAME, TOY_ENTRY_POINTS, ToySuite, env_with, plugin_site, write_task_list

CLI = [sys.executable, "-m", "simreflect.cli"]
_ENV: dict[str, str] = {}


@pytest.fixture(scope="module", autouse=True)
def toy_env(tmp_path_factory) -> None:
    _ENV.update(env_with(plugin_site(tmp_path_factory.mktemp("site"), TOY_ENTRY_POINTS)))
    yield
    _ENV.clear()


@pytest.fixture(scope="module")
def small_bench(tmp_path_factory) -> Path:
    """Three toy tasks, and an episodes.jsonl beside them: the file a run copies from any benchmark
    that has one (gait's), which the toy suite itself ignores."""
    bench = write_task_list(tmp_path_factory.mktemp("toy-small"), 3, seed=5)
    (bench / "episodes.jsonl").write_text('{"id": "toy-00"}\n')
    return bench


@pytest.fixture(scope="module")
def twelve_bench(tmp_path_factory) -> Path:
    """Twelve toy tasks: toy-00 .. toy-11, so "toy-0*" is a true subset."""
    return write_task_list(tmp_path_factory.mktemp("toy-twelve"), 12, seed=5)


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(CLI + list(args), capture_output=True, text=True, timeout=300, env=_ENV)


def test_run_report_rescore(small_bench, tmp_path):
    out = tmp_path / "run"
    res = cli("run", NAME, "--agent", "oracle", "--bench", str(small_bench), "--out", str(out), "--levels", "L1,L2")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Solved within 3" in res.stdout and "3/3" in res.stdout
    assert {p.name for p in out.iterdir()} >= {"config.json", "attempts.jsonl", "runs.jsonl", "summary.md",
                                              "summary.json", "episodes.jsonl"}
    rows = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    assert len(rows) == 6 and all(r["solved_round"] == 1 for r in rows)
    report = cli("report", str(out))
    assert report.returncode == 0 and report.stdout.strip() == (out / "summary.md").read_text().strip()
    rescore = cli("rescore", str(out))
    assert rescore.returncode == 0 and "0 difference(s)" in rescore.stdout

    # a tampered record is caught by rescore
    lines = (out / "attempts.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["errors_after"] = ["balance"]
    lines[0] = json.dumps(first)
    (out / "attempts.jsonl").write_text("\n".join(lines) + "\n")
    rescore = cli("rescore", str(out))
    assert rescore.returncode == 1 and "1 difference(s)" in rescore.stdout
    # so is a record whose verdict was edited anywhere, a check's measured value say
    i = [n for n, line in enumerate(lines) if json.loads(line)["type"] == "round"][1]
    second = json.loads(lines[i])
    assert second["verdict"]["checks"], second["verdict"]
    second["verdict"]["checks"][0]["value"] = 12345.0
    lines[i] = json.dumps(second)
    (out / "attempts.jsonl").write_text("\n".join(lines) + "\n")
    rescore = cli("rescore", str(out))
    assert rescore.returncode == 1 and "2 difference(s)" in rescore.stdout
    assert "the verdict differs from the recorded one in checks" in rescore.stdout
    parallel = cli("rescore", str(out), "--workers", "2")
    assert parallel.returncode == 1 and parallel.stdout.strip().splitlines()[-3:] == rescore.stdout.strip().splitlines()[-3:]


def test_bad_options_are_clear_errors(small_bench, tmp_path):
    res = cli("run", NAME, "--agent", "telepathy", "--bench", str(small_bench), "--out", str(tmp_path / "x"))
    assert res.returncode == 2 and "unknown agent" in res.stdout
    res = cli("run", NAME, "--agent", "llm", "--bench", str(small_bench), "--out", str(tmp_path / "y"))
    assert res.returncode == 2 and "needs --model" in res.stdout
    res = cli("run", NAME, "--agent", "llm", "--model", "some-model", "--bench", str(small_bench), "--out", str(tmp_path / "w"))
    assert res.returncode == 2 and "pass --base-url" in res.stdout
    res = cli("run", NAME, "--agent", "noop", "--bench", str(small_bench), "--out", str(tmp_path / "z"), "--levels", "L9")
    assert res.returncode == 2
    res = cli("report", str(tmp_path / "nothing"))
    assert res.returncode == 2 and "not a run directory" in res.stdout


def test_a_run_of_some_tasks(twelve_bench, tmp_path):
    small_bench = twelve_bench
    ids = [task.id for task in ToySuite().load_tasks(small_bench)]
    assert len(ids) >= 3
    out = tmp_path / "subset"
    res = cli("run", NAME, "--agent", "oracle", "--bench", str(small_bench), "--out", str(out), "--levels", "L1",
              "--tasks", f"{ids[0]},{ids[2][:-1]}*")
    assert res.returncode == 0, res.stdout + res.stderr
    rows = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    assert sorted(r["task"] for r in rows) == sorted({ids[0], *[i for i in ids if i.startswith(ids[2][:-1])]})
    summary = json.loads((out / "summary.json").read_text())
    assert summary["selection"]["selected"] == len(rows) and summary["selection"]["of"] == len(ids)
    assert f"a subset: {len(rows)} of {len(ids)} tasks" in (out / "summary.md").read_text()
    # resuming with another selection is refused; the same command resumes
    res = cli("run", NAME, "--agent", "oracle", "--bench", str(small_bench), "--out", str(out), "--levels", "L1")
    assert res.returncode == 2 and "differs in: tasks" in " ".join(res.stdout.split())
    res = cli("run", NAME, "--agent", "oracle", "--bench", str(small_bench), "--out", str(out), "--levels", "L1",
              "--tasks", f"{ids[0]},{ids[2][:-1]}*")
    assert res.returncode == 0 and len((out / "runs.jsonl").read_text().splitlines()) == len(rows)
    # the first N, and a pattern that matches nothing
    res = cli("run", NAME, "--agent", "noop", "--bench", str(small_bench), "--out", str(tmp_path / "first"),
              "--levels", "L1", "--limit", "1", "--rounds", "1")
    assert res.returncode == 0, res.stdout + res.stderr
    assert [json.loads(x)["task"] for x in (tmp_path / "first" / "runs.jsonl").read_text().splitlines()] == ids[:1]
    res = cli("run", NAME, "--agent", "oracle", "--bench", str(small_bench), "--out", str(tmp_path / "typo"),
              "--tasks", "no-such-episode*")
    assert res.returncode == 2 and "no task matches 'no-such-episode*'" in " ".join(res.stdout.split())
    assert not (tmp_path / "typo").exists()


def test_configs_recorded_before_task_selection_resume_unchanged():
    from simreflect.run.runner import RunConfig

    old = {"suite": "gait", "bench": "/b", "agent": "oracle", "levels": ["L1"], "rounds": 3, "timeout_s": 60.0,
           "agent_options": {}, "method": "vanilla", "suite_options": {}, "runs": 1, "history": "full",
           "invalid_streak": 0}
    assert RunConfig.from_dict(old).to_dict() == old


def test_rescore_ignores_only_what_a_suite_declares_volatile():
    from dataclasses import replace

    from simreflect.core.records import RoundRecord
    from simreflect.core.verdict import Check, Verdict
    from simreflect.run.report import _rescore_difference
    from simreflect.suites.audit.suite import AuditSuite

    now = Verdict(checks=(Check("ran", True),), score=1.0, reward=1.0, diagnostics={"seconds": 0.41, "flags": []})
    rec = RoundRecord(round=1, accepted=True, errors_after=(), score=1.0,
                      verdict={**now.to_dict(), "diagnostics": {"seconds": 0.47, "flags": []}})
    assert "seconds" in AuditSuite.volatile_diagnostics
    assert _rescore_difference(rec, True, now, 1.0, AuditSuite.volatile_diagnostics) == ""
    assert _rescore_difference(rec, True, now, 1.0) == \
        "the verdict differs from the recorded one in diagnostics.seconds"
    rec.verdict["diagnostics"]["flags"] = ["hardcoded"]
    assert "diagnostics.flags" in _rescore_difference(rec, True, now, 1.0, AuditSuite.volatile_diagnostics)
    assert "recorded score 0.5" in _rescore_difference(replace(rec, score=0.5), True, now, 1.0)


def test_a_resumed_run_keeps_the_protocol_it_was_recorded_with(tmp_path):
    """Runs recorded before pace's defaults changed (history last+best, no invalid retries, a 60 s
    timeout) resume as they began; a recorded value of the wrong kind falls back to the suite's."""
    from simreflect.cli import _recorded_protocol
    from simreflect.core.registry import get_suite

    protocol = get_suite("pace").protocol
    assert _recorded_protocol(tmp_path / "none", protocol) == {
        "timeout_s": None, "history": "previous+best", "invalid_retries": 2}
    out = tmp_path / "old"
    out.mkdir()
    (out / "config.json").write_text(json.dumps({"history": "last+best", "timeout_s": 60}))
    assert _recorded_protocol(out, protocol) == {"timeout_s": 60.0, "history": "last+best", "invalid_retries": 0}
    for bad in ({"history": "everything", "timeout_s": True, "invalid_retries": -1},
                {"history": ["full"], "timeout_s": -5, "invalid_retries": "2"},
                {"timeout_s": 0, "invalid_retries": True}):
        (out / "config.json").write_text(json.dumps(bad))
        got = _recorded_protocol(out, protocol)
        assert got["history"] == "previous+best" and got["timeout_s"] is None and got["invalid_retries"] == 0, bad
    (out / "config.json").write_text("{" * 5000)  # damaged: the store's own open() reports it
    assert _recorded_protocol(out, protocol)["history"] == "previous+best"
