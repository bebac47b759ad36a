"""The episode loop, the same for every suite.

observation (instruction + interface notes + verifier report at an evidence level) -> agent ->
program -> run in its own process -> verify -> record -> next round or stop.

Rounds build on each other: each round's program runs on a copy of the workspace as the last
accepted round left it; a program that fails, or leaves an artefact the verifier cannot accept,
changes nothing. A work directory is copied as data (`copy_workspace`: no links, no FIFOs, bounded)
and one holding what the copy refuses is a rejected artefact. Whatever the suite raises while
handling a round's program or artefact is that round's recorded failure (`harness_error`), never
the run's end. Every round is written to the store before the next one starts, so a killed run
resumes exactly where it stopped (a round in flight when the run died is done again).
"""

from __future__ import annotations

import hashlib
import shutil
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from simreflect.agents.base import Action, Agent, InfrastructureError, Observation
from simreflect.core.attempt import AttemptOutcome, TrustedSideFailure, attempt, guarded
from simreflect.core.evidence import EvidenceLevel
from simreflect.core.records import EndRecord, InfraErrorRecord, RoundRecord
from simreflect.core.contract import HISTORY_MODES
from simreflect.core.rounds import play_round, system_prompt
from simreflect.core.suite import Suite
from simreflect.core.task import Task
from simreflect.core.sandbox import UnsafeWorkspaceFile, read_workspace_file
from simreflect.core.workspace import copy_workspace
from simreflect.run.history import round_chat
from simreflect.run.store import EpisodeLog, RunStore

@dataclass(frozen=True)
class EpisodeOutcome:
    task: str
    level: str
    status: str  # "finished" or "infra_error"
    solved: bool
    rounds: int
    run: int = 0
    error: str | None = None  # the infrastructure error that ended it (status "infra_error")


def _workspace_for(run_dir: Path, task: Task, level: str, run: int = 0) -> Path:
    return run_dir / "work" / (f"{task.id}-{level}" + (f"-run{run}" if run else ""))


def _pristine(suite: Suite, task: Task, base: Path) -> Path:
    pristine = base / "round0"
    if not pristine.is_dir():
        tmp = base / "round0.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        suite.prepare_workspace(task, tmp)
        tmp.rename(pristine)
    return pristine


def _state_dir(suite: Suite, task: Task, base: Path, log: EpisodeLog, timeout_s: float) -> Path:
    """The workspace as the last accepted round left it (the pristine one when none was accepted).

    Should that workspace be gone (the run directory moved, work/ cleaned), it is rebuilt by
    replaying the accepted rounds' programs in order: programs and verifier are deterministic.
    """
    accepted = [r for r in log.rounds if r.accepted]
    state = _pristine(suite, task, base)
    if not accepted:
        return state
    last = base / f"round{accepted[-1].round}"
    if last.is_dir():
        return last
    for rec in accepted:
        work = base / f"round{rec.round}"
        shutil.rmtree(work, ignore_errors=True)
        copy_workspace(state, work)
        outcome = attempt(suite, task, rec.script, work, timeout_s)
        if not outcome.accepted:
            raise RuntimeError(f"replaying round {rec.round} of {task.id} to rebuild its workspace failed: "
                               f"{_why_not_accepted(outcome)}")
        state = work
    return state


