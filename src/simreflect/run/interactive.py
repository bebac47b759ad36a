"""An interactive episode of a run (`simreflect run --mode interactive`): one attempt is one live
session (core.interactive.run_session) of a suite that offers them (core.contract.InteractiveEpisodes).

The session lives in the run's `interactive/<episode>/`: `transcript.jsonl` (every turn and tool
result, appended before the next), and the suite's own files (the workshop's record/ and the
sandbox's workspace/). When the session has ended, the suite grades the final state and the episode
is written to attempts.jsonl as one round (its verdict; `method_notes.interactive` how the session
ended, its turns, commands, simulated seconds and tokens) and its end record, so every reader of a
run reads it as it reads any episode. The same command resumes a killed session: the suite restores
the world from its record, the chat continues from the transcript.
"""

from __future__ import annotations

import time
from pathlib import Path

from simreflect.agents.base import InfrastructureError
from simreflect.core.contract import InteractiveEpisodes
from simreflect.core.evidence import EvidenceLevel
from simreflect.core.interactive import SessionBudgets, Transcript, run_session, tools_note, wall_used
from simreflect.core.program import ProgramResult
from simreflect.core.records import EndRecord, InfraErrorRecord, RoundRecord
from simreflect.core.suite import Suite
from simreflect.core.task import Task
from simreflect.run.episode import EpisodeOutcome
from simreflect.run.store import EpisodeLog, RunStore, episode_key

INTERACTIVE_DIR = "interactive"
TRANSCRIPT = "transcript.jsonl"
START = "Begin. Call the tools; call finish when the work is done and checked."


def session_dir(run_dir: Path, task_id: str, level: str, run: int = 0) -> Path:
    return Path(run_dir) / INTERACTIVE_DIR / episode_key(task_id, level, run).replace("/", "-")


def opening(suite: Suite, task: Task, budgets: SessionBudgets, text_protocol: bool) -> list[dict[str, str]]:
    spec = getattr(suite, "spec", None)
    world = ""
    if spec is not None:
        b = spec(task).budgets
        world = f"the build's {b.actions} actions and {b.sim_seconds:g} simulated seconds"
    system = "\n".join([suite.interactive_instruction(task),
                        tools_note(budgets, world, text_protocol, suite.interactive_tools)])
    return [{"role": "system", "content": system}, {"role": "user", "content": START}]


def run_interactive_episode(suite: Suite, agent, task: Task, level: EvidenceLevel, store: RunStore, log: EpisodeLog,
                            budgets: SessionBudgets = SessionBudgets(), run: int = 0) -> EpisodeOutcome:
    """Play (or resume) one interactive episode and record it."""
    if not isinstance(suite, InteractiveEpisodes):
        raise ValueError(f"suite {suite.name!r} does not offer interactive episodes")
    level_name = f"L{int(level)}"
    if log.end is not None:
        return EpisodeOutcome(task.id, level_name, "finished", bool(log.end.solved), len(log.rounds), run)
    if log.rounds:  # killed between the round and its end record
        solved = bool(log.rounds[0].passed)
        store.append(EndRecord(task.id, level_name, solved, "solved" if solved else "budget", 1, run).to_dict())
        return EpisodeOutcome(task.id, level_name, "finished", solved, 1, run)
    base = session_dir(store.dir, task.id, level_name, run)
    transcript = Transcript(base / TRANSCRIPT)
    t0 = time.monotonic()
    world = suite.open_world(task, base, level, wall_used(transcript.read()))
    chat = opening(suite, task, budgets, agent.text_protocol)
    try:
        try:
            outcome = run_session(agent, world, chat, transcript, budgets)
        except InfrastructureError as e:
            store.append(InfraErrorRecord(task.id, level_name, 1, str(e)[:2000], round(time.monotonic() - t0, 3),
                                          run).to_dict())
            return EpisodeOutcome(task.id, level_name, "infra_error", False, 0, run)
        verdict = suite.grade_world(task, world)
    finally:
        world.close()
    end = outcome.end
    program = ProgramResult("ok", 0, "", end.wall_s, reason=f"session ended: {end.reason}").to_dict()
    record = RoundRecord(
        round=1, task=task.id, level=level_name, run=run, script=None, errors_after=tuple(verdict.errors),
        score=verdict.score, program=program, accepted=True, passed=verdict.passed, verdict=verdict.to_dict(),
        prompt=tuple(chat),  # the opening of the session; the turns are in its transcript
        usage={"prompt_tokens": end.prompt_tokens, "completion_tokens": end.completion_tokens,
               "total_tokens": end.prompt_tokens + end.completion_tokens, "calls": end.turns},
        method_notes={"interactive": end.to_dict(), "transcript": str(Path(INTERACTIVE_DIR) / base.name / TRANSCRIPT)},
        agent_seconds=round(sum(t.latency_s for t in outcome.turns), 3))
    store.append(record.to_dict())
    solved = verdict.passed
    store.append(EndRecord(task.id, level_name, solved, "solved" if solved else "budget", 1, run).to_dict())
    return EpisodeOutcome(task.id, level_name, "finished", solved, 1, run)
