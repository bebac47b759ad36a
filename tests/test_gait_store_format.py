"""Runs recorded on gait before store formats (tests/data/legacy_runs) still report, resume and
rescore (the store's format itself is tested on the toy suite: test_store_format.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from simreflect.run.records import FORMAT, FORMAT_KEY
from simreflect.run.report import rows_of, write_report
from simreflect.run.runner import RunConfig, run
from simreflect.run.store import RunStore
from simreflect.suites.gait.suite import GaitSuite
from simreflect.testing.scripted_llm import ScriptedLLMServer
from simreflect.viewer import write_viewer

LEGACY = Path(__file__).parent / "data" / "legacy_runs"


def legacy_copy(name: str, bench: Path, dest: Path, **config) -> Path:
    """A run directory recorded by the code before store formats, pointed at this session's bench."""
    shutil.copytree(LEGACY / name, dest)
    cfg = json.loads((dest / "config.json").read_text())
    assert FORMAT_KEY not in cfg
    cfg.update(bench=str(bench), **config)
    (dest / "config.json").write_text(json.dumps(cfg, sort_keys=True, indent=1))
    return dest


def contains(new, old) -> bool:
    """Everything `old` says, `new` says the same (new may say more)."""
    if isinstance(old, dict):
        return isinstance(new, dict) and all(k in new and contains(new[k], v) for k, v in old.items())
    if isinstance(old, list):
        return isinstance(new, list) and len(new) == len(old) and all(contains(a, b) for a, b in zip(new, old))
    return new == old


@pytest.mark.parametrize("name", ["gait-baseline", "gait-llm"])
def test_runs_recorded_before_store_formats_report_as_they_did(name, one_bench, tmp_path):
    run_dir = legacy_copy(name, one_bench, tmp_path / name)
    old_summary = json.loads((LEGACY / name / "summary.json").read_text())
    old_rows = [json.loads(line) for line in (LEGACY / name / "runs.jsonl").read_text().splitlines()]
    n_lines = (LEGACY / name / "attempts.jsonl").read_bytes().count(b"\n")
    write_report(run_dir)
    summary = json.loads((run_dir / "summary.json").read_text())
    rows = [json.loads(line) for line in (run_dir / "runs.jsonl").read_text().splitlines()]
    assert contains(summary, old_summary) and contains(rows, old_rows)
    assert summary["damaged_records"] == []
    assert summary["upgraded_records"] == [f"attempts.jsonl lines 1-{n_lines}: {n_lines} record(s) of the legacy "
                                           f"format (no {FORMAT_KEY}) read as format {FORMAT}"]
    assert "Records read after an upgrade" in (run_dir / "summary.md").read_text()
    assert (write_viewer(run_dir)).is_file()
    # finished: resuming asks nothing and writes nothing
    before = (run_dir / "attempts.jsonl").read_bytes()
    assert run(run_dir, RunConfig.from_dict(RunStore(run_dir).config())) == []
    assert (run_dir / "attempts.jsonl").read_bytes() == before


def test_a_run_killed_before_store_formats_resumes_where_it_stopped(one_bench, tmp_path):
    oracle = GaitSuite().load_tasks(one_bench)[0].hidden["oracle_fix"]
    replies = [{"content": json.dumps({"diagnosis": "restore the walk", "script": oracle})}]
    with ScriptedLLMServer(replies) as server:
        run_dir = legacy_copy("gait-llm", one_bench, tmp_path / "killed")
        cfg = json.loads((run_dir / "config.json").read_text())
        cfg["agent_options"]["base_url"] = server.base_url  # the endpoint moved with the run
        (run_dir / "config.json").write_text(json.dumps(cfg, sort_keys=True, indent=1))
        lines = (run_dir / "attempts.jsonl").read_bytes().splitlines(keepends=True)
        # rounds 1-4 (no program, a crash, a rejected artefact, an accepted `pass`); killed then, and
        # its workspace is gone (another machine): round 4's is rebuilt by replaying it
        kept = b"".join(lines[:4])
        (run_dir / "attempts.jsonl").write_bytes(kept)
        assert not (run_dir / "work").exists()
        outcomes = run(run_dir, RunConfig.from_dict(RunStore(run_dir).config()))
        assert len(server.requests) == 1  # round 5 only
    assert [(o.status, o.solved, o.rounds) for o in outcomes] == [("finished", True, 5)]
    assert (run_dir / "attempts.jsonl").read_bytes().startswith(kept)  # the legacy lines stay as they were
    read = RunStore(run_dir).read()
    assert read.problems == [] and read.upgraded[0].startswith("attempts.jsonl lines 1-4: 4 record(s)")
    rounds = [r["round"] for r in read.records if r["type"] == "round"]
    assert rounds == [1, 2, 3, 4, 5]
    assert [json.loads(x).get(FORMAT_KEY) for x in (run_dir / "attempts.jsonl").read_bytes().splitlines()[4:]] == \
        [FORMAT] * 2  # round 5 and the end, written now
    _, rows = rows_of(run_dir)
    assert rows[0]["solved_round"] == 5 and rows[0]["crashes"] == 1 and rows[0]["no_program"] == 1
