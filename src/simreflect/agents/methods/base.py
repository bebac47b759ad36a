"""The one interface every method (--method) implements, and the helpers they share.

A method wraps a model agent (`LLMAgent`: `act` answers a chat with a program, `complete` answers a
chat with text) and decides what the model is shown and asked between verified attempts. The loop
calls `Method.act(observation)` once per round: one verified attempt. `act` is the same for every
method; a method only fills in these hooks:

    setup(obs)                        a fresh, empty state (act keeps nothing between calls)
    for every earlier attempt:        the replay, from observation.history alone
        observe(attempt)              fold its verified result (score, program, report) into the state
        absorb(attempt.learned)       fold what was learned from it (auxiliary calls, see learn)
    observe(latest)                   the attempt just verified
    learn(obs, latest, step)          auxiliary model calls about it (reflection, curation, insights)
                                      -> a JSON-able record, or None
    absorb(record)                    the same fold the replay does on every later round
    propose(obs, step)                -> Proposal: the chat to send for this attempt, and its notes
    (the inner agent answers the chat: the attempt's own model call)
    revise(obs, proposal, action, step)   unverified revisions before verification (self-refine)

`observe` and `absorb` are pure (no model calls, no clock, no unseeded randomness), so the state a
round sees is a function of the history: round k's `learn` record is stored in round k's
`Action.notes["learned"]` (the loop writes it to the attempt record, and `Observation.history`
carries it back as `notes`), and `propose` decides from the state only (a method that draws random
numbers seeds them with the task, the run and the round). A run killed mid-episode therefore resumes
with exactly the state it had: the round in flight is done again, its auxiliary calls included (a
deterministic model gives the same answers), and every earlier one is replayed, not repeated.

Counting: the attempt is the one program the loop verifies; the call that produced it counts in
`Usage.calls`. Every other model call goes through `Step.ask` and counts in `Usage.aux_calls` (the
requests sent, retries included, at least one per call), with its tokens added to the round's usage;
`notes["aux"]` lists them by kind. Malformed auxiliary output (empty text, bad JSON, an edit to an
unknown entry) never raises: it is recorded (`notes["aux"][i]["error"]`, or the method's own
"rejected" list) and the method carries on with its state unchanged.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import random
import re
from dataclasses import dataclass, field
from typing import Any

from simreflect.agents.base import Action, Observation, Usage
from simreflect.core.records import Attempt

FAILED = float("-inf")  # the value (Attempt.value) of an attempt that produced nothing the verifier scored


# ----- what a method sees of an attempt ----------------------------------------------------------------
# An attempt is core.records.Attempt (round >= 1: built from its round record; 0: the starting design),
# the one attempt type that analysis and RL read too.

def attempt_label(a: Attempt) -> str:
    if a.index == 0:
        return "the starting design (the program given in the task)"
    return f"attempt {a.index}"


def score_text(a: Attempt) -> str:
    if a.valid:
        return f"score {a.value:g}" + (" (passed)" if a.passed else "")
    if a.program is None:
        return "no program"
    return "not scored (the program failed or was not accepted)"


def report_of(a: Attempt) -> str:
    """The verifier's report on an attempt as the loop showed it ("" when it was not scored or the
    method did not keep it): the record's own field, never text cut out of a prompt."""
    return (a.report or "").strip() if a.valid else ""


@dataclass(frozen=True)
class Proposal:
    """The chat to send for this round's attempt, and what the method records about the choice."""

    chat: tuple[dict[str, str], ...]
    notes: dict[str, Any] = field(default_factory=dict)


class Step:
    """One round's auxiliary model calls: counted apart from the attempt, listed in the notes."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.usage: Usage | None = None
        self.calls: list[dict[str, Any]] = []
        self.notes: dict[str, Any] = {}  # extra notes a hook wants recorded with the round

    def ask(self, kind: str, chat: list[dict[str, str]] | tuple[dict[str, str], ...], model: Any = None) -> str:
        """Send one auxiliary chat; returns the model's text ('' when it answered nothing)."""
        m = model if model is not None else self.model
        text, usage = m.complete([dict(x) for x in chat])
        aux = Usage(usage.prompt_tokens, usage.completion_tokens, 0, usage.latency_s, usage.cached,
                    max(1, usage.calls))
        self.usage = aux if self.usage is None else self.usage + aux
        self.calls.append({"kind": kind})
        return text or ""

    def fail(self, error: str) -> None:
        """Record that the latest auxiliary call's answer could not be used."""
        if self.calls:
            self.calls[-1]["error"] = error


# ----- the interface -----------------------------------------------------------------------------------

