"""A group of programs played from one state, in parallel: the GRPO group as the trusted side plays it.

Every program of a group is played as the same round of the same episode (core.rounds.play_round,
the loop's and the environment's own round), each on its own copy of the state's workspace, so
each result is exactly what `RepairEnv.step(program)` would have returned from that state. The
programs run in worker processes (each drives its own sandboxes: the program's process and, for
pace, the simulation in the worker), at most `workers` at a time; the results come back in the
order of the programs. A program that crashes, loops or floods its output fails in its own sandbox
and its own round, never the others' (core.attempt: whatever the input provokes is a result). The
verdicts are deterministic, so a group gives the same rewards and reports whatever the worker
count.

Why not gymnasium.vector: a vector environment steps N independent environments, each with its
own state and its own reset; a GRPO group is N actions from one shared state, with no episode
advanced. `BatchEvaluator.play` is that operation; `RepairEnv.evaluate_batch` applies it to the
environment's current state.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from simreflect.core.evidence import EvidenceLevel
from simreflect.core.lifetime import worker_pool
from simreflect.core.records import RoundRecord
from simreflect.core.returns import ReturnRule
from simreflect.core.attempt import HarnessFailure
from simreflect.core.rounds import PlayedRound, failed_round, play_round, round_feedback
from simreflect.core.suite import Suite
from simreflect.core.task import Task
from simreflect.core.verdict import Verdict

#: The largest group one call plays (a GRPO group is typically 4-64 programs).
MAX_GROUP = 512
#: The most worker processes one evaluator starts.
MAX_WORKERS = 64


@dataclass(frozen=True)
class RoundState:
    """The state a group's programs all start from: the accepted workspace, its verdict and the report
    shown, the round they are played as and the episode's budget."""

    suite: Suite
    task: Task
    workspace: Path
    verdict: Verdict
    report: str
    round_no: int
    budget: int
    timeout_s: float
    level: EvidenceLevel
    returns: ReturnRule
    prior_rewards: tuple[float, ...] = ()  # the episode's earlier attempts' own rewards


@dataclass(frozen=True)
class GroupMember:
    """What one program of a group came to: its round's record (core.records.RoundRecord, as
    `RepairEnv.records[-1]` would hold it), its own reward (`attempt_reward`: the verdict's reward,
    or the suite's crash reward when the program did not run to the end), the reward `step` would
    return for it (`reward`: the change of the episode return), whether the artefact passed, and
    the observation the environment would return after it (the next round's message)."""

    index: int
    record: RoundRecord
    attempt_reward: float
    reward: float
    passed: bool
    observation: str

    @property
    def harness_error(self) -> dict[str, str] | None:
        return self.record.harness_error


def default_workers() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def check_group(programs: Sequence[str | None], workers: int | None) -> tuple[list[str | None], int]:
    """The group as a list, and the worker count to use (never more than the group); ValueError for a
    group that is empty, too large or not text, or a worker count out of bounds."""
    if isinstance(programs, (str, bytes)):
        raise ValueError("programs must be a sequence of program texts, not one text")
    group = list(programs)
    if not group:
        raise ValueError("a group needs at least one program")
    if len(group) > MAX_GROUP:
        raise ValueError(f"a group of {len(group)} programs is more than MAX_GROUP = {MAX_GROUP}")
    for i, p in enumerate(group):
        if p is not None and not isinstance(p, str):
            raise ValueError(f"program {i} is a {type(p).__name__}, not text (or None: an answer with no program)")
    return group, min(check_workers(workers), len(group))


def check_workers(workers: int | None) -> int:
    """The worker count (None: default_workers, at most MAX_WORKERS); ValueError when out of bounds."""
    if workers is None:
        return min(default_workers(), MAX_WORKERS)
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS:
        raise ValueError(f"workers must be an integer from 1 to {MAX_WORKERS}, not {workers!r}")
    return workers


def play_member(state: RoundState, index: int, program: str | None, scratch: Path) -> GroupMember:
    """Play one program of the group on its own copy of the state's workspace, made under `scratch`
    and removed after."""
    work = Path(scratch) / f"member{index}"
    try:
        return member_of(state, index, play_round(state.suite, state.task, work, state.workspace, state.verdict,
                                                  state.report, program, state.round_no, state.timeout_s,
                                                  state.level))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def member_of(state: RoundState, index: int, played: PlayedRound) -> GroupMember:
    """A played round as a member of the group: its rewards and the observation after it."""
    outcome = played.outcome
    reward = float(state.suite.crash_reward)
    if outcome is not None and outcome.verdict is not None:
        reward = float(outcome.verdict.reward)
    observation = round_feedback(state.round_no + 1, state.budget, played.record, played.report)
    prior = list(state.prior_rewards)
    step_reward = state.returns.of(prior + [reward]) - state.returns.of(prior)
    return GroupMember(index, played.record, reward, step_reward, bool(played.verdict.passed), observation)


def worker_died(state: RoundState, index: int, program: str | None, error: BaseException) -> GroupMember:
    """The member whose worker process died under it twice (once among the group, once alone): that
    program's harness failure (stage "worker"), the crash reward, the others untouched."""
    failure = HarnessFailure.of("worker", error)
    return member_of(state, index, failed_round(state.task, state.workspace, state.verdict, state.report, program,
                                                state.round_no, failure))


def _play_chunk(state: RoundState, members: list[tuple[int, str | None]], scratch: str) -> list[GroupMember]:
    return [play_member(state, i, p, Path(scratch)) for i, p in members]


class BatchEvaluator:
    """Plays groups of programs from a RoundState in up to `workers` processes (default: the cores
    this process may use). The pool is started on the first parallel group and kept for the next
    ones; close() (or a with block) stops it. With one worker, or a group of one, the programs are
    played in this process, one after the other. A worker that dies (killed from outside, say)
    breaks the pool: the members it left unanswered are played again, each in a worker of its own,
    and one whose worker dies again is that member's harness failure (stage "worker"), never the
    group's."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = check_workers(workers)
        self._pool: ProcessPoolExecutor | None = None
        self.replayed = 0  # members played again because a worker process died under the group

    def play(self, state: RoundState, programs: Sequence[str | None]) -> list[GroupMember]:
        """Every program of the group played from `state`, the results in the programs' order."""
        group, workers = check_group(programs, self.workers)
        with tempfile.TemporaryDirectory(prefix="simreflect-group-") as scratch:
            if workers == 1:
                return [play_member(state, i, p, Path(scratch)) for i, p in enumerate(group)]
            pool = self._start()
            # one program per task, handed out as workers free up: a slow program holds one worker only
            futures = [pool.submit(_play_chunk, state, [(i, p)], scratch) for i, p in enumerate(group)]
            out: dict[int, GroupMember] = {}
            lost: list[int] = []
            for i, f in enumerate(futures):
                try:
                    out[i] = f.result()[0]
                except BrokenProcessPool:  # a worker died: every member it did not return is played again
                    lost.append(i)
            if lost:
                self.close()
                for i in lost:
                    out[i] = self._alone(state, i, group[i], scratch)
                    self.replayed += 1
        return [out[i] for i in range(len(group))]

    def _alone(self, state: RoundState, index: int, program: str | None, scratch: str) -> GroupMember:
        """A member played again in a worker of its own: the group's pool broke while it was pending."""
        with worker_pool(1) as pool:
            try:
                return pool.submit(_play_chunk, state, [(index, program)], scratch).result()[0]
            except BrokenProcessPool as e:
                return worker_died(state, index, program, e)

    def _start(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = worker_pool(self.workers)
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> BatchEvaluator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
