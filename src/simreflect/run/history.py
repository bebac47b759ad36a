"""What an agent is shown of its earlier rounds (core.contract.HISTORY_MODES), as the chat of a round.

- `full`: every earlier round as a user/assistant pair (the round's prompt, the agent's answer).
- `last+best`: only the latest round and the highest-scoring one as such pairs (ties to the
  earliest); each pair shows a round's answer beside the report it answered.
- `previous+best`: PACE's Previous-One + Best, as its code builds the revision request: one user
  message with the source design's report in this environment (iteration 1), the best-scoring
  attempt's program with its own report (the earliest best, the source itself when nothing beat
  it), and the previous attempt's program with its own report when it is not the best one.

A round's own report is what the verifier said of its program: the report after it when the
verifier accepted its artefact, otherwise why it was not used (RoundRecord.outcome).
"""

from __future__ import annotations

from typing import Any

from simreflect.core.records import RoundRecord
from simreflect.core.rounds import round_feedback

Message = dict[str, Any]

PREVIOUS_AND_BEST_CLOSE = ("Compare these attempts: learn from what worked best and from what changed most "
                           "recently, and answer with an improved program.")


def round_chat(system: str, rounds: list[RoundRecord], history: str, round_no: int, budget: int,
               report: str) -> tuple[Message, ...]:
    """The messages of round `round_no` (`report`: the verifier's report of the workspace as the
    last accepted round left it; `rounds`: the earlier rounds, in order)."""
    last = rounds[-1] if rounds else None
    if history == "previous+best" and rounds:
        return ({"role": "system", "content": system},
                {"role": "user", "content": previous_and_best(rounds, round_no, budget, report)})
    chat = [m for rec in shown_rounds(rounds, history) for m in (
        {"role": "user", "content": rec.prompt[-1]["content"]}, {"role": "assistant", "content": rec.answer})]
    return ({"role": "system", "content": system}, *chat,
            {"role": "user", "content": round_feedback(round_no, budget, last, report)})


def shown_rounds(rounds: list[RoundRecord], history: str) -> list[RoundRecord]:
    """The earlier rounds replayed as chat pairs (`full`, `last+best`)."""
    if history == "full" or len(rounds) <= 1:
        return list(rounds)
    best = best_round(rounds)
    shown = [r for r in rounds if r is best or r is rounds[-1]]
    return sorted(shown, key=lambda r: r.round)


def best_round(rounds: list[RoundRecord], floor: float | None = None) -> RoundRecord | None:
    """The highest-scoring accepted round, ties to the earliest; None when none scored above `floor`."""
    scored = [r for r in rounds if r.accepted and r.score is not None and (floor is None or r.score > floor)]
    return max(scored, key=lambda r: (r.score, -r.round)) if scored else None


def own_reports(rounds: list[RoundRecord], report: str) -> dict[int, str]:
    """Each round's own report, by round number."""
    out: dict[int, str] = {}
    for i, rec in enumerate(rounds):
        if rec.accepted:
            out[rec.round] = rounds[i + 1].report if i + 1 < len(rounds) else report
        else:
            out[rec.round] = rec.outcome
    return out


def previous_and_best(rounds: list[RoundRecord], round_no: int, budget: int, report: str) -> str:
    first = rounds[0]
    reports = own_reports(rounds, report)
    best = best_round(rounds, floor=first.score_before)
    previous = next((r for r in reversed(rounds) if r.script is not None), None)
    parts = ["# The source design in this environment (iteration 1)",
             "The design given in the task (above) was run here first; its report:", "", first.report.rstrip()]
    if best is None:
        parts += ["", "# Best-scoring attempt so far",
                  "No attempt has scored above the source design yet: the source design is the best so far."]
    else:
        parts += ["", f"# Best-scoring attempt so far (attempt {best.round}, score {best.score:g})",
                  "```python", (best.script or "").rstrip(), "```", "", reports[best.round].rstrip()]
    if previous is not None and previous is not best:
        parts += ["", f"# Previous attempt (attempt {previous.round})", "```python", previous.script.rstrip(), "```",
                  "", reports[previous.round].rstrip()]
    last = rounds[-1]
    if last.script is None:
        parts += ["", last.outcome]
    parts += ["", f"Round {round_no} of {budget}.", PREVIOUS_AND_BEST_CLOSE]
    return "\n".join(parts) + "\n"
