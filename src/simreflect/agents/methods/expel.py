"""expel: an insight memory in the manner of ExpeL (Zhao et al. 2024), within one trajectory.

After each attempt one auxiliary call compares a better and a worse attempt of this trajectory: the
better is the best-scoring design so far (the starting design included), the worse is the latest
attempt (or, when the latest is the best, the runner-up). Shown both (program, score, what the
simulator reported) and the current insights, the model answers with edit operations, one a line:

    ADD: <a new general insight>
    EDIT <id>: <the insight rewritten>
    UPVOTE <id>          (ExpeL's AGREE)
    DOWNVOTE <id>        (ExpeL's REMOVE)

An insight starts with importance 2; EDIT and UPVOTE add one, DOWNVOTE takes one away, and an insight
at zero is dropped; at most `max_insights` (default 20) are kept (the least important, then the
oldest, go). Lines that are not such an operation, or that name an unknown insight, are rejected
and recorded; the others are applied in order (at most `max_ops`, default 4). The insights, most
important first (at most `shown`, default 10), are appended to the loop's chat.

Per round from round 2: one auxiliary call ("insights"), none when nothing has been scored yet to
compare. Recorded: `notes["learned"]` = {"round", "better", "worse", "operations", "rejected"};
`notes["insights"]` = the ids shown. The memory is rebuilt by replaying the operations.
"""

from __future__ import annotations

import re
from typing import Any

from simreflect.agents.base import Observation
from simreflect.agents.methods.base import (
    Method,
    Proposal,
    Step,
    describe_attempt,
    int_option,
    rank,
    task_text,
    with_section,
)
from simreflect.core.records import Attempt

INSIGHT_SYSTEM = """\
You extract general insights for a design task by comparing a better and a worse attempt at it. You
are shown the task, the current insights (with ids), and the two attempts with what the simulator
reported. Reply with at most 4 operations, one per line and nothing else:
ADD: <a new general insight>
EDIT <id>: <the insight, rewritten>
UPVOTE <id>
DOWNVOTE <id>
Upvote insights the comparison confirms, downvote those it contradicts; insights must be general
lessons about this task's physics and design, not descriptions of one attempt.
"""

SECTION = "Insights from comparing your better and worse attempts (most important first)"
_OP = re.compile(r"^\s*(?:[-*]\s*|\d+[.)]\s*)?(ADD|EDIT|UPVOTE|DOWNVOTE|AGREE|REMOVE)\b\s*(I?\d+)?\s*[:\-]?\s*(.*)$",
                 re.IGNORECASE)
_ALIASES = {"AGREE": "UPVOTE", "REMOVE": "DOWNVOTE"}


def parse_operations(text: str) -> tuple[list[dict[str, str]], list[str]]:
    """(operations, lines that are not operations) of an insight answer."""
    ops, junk = [], []
    for line in (text or "").splitlines():
        if not line.strip():
            continue
        m = _OP.match(line)
        if not m:
            junk.append(line.strip()[:200])
            continue
        kind = _ALIASES.get(m.group(1).upper(), m.group(1).upper())
        ref = (m.group(2) or "").upper()
        ops.append({"op": kind, "id": ("I" + ref.lstrip("I")) if ref else "", "text": m.group(3).strip()})
    return ops, junk


