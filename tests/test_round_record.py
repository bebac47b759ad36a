"""The typed round record (core.records.RoundRecord): the loop writes it, the store reads it back
through check_record (older formats upgraded), and agents get the records and the report they are
shown as fields of the Observation, never by cutting the chat apart."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from simreflect.agents.base import Action
from simreflect.core.evidence import EvidenceLevel
from simreflect.core.records import FORMAT, FORMAT_KEY, RoundRecord, report_from_prompt, split_feedback
from simreflect.run.episode import run_episode
from simreflect.run.records import check_record
from simreflect.run.store import EpisodeLog, RunStore
from simreflect.suites.gait.suite import GaitSuite


class Recording:
    """An agent playing fixed programs that keeps every observation it was given."""

    name = "recording"

    def __init__(self, programs):
        self.programs, self.seen = programs, []

    def act(self, obs):
        self.seen.append(obs)
        return Action(program=self.programs[obs.round - 1], diagnosis=f"round {obs.round}", raw="answer")


def test_the_loop_writes_typed_records_and_agents_read_them(one_bench, tmp_path):
    suite = GaitSuite()
    task = suite.load_tasks(one_bench)[0]
    store = RunStore(tmp_path / "run")
    agent = Recording(["raise SystemExit(3)\n", "pass\n", suite.oracle(task)])
    outcome = run_episode(suite, agent, task, EvidenceLevel.parse("L2"), 3, store, EpisodeLog(), timeout_s=60.0)
    assert outcome.solved and outcome.rounds == 3
    rounds = [r for r in store.records()[0] if r["type"] == "round"]
    written = [json.loads(line) for line in store.path.read_text().splitlines()][:3]  # the lines as written
    assert [r[FORMAT_KEY] for r in written] == [FORMAT] * 3
    for obs, rec, line in zip(agent.seen, rounds, written):
        # the report shown is its own field, in the observation and in the record, and it is what the chat ends with
        assert obs.report and rec["report"] == obs.report
        assert split_feedback(obs.messages[-1]["content"])[1] == obs.report.strip()
        typed = RoundRecord.from_dict(rec)
        assert typed.to_dict() == {k: v for k, v in line.items() if k != FORMAT_KEY}  # one definition, both ways
    assert all(isinstance(h, RoundRecord) for obs in agent.seen for h in obs.history)
    last = agent.seen[-1].history
    assert [h.round for h in last] == [1, 2]
    assert not last[0].ran and last[0].program["status"] == "error" and last[0].score is None
    assert last[1].ran and last[1].accepted and last[1].diagnosis == "round 2"
    assert agent.seen[1].report == agent.seen[0].report  # the crash changed nothing, so the same report


def test_a_format_2_round_is_upgraded_with_the_report_its_chat_showed():
    feedback = "Your previous script ran; the verifier checked what it left.\n\nRound 2 of 3.\n\nREPORT two\n"
    rec = {"type": "round", "task": "t", "level": "L1", "round": 2, "script": "pass\n", "error": "",
           "prompt": [{"role": "system", "content": "s"}, {"role": "user", "content": feedback}],
           "program": None, "accepted": False, "rejected": False, "passed": False, "errors_before": [],
           "errors_after": [], "score": None, "score_before": None, "verdict": None, "answer": "", "diagnosis": "",
           "usage": {}, "method_notes": {}, FORMAT_KEY: 2}
    checked = check_record(rec)
    assert checked.upgraded_from == 2 and not checked.legacy and checked.filled == ()
    assert checked.record["report"] == "REPORT two" and checked.record[FORMAT_KEY] == FORMAT
    # a method that sent its own chat kept the loop's message in its notes: that is what was shown
    own = dict(rec, prompt=[{"role": "user", "content": "Round 2 of 3.\n\nthe method's design chat"}],
               method_notes={"feedback": feedback})
    assert check_record(own).record["report"] == "REPORT two"
    legacy = {k: v for k, v in rec.items() if k != FORMAT_KEY}
    assert check_record(legacy).legacy and check_record(legacy).record["report"] == "REPORT two"


messages = st.lists(st.one_of(st.none(), st.integers(), st.text(max_size=8),
                              st.fixed_dictionaries({"role": st.sampled_from(["user", "system", 3]),
                                                     "content": st.one_of(st.text(max_size=40), st.none())})),
                    max_size=4)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(messages, st.dictionaries(st.sampled_from(["feedback", "x"]), st.one_of(st.text(max_size=30), st.integers()),
                                 max_size=2))
def test_report_from_prompt_never_raises(prompt, notes):
    assert isinstance(report_from_prompt(prompt, notes), str)


def test_round_record_round_trips_through_the_store_reader():
    rec = RoundRecord(round=3, task="ep01", level="L2", run=1, script="x = 1\n", errors_before=("a",),
                      errors_after=("a", "b"), score_before=0.25, score=0.5, accepted=True, passed=False,
                      program={"status": "ok", "exit_code": 0, "output_tail": "", "seconds": 0.1, "reason": ""},
                      verdict={"passed": False, "errors": ["a", "b"], "score": 0.5, "checks": [], "diagnostics": {},
                               "invalid": ""},
                      harness_error=None, verify_seconds=0.02, report="R", prompt=({"role": "user", "content": "u"},),
                      answer="a", diagnosis="d", usage={"total_tokens": 3}, method_notes={"m": 1}, agent_seconds=0.5)
    line = json.loads(json.dumps({**rec.to_dict(), FORMAT_KEY: FORMAT}))
    checked = check_record(line)
    assert checked.problem == "" and checked.upgraded_from is None and checked.filled == ()
    assert RoundRecord.from_dict(checked.record) == rec
