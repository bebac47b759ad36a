"""A first real model run cannot fail silently: the pre-flight request, the circuit breaker, the exit
code and the counted causes of infrastructure errors, and plain progress lines through a pipe.
Against real HTTP servers on 127.0.0.1 (simreflect.testing.scripted_llm) and a port nothing listens on."""

from __future__ import annotations

import re
import socket
import subprocess
import sys

import pytest

from simreflect.agents.llm import LLMConfig
from simreflect.agents.preflight import PreflightError, preflight
from simreflect.run.episode import EpisodeOutcome
from simreflect.run.runner import Breaker, CircuitOpen
from simreflect.run.store import RunStore
from simreflect.run.tally import ProgressLog, RunTally
from simreflect.testing.scripted_llm import ScriptedLLMServer

CLI = [sys.executable, "-m", "simreflect.cli"]
OK = {"content": "OK"}


def cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """The command with its output on a pipe (not a terminal), as under nohup or a batch scheduler."""
    return subprocess.run(CLI + list(args), capture_output=True, text=True, timeout=timeout)


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def llm_run(base_url: str, bench, out, *extra: str) -> subprocess.CompletedProcess:
    return cli("run", "gait", "--agent", "llm", "--model", "some-model", "--base-url", base_url, "--bench", str(bench),
               "--out", str(out), "--levels", "L1", "--retries", "0", "--request-timeout", "20", *extra)


@pytest.mark.parametrize("reply, words", [
    ({"status": 401, "message": "Incorrect API key provided: sk-wr***ng"}, "HTTP 401"),
    pytest.param({"status": 404, "message": "The model `some-model` does not exist"}, "HTTP 404",
                 marks=pytest.mark.slow),
], ids=["unauthorised", "unknown-model"])
def test_preflight_stops_before_the_first_episode_with_the_endpoints_message(small_bench, tmp_path, reply, words):
    with ScriptedLLMServer([reply]) as server:
        res = llm_run(server.base_url, small_bench, tmp_path / "run")
        assert len(server.requests) == 1  # one request, no episode's retries
    assert res.returncode == 3, res.stdout + res.stderr
    assert words in res.stdout and reply["message"] in res.stdout and "Traceback" not in res.stdout + res.stderr
    assert "nothing was run" in res.stdout and not (tmp_path / "run" / "attempts.jsonl").exists()


@pytest.mark.slow
def test_preflight_says_the_connection_was_refused(small_bench, tmp_path):
    res = llm_run(f"http://127.0.0.1:{free_port()}/v1", small_bench, tmp_path / "run")
    assert res.returncode == 3 and "ConnectError" in res.stdout and "refused" in res.stdout.lower(), res.stdout
    assert "Traceback" not in res.stdout + res.stderr and not (tmp_path / "run" / "attempts.jsonl").exists()


def test_preflight_names_a_missing_key(monkeypatch):
    monkeypatch.delenv("SIMREFLECT_TEST_NO_KEY", raising=False)
    with ScriptedLLMServer([{"status": 401, "message": "You didn't provide an API key."}]) as server:
        with pytest.raises(PreflightError, match="SIMREFLECT_TEST_NO_KEY is not set.*didn't provide an API key"):
            preflight(LLMConfig(model="m", base_url=server.base_url, api_key_env="SIMREFLECT_TEST_NO_KEY"))
    with ScriptedLLMServer([OK]) as server:
        preflight(LLMConfig(model="m", base_url=server.base_url))
        assert server.requests[0]["model"] == "m" and "response_format" not in server.requests[0]


