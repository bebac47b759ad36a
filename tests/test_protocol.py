"""The attempt-budget protocol: history truncation, invalid streaks, independent runs, Pass@k reports."""

from __future__ import annotations

import json

from simreflect.run.report import rows_of, trajectories_of, write_report
from simreflect.run.runner import RunConfig, run
from simreflect.run.store import RunStore
from simreflect.suites.gait.suite import GaitSuite
from simreflect.testing.scripted_llm import ScriptedLLMServer


def answer(script: str, note: str) -> dict:
    return {"content": json.dumps({"diagnosis": note, "script": script})}


def llm(server, **extra) -> dict:
    return {"model": "m", "base_url": server.base_url, "backoff_s": 0.01, **extra}


def test_last_plus_best_history(one_bench, tmp_path):
    oracle = GaitSuite().load_tasks(one_bench)[0].hidden["oracle_fix"]
    replies = [answer("pass", "first"), answer("rig.fcurve(", "second"), answer("pass", "third"),
               answer(oracle, "fourth")]
    with ScriptedLLMServer(replies) as server:
        run(tmp_path, RunConfig(suite="gait", bench=str(one_bench), agent="llm", levels=("L2",), rounds=4,
                                history="last+best", agent_options=llm(server)))
        fourth = server.requests[3]["messages"]
    # system + (round 1: the best, ties to the earliest) + (round 3: the latest) + the new report
    assert [m["role"] for m in fourth] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert '"first"' in fourth[2]["content"] and '"third"' in fourth[4]["content"]
    assert not any('"second"' in m["content"] for m in fourth)
    _, rows = rows_of(tmp_path)
    assert rows[0]["solved_round"] == 4


def test_invalid_streak_ends_the_episode(one_bench, tmp_path):
    with ScriptedLLMServer([{"content": "no code, sorry"}]) as server:
        run(tmp_path, RunConfig(suite="gait", bench=str(one_bench), agent="llm", levels=("L1",), rounds=6,
                                invalid_streak=3, agent_options=llm(server)))
        assert len(server.requests) == 3
    _, rows = rows_of(tmp_path)
    assert rows[0]["rounds_used"] == 3 and rows[0]["end_reason"] == "invalid_streak" and not rows[0]["solved"]


def test_independent_runs_and_pass_at_k_tables(tmp_path, pace_sample_root):
    config = RunConfig(suite="pace", bench=str(pace_sample_root), agent="noop", levels=("L1", "L2"), rounds=2, runs=2,
                       history="last+best", invalid_streak=3)
    run(tmp_path, config, workers=2)
    records, _ = RunStore(tmp_path).records()
    ends = [r for r in records if r["type"] == "end"]
    assert len(ends) == 96 and {r.get("run", 0) for r in ends} == {0, 1}
    trajectories = trajectories_of(tmp_path)
    assert len(trajectories) == 96 and {t.method for t in trajectories} == {"vanilla L1", "vanilla L2"}
    t = trajectories[0]
    assert [a.index for a in t.attempts] == [0, 1, 2] and t.end_reason == "budget" and t.stage in (1, 2, 3, 4)
    md = write_report(tmp_path)
    assert "Pass@2 and Score@2 by domain" in md and "Pass@2 and Score@2 by stage" in md
    assert (tmp_path / "trajectories.jsonl").is_file()
    statics = [line for line in md.splitlines() if line.startswith("vanilla L2 | noop | statics |")]
    assert statics and all("| 0.0% |" in line for line in statics)  # doing nothing solves no target


def test_pace_prompt_modes():
    from simreflect.suites.pace.suite import PaceSuite

    suite = PaceSuite()
    task = next(t for t in suite.load_tasks() if t.id.startswith("statics_bridge") and t.id.endswith("stage2"))
    source = suite.spec(task).program("source").strip().splitlines()[0]
    default = suite.instruction(task)
    assert "## The source design (program.py)" in default and source in default
    assert "their values are not disclosed" in default
    scratch = suite.with_options(start="scratch").instruction(task)
    assert "The source design" not in scratch and "Write a design program" in scratch
    disclosed = suite.with_options(disclose="true").instruction(task)
    assert "disclosed for this run" in disclosed
    hidden = suite.spec(task).invisible_names()
    changed = [n for n in hidden if n in task.hidden["mutations"]]
    assert changed and all(n.replace("_", " ") in disclosed for n in changed)
    assert disclosed.count("originally") > default.count("originally")
