"""One round of the repair loop, the same for the episode loop (run/episode.py) and the Gymnasium
environment (core/env.py): the system prompt an agent reads, the feedback of a round, and
`play_round` (copy the workspace the round starts from, play one attempt, say what it came to).

A round builds on the workspace as the last accepted round left it; a program that fails, or
leaves an artefact the verifier cannot accept, changes nothing.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from simreflect.core.attempt import AttemptOutcome, HarnessFailure, attempt
from simreflect.core.evidence import EvidenceLevel
from simreflect.core.records import RoundRecord
from simreflect.core.suite import Suite
from simreflect.core.task import Task
from simreflect.core.verdict import Verdict
from simreflect.core.workspace import UnsafeWorkspace, copy_workspace

ANSWER_FORMAT = """\
## Answer format
Answer with one JSON object: {"diagnosis": "<what is wrong and what your script changes>",
"script": "<the complete Python script>"}. If you cannot produce JSON, put the script in a single
```python fenced block.
"""

def system_prompt(suite: Suite, task: Task, level: EvidenceLevel) -> str:
    return "\n".join([suite.instruction(task), suite.interface_notes(level), ANSWER_FORMAT])


def round_feedback(round_no: int, budget: int, record: RoundRecord | None, report: str) -> str:
    """The user message of a round: what happened to the last program (`record`, the last
    round's), then the current report."""
    parts = [] if record is None else [record.outcome]
    parts.append(f"Round {round_no} of {budget}.")
    parts.append(report)
    return "\n\n".join(parts)


@dataclass(frozen=True)
class PlayedRound:
    """What one round came to: its record (what the attempt came to; the loop adds the agent's
    side: identity, chat, answer, usage), the attempt's outcome (None when there was no program to
    run), and the workspace, verdict and report the next round starts from (the round's own when
    accepted, else those it started from)."""

    record: RoundRecord
    outcome: AttemptOutcome | None
    state: Path
    verdict: Verdict
    report: str


def play_round(suite: Suite, task: Task, work: Path, state: Path, before: Verdict, report: str,
               program: str | None, round_no: int, timeout_s: float, level: EvidenceLevel,
               error: str = "") -> PlayedRound:
    """Play `program` on a copy of `state` made in `work` (`report`: the one this round shows;
    `error`: why an answer gave no program). Never raises for what the program or its artefact
    does (core.attempt)."""
    start = RoundRecord(round=round_no, script=program, error=error or "", errors_before=tuple(before.errors),
                        score_before=before.score, report=report)
    if program is None:
        record = replace(start, error=error or "no program in the answer", errors_after=tuple(before.errors),
                         verdict=before.to_dict())
        return PlayedRound(record, None, state, before, report)
    shutil.rmtree(work, ignore_errors=True)  # a round cut short by a kill starts over
    try:
        copy_workspace(state, work)
        outcome = attempt(suite, task, program, work, timeout_s, level)
    except UnsafeWorkspace as e:  # the accepted workspace changed since (a lingering process, degraded mode)
        outcome = AttemptOutcome(None, harness=HarnessFailure.of("copy", e))
    record = replace(start, **_outcome_fields(outcome, before))
    if not outcome.accepted:
        return PlayedRound(record, outcome, state, before, report)
    return PlayedRound(record, outcome, work, outcome.verdict, outcome.report)


def failed_round(task: Task, state: Path, before: Verdict, report: str, program: str | None, round_no: int,
                 failure: HarnessFailure) -> PlayedRound:
    """The round of `program` when the trusted side failed on it before an outcome came back (a
    worker process of a batch that died on it): recorded as that step's harness failure, the
    workspace, verdict and report unchanged."""
    start = RoundRecord(round=round_no, script=program, errors_before=tuple(before.errors),
                        score_before=before.score, report=report)
    outcome = AttemptOutcome(None, harness=failure)
    return PlayedRound(replace(start, **_outcome_fields(outcome, before)), outcome, state, before, report)


def _outcome_fields(outcome: AttemptOutcome, before: Verdict) -> dict[str, Any]:
    """The fields of a round record that say what its attempt came to (`before`: the verdict it
    started from, which stands when the attempt changed nothing)."""
    out: dict[str, Any] = {"program": None if outcome.program is None else outcome.program.to_dict()}
    if outcome.harness is not None:
        out["harness_error"] = outcome.harness.to_dict()
    if outcome.verdict is None:  # the program did not run to success, or could not be run
        if outcome.program is None:
            out["error"] = outcome.harness.describe()
        out.update(errors_after=tuple(before.errors), passed=False, verdict=before.to_dict())
        return out
    out["verify_seconds"] = outcome.verify_seconds
    verdict = outcome.verdict
    if not outcome.accepted:
        out.update(rejected=True, errors_after=tuple(verdict.errors), passed=False, verdict=verdict.to_dict())
        return out
    out.update(accepted=True, errors_after=tuple(verdict.errors), passed=verdict.passed, verdict=verdict.to_dict(),
               score=verdict.score)
    return out