@pytest.mark.slow
def test_the_breaker_stops_the_run_and_the_causes_are_counted(small_bench, tmp_path):
    """The key is revoked after the pre-flight: three episodes end on the same 401, the rest are not started."""
    reply = {"status": 401, "message": "key revoked (request 4711)"}
    with ScriptedLLMServer([OK, reply]) as server:
        res = llm_run(server.base_url, small_bench, tmp_path / "run", "--levels", "L1,L2", "--workers", "1")
    assert res.returncode == 3, res.stdout + res.stderr
    assert "stopped after 3 episodes in a row ended on the same infrastructure failure" in res.stdout
    assert re.search(r"3 x HTTP 401 from \S+ .*key revoked", res.stdout), res.stdout
    assert "run the same command again" in res.stdout and "Traceback" not in res.stdout + res.stderr
    records, _ = RunStore(tmp_path / "run").records()
    assert [r["type"] for r in records] == ["infra_error"] * 3  # 6 episodes selected, 3 started


def test_the_breaker_counts_identical_failures_in_a_row_only():
    def outcome(error=None):
        return EpisodeOutcome("t", "L1", "infra_error" if error else "finished", False, 0, 0, error)

    breaker = Breaker(3)
    for o in (outcome("HTTP 500 id 1"), outcome("HTTP 500 id 2"), outcome(), outcome("HTTP 500 id 3"),
              outcome("timed out"), outcome("HTTP 500 id 4"), outcome("HTTP 500 id 5")):
        breaker.record(o, [])  # never three identical in a row (the numbers in a message do not count)
    with pytest.raises(CircuitOpen, match="3 episodes in a row.*HTTP 500 id 6"):
        breaker.record(outcome("HTTP 500 id 6"), [])
    never = Breaker(0)
    for _ in range(10):
        never.record(outcome("down"), [])


@pytest.mark.slow
def test_a_run_ending_with_infra_errors_exits_non_zero_with_the_causes(small_bench, tmp_path):
    """Below the breaker's threshold the run goes on; at its end it exits 3 and says why."""
    replies = [OK, {"status": 418, "message": "teapot"}, {"content": "no code here"}]
    with ScriptedLLMServer(replies) as server:
        res = llm_run(server.base_url, small_bench, tmp_path / "run", "--workers", "1", "--rounds", "1")
    assert res.returncode == 3, res.stdout + res.stderr
    assert "1 episode(s) stopped on infrastructure errors" in res.stdout and "1 x HTTP 418" in res.stdout
    assert "teapot" in res.stdout and "solved 0  failed 2  infra errors 1" in res.stdout


def test_progress_lines_without_a_terminal(small_bench, tmp_path):
    res = cli("run", "gait", "--agent", "oracle", "--bench", str(small_bench), "--out", str(tmp_path / "run"),
              "--levels", "L1", "--workers", "1", "--progress-every", "0")
    assert res.returncode == 0, res.stdout + res.stderr
    lines = [line for line in res.stdout.splitlines() if line.startswith("progress:")]
    assert [line.split(",")[0] for line in lines] == [f"progress: {n}/3 episodes ({round(100 * n / 3)}%)"
                                                      for n in (1, 2, 3)]
    assert "solved 3  failed 0  infra errors 0" in lines[-1] and lines[-1].endswith("done")
    assert re.search(r"solved 1 .* [0-9.]+ episodes/min, ETA \d", lines[0]), lines[0]
    assert "\x1b[" not in res.stdout  # no terminal control codes in a log


def test_progress_log_spacing_rate_and_eta():
    now = [0.0]
    written: list[str] = []
    tally = RunTally()
    log = ProgressLog(tally, every_s=60, write=written.append, clock=lambda: now[0])
    for done, t in ((11, 30.0), (12, 50.0), (13, 95.0), (20, 100.0)):  # 10 episodes were done before this run
        now[0] = t
        tally.record(EpisodeOutcome("t", "L1", "finished", done % 2 == 0, 1))
        log.update(done, 20)
    assert len(written) == 3  # at 30 s, at 95 s (60 s later), and the last episode
    assert written[0].startswith("progress: 11/20 episodes (55%), solved 0  failed 1  infra errors 0, 2.00 "
                                 "episodes/min, ETA 4 min 30 s")
    assert written[-1].endswith("done")