class Method:
    """Base class: the plain loop. Subclasses override the hooks (see the module docstring)."""

    method = "vanilla"
    records_feedback = False  # keep every attempt's report in the notes (methods that revisit old attempts)

    def __init__(self, inner: Any, **options: Any) -> None:
        if not hasattr(inner, "act"):
            raise ValueError(f"method {self.method!r} wraps an agent, got {inner!r}")
        self.inner = inner
        self.aux_model = plain_text_twin(inner)
        self.options = dict(options)
        self.name = f"{getattr(inner, 'name', 'agent')}+{self.method}"

    # --- hooks (override) ---
    def setup(self, obs: Observation) -> None:
        """Reset the state for a round (it is rebuilt from the history every time)."""

    def observe(self, attempt: Attempt) -> None:
        """Fold a verified attempt into the state (pure)."""

    def learn(self, obs: Observation, latest: Attempt, step: Step) -> dict[str, Any] | None:
        """Auxiliary calls about the attempt just verified; returns what to absorb (JSON-able) or None."""
        return None

    def absorb(self, learned: dict[str, Any]) -> None:
        """Fold a `learn` record into the state (pure; also replayed on later rounds)."""

    def propose(self, obs: Observation, step: Step) -> Proposal:
        """The chat for this round's attempt (default: the loop's own chat, unchanged)."""
        return Proposal(tuple(obs.messages))

    def revise(self, obs: Observation, proposal: Proposal, action: Action, step: Step) -> Action:
        """Unverified revisions of the answer before the loop verifies it (default: none)."""
        return action

    # --- the round (the same for every method) ---
    def act(self, observation: Observation) -> Action:
        replay = attempts_of(observation)
        self.root, attempts = replay.root, list(replay.attempts)
        self.setup(observation)
        for a, learned_then in zip(attempts[:-1], replay.learned):
            self.observe(a)
            if learned_then is not None:
                self.absorb(learned_then)
        step = Step(self.aux_model)
        learned = None
        if attempts:
            latest = attempts[-1]
            self.observe(latest)
            learned = self.learn(observation, latest, step)
            if learned is not None:
                self.absorb(learned)
        proposal = self.propose(observation, step)
        action = self.inner.act(dataclasses.replace(observation, messages=tuple(proposal.chat)))
        action = self.revise(observation, proposal, action, step)
        notes: dict[str, Any] = {"method": self.method}
        if observation.round == 1 or not observation.history:
            notes["start_score"] = observation.verdict.score
            notes["options"] = dict(self.options)
        if self.records_feedback:
            notes["feedback"] = last_user(observation.messages)
        if learned is not None:
            notes["learned"] = learned
        notes.update(proposal.notes)
        notes.update(step.notes)
        if step.calls:
            notes["aux"] = step.calls
        usage = action.usage if step.usage is None else action.usage + step.usage
        changed = tuple(proposal.chat) != tuple(observation.messages)
        return Action(program=action.program, diagnosis=action.diagnosis, raw=action.raw, usage=usage,
                      error=action.error, messages=tuple(proposal.chat) if changed else action.messages,
                      notes=notes)


# ----- rebuilding what happened from the history -------------------------------------------------------

@dataclass(frozen=True)
class Replay:
    """What a round replays from its observation: the starting design, the earlier attempts in
    order, and what the method learned from each of them but the latest (round k's `learn`
    record is stored in round k+1's notes under "learned"; None where there is none)."""

    root: Attempt
    attempts: tuple[Attempt, ...]
    learned: tuple[dict[str, Any] | None, ...]


def attempts_of(obs: Observation) -> Replay:
    """The replay of an observation's history (core.records.RoundRecord, each with the report it
    showed as its own field): every attempt carries the report the loop showed on it next, where
    the method kept that round's message (`records_feedback`), and the observation's own report
    for the latest."""
    history = sorted(obs.history or (), key=lambda h: h.round)
    notes = [h.method_notes or {} for h in history]
    first = notes[0] if notes else {}
    start = first.get("start_score", obs.verdict.score) if history else obs.verdict.score
    root = Attempt.start(_num(start), report=_shown_report(obs, history, 0, first if history else None))
    attempts, learned = [], []
    for i, h in enumerate(history):
        nxt = notes[i + 1] if i + 1 < len(history) else None
        attempts.append(Attempt.of_round(h, report=_shown_report(obs, history, i + 1, nxt)))
        if nxt is not None:
            then = nxt.get("learned")
            learned.append(then if isinstance(then, dict) else None)
    return Replay(root, tuple(attempts), tuple(learned))


def _shown_report(obs: Observation, history: list, k: int, notes_after: dict[str, Any] | None) -> str | None:
    """The report on the state after attempt k (0: the start) as the loop showed it: round k+1's
    record (its report field), the observation's own for the latest; None where the method never
    knew it (it did not keep that round's message) or the observation carries no report."""
    if notes_after is None:
        return obs.report or None
    if "feedback" not in notes_after or k >= len(history):
        return None
    return history[k].report