def run_episode(
    suite: Suite,
    agent: Agent,
    task: Task,
    level: EvidenceLevel,
    budget: int,
    store: RunStore,
    log: EpisodeLog,
    timeout_s: float = 60.0,
    *,
    run: int = 0,
    history: str = "full",
    invalid_streak: int = 0,
    invalid_retries: int = 0,
) -> EpisodeOutcome:
    """Play (or resume) one episode.

    `history` is what the agent is shown of earlier rounds (run/history.py): "full" (every round),
    "last+best" (the latest round and the highest-scoring one as chat pairs) or "previous+best"
    (PACE's Previous-One + Best revision prompt). With `invalid_streak` > 0, that many invalid generations in a row (no program, or
    a program that could not run) end the episode. With `invalid_retries` > 0 (PACE's generation
    retries), an answer with no program is asked again that many times at no cost to the budget, and
    a round whose every generation held none ends the episode.
    """
    if history not in HISTORY_MODES:
        raise ValueError(f"history must be one of {HISTORY_MODES}, not {history!r}")
    level_name = f"L{int(level)}"
    ids = {"task": task.id, "level": level_name, **({"run": run} if run else {})}
    base = _workspace_for(store.dir, task, level_name, run)
    base.mkdir(parents=True, exist_ok=True)
    system = system_prompt(suite, task, level)
    state = _state_dir(suite, task, base, log, timeout_s)
    verdict = suite.verify(task, state)
    if verdict.passed and log.rounds:
        return _finish(store, ids, log, "solved", base)
    if _invalid_tail(log.rounds) >= invalid_streak > 0:
        return _finish(store, ids, log, "invalid_streak", base)
    report = suite.observe(task, verdict, level)

    # after the last round recorded (a round whose record was damaged and skipped still cost its place)
    for round_no in range((log.rounds[-1].round if log.rounds else 0) + 1, budget + 1):
        messages = round_chat(system, log.rounds, history, round_no, budget, report)
        frames = _feedback_frames(suite, task, state, log.rounds, timeout_s)
        obs = Observation(task=task, level=level, round=round_no, budget=budget, messages=messages, verdict=verdict,
                          history=tuple(log.rounds), run=run, report=report, images=frames)
        t0 = time.monotonic()
        try:
            action, failure, retried = _generate(agent, obs, invalid_retries)
        except InfrastructureError as e:
            store.append(InfraErrorRecord(task.id, level_name, round_no, str(e), round(time.monotonic() - t0, 3),
                                          run).to_dict())
            return EpisodeOutcome(task.id, level_name, "infra_error", False, len(log.rounds), run, str(e))
        act_s = time.monotonic() - t0
        try:
            played = play_round(suite, task, base / f"round{round_no}", state, verdict, report, action.program,
                                round_no, timeout_s, level, error=action.error)
        except TrustedSideFailure as e:  # not the answer's doing: recorded apart, the round is played again on resume
            error = f"the verifier failed: {e}"[:2000]
            store.append(InfraErrorRecord(task.id, level_name, round_no, error, round(time.monotonic() - t0, 3),
                                          run).to_dict())
            return EpisodeOutcome(task.id, level_name, "infra_error", False, len(log.rounds), run, error)
        sent = tuple(action.messages) if action.messages is not None else messages
        notes = action.notes if not retried else {**action.notes, "invalid_retries": [r["note"] for r in retried]}
        if frames:
            notes = {**notes, "video_frames": [hashlib.sha256(f).hexdigest() for f in frames]}
        usage = sum((r["usage"] for r in retried), action.usage)
        record = replace(played.record, task=task.id, level=level_name, run=run, prompt=sent, answer=action.raw,
                         diagnosis=action.diagnosis, usage=usage.to_dict(), method_notes=notes,
                         agent_seconds=round(act_s, 3),
                         harness_error=failure.to_dict() if failure is not None else played.record.harness_error)
        state, verdict, report = played.state, played.verdict, played.report
        store.append(record.to_dict())
        log.rounds.append(record)
        if verdict.passed:
            break
        if _invalid_tail(log.rounds) >= invalid_streak > 0 or (action.program is None and invalid_retries > 0):
            return _finish(store, ids, log, "invalid_streak", base)
    return _finish(store, ids, log, "solved" if verdict.passed else "budget", base)


def _feedback_frames(suite: Suite, task: Task, state: Path, rounds: list[RoundRecord],
                     timeout_s: float) -> tuple[bytes, ...]:
    """The video-feedback intervention (a suite whose `video_feedback` is on): frames of the latest
    attempt's program, or in round 1 of the design the task gives; () when there is none or the
    suite cannot draw it (a picture failing never fails the round). Recomputed from the records on
    resume: rendering is deterministic."""
    if not getattr(suite, "video_feedback", False) or not callable(getattr(suite, "feedback_frames", None)):
        return ()
    program = next((r.script for r in reversed(rounds) if r.script is not None), None)
    if program is None and not rounds and suite.program_filename:
        try:
            program = read_workspace_file(state, suite.program_filename).decode("utf-8", "replace")
        except (UnsafeWorkspaceFile, OSError):
            program = None
    if program is None:
        return ()
    frames, failure = guarded("feedback frames", suite.feedback_frames, task, program, timeout_s)
    return tuple(frames) if failure is None and frames else ()


#: What a round's record keeps of an answer that was asked again (method_notes["invalid_retries"]).
RETRY_ANSWER_CHARS = 2000


def _generate(agent: Agent, obs: Observation, invalid_retries: int) -> tuple[Action, Any, list[dict[str, Any]]]:
    """The agent's answer to `obs`; one with no program is asked again up to `invalid_retries` times
    (Observation.generation counts them: PACE's generation retries, at no cost to the budget).
    (action, the failure that made it, the retried answers: {"note", "usage"})."""
    retried: list[dict[str, Any]] = []
    while True:
        # reading a hostile answer must not end the run; an endpoint that is down is not the answer's doing
        action, failure = guarded("agent", agent.act, obs, let_through=(InfrastructureError,))
        if failure is not None:
            action = Action(program=None, error=failure.describe())
        if action.program is not None or len(retried) >= invalid_retries:
            return action, failure, retried
        retried.append({"note": {"generation": obs.generation, "error": action.error,
                                 "answer": action.raw[:RETRY_ANSWER_CHARS]}, "usage": action.usage})
        obs = replace(obs, generation=obs.generation + 1)


def _invalid_tail(rounds: list[RoundRecord]) -> int:
    """How many of the latest rounds in a row were invalid generations."""
    n = 0
    for r in reversed(rounds):
        if r.ran:
            break
        n += 1
    return n


def _why_not_accepted(outcome: AttemptOutcome) -> str:
    if outcome.harness is not None:
        return f"{outcome.harness.describe()}: {outcome.harness.message}"
    if outcome.verdict is not None:
        return outcome.verdict.invalid
    return f"{outcome.program.status}: {outcome.program.reason}"


def _finish(store: RunStore, ids: dict[str, Any], log: EpisodeLog, reason: str, base: Path) -> EpisodeOutcome:
    solved = reason == "solved"
    store.append(EndRecord(ids["task"], ids["level"], solved, reason, len(log.rounds), ids.get("run", 0)).to_dict())
    shutil.rmtree(base, ignore_errors=True)
    return EpisodeOutcome(ids["task"], ids["level"], "finished", solved, len(log.rounds), ids.get("run", 0))
