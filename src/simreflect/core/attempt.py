"""One attempt of a program, as the trusted side plays it: run, check what it left, verify, report.

Every step handles untrusted input: the model's program (`suite.run_program`), the artefact it
left (`copy_workspace`'s check, then `suite.verify`) and the verdict of that artefact
(`suite.observe`). Whatever one of them raises on that input is the attempt's failure, a
`HarnessFailure` naming the step and the exception, never an exception of the caller's: the
repair loop, rescore and an exported task's verifier record it and go on. A sandbox that cannot
run strictly is not the input's doing and propagates.

A work directory holding a link, a FIFO, a device, a hard link out of the tree, or more than
the bounds allow is refused before the verifier reads it: the verdict is the suite's invalid
verdict naming what was refused ("invalid artefact: symlink workdir/x -> /etc/passwd").
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, TypeVar

from simreflect.core.evidence import EvidenceLevel
from simreflect.core.program import ProgramResult, ProgramRun
from simreflect.core.sandbox import SandboxUnavailable
from simreflect.core.suite import Suite
from simreflect.core.task import Task
from simreflect.core.verdict import Verdict
from simreflect.core.workspace import copy_workspace

#: Characters of an exception's message kept in a record (messages may quote the input at length).
MAX_MESSAGE_CHARS = 500


class TrustedSideFailure(RuntimeError):
    """The trusted side could not judge an attempt for a reason that is not the input's (a suite's
    own reference run that failed on a loaded machine, say): like an endpoint that is down, never
    scored against the agent; the loop records it apart and the round is played again on resume."""


#: Exceptions that say the machine, not the input, failed.
NOT_THE_INPUT = (SandboxUnavailable, TrustedSideFailure)
T = TypeVar("T")


@dataclass(frozen=True)
class HarnessFailure:
    """An exception the trusted side raised while handling one attempt's untrusted input.

    `stage` is the step: agent (reading the model's answer, in the loop), copy (of the workspace a
    round starts from), run_program, check (the work directory a program left), verify or
    observe. The message is kept for the record; what
    a model is shown (`describe`) names only the step and the type, since a message from inside
    a verifier may quote what it must keep hidden."""

    stage: str
    type: str
    message: str

    @classmethod
    def of(cls, stage: str, error: BaseException) -> HarnessFailure:
        try:
            message = str(error)
        except Exception:  # noqa: BLE001 - an exception whose text cannot be made
            message = "(no message)"
        if len(message) > MAX_MESSAGE_CHARS:
            message = message[:MAX_MESSAGE_CHARS] + f"... ({len(message)} characters)"
        return cls(stage, type(error).__name__, message)

    def describe(self) -> str:
        return f"the harness failed on this input ({self.stage} raised {self.type})"

    def to_dict(self) -> dict[str, str]:
        return {"stage": self.stage, "type": self.type, "message": self.message}


@dataclass(frozen=True)
class AttemptOutcome:
    """What one attempt came to. `verdict` is None when the program did not run to success (the
    caller keeps its last accepted verdict); `report` is the verdict as the agent reads it, when a
    level was given and the verdict was accepted; `verify_seconds` the time the attempt took
    besides the program's own."""

    program: ProgramResult | None
    verdict: Verdict | None = None
    report: str | None = None
    harness: HarnessFailure | None = None
    verify_seconds: float = 0.0

    @property
    def accepted(self) -> bool:
        return self.verdict is not None and not self.verdict.invalid


def guarded(stage: str, step: Callable[..., T], *args: Any,
            let_through: tuple[type[BaseException], ...] = ()) -> tuple[T | None, HarnessFailure | None]:
    """`step(*args)`, or the HarnessFailure of what it raised (`let_through`: exceptions the caller
    handles itself, such as an agent's InfrastructureError)."""
    try:
        return step(*args), None
    except NOT_THE_INPUT + let_through:
        raise
    except Exception as e:  # noqa: BLE001 - the backstop: any exception the input provokes is a result
        return None, HarnessFailure.of(stage, e)


def check_and_verify(suite: Suite, task: Task, work: Path,
                     run: ProgramRun | None = None) -> tuple[Verdict, HarnessFailure | None]:
    """The verdict of what a program left in `work` (and `run`, what run_program returned for it):
    refused when the work directory holds what `copy_workspace` will not copy, or when the check or
    the verifier raised."""
    scan, failure = guarded("check", copy_workspace, work)
    if failure is None and not scan.ok:
        return suite.refuse(scan.refusal()), None
    if failure is None:
        verdict, failure = guarded("verify", suite.verify, task, work, run)
        if failure is None:
            return verdict, None
    return suite.refuse(failure.describe()), failure


def attempt(suite: Suite, task: Task, program: str, work: Path, timeout_s: float,
            level: EvidenceLevel | None = None) -> AttemptOutcome:
    """Run `program` on the prepared work directory `work`, check what it left, verify it and
    (with `level`) render the accepted verdict's report. Never raises for what the input does."""
    t0 = time.monotonic()
    run, failure = guarded("run_program", suite.run_program, task, program, work, timeout_s)
    if failure is not None:
        return AttemptOutcome(None, harness=failure)
    result = run.result
    if not result.ok:
        return AttemptOutcome(result)
    verdict, failure = check_and_verify(suite, task, work, run)
    seconds = round(time.monotonic() - t0 - result.seconds, 4)
    report = None
    if level is not None and failure is None and not verdict.invalid:
        report, failure = guarded("observe", suite.observe, task, verdict, level)
        if failure is not None:
            verdict = suite.refuse(failure.describe())
    return AttemptOutcome(result, verdict, report, failure, seconds)
