"""The records of a run, typed: one definition the loop writes and its readers read.

A run's attempts.jsonl holds three kinds of record, each a frozen dataclass here: `RoundRecord`
(one round: the program, what became of it, the verdict, the chat, the report the agent was
shown), `InfraErrorRecord` (the agent or the verifier could not be asked; the round is played
again on resume) and `EndRecord` (the episode is over). `to_dict` is the JSON object the store
writes; `RoundRecord.from_dict` reads one back from a checked record (run/records.check_record,
which also upgrades the older formats to this one). `FORMAT` is the store's format version.

Formats: 1 (legacy, no version), 2 (`store_format` on every record and config.json, the harness
failure of a round), 3 (a round's `report`: the verifier report the agent was shown that round,
its own field; recovered from the round's chat when a format 1 or 2 record is read:
`report_from_prompt`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

FORMAT = 3
FORMAT_KEY = "store_format"
LEGACY_FORMAT = 1

#: The line of a round's feedback that the report follows (core.rounds.round_feedback writes it).
ROUND_LINE = re.compile(r"^Round (\d+) of (\d+)\.[ \t]*$", re.MULTILINE)


def split_feedback(text: str) -> tuple[str, str]:
    """(what happened to the previous program, the report) of a round's feedback message."""
    m = ROUND_LINE.search(text or "")
    if not m:
        return "", (text or "").strip()
    return text[:m.start()].strip(), text[m.end():].strip()


def report_from_prompt(prompt: list[dict[str, Any]] | tuple[dict[str, Any], ...], notes: dict[str, Any]) -> str:
    """The report a round of format 1 or 2 showed the agent, as far as its record keeps it: after
    the round line of the loop's message (a method's own record of that message first, since a
    method may have sent another chat)."""
    loop_message = notes.get("feedback") if isinstance(notes.get("feedback"), str) else None
    if loop_message is None:
        users = [m.get("content") for m in prompt if isinstance(m, dict) and m.get("role") == "user"]
        loop_message = users[-1] if users and isinstance(users[-1], str) else ""
    return split_feedback(loop_message)[1]


@dataclass(frozen=True)
class RoundRecord:
    """One round of an episode, as the loop writes it and every reader reads it.

    `program` is the program's process result (ProgramResult.to_dict) or None when there was
    none to run; `verdict` the verdict the round ended with (its own when its artefact was
    verified, else the one it started from); `report` the verifier report the agent was shown
    at the start of the round; `prompt` the chat sent. `harness_error` names the step the trusted
    side failed on (core.attempt.HarnessFailure.to_dict), `verify_seconds` is present when the
    artefact was verified."""

    round: int
    task: str = ""
    level: str = ""
    run: int = 0
    script: str | None = None
    error: str = ""
    errors_before: tuple[str, ...] = ()
    errors_after: tuple[str, ...] = ()
    score_before: float | None = None
    score: float | None = None
    program: dict[str, Any] | None = None
    accepted: bool = False
    rejected: bool = False
    passed: bool = False
    verdict: dict[str, Any] | None = None
    harness_error: dict[str, str] | None = None
    verify_seconds: float | None = None
    report: str = ""
    prompt: tuple[dict[str, str], ...] = ()
    answer: str = ""
    diagnosis: str = ""
    usage: dict[str, Any] = field(default_factory=dict)
    method_notes: dict[str, Any] = field(default_factory=dict)
    agent_seconds: float | None = None

    @property
    def ran(self) -> bool:
        """The program ran to its end (a valid generation)."""
        return self.program is not None and self.program.get("status") == "ok"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "round", "task": self.task, "level": self.level, "round": self.round, "script": self.script,
            "error": self.error, "errors_before": list(self.errors_before), "errors_after": list(self.errors_after),
            "score_before": self.score_before, "score": self.score, "program": self.program,
            "accepted": self.accepted, "rejected": self.rejected, "passed": self.passed, "verdict": self.verdict,
            "report": self.report, "prompt": [dict(m) for m in self.prompt], "answer": self.answer,
            "diagnosis": self.diagnosis, "usage": self.usage, "method_notes": self.method_notes,
        }
        if self.run:
            out["run"] = self.run
        if self.harness_error is not None:
            out["harness_error"] = self.harness_error
        if self.verify_seconds is not None:
            out["verify_seconds"] = self.verify_seconds
        if self.agent_seconds is not None:
            out["agent_seconds"] = self.agent_seconds
        return out

    @classmethod
    def from_dict(cls, rec: dict[str, Any]) -> RoundRecord:
        """A round record read back: `rec` as run/records.check_record returns it (every field a
        reader needs present and of its type, upgraded to this format)."""
        seconds = rec.get("verify_seconds")
        agent_seconds = rec.get("agent_seconds")
        return cls(
            round=rec["round"], task=rec["task"], level=rec["level"], run=rec.get("run", 0), script=rec["script"],
            error=rec["error"] or "", errors_before=tuple(rec["errors_before"]),
            errors_after=tuple(rec["errors_after"]), score_before=rec["score_before"], score=rec["score"],
            program=rec["program"], accepted=rec["accepted"], rejected=rec["rejected"], passed=rec["passed"],
            verdict=rec["verdict"], harness_error=rec.get("harness_error"),
            verify_seconds=seconds if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) else None,
            report=rec["report"], prompt=tuple(rec["prompt"]), answer=rec["answer"], diagnosis=rec["diagnosis"],
            usage=rec["usage"], method_notes=rec["method_notes"],
            agent_seconds=agent_seconds if isinstance(agent_seconds, (int, float)) and not isinstance(agent_seconds, bool)
            else None)