def _num(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        return None
    return float(x)


# ----- helpers shared by the methods -------------------------------------------------------------------

def plain_text_twin(inner: Any) -> Any:
    """The agent to use for auxiliary (free-text) calls: the same endpoint without the structured
    {diagnosis, script} output format, so a reflection is not forced into a program's schema."""
    config = getattr(inner, "config", None)
    if config is not None and getattr(config, "structured", False) and dataclasses.is_dataclass(config):
        return type(inner)(dataclasses.replace(config, structured=False))
    return inner


def last_user(messages: tuple[dict[str, str], ...] | list[dict[str, str]]) -> str:
    for m in reversed(list(messages)):
        if m.get("role") == "user":
            return str(m.get("content", ""))
    return ""


def task_text(obs: Observation) -> str:
    """The task as the agent is shown it (the system prompt)."""
    msgs = list(obs.messages)
    return str(msgs[0].get("content", "")) if msgs and msgs[0].get("role") == "system" else ""


def with_section(messages: tuple[dict[str, str], ...], title: str, body: str) -> tuple[dict[str, str], ...]:
    """The chat with a section appended to its last user message."""
    msgs = [dict(m) for m in messages]
    for i in range(len(msgs) - 1, -1, -1):
        if msgs[i].get("role") == "user":
            msgs[i]["content"] = f"{msgs[i]['content']}\n\n## {title}\n{body.strip()}"
            break
    return tuple(msgs)


def aux_text(text: str, limit: int = 2000) -> str:
    """Free text from an auxiliary answer ('' when there is none). A model that answered in JSON
    anyway is read for its text field."""
    t = (text or "").strip()
    if t.startswith("{"):
        obj = json_payload(t)
        if isinstance(obj, dict):
            for key in ("reflection", "critique", "review", "text", "diagnosis", "content"):
                if isinstance(obj.get(key), str) and obj[key].strip():
                    t = obj[key].strip()
                    break
    return t[:limit]


def json_payload(text: str) -> Any:
    """The first JSON object or array in a text (fenced or not); None when there is none."""
    t = (text or "").strip()
    fence = re.search(r"```(?:json)?[ \t]*\n(.*?)```", t, re.DOTALL | re.IGNORECASE)
    candidates = [fence.group(1)] if fence else []
    candidates.append(t)
    for c in candidates:
        for i, ch in enumerate(c):
            if ch in "[{":
                try:
                    obj, _ = json.JSONDecoder().raw_decode(c[i:])
                    return obj
                except json.JSONDecodeError:
                    continue
    return None


def program_block(program: str | None, limit: int = 8000) -> str:
    if program is None:
        return "(no program)"
    text = program if len(program) <= limit else program[:limit] + "\n# ... (cut)\n"
    return f"```python\n{text.rstrip()}\n```"


def seeded_rng(obs: Observation, *salt: Any) -> random.Random:
    """Randomness that depends only on the task, the run, the round and the salt."""
    key = "|".join(str(x) for x in (obs.task.id, obs.run, obs.round, *salt))
    return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))


def rank(attempts: list[Attempt]) -> list[Attempt]:
    """Scored attempts, best first (ties: the earlier one)."""
    return sorted((a for a in attempts if a.valid), key=lambda a: (-a.value, a.index))


def describe_attempt(a: Attempt, title: str, report_limit: int = 3000) -> str:
    """An attempt for an auxiliary prompt: its label and score, its program (the starting design is
    named, not quoted), and what the simulator reported on it (or what became of it)."""
    program = "(the program given in the task description)" if a.index == 0 else program_block(a.program)
    what = report_of(a) or a.outcome or "(no report kept)"
    return f"## {title}: {attempt_label(a)}, {score_text(a)}\n{program}\n\nWhat the simulator reported:\n{what[:report_limit]}"


def design_chat(obs: Observation, parent: Attempt, sections: list[tuple[str, str]], ask: str) -> tuple[dict[str, str], ...]:
    """A chat for search methods: the task, then the design to improve with its report, then the
    method's sections and the request. (The loop's chat of earlier rounds is not used: a search
    method chooses which design to build on.)"""
    parts = [f"Round {obs.round} of {obs.budget}."]
    head = f"## The design to improve: {attempt_label(parent)}, {score_text(parent)}"
    parts.append(head + ("" if parent.program is None else "\n" + program_block(parent.program)))
    report = report_of(parent) or "(no report kept)"
    parts.append(f"## The verifier's report on it\n{report}")
    for title, body in sections:
        if body.strip():
            parts.append(f"## {title}\n{body.strip()}")
    parts.append(ask)
    system = [m for m in obs.messages[:1] if m.get("role") == "system"]
    return tuple(system + [{"role": "user", "content": "\n\n".join(parts)}])


def int_option(value: Any, name: str, low: int = 1) -> int:
    try:
        v = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"option {name} must be an integer, got {value!r}") from None
    if v < low:
        raise ValueError(f"option {name} must be at least {low}, got {v}")
    return v