class InsightMethod(Method):
    method = "expel"
    records_feedback = True

    def __init__(self, inner: Any, max_ops: int = 4, max_insights: int = 20, shown: int = 10) -> None:
        super().__init__(inner, max_ops=int_option(max_ops, "max_ops"), max_insights=int_option(max_insights, "max_insights"),
                         shown=int_option(shown, "shown"))
        self.max_ops, self.max_insights, self.shown = (self.options["max_ops"], self.options["max_insights"],
                                                       self.options["shown"])

    def setup(self, obs: Observation) -> None:
        self.insights: dict[str, dict[str, Any]] = {}  # id -> {"text", "votes"}, in insertion order
        self.next_id = 1
        self.seen: list[Attempt] = [self.root]

    def observe(self, attempt: Attempt) -> None:
        self.seen.append(attempt)

    def ordered(self) -> list[tuple[str, dict[str, Any]]]:
        order = {k: n for n, k in enumerate(self.insights)}
        return sorted(self.insights.items(), key=lambda kv: (-kv[1]["votes"], order[kv[0]]))

    def learn(self, obs: Observation, latest: Attempt, step: Step) -> dict[str, Any] | None:
        if latest.passed:
            return None
        ranked = rank(self.seen)
        if not ranked:
            return {"round": latest.index, "skipped": "nothing scored yet to compare", "operations": [], "rejected": []}
        better = ranked[0]
        if latest.index != better.index:
            worse = latest
        elif len(ranked) > 1:
            worse = ranked[1]
        else:
            return {"round": latest.index, "skipped": "no worse attempt to compare", "operations": [], "rejected": []}
        current = "\n".join(f"{i} [importance {v['votes']}]: {v['text']}" for i, v in self.ordered()) or "(none yet)"
        chat = [{"role": "system", "content": INSIGHT_SYSTEM},
                {"role": "user", "content": f"## The task\n{task_text(obs)}\n\n## Current insights\n{current}\n\n"
                                            f"{describe_attempt(better, 'The better attempt')}\n\n"
                                            f"{describe_attempt(worse, 'The worse attempt')}"}]
        answer = step.ask("insights", chat)
        ops, junk = parse_operations(answer)
        applied, rejected = self._check(ops)
        rejected += [{"line": j, "reason": "not an operation"} for j in junk]
        if not applied and (junk or not ops):
            step.fail("no usable operation in the answer")
        return {"round": latest.index, "better": better.index, "worse": worse.index, "operations": applied,
                "rejected": rejected[:10]}

    def _check(self, ops: list[dict[str, str]]) -> tuple[list[dict[str, str]], list[dict[str, Any]]]:
        votes = {k: v["votes"] for k, v in self.insights.items()}
        next_id = self.next_id
        applied: list[dict[str, str]] = []
        rejected: list[dict[str, Any]] = []
        for op in ops:
            kind, ref, text = op["op"], op["id"], op["text"][:400]
            if len(applied) >= self.max_ops:
                rejected.append({**op, "reason": f"more than {self.max_ops} operations"})
            elif kind == "ADD" and text:
                ref = f"I{next_id}"
                next_id += 1
                votes[ref] = 2
                applied.append({"op": "ADD", "id": ref, "text": text})
            elif kind in ("EDIT", "UPVOTE", "DOWNVOTE") and ref in votes and (text or kind != "EDIT"):
                votes[ref] += -1 if kind == "DOWNVOTE" else 1
                if votes[ref] <= 0:
                    del votes[ref]
                applied.append({"op": kind, "id": ref, **({"text": text} if kind == "EDIT" else {})})
            else:
                rejected.append({**op, "reason": "no text" if kind in ("ADD", "EDIT") and not text else f"no insight {ref!r}"})
        return applied, rejected

    def absorb(self, learned: dict[str, Any]) -> None:
        for op in learned.get("operations") or []:
            kind, ref = op.get("op"), op.get("id", "")
            if kind == "ADD":
                self.insights[ref] = {"text": op.get("text", ""), "votes": 2}
                if ref[1:].isdigit():
                    self.next_id = max(self.next_id, int(ref[1:]) + 1)
            elif ref in self.insights:
                item = self.insights[ref]
                if kind == "EDIT":
                    item["text"] = op.get("text", item["text"])
                item["votes"] += -1 if kind == "DOWNVOTE" else 1
                if item["votes"] <= 0:
                    del self.insights[ref]
        while len(self.insights) > self.max_insights:
            order = {k: n for n, k in enumerate(self.insights)}
            weakest = min(self.insights, key=lambda k: (self.insights[k]["votes"], order[k]))
            del self.insights[weakest]

    def propose(self, obs: Observation, step: Step) -> Proposal:
        shown = self.ordered()[:self.shown]
        if not shown:
            return Proposal(tuple(obs.messages), {"insights": []})
        body = "\n".join(f"- [{i}, importance {v['votes']}] {v['text']}" for i, v in shown)
        return Proposal(with_section(tuple(obs.messages), SECTION, body), {"insights": [i for i, _ in shown]})
