"""Fix scripts that go wrong: each gets a clear reason and a failing verdict, never a crash of ours."""

from __future__ import annotations

import pytest

from simreflect.core.verdict import Verdict
from simreflect.suites.gait.suite import GaitSuite


@pytest.fixture(scope="module")
def task(gait_bench):
    return GaitSuite().load_tasks(gait_bench)[0]


def attempt(task, tmp_path, program: str, timeout: float = 30.0):
    suite = GaitSuite()
    work = tmp_path / "work"
    suite.prepare_workspace(task, work)
    result = suite.run_program(task, program, work, timeout_s=timeout).result
    verdict = suite.verify(task, work) if result.ok else Verdict.invalid_artefact(result.reason)
    return result, verdict


def test_syntax_error(task, tmp_path):
    result, verdict = attempt(task, tmp_path, "rig.fcurve('torso', 'location'[:, 0] = 0\n")
    assert result.status == "error" and "SyntaxError" in result.output_tail
    assert not verdict.passed


def test_crash(task, tmp_path):
    result, _ = attempt(task, tmp_path, "rig.fcurve('tail', 'location')\n")
    assert result.status == "error" and "no bone named 'tail'" in result.output_tail


def test_timeout_kills_the_script(task, tmp_path):
    result, verdict = attempt(task, tmp_path, "import time\nwhile True: time.sleep(0.1)\n", timeout=1.0)
    assert result.status == "timeout" and "killed after" in result.reason
    assert not verdict.passed


def test_non_finite_values_are_rejected(task, tmp_path):
    result, verdict = attempt(task, tmp_path, "rig.fcurve('torso', 'location')[3, 0] = float('nan')\n")
    assert result.ok
    assert verdict.invalid and "NaN" in verdict.invalid and not verdict.passed


@pytest.mark.parametrize(
    "program, reason",
    [
        ("rig.faces = rig.faces[:10]\n", "faces changed"),
        ("rig.rest_vertices = rig.rest_vertices * 0.5\n", "rest mesh changed"),
        ("rig.bones = rig.bones[:5]\n", "has no bone"),
        ("rig.rest_vertices = rig.rest_vertices[:100]\n", "vertices that do not exist"),
    ],
)
def test_changing_the_structure_is_rejected(task, tmp_path, program, reason):
    result, verdict = attempt(task, tmp_path, program)
    assert result.ok
    assert not verdict.passed and reason in verdict.invalid


def test_doing_nothing_fails(task, tmp_path):
    result, verdict = attempt(task, tmp_path, "pass\n")
    assert result.ok and not verdict.passed and verdict.errors
