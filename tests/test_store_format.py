"""The run store's format version: runs recorded before it still report, resume and rescore; a
damaged, newer or incomplete record is named with its line number and skipped, never a crash. On
the toy suite; the run directories recorded on gait before store formats: test_gait_store_format.py."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simreflect.agents.base import Observation
from simreflect.agents.methods.base import attempts_of
from simreflect.analysis.rows import episode_row
from simreflect.core.evidence import EvidenceLevel
from simreflect.core.records import Attempt, RoundRecord
from simreflect.core.rounds import round_feedback
from simreflect.core.verdict import Verdict
from simreflect.run.episode import _invalid_tail
from simreflect.run.records import FORMAT, FORMAT_KEY, check_record
from simreflect.run.report import rescore, write_report
from simreflect.run.runner import RunConfig, pending, run
from simreflect.run.store import EpisodeLog, RunStore, StoreError
from simreflect.testing.scripted_llm import ScriptedLLMServer
from simreflect.testing.toy import (NAME, TOY_ENTRY_POINTS, ToySuite, env_with, plugin_site, toy_suite_registered,
                                    write_task_list)
from simreflect.viewer import _episode_page, write_viewer

CLI = [sys.executable, "-m", "simreflect.cli"]
TASK = "toy-00"


@pytest.fixture(scope="module", autouse=True)
def toy_registered():
    with toy_suite_registered():
        yield


@pytest.fixture(scope="module")
def one_bench(tmp_path_factory) -> Path:
    """One toy task (toy-00)."""
    return write_task_list(tmp_path_factory.mktemp("toy-one"), 1, seed=4)


@pytest.fixture(scope="module")
def toy_env(tmp_path_factory) -> dict[str, str]:
    """A fresh `simreflect` process sees the toy suite through its entry point alone."""
    return env_with(plugin_site(tmp_path_factory.mktemp("site"), TOY_ENTRY_POINTS))


#: fields the first store did not write that a reader can restore (score_before it cannot: it is None then)
OLDEST_ROUND_FIELDS = ("score", "method_notes")


def _as_legacy(run_dir: Path) -> None:
    """Turn a run made now into one of the legacy format: no versions, and the oldest rounds' fields dropped."""
    cfg = json.loads((run_dir / "config.json").read_text())
    assert cfg.pop(FORMAT_KEY) == FORMAT
    (run_dir / "config.json").write_text(json.dumps(cfg, sort_keys=True, indent=1))
    out = []
    for line in (run_dir / "attempts.jsonl").read_text().splitlines():
        rec = json.loads(line)
        assert rec.pop(FORMAT_KEY) == FORMAT
        if rec["type"] == "round":
            for name in OLDEST_ROUND_FIELDS:
                rec.pop(name)
        if rec["type"] == "end":
            rec.pop("reason")
        out.append(json.dumps(rec, sort_keys=True) + "\n")
    (run_dir / "attempts.jsonl").write_text("".join(out))


def test_a_legacy_run_reports_resumes_and_rescores_with_no_difference(one_bench, tmp_path):
    oracle = ToySuite().oracle(ToySuite().load_tasks(one_bench)[0])
    replies = [{"content": "no code today"},
               {"content": json.dumps({"diagnosis": "x", "script": "raise RuntimeError('boom')"})},
               {"content": json.dumps({"diagnosis": "x", "script": "pass\n"})},
               {"content": json.dumps({"diagnosis": "x", "script": oracle})}]
    with ScriptedLLMServer(replies) as server:
        config = RunConfig(suite=NAME, bench=str(one_bench), agent="llm", levels=("L1",), rounds=4,
                           agent_options={"model": "scripted", "base_url": server.base_url, "backoff_s": 0.01,
                                          "max_retries": 1, "timeout_s": 10.0})
        now = tmp_path / "now"
        run(now, config)
    write_report(now)
    legacy = tmp_path / "legacy"
    shutil.copytree(now, legacy)
    _as_legacy(legacy)
    write_report(legacy)
    a, b = (json.loads((d / "summary.json").read_text()) for d in (now, legacy))
    assert b.pop("upgraded_records") and a.pop("upgraded_records") == []
    assert a == b
    assert (now / "runs.jsonl").read_text() == (legacy / "runs.jsonl").read_text()
    assert rescore(legacy) == []
    assert pending(RunStore(legacy), config) == []
    assert run(legacy, config) == []  # a legacy config.json resumes under the same options


