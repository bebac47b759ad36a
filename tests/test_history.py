"""What an agent is shown of its earlier rounds (run/history.py): PACE's Previous-One + Best
revision prompt, built from the round records, and through a real pace run."""

from __future__ import annotations

import json

from simreflect.core.records import RoundRecord
from simreflect.run.history import PREVIOUS_AND_BEST_CLOSE, own_reports, previous_and_best, round_chat
from simreflect.run.runner import RunConfig, run
from simreflect.suites.pace.suite import PaceSuite
from simreflect.testing.scripted_llm import ScriptedLLMServer

OK = {"status": "ok", "reason": "", "output_tail": ""}
CRASH = {"status": "error", "reason": "exit code 1", "output_tail": "SyntaxError: invalid syntax"}


def checked(n: int, score: float, before: float, report: str, script: str) -> RoundRecord:
    return RoundRecord(round=n, script=script, score_before=before, score=score, program=OK, accepted=True,
                       report=report, answer=f"answer {n}")


def crashed(n: int, before: float, report: str, script: str) -> RoundRecord:
    return RoundRecord(round=n, script=script, score_before=before, program=CRASH, report=report,
                       answer=f"answer {n}")


def test_the_best_and_the_previous_attempt_each_come_with_their_own_report():
    rounds = [checked(1, 40.0, 10.0, "REPORT-OF-SOURCE", "design_1()"),
              checked(2, 70.0, 40.0, "REPORT-AFTER-1", "design_2()"),
              checked(3, 55.0, 70.0, "REPORT-AFTER-2", "design_3()")]
    text = previous_and_best(rounds, 4, 20, "REPORT-AFTER-3")
    assert own_reports(rounds, "REPORT-AFTER-3") == {1: "REPORT-AFTER-1", 2: "REPORT-AFTER-2", 3: "REPORT-AFTER-3"}
    source, best, previous = (text.index(h) for h in ("# The source design in this environment (iteration 1)",
                                                      "# Best-scoring attempt so far (attempt 2, score 70)",
                                                      "# Previous attempt (attempt 3)"))
    assert source < best < previous
    # each program beside the report of what it did (not the report it answered)
    assert "REPORT-OF-SOURCE" in text[source:best]
    assert "design_2()" in text[best:previous] and "REPORT-AFTER-2" in text[best:previous]
    assert "design_3()" in text[previous:] and "REPORT-AFTER-3" in text[previous:]
    assert "design_1()" not in text and "REPORT-AFTER-1" not in text
    assert text.rstrip().endswith("Round 4 of 20.\n" + PREVIOUS_AND_BEST_CLOSE)


def test_ties_go_to_the_earliest_and_the_source_is_the_best_until_beaten():
    same = [checked(1, 10.0, 10.0, "R0", "a()"), checked(2, 10.0, 10.0, "R1", "b()")]
    text = previous_and_best(same, 3, 20, "R2")
    assert "No attempt has scored above the source design yet" in text
    assert "# Previous attempt (attempt 2)" in text and "b()" in text and "a()" not in text
    tied = [checked(1, 50.0, 10.0, "R0", "a()"), checked(2, 50.0, 50.0, "R1", "b()")]
    text = previous_and_best(tied, 3, 20, "R2")
    assert "# Best-scoring attempt so far (attempt 1, score 50)" in text and "# Previous attempt (attempt 2)" in text
    # the previous attempt is the best one: shown once
    once = [checked(1, 10.0, 10.0, "R0", "a()"), checked(2, 60.0, 10.0, "R1", "b()")]
    text = previous_and_best(once, 3, 20, "R2")
    assert text.count("b()") == 1 and "# Previous attempt" not in text


def test_a_crashed_attempt_shows_why_it_was_not_used_and_an_answer_without_a_program_is_said():
    rounds = [checked(1, 30.0, 10.0, "R0", "a()"), crashed(2, 30.0, "R1", "b(")]
    text = previous_and_best(rounds, 3, 20, "R1")
    assert "# Previous attempt (attempt 2)" in text and "Your previous script failed (error: exit code 1)" in text
    no_program = rounds + [RoundRecord(round=3, error="no program in the answer", score_before=30.0, report="R1")]
    text = previous_and_best(no_program, 4, 20, "R1")
    assert "# Previous attempt (attempt 2)" in text  # the last attempt that had a program
    assert "Your previous answer was not used: no program in the answer." in text


def test_round_one_and_the_other_modes_are_unchanged():
    assert round_chat("S", [], "previous+best", 1, 20, "R0") == round_chat("S", [], "full", 1, 20, "R0")
    rounds = [checked(1, 30.0, 10.0, "R0", "a()")]
    full = round_chat("S", [RoundRecord(**{**rounds[0].__dict__, "prompt": ({"role": "user", "content": "U1"},)})],
                      "full", 2, 20, "R1")
    assert [m["role"] for m in full] == ["system", "user", "assistant", "user"]
    pb = round_chat("S", rounds, "previous+best", 2, 20, "R1")
    assert [m["role"] for m in pb] == ["system", "user"]


