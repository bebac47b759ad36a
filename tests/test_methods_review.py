"""The improve loop (--method review): a reviewer's advice reaches the next attempt and is recorded."""

from __future__ import annotations

import json

from simreflect.run.report import rows_of, write_report
from simreflect.run.runner import RunConfig, run
from simreflect.suites.gait.suite import GaitSuite
from simreflect.testing.scripted_llm import ScriptedLLMServer

ADVICE = "The torso lean is still there; restore rotation_euler Z of the torso from an earlier cycle."


def test_review_loop(one_bench, tmp_path):
    oracle = GaitSuite().load_tasks(one_bench)[0].hidden["oracle_fix"]
    replies = [
        {"content": json.dumps({"diagnosis": "first try", "script": "pass"})},  # round 1: changes nothing
        {"content": ADVICE},  # the reviewer
        {"content": json.dumps({"diagnosis": "following the advice", "script": oracle})},  # round 2
    ]
    with ScriptedLLMServer(replies) as server:
        run(tmp_path, RunConfig(suite="gait", bench=str(one_bench), agent="llm", levels=("L2",), method="review",
                                agent_options={"model": "m", "base_url": server.base_url}))
        reviewer_request = server.requests[1]
        retry_request = server.requests[2]
    assert "You review a failed attempt" in reviewer_request["messages"][0]["content"]
    assert "response_format" in retry_request and ADVICE in retry_request["messages"][-1]["content"]
    _, rows = rows_of(tmp_path)
    row = rows[0]
    assert row["solved_round"] == 2 and row["aux_calls"] == 1
    second = row["rounds"][1]
    assert second["method_notes"]["review"] == ADVICE
    assert ADVICE in second["prompt"][-1]["content"]  # the exact prompt the model saw is the one recorded
    assert "Auxiliary model calls" in write_report(tmp_path)