ROUND = {"type": "round", "task": TASK, "level": "L1", "round": 1, "script": "pass\n", "error": "",
         "prompt": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
         "program": {"status": "ok", "exit_code": 0, "output_tail": "", "seconds": 0.1, "reason": ""},
         "accepted": True, "rejected": False, "passed": False, "errors_before": ["a"], "errors_after": ["a"],
         "score": 0.5, "score_before": 0.0, "verdict": {"passed": False, "errors": ["a"], "score": 0.5,
                                                        "diagnostics": {}, "checks": [], "invalid": ""},
         "answer": "", "diagnosis": "", "usage": {}, "method_notes": {}, "report": "u", FORMAT_KEY: FORMAT}


def _write_lines(path: Path, lines: list[bytes]) -> None:
    path.write_bytes(b"".join(line + b"\n" for line in lines))


def test_damaged_and_incomplete_records_are_named_with_their_line_and_skipped(one_bench, toy_env, tmp_path):
    RunStore(tmp_path).open(RunConfig(suite=NAME, bench=str(one_bench), agent="noop", levels=("L1",)).to_dict())
    bad = {
        2: b"not json",
        3: b"[1, 2, 3]",
        4: json.dumps({k: v for k, v in ROUND.items() if k != "prompt"} | {"round": 2}).encode(),
        5: json.dumps(ROUND | {"round": "3"}).encode(),
        6: json.dumps(ROUND | {"round": 3, FORMAT_KEY: FORMAT + 1}).encode(),
        7: json.dumps({"type": "telemetry", "task": TASK, "level": "L1"}).encode(),
        8: json.dumps(ROUND | {"round": 3, "prompt": []}).encode(),
        9: json.dumps(ROUND | {"round": 3, "program": {"status": 5}}).encode(),
        10: b"[" * 100_000 + b"]" * 100_000,
        11: b'{"type": "end", "task": TASK, "level": "L1", "solved": "\xff\xfe"}',
        12: json.dumps({"type": "end", "task": TASK, "level": "L1", "solved": "yes"}).encode(),
        13: json.dumps(ROUND | {"round": 3, "verdict": {"diagnostics": []}}).encode(),
        14: json.dumps(ROUND | {"round": 0}).encode(),
        15: json.dumps(ROUND | {"round": 3, "task": None}).encode(),
        16: json.dumps(ROUND | {"round": 3, "task": f"{TASK}/L2"}).encode(),
        17: json.dumps(ROUND | {"round": 3, "level": "\ud800"}).encode(),
    }
    lines = [json.dumps(ROUND).encode()] + [bad[n] for n in sorted(bad)]
    _write_lines(tmp_path / "attempts.jsonl", lines)
    read = RunStore(tmp_path).read()
    assert [r["round"] for r in read.records] == [1]
    assert [int(p.split("line ")[1].split(":")[0]) for p in read.problems] == sorted(bad)
    reasons = "\n".join(read.problems)
    for expected in ("damaged record", "without 'prompt'", "'round' is a str", "newer than this simreflect",
                     "unknown record type 'telemetry'", "chat messages", "'program' has no status",
                     "'solved' is a str", "'verdict.diagnostics' is a list", "'round' is 0", "'task' is null",
                     f"'task' '{TASK}/L2' is not a name", "'level' '\\ud800' is not a name"):
        assert expected in reasons, expected
    # every reader goes on: report, rescore, the viewer, resume
    md = write_report(tmp_path)
    assert "line 10: damaged record" in md
    found = rescore(tmp_path)  # the one good record is made up: its re-run differs, and rescore says so
    assert len(found) == 1 and found[0].startswith(f"{TASK}/L1 round 1: recorded errors ['a']")
    res = subprocess.run(CLI + ["rescore", str(tmp_path)], capture_output=True, text=True, timeout=300, env=toy_env)
    assert res.returncode == 1 and "1 difference(s)" in res.stdout
    assert res.stdout.count("note: attempts.jsonl line") == len(bad)
    assert write_viewer(tmp_path).is_file()
    with ScriptedLLMServer([]) as server:  # resume: the episode goes on after round 1, asking the agent
        outcomes = run(tmp_path, RunConfig.from_dict(RunStore(tmp_path).config()))
        assert server.requests == []
    assert [(o.status, o.rounds) for o in outcomes] == [("finished", 3)]


def test_a_record_naming_no_task_of_the_run_is_reported_by_rescore(one_bench, tmp_path):
    RunStore(tmp_path).open(RunConfig(suite=NAME, bench=str(one_bench), agent="noop", levels=("L1",)).to_dict())
    _write_lines(tmp_path / "attempts.jsonl", [json.dumps(ROUND | {"task": "toy-99"}).encode(),
                                               json.dumps(ROUND | {"level": "L7"}).encode()])
    found = rescore(tmp_path)
    assert found == [f"{TASK}/L7: recorded, but the run has no such task and level; not re-run",
                     "toy-99/L1: recorded, but the run has no such task and level; not re-run"]
    write_report(tmp_path)  # rows are made for the run's own tasks and levels only