def test_a_pace_run_sends_the_previous_and_best_prompt(tmp_path, pace_sample_root):
    suite = PaceSuite()
    task = next(t for t in suite.load_tasks(pace_sample_root) if t.id == "statics_bridge.stage1")
    source = suite.spec(task).program("source")
    replies = [{"content": json.dumps({"diagnosis": "unchanged", "script": source})},
               {"content": json.dumps({"diagnosis": "broken", "script": "def build_agent(sandbox:\n"})},
               {"content": json.dumps({"diagnosis": "reference", "script": suite.oracle(task)})}]
    with ScriptedLLMServer(replies) as server:
        run(tmp_path, RunConfig(suite="pace", bench=str(pace_sample_root), agent="llm", levels=("L3",), rounds=3,
                                runs=1, tasks=("statics_bridge.stage1",), history="previous+best",
                                agent_options={"model": "m", "base_url": server.base_url, "backoff_s": 0.01}))
        requests = [r for r in server.requests if any("Round" in str(m.get("content")) for m in r["messages"])]
    first, second, third = (r["messages"] for r in requests[-3:])
    assert [m["role"] for m in first] == ["system", "user"] and first[1]["content"].startswith("Round 1 of 3.")
    for chat in (second, third):
        assert [m["role"] for m in chat] == ["system", "user"]
        assert chat[1]["content"].startswith("# The source design in this environment (iteration 1)")
        assert "No attempt has scored above the source design yet" in chat[1]["content"]
    assert "# Previous attempt (attempt 1)" in second[1]["content"]
    assert "# Previous attempt (attempt 2)" in third[1]["content"] and "Your previous script failed" in third[1]["content"]
    assert "Round 3 of 3." in third[1]["content"]


def _pace_run(tmp_path, pace_sample_root, replies, rounds=3, invalid_retries=2):
    with ScriptedLLMServer(replies) as server:
        run(tmp_path, RunConfig(suite="pace", bench=str(pace_sample_root), agent="llm", levels=("L3",), rounds=rounds,
                                runs=1, tasks=("statics_bridge.stage1",), history="previous+best",
                                invalid_retries=invalid_retries,
                                agent_options={"model": "m", "base_url": server.base_url, "backoff_s": 0.01}))
        return [r for r in server.requests if any("Round" in str(m.get("content")) for m in r["messages"])]


def test_an_answer_without_a_program_is_asked_again_at_no_cost(tmp_path, pace_sample_root):
    """PACE's generation retries: two answers without a program, then the reference; the reference
    is attempt 1, the retries are new draws (seed 100, 200) recorded with the round, their tokens counted."""
    from simreflect.run.store import RunStore

    suite = PaceSuite()
    task = next(t for t in suite.load_tasks(pace_sample_root) if t.id == "statics_bridge.stage1")
    replies = [{"content": "I would first think about the ravine."}, {"content": "```\nnot python at all"},
               {"content": json.dumps({"diagnosis": "reference", "script": suite.oracle(task)})}]
    requests = _pace_run(tmp_path, pace_sample_root, replies)
    assert [r.get("seed") for r in requests] == [None, 100, 200]
    assert requests[0]["messages"] == requests[1]["messages"] == requests[2]["messages"]  # the same round asked again
    records, _ = RunStore(tmp_path).records()
    [round1] = [r for r in records if r["type"] == "round"]
    assert round1["round"] == 1 and round1["passed"]
    retries = round1["method_notes"]["invalid_retries"]
    assert [r["generation"] for r in retries] == [0, 1] and retries[0]["answer"].startswith("I would first think")
    assert all(r["error"] for r in retries)
    assert round1["usage"]["calls"] == 3
    [end] = [r for r in records if r["type"] == "end"]
    assert end["solved"] and end["rounds"] == 1


def test_a_round_whose_every_generation_holds_no_program_ends_the_episode(tmp_path, pace_sample_root):
    from simreflect.run.store import RunStore

    requests = _pace_run(tmp_path, pace_sample_root, [{"content": "no code from me"}], rounds=5)
    assert len(requests) == 3  # the answer and its two retries, then the episode is over
    records, _ = RunStore(tmp_path).records()
    rounds = [r for r in records if r["type"] == "round"]
    assert len(rounds) == 1 and rounds[0]["script"] is None and len(rounds[0]["method_notes"]["invalid_retries"]) == 2
    [end] = [r for r in records if r["type"] == "end"]
    assert end["reason"] == "invalid_streak" and not end["solved"]
