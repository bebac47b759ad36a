"""`check_suite` and `simreflect check`: the toy suite passes; each way a suite can break the contract
is caught (a mutant toy suite per way); every real suite passes on a sample (all tasks when slow)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simreflect.core.contract import ScoreScale
from simreflect.core.evidence import EvidenceLevel
from simreflect.core.registry import get_suite
from simreflect.core.verdict import Check, Verdict
from simreflect.testing.check import check_suite, sample_tasks
from simreflect.testing.toy import ANSWER_FILE, ToySuite, read_answer


def findings(suite, **kw) -> set[str]:
    report = check_suite(suite, **kw)
    return {f.check for f in report.findings}


def test_the_toy_suite_passes_every_check():
    report = check_suite(ToySuite())
    assert report.ok, report.text()
    assert report.tasks == tuple(t.id for t in ToySuite().load_tasks()) and report.checks > 40 * len(report.tasks)


class DoingNothingSolves(ToySuite):
    def prepare_workspace(self, task, workdir):
        super().prepare_workspace(task, workdir)
        (Path(workdir) / ANSWER_FILE).write_text(str(task.hidden["target"]))


class WrongOracle(ToySuite):
    def oracle(self, task):
        return f"open('{ANSWER_FILE}', 'w').write('7')\n"


class ProcessDependent(ToySuite):
    """Same verdict twice in one process, another in a fresh one (a diagnostics field from process state)."""

    def verify(self, task, workdir, run=None):
        v = super().verify(task, workdir, run)
        return Verdict(v.checks, v.score, v.reward, v.invalid, {"pid": os.getpid()})


class Flaky(ToySuite):
    calls = 0

    def verify(self, task, workdir, run=None):
        Flaky.calls += 1
        v = super().verify(task, workdir, run)
        return Verdict(v.checks, v.score, v.reward, v.invalid, {"call": Flaky.calls})


class LeakyReport(ToySuite):
    def observe(self, task, verdict, level):
        text = super().observe(task, verdict, level)
        return text + (f"\n(expected {task.hidden['target']})\n" if level == EvidenceLevel.L3 else "")


class OutOfRange(ToySuite):
    def verify(self, task, workdir, run=None):
        v = super().verify(task, workdir, run)
        return Verdict(v.checks, v.score * 100, v.reward, v.invalid)


class TrustingReader(ToySuite):
    """Reads answer.txt with open(): a FIFO hangs it, garbage raises, a link is followed."""

    def verify(self, task, workdir, run=None):
        answer = int((Path(workdir) / ANSWER_FILE).read_text())
        ok = answer == task.hidden["target"]
        return Verdict((Check("answer", ok),), 1.0 if ok else 0.0, 1.0 if ok else 0.0)


class LosesTheTask(ToySuite):
    def load_task(self, path):
        task = super().load_task(path)
        return type(task).from_dict({**task.to_dict(), "hidden": {"target": 0}})


class NoScale(ToySuite):
    scale = None


class CrashEarnsMore(ToySuite):
    scale = ScoreScale(0.0, 1.0, 0.0, 1.0, "x")

    @property
    def crash_reward(self):
        return 0.5


@pytest.mark.parametrize("mutant, check", [
    (DoingNothingSolves, "untouched"),
    (WrongOracle, "oracle"),
    (ProcessDependent, "deterministic across processes"),
    (Flaky, "deterministic"),
    (LeakyReport, "hidden values"),
    (OutOfRange, "score range"),
    (TrustingReader, "hostile garbage"),
    (LosesTheTask, "save/load"),
    (NoScale, "declarations"),
    (CrashEarnsMore, "declarations"),
])
def test_each_broken_contract_is_a_finding(mutant, check):
    found = findings(mutant(), sample=1)
    assert check in found, found


def test_the_toy_reader_refuses_what_a_program_may_leave(tmp_path):
    (tmp_path / ANSWER_FILE).symlink_to("/etc/hostname")
    with pytest.raises(ValueError, match="cannot read"):
        read_answer(tmp_path)
    (tmp_path / ANSWER_FILE).unlink()
    os.mkfifo(tmp_path / ANSWER_FILE)
    with pytest.raises(ValueError, match="cannot read"):
        read_answer(tmp_path)


def test_a_sample_is_seeded_and_keeps_the_canonical_order():
    tasks = ToySuite().load_tasks()
    a, b = sample_tasks(tasks, 2, seed=3), sample_tasks(tasks, 2, seed=3)
    assert a == b and len(a) == 2 and [tasks.index(t) for t in a] == sorted(tasks.index(t) for t in a)
    assert sample_tasks(tasks, None) == tasks and sample_tasks(tasks, 99) == tasks


# ----- every real suite -----------------------------------------------------------------------------

#: The default run: a quick task where the oracle is quick, the untouched-workspace checks (and hostile
#: programs) where a reference run takes minutes (audit's graded re-runs, workshop's robot builds).
#: gait's timeout is short: a hostile fix script that leaves a FIFO for rig.json blocks the fix runner
#: in the sandbox until the timeout kills it (the suite's own timeout is 60 s).
QUICK = {"toy": dict(), "gait": dict(sample=1, timeout_s=10.0), "pace": dict(tasks=("statics_bridge.stage1",)),
         "audit": dict(sample=1, oracle=False), "workshop": dict(sample=1, oracle=False)}
#: The slow run: a seeded sample of every suite with the oracle.
SLOW = {"gait": dict(sample=5, timeout_s=20.0), "pace": dict(sample=12), "audit": dict(sample=4),
        "workshop": dict(tasks=("place-0",))}


def _suite_and_root(name, request, bench_fixture):
    if name == "toy":
        return ToySuite(), None
    if name == "gait":
        return get_suite("gait"), request.getfixturevalue(bench_fixture)
    suite = get_suite(name)
    return suite, suite.default_root(0)


@pytest.mark.parametrize("name", sorted(QUICK))
def test_every_suite_passes_the_checker_on_a_quick_sample(name, request):
    suite, root = _suite_and_root(name, request, "small_bench")
    report = check_suite(suite, root, **QUICK[name])
    assert report.ok, report.text()
    assert report.tasks and report.checks >= 10 * len(report.tasks)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SLOW))
def test_every_suite_passes_the_checker_on_a_larger_sample_with_its_oracle(name, request):
    suite, root = _suite_and_root(name, request, "gait_bench")
    report = check_suite(suite, root, **SLOW[name])
    assert report.ok, report.text()
    wanted = SLOW[name].get("tasks") or suite.load_tasks(root)[:SLOW[name].get("sample")]
    assert len(report.tasks) == len(wanted)


def test_simreflect_check_reports_and_exits_by_the_findings():
    from typer.testing import CliRunner

    from simreflect.cli import app
    from simreflect.testing.toy import toy_suite_registered

    with toy_suite_registered():
        r = CliRunner().invoke(app, ["check", "toy", "--sample", "2", "--no-cross-process"])
        assert r.exit_code == 0, r.output
        assert "toy: 2 task(s)" in r.output and "all passed" in r.output
        r = CliRunner().invoke(app, ["check", "toy", "--suite-option", "colour"])
        assert r.exit_code == 2 and "KEY=VALUE" in r.output
    r = CliRunner().invoke(app, ["check", "toy"])
    assert r.exit_code == 2 and "unknown suite" in r.output  # registered for the block only


class ReportRaises(ToySuite):
    def observe(self, task, verdict, level):
        raise RuntimeError("the renderer broke")


def test_a_report_that_does_not_render_is_a_finding():
    assert "renders" in findings(ReportRaises(), sample=1, cross_process=False, hostile=False)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.binary(max_size=80), st.binary(max_size=3), st.binary(max_size=3), st.booleans())
def test_any_bytes_the_program_leaves_get_a_verdict_and_only_the_number_passes(tmp_path_factory, noise, pre, post,
                                                                               around_the_number):
    suite = ToySuite()
    task = suite.load_tasks()[0]
    target = str(task.hidden["target"]).encode()
    raw = pre + target + post if around_the_number else noise  # near misses: the number with bytes around it
    work = tmp_path_factory.mktemp("w")
    (work / ANSWER_FILE).write_bytes(raw)
    verdict = suite.verify(task, work)  # never raises
    assert suite.scale.score_in_range(verdict.score) and suite.scale.reward_in_range(verdict.reward)
    text = raw.strip(b" \t\r\n")
    assert verdict.passed == bool(re.fullmatch(rb"-?[0-9]{1,20}", text) and int(text) == int(target))  # 0580608 too


def test_the_hidden_value_scan_catches_pace_disclosing_and_not_round_numbers_said_for_other_reasons():
    from simreflect.core.contract import HiddenValue

    pace = get_suite("pace")
    task = next(t for t in pace.load_tasks() if t.id == "statics_bridge.stage3")  # gravity 11.5, wind -400
    hidden = pace.hidden_values(task)
    disclosed = pace.with_options(disclose="true").instruction(task)  # "- gravity: 11.5 m/s^2 (originally ...)"
    assert {h.shown_in(disclosed) for h in hidden} >= {"11.5", "-400"}
    assert all(h.shown_in(pace.instruction(task)) is None for h in hidden)
    # a joint force of 11.5 kN in a report is not gravity; without a name to look for, it would be
    assert HiddenValue(("11.5",), near=("gravity",)).shown_in("j5 rigid p5-p6: force 19% = 11.5 kN") is None
    assert HiddenValue(("11.5",)).shown_in("j5 rigid p5-p6: force 19% = 11.5 kN") == "11.5"
    assert HiddenValue(("11.5",)).shown_in("a force of 111.53 kN") is None  # only a whole number counts
