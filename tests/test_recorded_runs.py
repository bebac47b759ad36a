"""Run directories recorded by the code before the round record moved (tests/data/legacy_runs/
format2-*, store format 2: see that folder's README), one or more per suite, read by the code of
now: each reports as it did, resumes without playing anything and rescores with 0 differences."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from simreflect.core.records import FORMAT
from simreflect.core.registry import get_suite
from simreflect.run.report import rescore, write_report
from simreflect.run.runner import RunConfig, _tasks, run
from simreflect.run.store import RunStore
from simreflect.viewer import write_viewer

RECORDED = Path(__file__).parent / "data" / "legacy_runs"
RUNS = ["format2-gait-oracle", "format2-gait-noop", "format2-audit-reference", "format2-pace-oracle",
        "format2-pace-param-search", pytest.param("format2-workshop-reference", marks=pytest.mark.slow)]


def recorded_copy(name: str, dest: Path, gait_bench: Path) -> Path:
    """A copy of a recorded run pointed at this machine's benchmark of its suite."""
    shutil.copytree(RECORDED / name, dest)
    cfg = json.loads((dest / "config.json").read_text())
    cfg["bench"] = str(gait_bench if cfg["suite"] == "gait" else get_suite(cfg["suite"]).default_root(0))
    (dest / "config.json").write_text(json.dumps(cfg, sort_keys=True, indent=1))
    return dest


def test_every_suite_has_a_recorded_run():
    suites = {json.loads((RECORDED / (n if isinstance(n, str) else n.values[0]) / "config.json").read_text())["suite"]
              for n in RUNS}
    assert suites == {"gait", "audit", "pace", "workshop"}


def cfg_suite(run_dir):
    return get_suite(json.loads((run_dir / "config.json").read_text())["suite"])


def _assert_same_trajectories_but_the_declared_scale(suite, old_dir, run_dir):
    """Every trajectory repeats; the news is only the suite's declared score range and stages, which
    trajectories now carry (core.contract.ScoreScale), and they are what the suite declares."""
    old = [json.loads(line) for line in (old_dir / "trajectories.jsonl").read_text().splitlines()]
    now = [json.loads(line) for line in (run_dir / "trajectories.jsonl").read_text().splitlines()]
    assert len(now) == len(old) > 0
    for o, n in zip(old, now):
        assert n.pop("score_range") == [suite.scale.score_low, suite.scale.score_high]
        assert n.pop("stages") == list(suite.stages)
        assert "score_range" not in o and "stages" not in o
        assert n == o


@pytest.mark.parametrize("name", RUNS)
def test_a_recorded_run_reports_resumes_and_rescores_as_it_did(name, one_bench, tmp_path):
    run_dir = recorded_copy(name, tmp_path / name, one_bench)
    old_rows = (RECORDED / name / "runs.jsonl").read_text()
    old_summary = json.loads((RECORDED / name / "summary.json").read_text())
    n_lines = (run_dir / "attempts.jsonl").read_bytes().count(b"\n")
    write_report(run_dir)
    summary = json.loads((run_dir / "summary.json").read_text())
    # a subset's denominator is the suite's catalogue of now, which may have grown since the run
    old_of, now_of = old_summary.get("selection", {}).get("of"), summary.get("selection", {}).get("of")
    if old_of is not None:
        config = RunConfig.from_dict(RunStore(run_dir).config())
        assert now_of == len(_tasks(config.suite, config.bench)) >= old_of
        old_summary["selection"]["of"] = now_of
    assert (run_dir / "runs.jsonl").read_text() == old_rows
    if (RECORDED / name / "summary.md").is_file():  # the tables
        old, now = (RECORDED / name / "summary.md").read_text(), (run_dir / "summary.md").read_text()
        now = re.sub(r"\nRecords read after an upgrade: [^\n]*\n", "", now)  # that note is news
        # and so is the table with PACE's denominators (analysis/passk.py DENOMINATORS)
        now = re.sub(r"\n### Pass@\d and Score@\d by method x model, PACE's denominators.*?(?=\n### )", "", now,
                     flags=re.S)
        now = re.sub(r"\n### Pass@\d@k and Score@\d@k as PACE counts k.*?(?=\n### )", "", now, flags=re.S)
        if old_of is not None:
            old = old.replace(f" of {old_of} tasks", f" of {now_of} tasks", 1)
        now = re.sub(r"\n### Error taxonomy by PACE-Bench's own rules.*?(?=\n### )", "", now, flags=re.S)
        assert now == old
    if (RECORDED / name / "trajectories.jsonl").is_file():  # pace's Pass@k contract
        _assert_same_trajectories_but_the_declared_scale(cfg_suite(run_dir), RECORDED / name, run_dir)
    # the only news: every record was read through the upgrade from format 2
    assert summary.pop("upgraded_records") == [f"attempts.jsonl lines 1-{n_lines}: {n_lines} record(s) of store "
                                               f"format 2 read as format {FORMAT}"]
    assert old_summary.pop("upgraded_records") == []
    assert summary == old_summary
    assert write_viewer(run_dir).is_file()
    before = (run_dir / "attempts.jsonl").read_bytes()
    assert run(run_dir, RunConfig.from_dict(RunStore(run_dir).config())) == []  # finished: nothing to play
    assert (run_dir / "attempts.jsonl").read_bytes() == before
    assert rescore(run_dir) == []


def test_a_rescore_tells_a_changed_measurement_from_the_last_bits_of_a_float():
    from simreflect.run.report import same_record_values

    recorded = {"checks": [{"name": "balance", "value": 0.03215011609281944, "passed": True, "details": []}],
                "score": 1.0, "errors": []}
    one_ulp = {"checks": [{"name": "balance", "value": 0.03215011609281943, "passed": True, "details": []}],
               "score": 1.0, "errors": []}
    assert same_record_values(one_ulp, recorded)
    for changed in ({**recorded, "score": 1.0 + 1e-6},
                    {**recorded, "checks": [{**recorded["checks"][0], "value": 0.0322}]},
                    {**recorded, "checks": [{**recorded["checks"][0], "passed": 1}]},
                    {**recorded, "errors": ["balance"]},
                    {**recorded, "extra": None},
                    {**recorded, "score": "1.0"},
                    {**recorded, "checks": []}):
        assert not same_record_values(changed, recorded), changed
    assert same_record_values(float("nan"), float("nan")) is False  # a NaN never equals a record
