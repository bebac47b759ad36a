"""ace: an evolving playbook (Agentic Context Engineering, Zhang et al. 2025): generator, reflector,
curator.

The generator is the model answering the loop's chat, with the playbook (a list of short lessons,
each a bullet with an id and a section) appended to the round's last message. After each attempt
two auxiliary calls edit the playbook: the reflector (shown the task, the playbook, the attempt's
program and what the simulator reported) writes a diagnosis and the lessons it suggests, naming the
bullets that helped or misled; the curator (shown the playbook and the reflection) answers with JSON
delta operations: {"op": "ADD", "section": ..., "text": ...}, {"op": "MODIFY", "id": "b3", "text":
...} or {"op": "DELETE", "id": "b2"} (at most `max_ops`, default 4). Operations are checked in order
against the playbook: an ADD without text, or a MODIFY/DELETE of an unknown bullet, is rejected and
recorded, the rest are applied. The playbook keeps at most `max_bullets` (default 30) bullets (the
oldest go first). An empty reflection skips the curator; curator output that is not JSON leaves the
playbook unchanged.

Per round from round 2: two auxiliary calls ("reflector", "curator"). Recorded: `notes["learned"]` =
{"round", "reflection", "operations" (the applied ones, ADDs with their new ids), "rejected",
"error"}; `notes["playbook"]` = the bullet ids shown. The playbook is rebuilt by replaying the
applied operations.
"""

from __future__ import annotations

from typing import Any

from simreflect.agents.base import Observation
from simreflect.agents.methods.base import (
    Method,
    Proposal,
    Step,
    aux_text,
    int_option,
    json_payload,
    last_user,
    program_block,
    score_text,
    task_text,
    with_section,
)
from simreflect.core.records import Attempt

REFLECTOR_SYSTEM = """\
You are the reflector of a generator-reflector-curator team adapting a design to a changed physical
environment. You are shown the task, the team's playbook of lessons, the latest program and what the
simulator reported. In at most 150 words: what went wrong and why (physically), which playbook
bullets (by id) helped or misled, and the general lessons the next attempts should follow. Plain text.
"""

CURATOR_SYSTEM = """\
You are the curator of a playbook of short, general lessons for a design task. Given the playbook and
the reflector's latest analysis, edit the playbook with a few delta operations. Reply with JSON only:
{"operations": [{"op": "ADD", "section": "physics|design|constraints|api|strategy", "text": "..."},
{"op": "MODIFY", "id": "b3", "text": "..."}, {"op": "DELETE", "id": "b2"}]}
Prefer MODIFY over ADD when a bullet already covers the lesson; DELETE bullets the evidence
contradicts; an empty list is fine when nothing new was learned.
"""

SECTION = "Playbook: lessons curated from your earlier attempts"
_ALIASES = {"UPDATE": "MODIFY", "EDIT": "MODIFY", "REMOVE": "DELETE"}


