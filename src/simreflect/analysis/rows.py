"""One row per episode x level, derived from a run's attempt records (the runs.jsonl rows)."""

from __future__ import annotations

from typing import Any

from simreflect.core.contract import EpisodeFlags
from simreflect.core.suite import Suite
from simreflect.run.store import EpisodeLog


def episode_row(suite: Suite, task, level: str, log: EpisodeLog, run: int = 0) -> dict[str, Any]:
    rounds = log.rounds
    scripts = [r for r in rounds if r.get("program") is not None]
    crashed = [r for r in scripts if r["program"]["status"] != "ok"]
    solved_round = next((r["round"] for r in rounds if r.get("passed")), None)
    return {
        "task": task.id,
        "level": level,
        "run": run,
        "finished": log.end is not None,
        "end_reason": None if log.end is None else log.end.get("reason", "solved" if log.end.get("solved") else "budget"),
        "solved": solved_round is not None,
        "solved_round": solved_round,
        "rounds_used": len(rounds),
        "scripts": len(scripts),
        "crashes": len(crashed),
        "no_program": sum(1 for r in rounds if r.get("program") is None and not r.get("harness_error")),
        # rounds whose program or artefact the harness itself failed on (counted apart, blamed on nobody)
        "harness_errors": sum(1 for r in rounds if r.get("harness_error")),
        "tokens": sum(int(r.get("usage", {}).get("total_tokens", 0)) for r in rounds),
        "infra_errors": [e["error"] for e in log.infra_errors],
        "subsets": suite.subsets(task),
        "flags": suite.episode_flags(rounds) if isinstance(suite, EpisodeFlags) else [],
        "aux_calls": sum(int(r.get("usage", {}).get("aux_calls", 0)) for r in rounds),
        "rounds": [
            {
                "round": r["round"],
                "prompt": r["prompt"],
                "diagnosis": r.get("diagnosis", ""),
                "script": r.get("script"),
                "error": r.get("error") or _harness_text(r.get("harness_error"))
                or (None if r.get("program") is None or r["program"]["status"] == "ok"
                    else f"{r['program']['status']}: {r['program']['reason']}"),
                "output_tail": (r.get("program") or {}).get("output_tail", ""),
                "errors_before": r.get("errors_before", []),
                "errors_after": r.get("errors_after", []),
                "score_before": r.get("score_before"),
                "score": r.get("score"),
                "accepted": bool(r.get("accepted")),
                "harness_error": r.get("harness_error"),
                "usage": r.get("usage", {}),
                "method_notes": r.get("method_notes", {}),
            }
            for r in rounds
        ],
    }


def _harness_text(failure: dict[str, Any] | None) -> str | None:
    if not failure:
        return None
    return f"the harness failed on this round ({failure.get('stage')} raised {failure.get('type')}: {failure.get('message')})"