def test_config_json_damaged_newer_or_incomplete_is_a_clear_error(one_bench, toy_env, tmp_path):
    config = RunConfig(suite=NAME, bench=str(one_bench), agent="noop", levels=("L1",)).to_dict()
    store = RunStore(tmp_path)
    assert store.open(config) is False
    assert json.loads((tmp_path / "config.json").read_text())[FORMAT_KEY] == FORMAT
    assert store.open(config) is True and store.config() == json.loads(json.dumps(config))
    cases = {"{not json": "is damaged", "[]": "not a JSON object", json.dumps({**config, FORMAT_KEY: 99}): "format 99",
             json.dumps({k: v for k, v in config.items() if k != "suite"}): "no 'suite'",
             json.dumps({**config, "rounds": "three"}): "damaged"}
    for text, message in cases.items():
        (tmp_path / "config.json").write_text(text)
        with pytest.raises(StoreError, match=message):
            RunConfig.from_dict(store.config())
        with pytest.raises(StoreError, match=message):
            write_report(tmp_path)
        with pytest.raises(StoreError, match=message):
            rescore(tmp_path)
    for command in ("report",):  # the command line says so, and nothing else (rescore and view share its handling)
        res = subprocess.run(CLI + [command, str(tmp_path)], capture_output=True, text=True, timeout=120, env=toy_env)
        assert res.returncode == 2 and "error:" in res.stdout and "damaged" in res.stdout, (command, res)
        assert "Traceback" not in res.stderr


# ----- any record: check_record never raises, and what it passes every reader can index ---------

json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=4),
                           lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=4), inner,
                                                                                     max_size=2), max_leaves=4)


@st.composite
def mutated_rounds(draw):
    rec = json.loads(json.dumps(ROUND))
    for _ in range(draw(st.integers(1, 4))):
        key = draw(st.sampled_from(sorted(rec) + ["type", "extra"]))
        if draw(st.booleans()):
            rec.pop(key, None)
        else:
            rec[key] = draw(json_values)
    if draw(st.booleans()):
        rec["prompt"] = draw(st.lists(json_values, max_size=3))
    if draw(st.booleans()) and isinstance(rec.get("program"), dict):
        rec["program"][draw(st.sampled_from(["status", "reason", "output_tail"]))] = draw(json_values)
    return rec


def _read_by_every_reader(rec: dict, task) -> None:
    log = EpisodeLog(rounds=[RoundRecord.from_dict(rec)])
    row = episode_row(ToySuite(), task, rec["level"], log)
    _invalid_tail(log.rounds)
    round_feedback(rec["round"] + 1, rec["round"] + 1, log.rounds[0], "")  # what the next round reads
    _episode_page(row, log.rounds, None)
    attempt = Attempt.of_round(log.rounds[0])  # what analysis, the methods and RL read of it
    assert attempt.index == rec["round"] >= 1 and (attempt.score is None) == (not attempt.valid)
    replay = attempts_of(Observation(task=task, level=EvidenceLevel.L1, round=rec["round"] + 1, budget=rec["round"] + 1,
                                     messages=({"role": "user", "content": "x"},),
                                     verdict=Verdict(checks=(), score=0.0, reward=0.0), history=tuple(log.rounds)))
    assert replay.attempts == (attempt,)
    _ = rec["prompt"][-1]["content"]  # what the loop replays as the chat


def test_a_round_record_numbered_below_one_is_refused_not_read_as_attempt_zero():
    for number in (0, -3):
        checked = check_record({**json.loads(json.dumps(ROUND)), "round": number})
        assert checked.record is None and checked.problem == f"round record: 'round' is {number}"
    assert check_record(json.loads(json.dumps(ROUND))).record is not None


@pytest.fixture(scope="module")
def one_task(one_bench):
    return ToySuite().load_tasks(one_bench)[0]


def _check_and_read(rec: dict, task) -> None:
    checked = check_record(rec)
    assert (checked.record is None) != (checked.problem == "")
    if checked.record is not None:
        _read_by_every_reader(checked.record, task)


def fuzz(examples: int) -> settings:
    """Fixed-seed fuzzing (the same cases every run)."""
    return settings(max_examples=examples, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@fuzz(150)
@given(rec=mutated_rounds())
def test_check_record_never_raises_and_what_it_passes_every_reader_indexes(rec, one_task):
    _check_and_read(rec, one_task)


@pytest.mark.slow
@fuzz(5000)
@given(rec=mutated_rounds())
def test_check_record_fuzzed_longer(rec, one_task):
    _check_and_read(rec, one_task)