class PlaybookMethod(Method):
    method = "ace"

    def __init__(self, inner: Any, max_ops: int = 4, max_bullets: int = 30) -> None:
        super().__init__(inner, max_ops=int_option(max_ops, "max_ops"), max_bullets=int_option(max_bullets, "max_bullets"))
        self.max_ops, self.max_bullets = self.options["max_ops"], self.options["max_bullets"]

    def setup(self, obs: Observation) -> None:
        self.bullets: dict[str, dict[str, str]] = {}  # id -> {"section", "text"}, in insertion order
        self.next_id = 1

    def playbook_text(self) -> str:
        return "\n".join(f"- [{bid}] ({b['section']}) {b['text']}" for bid, b in self.bullets.items()) or "(empty)"

    def learn(self, obs: Observation, latest: Attempt, step: Step) -> dict[str, Any] | None:
        if latest.passed:
            return None
        what = last_user(obs.messages).strip() or "(no report)"  # the loop's message on the latest attempt
        chat = [{"role": "system", "content": REFLECTOR_SYSTEM},
                {"role": "user", "content": f"## The task\n{task_text(obs)}\n\n## The playbook\n{self.playbook_text()}\n\n"
                                            f"## Attempt {latest.index}: the program\n{program_block(latest.program)}\n\n"
                                            f"## What happened\n{what}"}]
        reflection = aux_text(step.ask("reflector", chat), limit=2000)
        record: dict[str, Any] = {"round": latest.index, "reflection": reflection, "operations": [], "rejected": []}
        if not reflection:
            step.fail("empty reflection")
            record["error"] = "empty reflection; curator skipped"
            return record
        curate = [{"role": "system", "content": CURATOR_SYSTEM},
                  {"role": "user", "content": f"## The task\n{task_text(obs)}\n\n"
                                              f"## The playbook\n{self.playbook_text()}\n\n## The reflector's analysis of "
                                              f"attempt {latest.index} ({score_text(latest)})\n{reflection}"}]
        answer = step.ask("curator", curate)
        payload = json_payload(answer)
        ops = payload.get("operations") if isinstance(payload, dict) else payload
        if not isinstance(ops, list):
            step.fail("the curator's answer has no JSON list of operations")
            record["error"] = "the curator's answer has no JSON list of operations"
            record["curator_answer"] = (answer or "")[:500]
            return record
        record["operations"], record["rejected"] = self._check(ops)
        return record

    def _check(self, ops: list[Any]) -> tuple[list[dict[str, str]], list[dict[str, Any]]]:
        """Validate operations in order against a copy of the playbook; ADDs get their ids here."""
        ids = set(self.bullets)
        next_id = self.next_id
        applied: list[dict[str, str]] = []
        rejected: list[dict[str, Any]] = []
        for raw in ops:
            if len(applied) >= self.max_ops:
                rejected.append({"op": raw, "reason": f"more than {self.max_ops} operations"})
                continue
            if not isinstance(raw, dict):
                rejected.append({"op": raw, "reason": "not an object"})
                continue
            kind = str(raw.get("op", "")).strip().upper()
            kind = _ALIASES.get(kind, kind)
            text = str(raw.get("text") or raw.get("content") or "").strip()[:400]
            bid = str(raw.get("id", "")).strip()
            if kind == "ADD" and text:
                bid = f"b{next_id}"
                next_id += 1
                ids.add(bid)
                applied.append({"op": "ADD", "id": bid, "section": str(raw.get("section") or "general")[:40], "text": text})
            elif kind == "MODIFY" and bid in ids and text:
                applied.append({"op": "MODIFY", "id": bid, "text": text})
            elif kind == "DELETE" and bid in ids:
                ids.discard(bid)
                applied.append({"op": "DELETE", "id": bid})
            else:
                reason = ("unknown operation" if kind not in ("ADD", "MODIFY", "DELETE") else
                          "no text" if not text and kind != "DELETE" else f"no bullet {bid!r}")
                rejected.append({"op": raw, "reason": reason})
        return applied, rejected

    def absorb(self, learned: dict[str, Any]) -> None:
        for op in learned.get("operations") or []:
            bid = op.get("id", "")
            if op.get("op") == "ADD":
                self.bullets[bid] = {"section": op.get("section", "general"), "text": op.get("text", "")}
                if bid[1:].isdigit():
                    self.next_id = max(self.next_id, int(bid[1:]) + 1)
            elif op.get("op") == "MODIFY" and bid in self.bullets:
                self.bullets[bid] = {**self.bullets[bid], "text": op.get("text", "")}
            elif op.get("op") == "DELETE":
                self.bullets.pop(bid, None)
        while len(self.bullets) > self.max_bullets:
            self.bullets.pop(next(iter(self.bullets)))

    def propose(self, obs: Observation, step: Step) -> Proposal:
        if not self.bullets:
            return Proposal(tuple(obs.messages), {"playbook": []})
        return Proposal(with_section(tuple(obs.messages), SECTION, self.playbook_text()),
                        {"playbook": list(self.bullets)})
