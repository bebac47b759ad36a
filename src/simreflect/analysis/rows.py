"""One row per episode x level, derived from a run's round records (the runs.jsonl rows)."""

from __future__ import annotations

from typing import Any

from simreflect.core.contract import EpisodeFlags
from simreflect.core.records import EpisodeLog, RoundRecord
from simreflect.core.suite import Suite


def episode_row(suite: Suite, task, level: str, log: EpisodeLog, run: int = 0) -> dict[str, Any]:
    row = _row(suite, task, level, log, run)
    # how an interactive session went (run/interactive.py; core.records.SessionEndRecord); only then,
    # so the rows of every other run stay byte for byte what they were
    session = next((r.method_notes["interactive"] for r in log.rounds
                    if isinstance(r.method_notes.get("interactive"), dict)), None)
    if session is not None:
        row["interactive"] = session
    return row


def _row(suite: Suite, task, level: str, log: EpisodeLog, run: int) -> dict[str, Any]:
    rounds = log.rounds
    scripts = [r for r in rounds if r.program is not None]
    crashed = [r for r in scripts if not r.ran]
    solved_round = next((r.round for r in rounds if r.passed), None)
    return {
        "task": task.id,
        "level": level,
        "run": run,
        "finished": log.end is not None,
        "end_reason": None if log.end is None else log.end.reason,
        "solved": solved_round is not None,
        "solved_round": solved_round,
        "rounds_used": len(rounds),
        "scripts": len(scripts),
        "crashes": len(crashed),
        "no_program": sum(1 for r in rounds if r.program is None and not r.harness_error),
        # rounds whose program or artefact the harness itself failed on (counted apart, blamed on nobody)
        "harness_errors": sum(1 for r in rounds if r.harness_error),
        "tokens": sum(int(r.usage.get("total_tokens", 0)) for r in rounds),
        "infra_errors": [e.error for e in log.infra_errors],
        "subsets": suite.subsets(task),
        "flags": suite.episode_flags(log.rounds) if isinstance(suite, EpisodeFlags) else [],
        "aux_calls": sum(int(r.usage.get("aux_calls", 0)) for r in rounds),
        "rounds": [_round_row(r) for r in rounds],
    }


def _round_row(r: RoundRecord) -> dict[str, Any]:
    return {
        "round": r.round,
        "prompt": list(r.prompt),
        "diagnosis": r.diagnosis,
        "script": r.script,
        "error": r.failure,
        "output_tail": r.output_tail,
        "errors_before": list(r.errors_before),
        "errors_after": list(r.errors_after),
        "score_before": r.score_before,
        "score": r.score,
        "accepted": r.accepted,
        "harness_error": r.harness_error,
        "usage": r.usage,
        "method_notes": r.method_notes,
    }

