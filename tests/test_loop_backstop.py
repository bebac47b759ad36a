"""The loop never dies on untrusted input: whatever a suite raises on a model's answer or a
program's artefact is that round's recorded failure (`harness_error`), the run goes on, and a
resume continues after it without asking the model for that round again. On the toy suite (the
core's subject); gait's readers refusing hostile rigs at the source: test_gait_loop_backstop.py.

Before the backstop each of these killed the whole run and recorded nothing; the resume asked the
model again and died again.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from simreflect.agents.base import Action, InfrastructureError
from simreflect.core.evidence import EvidenceLevel
from simreflect.run.episode import run_episode
from simreflect.run.report import rescore, rows_of, write_report
from simreflect.run.runner import RunConfig, run
from simreflect.run.store import EpisodeLog, RunStore
from simreflect.testing.scripted_llm import ScriptedLLMServer
from simreflect.testing.toy import (ANSWER_FILE, NAME, TOY_ENTRY_POINTS, ToySuite, env_with, plugin_site,
                                    read_answer, toy_suite_registered, write_task_list)
from simreflect.viewer import write_viewer

SURROGATE = "print('\ud800')\n"  # a lone surrogate: not encodable, so the script cannot be written
#: answer.txt the verifier must refuse: a link out of the workspace, and a 41-digit number
LINKED_ANSWER = f"import os\nos.remove('{ANSWER_FILE}')\nos.symlink('/etc/passwd', '{ANSWER_FILE}')\n"
LINK_REFUSAL = f"symlink workdir/{ANSWER_FILE}"  # what the sandbox's scrub of the workspace says
HUGE_ANSWER = f"open('{ANSWER_FILE}', 'w').write(str(10 ** 40))\n"
#: an answer the test suites below single out (a whole number, so the real verifier reads it)
MARKED = "-4242"
MARKED_ANSWER = f"open('{ANSWER_FILE}', 'w').write('{MARKED}')\n"


@pytest.fixture(scope="module")
def toy_bench(tmp_path_factory) -> Path:
    return write_task_list(tmp_path_factory.mktemp("toy"), 1, seed=3)


class Scripted:
    name = "scripted"

    def __init__(self, programs):
        self.programs = programs

    def act(self, obs):
        program = self.programs[obs.round - 1]
        if isinstance(program, BaseException):
            raise program
        return Action(program=program, diagnosis="scripted", raw="scripted")


def play(suite, task, programs, tmp_path: Path, level: str = "L1"):
    store = RunStore(tmp_path / "run")
    outcome = run_episode(suite, Scripted(programs), task, EvidenceLevel.parse(level), len(programs), store,
                          EpisodeLog(), timeout_s=60.0)
    return outcome, [r for r in store.records()[0] if r["type"] == "round"]


def assert_harness_failure(rec: dict, stage: str, kind: str) -> None:
    assert rec["harness_error"]["stage"] == stage and rec["harness_error"]["type"] == kind, rec.get("harness_error")
    assert not rec["accepted"] and not rec["passed"]
    assert f"{stage} raised {kind}" in (rec["error"] or rec["verdict"]["invalid"])


def _marked(workdir) -> bool:
    try:
        return read_answer(workdir) == int(MARKED)
    except ValueError:
        return False


def test_hostile_answers_and_artefacts_are_refused_at_the_source_and_cost_their_round_only(toy_bench, tmp_path):
    suite = ToySuite()
    task = suite.load_tasks(toy_bench)[0]
    outcome, rounds = play(suite, task, [SURROGATE, LINKED_ANSWER, HUGE_ANSWER, suite.oracle(task)], tmp_path)
    assert (outcome.status, outcome.solved, outcome.rounds) == ("finished", True, 4)
    assert all(rec.get("harness_error") is None for rec in rounds)
    assert rounds[0]["program"]["status"] == "error" and "invalid program" in rounds[0]["program"]["reason"]
    assert rounds[0]["errors_after"] == rounds[0]["errors_before"]
    assert rounds[1]["rejected"] and LINK_REFUSAL in rounds[1]["verdict"]["invalid"]
    assert rounds[2]["rejected"] and "does not hold a whole number" in rounds[2]["verdict"]["invalid"]
    assert LINK_REFUSAL in rounds[2]["prompt"][-1]["content"]  # the model is told why


class RaisingVerifierSuite(ToySuite):
    """The toy suite with a verifier that raises on one artefact: the verify step's backstop, for
    which the real reader offers no hostile input."""

    def verify(self, task, workdir, run=None):
        if _marked(workdir):
            raise RecursionError("maximum recursion depth exceeded while decoding")
        return super().verify(task, workdir, run)


def test_a_verifier_that_raises_on_an_artefact_rejects_that_round_only(toy_bench, tmp_path):
    suite = RaisingVerifierSuite()
    task = suite.load_tasks(toy_bench)[0]
    outcome, rounds = play(suite, task, [MARKED_ANSWER, suite.oracle(task)], tmp_path)
    assert (outcome.status, outcome.solved, outcome.rounds) == ("finished", True, 2)
    assert_harness_failure(rounds[0], "verify", "RecursionError")
    assert rounds[0]["rejected"] and rounds[0]["verdict"]["invalid"]
    # the model is told which step failed on its input, never the exception's message
    shown = rounds[1]["prompt"][-1]["content"]
    assert "verify raised RecursionError" in shown and "maximum recursion depth" not in shown
    assert "maximum recursion depth" in rounds[0]["harness_error"]["message"]  # the record keeps it


@pytest.mark.parametrize("suite_name", ["pace", "audit", "workshop"])
def test_a_lone_surrogate_in_an_answer_is_a_recorded_failure_in_every_suite(suite_name, tmp_path):
    from simreflect.core.registry import get_suite

    suite = get_suite(suite_name)
    task = suite.load_tasks()[0]
    outcome, rounds = play(suite, task, [SURROGATE, SURROGATE], tmp_path, level="L3" if suite_name == "pace" else "L1")
    assert outcome.status == "finished" and outcome.rounds == 2
    for rec in rounds:
        assert rec.get("harness_error") is None and not rec["accepted"]
        assert rec["program"]["status"] == "error" and "invalid program" in rec["program"]["reason"]


def test_an_agent_that_fails_on_an_answer_costs_its_round_and_an_infrastructure_error_stays_apart(toy_bench, tmp_path):
    suite = ToySuite()
    task = suite.load_tasks(toy_bench)[0]
    programs = [RecursionError("maximum recursion depth exceeded while decoding"), suite.oracle(task)]
    outcome, rounds = play(suite, task, programs, tmp_path / "a")
    assert (outcome.solved, outcome.rounds) == (True, 2)
    assert_harness_failure(rounds[0], "agent", "RecursionError")
    assert rounds[0]["program"] is None
    outcome, rounds = play(suite, task, [InfrastructureError("endpoint down")], tmp_path / "b")
    assert outcome.status == "infra_error" and rounds == []


class FaultySuite(ToySuite):
    """The toy suite with a report renderer that fails on one artefact: the observe step's
    backstop, for which no real suite offers a hostile input."""

    def observe(self, task, verdict, level):
        if "invalid_artefact" not in verdict.errors and verdict.diagnostics.get("faulty"):
            raise KeyError("faulty")
        return super().observe(task, verdict, level)

    def verify(self, task, workdir, run=None):
        verdict = super().verify(task, workdir, run)
        if _marked(workdir):
            return replace(verdict, diagnostics={**verdict.diagnostics, "faulty": True})
        return verdict


def test_a_report_that_fails_on_a_verdict_rejects_that_round(toy_bench, tmp_path):
    suite = FaultySuite()
    task = suite.load_tasks(toy_bench)[0]
    outcome, rounds = play(suite, task, [MARKED_ANSWER, suite.oracle(task)], tmp_path)
    assert (outcome.solved, outcome.rounds) == (True, 2)
    assert_harness_failure(rounds[0], "observe", "KeyError")
    assert rounds[0]["rejected"] and rounds[1]["errors_before"] == rounds[0]["errors_before"]


def test_simreflect_run_survives_hostile_answers_and_resumes_without_asking_again(toy_bench, tmp_path):
    """Through `run` with a model: a surrogate, then an answer linked out of the workspace (each
    once killed the run); round 3's request fails (an infrastructure error). The same command again
    asks only for round 3."""
    task = ToySuite().load_tasks(toy_bench)[0]
    oracle = ToySuite().oracle(task)
    hostile = [{"content": json.dumps({"diagnosis": "surrogate", "script": SURROGATE})},
               {"content": json.dumps({"diagnosis": "linked", "script": LINKED_ANSWER})},
               {"status": 500}]
    opts = {"model": "scripted", "backoff_s": 0.01, "max_retries": 0, "timeout_s": 10.0}
    with toy_suite_registered():
        with ScriptedLLMServer(hostile) as server:
            config = RunConfig(suite=NAME, bench=str(toy_bench), agent="llm", levels=("L1",), rounds=3,
                               agent_options={**opts, "base_url": server.base_url})
            first = run(tmp_path, config)
            port = server.base_url.rsplit(":", 1)[1].split("/")[0]
        assert [o.status for o in first] == ["infra_error"]
        with ScriptedLLMServer([{"content": json.dumps({"diagnosis": "fix", "script": oracle})}],
                               port=int(port)) as server:
            second = run(tmp_path, config)
            assert len(server.requests) == 1  # round 3 only
        assert [(o.status, o.solved, o.rounds) for o in second] == [("finished", True, 3)]
        _, rows = rows_of(tmp_path)
        assert rows[0]["harness_errors"] == 0 and rows[0]["no_program"] == 1  # refused at the source, not the backstop
        assert "lone surrogate" in rows[0]["rounds"][0]["error"]
        assert LINK_REFUSAL in rows[0]["rounds"][2]["prompt"][-1]["content"]
        write_report(tmp_path)
        assert rescore(tmp_path) == []  # the same inputs fail the same way
        page = (write_viewer(tmp_path).parent / "episodes" / f"{task.id}-L1.html").read_text()
    assert "lone surrogate" in page and LINK_REFUSAL in page
    site = plugin_site(tmp_path / "site", TOY_ENTRY_POINTS)  # a fresh process knows the toy suite by its entry point
    res = subprocess.run([sys.executable, "-m", "simreflect.cli", "report", str(tmp_path)], capture_output=True,
                         text=True, timeout=120, env=env_with(site))
    assert res.returncode == 0 and "Solved within 3" in res.stdout, res.stderr


class FlakyVerifierSuite(ToySuite):
    """The toy suite whose verifier fails once for a reason that is not the input's (as audit's
    reference run may on a loaded machine): a TrustedSideFailure."""

    def __init__(self):
        super().__init__()
        self.calls = 0

    def verify(self, task, workdir, run=None):
        self.calls += 1
        if self.calls == 2:  # the first is of the pristine workspace, the second of round 1's
            from simreflect.core.attempt import TrustedSideFailure

            raise TrustedSideFailure("the reference did not run")
        return super().verify(task, workdir, run)


def test_a_verifier_that_fails_on_its_own_account_is_an_infrastructure_error_not_the_agents(toy_bench, tmp_path):
    suite = FlakyVerifierSuite()
    task = suite.load_tasks(toy_bench)[0]
    store = RunStore(tmp_path / "run")
    agent = Scripted([suite.oracle(task)])
    first = run_episode(suite, agent, task, EvidenceLevel.parse("L1"), 1, store, EpisodeLog(), timeout_s=60.0)
    records = store.records()[0]
    assert first.status == "infra_error" and [r["type"] for r in records] == ["infra_error"]
    assert "the verifier failed: the reference did not run" in records[0]["error"]
    log = store.episodes()[f"{task.id}/L1"]
    again = run_episode(suite, agent, task, EvidenceLevel.parse("L1"), 1, store, log, timeout_s=60.0)
    assert again.solved and again.rounds == 1  # the round was played again, and scored only then
