"""run_program hands verify its artefact (core.program.ProgramRun), explicitly: no suite keeps a
hidden cache between the two, so verify on the same arguments gives the same verdict in this
process, in a fresh suite object and in another process; without a run, verify reads the work
directory alone (offline grading)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from simreflect.core.program import ProgramResult, ProgramRun
from simreflect.core.registry import get_suite
from simreflect.suites.audit.suite import AuditSuite, checked_run_record, tasks_dir
from simreflect.suites.pace.evaluate import PROGRAM_FILE
from simreflect.suites.pace.suite import PaceSuite

OFFLINE_VERIFY = """
import json, sys
from pathlib import Path
from simreflect.core.registry import get_suite
suite = get_suite(sys.argv[1])
task = next(t for t in suite.load_tasks(*sys.argv[4:]) if t.id == sys.argv[2])
print(json.dumps(suite.verify(task, Path(sys.argv[3])).to_dict(), default=str))
"""


def verdict_in_another_process(suite: str, task_id: str, work: Path, *root: str) -> dict:
    res = subprocess.run([sys.executable, "-c", OFFLINE_VERIFY, suite, task_id, str(work), *root],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(res.stdout.splitlines()[-1])


def as_json(verdict) -> dict:
    return json.loads(json.dumps(verdict.to_dict(), default=str))


def test_pace_verify_reads_the_evaluation_it_is_handed_and_keeps_none(tmp_path):
    suite = get_suite("pace")
    task = next(t for t in suite.load_tasks() if t.id == "kinematics_rover.stage2")
    work = tmp_path / "w"
    suite.prepare_workspace(task, work)
    source = (work / PROGRAM_FILE).read_text()
    run = suite.run_program(task, suite.oracle(task), work, timeout_s=60)
    assert run.ok and run.artefact is not None
    handed = suite.verify(task, work, run)
    assert handed.passed
    assert set(vars(suite)) == {"start", "disclose", "video_feedback"}  # no cache of evaluations on the suite
    # without the run, the workspace's program.py is evaluated afresh: the same verdict, here and elsewhere
    assert as_json(PaceSuite().verify(task, work)) == as_json(handed)
    assert verdict_in_another_process("pace", task.id, work) == as_json(handed)
    # verify grades the evaluation it is handed, not one remembered for the program text
    other = tmp_path / "source"
    suite.prepare_workspace(task, other)
    source_run = suite.run_program(task, source, other, timeout_s=60)
    assert not suite.verify(task, work, source_run).passed
    assert suite.verify(task, work, run).passed


def test_audit_verify_grades_the_run_record_it_is_handed(tmp_path):
    suite = AuditSuite()
    task = suite.load_tasks(tasks_dir() / "ols-risk")[0]
    work = tmp_path / "w"
    suite.prepare_workspace(task, work)
    run = suite.run_program(task, "print('starting')\nraise SystemExit(3)\n", work, 30)
    assert not run.ok and run.artefact["status"] == "error" and run.artefact["exit_code"] == 3
    handed = suite.verify(task, work, run)
    assert handed.score == 0.0 and handed.diagnostics["exit_code"] == 3
    offline = AuditSuite().verify(task, work)
    assert as_json(offline) == as_json(handed)
    assert verdict_in_another_process("audit", task.id, work, str(tasks_dir() / "ols-risk")) == as_json(handed)
    # a handed record that is no record grades as a script that never ran, never raises
    for artefact in (None, "text", [1], {"status": 3}, {"timeout_s": float("nan")}):
        verdict = suite.verify(task, work, ProgramRun(ProgramResult("ok", 0, "", 0.0), artefact))
        assert verdict.score == 0.0 and not verdict.passed


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                           lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=12), kids, max_size=6),
                           max_leaves=20)
record_keys = st.sampled_from(["script", "timeout_s", "status", "exit_code", "output_tail", "reason", "seconds"])


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.one_of(json_values, st.dictionaries(record_keys, json_values, max_size=7)))
def test_checked_run_record_never_raises(value):
    record = checked_run_record(value)
    assert record is None or (isinstance(record, dict) and record is value)


def test_a_pace_program_that_rewrites_its_program_file_is_judged_as_itself(tmp_path):
    """A program that writes the reference design into program.py while it runs: the evaluation
    handed to verify is its own, and the file a later offline verify reads is put back to it."""
    suite = get_suite("pace")
    task = next(t for t in suite.load_tasks() if t.id == "kinematics_rover.stage2")
    work = tmp_path / "w"
    suite.prepare_workspace(task, work)
    source = (work / PROGRAM_FILE).read_text()
    program = source + f"\nimport pathlib\npathlib.Path({PROGRAM_FILE!r}).write_text({suite.oracle(task)!r})\n"
    run = suite.run_program(task, program, work, timeout_s=60)
    assert run.ok, run.result.output_tail
    handed = suite.verify(task, work, run)
    assert not handed.passed
    assert (work / PROGRAM_FILE).read_text() == program
    assert as_json(PaceSuite().verify(task, work)) == as_json(handed)
