"""A run killed with SIGKILL mid-way resumes: every attempt exactly once, the same summary."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from simreflect.run.store import RunStore
from simreflect.testing.toy import NAME, TOY_ENTRY_POINTS, env_with, plugin_site, write_task_list

CLI = [sys.executable, "-m", "simreflect.cli"]
TASKS = 3  # x 3 levels: 9 episodes of the toy suite, each playing its whole budget (noop never solves)


@pytest.fixture(scope="module")
def toy_env(tmp_path_factory) -> dict[str, str]:
    """A fresh `simreflect` process sees the toy suite through its entry point alone."""
    return env_with(plugin_site(tmp_path_factory.mktemp("site"), TOY_ENTRY_POINTS))


@pytest.fixture(scope="module")
def toy_bench(tmp_path_factory) -> Path:
    return write_task_list(tmp_path_factory.mktemp("toy"), TASKS)


def cli_run(bench: Path, out: Path) -> list[str]:
    return CLI + ["run", NAME, "--agent", "noop", "--bench", str(bench), "--out", str(out),
                  "--levels", "L1,L2,L3", "--workers", "2"]


def attempt_lines(out: Path) -> int:
    path = out / "attempts.jsonl"
    return path.read_bytes().count(b"\n") if path.exists() else 0


@pytest.mark.slow
def test_sigkill_and_resume(toy_bench, toy_env, tmp_path):
    reference = tmp_path / "uninterrupted"
    subprocess.run(cli_run(toy_bench, reference), check=True, capture_output=True, timeout=300, env=toy_env)

    killed = tmp_path / "killed"
    kills = 0
    for target in (2, 7):  # kill twice, at different depths of the run
        proc = subprocess.Popen(cli_run(toy_bench, killed), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True, env=toy_env)
        deadline = time.monotonic() + 120
        while attempt_lines(killed) < target and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            kills += 1
        proc.wait()
    assert kills >= 1, "the run finished before it could be killed"
    done = subprocess.run(cli_run(toy_bench, killed), capture_output=True, text=True, timeout=300, env=toy_env)
    assert done.returncode == 0, done.stdout + done.stderr

    records, damaged = RunStore(killed).records()
    rounds = Counter((r["task"], r["level"], r["round"]) for r in records if r["type"] == "round")
    ends = Counter((r["task"], r["level"]) for r in records if r["type"] == "end")
    assert all(n == 1 for n in rounds.values()), [k for k, n in rounds.items() if n > 1]
    assert all(n == 1 for n in ends.values()) and len(ends) == TASKS * 3
    ref_records, _ = RunStore(reference).records()
    assert set(rounds) == {(r["task"], r["level"], r["round"]) for r in ref_records if r["type"] == "round"}
    a = json.loads((reference / "summary.json").read_text())
    b = json.loads((killed / "summary.json").read_text())
    a.pop("damaged_records"), b.pop("damaged_records")
    assert a == b
    assert not (killed / "work").exists() or not any((killed / "work").iterdir())


def test_a_torn_last_line_is_ignored_and_reported(tmp_path):
    store = RunStore(tmp_path)
    store.append({"type": "round", "task": "toy-00", "level": "L1", "round": 1, "program": None,
                  "prompt": [{"role": "user", "content": "round 1"}]})
    with open(tmp_path / "attempts.jsonl", "ab") as f:
        f.write(b'{"type": "round", "task": "toy-00", "lev')  # a writer killed mid-line
    store.append({"type": "end", "task": "toy-00", "level": "L1", "solved": False, "rounds": 1})
    records, damaged = store.records()
    assert [r["type"] for r in records] == ["round", "end"]
    assert len(damaged) == 1 and "line 2" in damaged[0]
    assert store.episodes()["toy-00/L1"].end is not None
