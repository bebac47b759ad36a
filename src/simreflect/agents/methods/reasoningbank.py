"""reasoningbank: a memory of reasoning items in the manner of ReasoningBank (Ouyang et al. 2025),
within one trajectory.

A memory item is a title, a one-line description and its content (a strategy or a lesson). After
each attempt one auxiliary call distils at most `max_items_per_attempt` (default 2) items from it,
learning from successes and failures alike. Whether the attempt succeeded is the SIMULATOR's verdict,
never the model's: an attempt that scored better than every design before it (the starting design
included) is distilled into "what worked" strategies, any other (worse, equal, not scored) into
"what failed" lessons; each kind has its own system prompt, as ReasoningBank's extraction does. An
attempt without a program is skipped (nothing was tried; no call). The answer's format is strict:

    TITLE: <a few words naming the strategy or lesson>
    DESCRIPTION: <one sentence: when it applies>
    CONTENT: <the strategy or lesson itself>

one block per item (markdown decorations such as `## Title` or `**Content:**` are accepted). The
answer is read bounded (at most MAX_REPLY_CHARS characters, MAX_LINES lines, MAX_BLOCKS blocks;
each field its own limit); a block with a missing, repeated, empty or overlong field, or a field
that is not text, is rejected and recorded, as are items beyond the limit and exact duplicates of
an item in memory. Nothing in an answer raises. New items are appended; at most `max_items` (default
20) are kept, the oldest dropped.

Retrieval: before each attempt the `retrieve` (default 1, ReasoningBank's top-k default) items most
similar to the current report (a deterministic lexical score: the Jaccard overlap of the word sets,
`lexical_similarity`; ties go to the newer item) are appended to the loop's chat as a section.

Memory within one trajectory, like expel and ace here: the bank starts empty in every episode, so
episodes stay independent and can run in parallel (ReasoningBank's bank across a stream of tasks
is not kept). Per round from round 2: one auxiliary call ("memory"). Recorded:
`notes["learned"]` = {"round", "label", "best_before", "items", "rejected"} (or "skipped");
`notes["retrieved"]` = [{"id", "similarity"}]. The bank is rebuilt by replaying the items, so a
resumed run shows exactly what an uninterrupted one would.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from simreflect.agents.base import Observation
from simreflect.agents.methods.base import (
    FAILED,
    Method,
    Proposal,
    Step,
    attempt_label,
    describe_attempt,
    int_option,
    last_user,
    score_text,
    task_text,
    with_section,
)
from simreflect.core.records import Attempt
from simreflect.core.untrusted import clean_text

_FORMAT = """\
Reply with the memory items only, one block per item, separated by a blank line:
TITLE: <a few words naming the strategy or lesson>
DESCRIPTION: <one sentence: when it applies>
CONTENT: <the strategy or lesson itself, at most three sentences>
Items must be general lessons about this task's physics and design that a later attempt can use,
not descriptions of this one attempt or its numbers. No other text.
"""

WORKED_SYSTEM = """\
You distil reusable memory items from an attempt at a design task that the simulator scored better
than every design before it. You are shown the task, the attempt (its program and what the
simulator reported) and the titles already in memory. Think about why this attempt improved, then
write the strategies that made it work.
""" + _FORMAT

FAILED_SYSTEM = """\
You distil reusable memory items from an attempt at a design task that the simulator did not score
better than the best design before it. You are shown the task, the attempt (its program and what
the simulator reported) and the titles already in memory. Think about why this attempt failed to
improve, then write the lessons learned: what went wrong and how to avoid it.
""" + _FORMAT

SECTION = "Memory items from your earlier attempts (the most relevant to the latest report)"
LABELS = {"worked": "what worked", "failed": "what failed"}

MAX_REPLY_CHARS = 20_000  # an answer is cut here before it is read
MAX_LINES = 400
MAX_BLOCKS = 20
FIELD_LIMITS = {"TITLE": 120, "DESCRIPTION": 300, "CONTENT": 1200}
MAX_QUERY_CHARS = 20_000  # of the report and of an item, for the similarity

_FIELD = re.compile(r"^\s*(?:[-*>]\s+)?(?:#{1,6}\s*)?(?:\*\*|__)?(TITLE|DESCRIPTION|CONTENT)(?:\*\*|__)?\s*"
                    r"(?::\s*(?:\*\*|__)?\s*(.*?)|)\s*$", re.IGNORECASE)
_NOT_TEXT = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ufffd]")
_WORD = re.compile(r"[a-z][a-z0-9_]+")
_STOP = frozenset("the and for with that this from are was were its has have not but you your into than then "
                  "when which what all any can each more most one two".split())


# ----- reading an answer --------------------------------------------------------------------------------

@dataclass(frozen=True)
class MemoryItem:
    title: str
    description: str
    content: str

    def to_dict(self) -> dict[str, str]:
        return {"title": self.title, "description": self.description, "content": self.content}


def parse_items(text: Any) -> tuple[list[MemoryItem], list[dict[str, str]]]:
    """(the well-formed items, the rejected blocks with a reason each) of an answer. Bounded and
    total: any input, however large, nested or broken, gives lists, never an exception."""
    rejected: list[dict[str, str]] = []
    text, cut = clean_text(text if isinstance(text, str) else "", MAX_REPLY_CHARS)
    if any(note.startswith("cut") for note in cut):
        rejected.append({"title": "", "reason": f"the answer was {cut[0]}"})
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        rejected.append({"title": "", "reason": f"{len(lines)} lines: only the first {MAX_LINES} were read"})
    blocks: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    open_field: str | None = None
    for line in lines[:MAX_LINES]:
        m = _FIELD.match(line)
        if m:
            name, value = m.group(1).upper(), (m.group(2) or "").strip()
            if name == "TITLE" or current is None:
                if len(blocks) >= MAX_BLOCKS:
                    rejected.append({"title": "", "reason": f"more than {MAX_BLOCKS} blocks: the rest were not read"})
                    current = None
                    break
                current = {"fields": {}, "errors": []}
                blocks.append(current)
            if name in current["fields"]:
                current["errors"].append(f"{name} given twice")
                open_field = None
            else:
                current["fields"][name] = value
                open_field = name
        elif not line.strip() or line.lstrip().startswith("#"):
            if not (current and open_field and not current["fields"][open_field] and not line.strip()):
                open_field = None  # a blank line or a heading ends a field's continuation (once it has text)
        elif current is not None and open_field is not None:
            fields = current["fields"]
            joined = f"{fields[open_field]} {line.strip()}".strip()
            fields[open_field] = joined[:FIELD_LIMITS[open_field] + 1]  # one over: still seen as too long
    items: list[MemoryItem] = []
    for block in blocks:
        fields, problems = block["fields"], list(block["errors"])
        for name, limit in FIELD_LIMITS.items():
            value = fields.get(name, "")
            if not value:
                problems.append(f"no {name}")
            elif len(value) > limit:
                problems.append(f"{name} longer than {limit} characters")
            elif _NOT_TEXT.search(value):
                problems.append(f"{name} holds characters that are not text")
        if problems:
            rejected.append({"title": _shown(fields.get("TITLE", "")), "reason": "; ".join(problems)})
        else:
            items.append(MemoryItem(fields["TITLE"], fields["DESCRIPTION"], fields["CONTENT"]))
    return items, rejected


def _shown(text: str, limit: int = 80) -> str:
    return _NOT_TEXT.sub("?", text[:limit])


# ----- retrieval ----------------------------------------------------------------------------------------

def words(text: str) -> frozenset[str]:
    """The lower-case words of a text (two letters or more, a few stop words left out)."""
    return frozenset(w for w in _WORD.findall((text or "")[:MAX_QUERY_CHARS].lower()) if w not in _STOP)


def lexical_similarity(a: str, b: str) -> float:
    """The Jaccard overlap of two texts' word sets, in [0, 1] (0 when either has no word)."""
    wa, wb = words(a), words(b)
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / len(wa | wb)