@dataclass(frozen=True)
class InfraErrorRecord:
    """The agent could not be asked, or the verifier failed on its own account: never the agent's
    round; a resumed run plays that round again."""

    task: str
    level: str
    round: int
    error: str
    seconds: float
    run: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"type": "infra_error", "task": self.task, "level": self.level, **({"run": self.run} if self.run else {}),
                "round": self.round, "error": self.error, "seconds": self.seconds}

    @classmethod
    def from_dict(cls, rec: dict[str, Any]) -> InfraErrorRecord:
        """An infrastructure error read back from a checked record (run/records.check_record)."""
        seconds = rec.get("seconds")
        return cls(task=rec["task"], level=rec["level"], round=rec["round"], error=rec["error"],
                   seconds=float(seconds) if isinstance(seconds, (int, float)) and not isinstance(seconds, bool)
                   else 0.0, run=rec.get("run", 0))


@dataclass(frozen=True)
class EndRecord:
    """The episode is over: solved, out of rounds (budget) or stopped by invalid generations."""

    task: str
    level: str
    solved: bool
    reason: str
    rounds: int
    run: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"type": "end", "task": self.task, "level": self.level, **({"run": self.run} if self.run else {}),
                "solved": self.solved, "reason": self.reason, "rounds": self.rounds}

    @classmethod
    def from_dict(cls, rec: dict[str, Any]) -> EndRecord:
        """An episode's end read back from a checked record (run/records.check_record)."""
        return cls(task=rec["task"], level=rec["level"], solved=rec["solved"], reason=rec["reason"],
                   rounds=rec["rounds"], run=rec.get("run", 0))


@dataclass
class EpisodeLog:
    """What the store holds about one episode x level, typed: its round records in round order,
    its infrastructure errors and its end record (None while the episode is unfinished)."""

    rounds: list[RoundRecord] = field(default_factory=list)
    infra_errors: list[InfraErrorRecord] = field(default_factory=list)
    end: EndRecord | None = None


__all__ = ["EndRecord", "EpisodeLog", "FORMAT", "FORMAT_KEY", "InfraErrorRecord", "LEGACY_FORMAT", "RoundRecord",
           "report_from_prompt", "split_feedback"]