def item_text(item: dict[str, Any]) -> str:
    return f"{item.get('title', '')} {item.get('description', '')} {item.get('content', '')}"


def retrieve(items: list[dict[str, Any]], query: str, k: int) -> list[tuple[dict[str, Any], float]]:
    """The k items most similar to the query, most similar first (ties: the newer item first)."""
    scored = [(item, lexical_similarity(item_text(item), query), n) for n, item in enumerate(items)]
    scored.sort(key=lambda x: (-x[1], -x[2]))
    return [(item, sim) for item, sim, _ in scored[:k]]


# ----- the method ---------------------------------------------------------------------------------------

class ReasoningBankMethod(Method):
    method = "reasoningbank"
    records_feedback = True

    def __init__(self, inner: Any, max_items_per_attempt: int = 2, retrieve: int = 1, max_items: int = 20) -> None:
        super().__init__(inner, max_items_per_attempt=int_option(max_items_per_attempt, "max_items_per_attempt"),
                         retrieve=int_option(retrieve, "retrieve"), max_items=int_option(max_items, "max_items"))
        self.per_attempt, self.k, self.max_items = (self.options["max_items_per_attempt"], self.options["retrieve"],
                                                    self.options["max_items"])

    def setup(self, obs: Observation) -> None:
        self.items: list[dict[str, Any]] = []  # oldest first: {"id", "title", "description", "content", "label", "round"}
        self.next_id = 1
        self.seen: list[Attempt] = [self.root]

    def observe(self, attempt: Attempt) -> None:
        self.seen.append(attempt)

    def learn(self, obs: Observation, latest: Attempt, step: Step) -> dict[str, Any] | None:
        before = [a for a in self.seen if a.index < latest.index]
        best = max(before, key=lambda a: (a.value, -a.index)) if before else self.root
        if latest.program is None:
            return {"round": latest.index, "skipped": "no program to learn from", "items": [], "rejected": []}
        label = "worked" if latest.valid and (latest.value > best.value or best.value == FAILED) else "failed"
        verdict = (f"The simulator scored this attempt: {score_text(latest)}. The best design before it: "
                   f"{attempt_label(best)}, {score_text(best)}. ")
        verdict += ("It improved on every design before it: write what worked." if label == "worked" else
                    "It did not improve on the best design before it: write what failed and how to avoid it.")
        titles = "\n".join(f"- [{i['id']}] {i['title']}" for i in self.items) or "(none yet)"
        chat = [{"role": "system", "content": WORKED_SYSTEM if label == "worked" else FAILED_SYSTEM},
                {"role": "user", "content": f"## The task\n{task_text(obs)}\n\n"
                                            f"{describe_attempt(latest, 'The attempt')}\n\n"
                                            f"## The simulator's verdict\n{verdict}\n\n"
                                            f"## Titles already in memory\n{titles}\n\n"
                                            f"Write at most {self.per_attempt} memory items."}]
        items, rejected = parse_items(step.ask("memory", chat))
        kept: list[dict[str, Any]] = []
        known = {(i["title"], i["content"]) for i in self.items}
        next_id = self.next_id
        for item in items:
            if len(kept) >= self.per_attempt:
                rejected.append({"title": _shown(item.title), "reason": f"more than {self.per_attempt} items"})
            elif (item.title, item.content) in known:
                rejected.append({"title": _shown(item.title), "reason": "already in memory"})
            else:
                known.add((item.title, item.content))
                kept.append({"id": f"M{next_id}", **item.to_dict(), "label": label, "round": latest.index})
                next_id += 1
        if not kept:
            step.fail("no usable memory item in the answer")
        return {"round": latest.index, "label": label, "best_before": best.index, "items": kept,
                "rejected": rejected[:10]}

    def absorb(self, learned: dict[str, Any]) -> None:
        for item in learned.get("items") or []:
            if not isinstance(item, dict):
                continue
            ref = str(item.get("id", ""))
            self.items.append(dict(item))
            if ref[1:].isdigit():
                self.next_id = max(self.next_id, int(ref[1:]) + 1)
        del self.items[:max(0, len(self.items) - self.max_items)]

    def propose(self, obs: Observation, step: Step) -> Proposal:
        if not self.items:
            return Proposal(tuple(obs.messages), {"retrieved": []})
        query = obs.report or last_user(obs.messages)
        chosen = retrieve(self.items, query, self.k)
        body = "\n".join(f"- [{i['id']}] {i['title']} ({LABELS.get(i.get('label'), 'a lesson')}, from attempt "
                         f"{i.get('round', '?')})\n  {i['description']}\n  {i['content']}" for i, _ in chosen)
        return Proposal(with_section(tuple(obs.messages), SECTION, body),
                        {"retrieved": [{"id": i["id"], "similarity": round(s, 4)} for i, s in chosen]})
