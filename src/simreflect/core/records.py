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

import math
import re
from dataclasses import dataclass, field
from typing import Any

FORMAT = 3
FORMAT_KEY = "store_format"
LEGACY_FORMAT = 1

#: Characters of a rejection's reason shown to the agent.
MAX_REASON_CHARS = 600

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

    @property
    def failure(self) -> str | None:
        """What went wrong with the round's answer or program, as the summary, the viewer and a
        trajectory's invalid attempt say it (None: nothing did)."""
        prog = self.program or {}
        if self.error:
            return self.error
        if self.harness_error:
            f = self.harness_error
            return (f"the harness failed on this round ({f.get('stage')} raised {f.get('type')}: "
                    f"{f.get('message')})")
        return None if self.program is None or self.ran else f"{prog['status']}: {prog['reason']}"

    @property
    def output_tail(self) -> str:
        """The end of what the round's program printed ("" when it did not run)."""
        return (self.program or {}).get("output_tail", "")

    @property
    def outcome(self) -> str:
        """What became of the round's answer, as the next round's feedback tells the agent: not
        used, failed, rejected, or checked (core.rounds.round_feedback opens with it)."""
        prog = self.program or {}
        if self.error:
            return f"Your previous answer was not used: {self.error}."
        if prog.get("status") != "ok":
            tail = (prog.get("output_tail") or "").strip()
            return (f"Your previous script failed ({prog.get('status')}: {prog.get('reason')}); nothing it did "
                    "was kept." + (f" Its output ended with:\n{tail}" if tail else ""))
        if self.rejected:
            why = str((self.verdict or {}).get("invalid") or "")[:MAX_REASON_CHARS]
            return ("Your previous script ran, but the verifier could not accept what it left"
                    + (f" ({why})" if why else "") + "; nothing it did was kept.")
        return "Your previous script ran; the verifier checked what it left."

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


#: The version of an interactive session's transcript (core.interactive): its own file of the run,
#: beside attempts.jsonl, so the attempt log's format and readers stay as they are.
TRANSCRIPT_FORMAT = 1
TRANSCRIPT_KEY = "transcript_format"


@dataclass(frozen=True)
class TurnRecord:
    """One model turn of an interactive session, written as soon as the model has answered and
    before any of its tool calls runs: the assistant message as it goes back into the chat (its
    tool calls, each arguments string bounded), the tokens and latency of the call, and where the
    session stood (wall seconds used, simulated time, commands recorded by the world). What the
    model was sent for this turn: `prompt_chars` characters of chat, in which the results of
    `elided` earlier tool calls were cut to a head and a note (core.interactive.conversation)."""

    turn: int
    message: dict[str, Any]
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    wall_s: float = 0.0
    sim_time: float = 0.0
    commands: int = 0
    prompt_chars: int = 0
    elided: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"type": "turn", TRANSCRIPT_KEY: TRANSCRIPT_FORMAT, "turn": self.turn, "message": self.message,
                "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "latency_s": round(self.latency_s, 4), "wall_s": round(self.wall_s, 3), "sim_time": self.sim_time,
                "commands": self.commands, "prompt_chars": self.prompt_chars, "elided": self.elided}


@dataclass(frozen=True)
class ToolResultRecord:
    """What one tool call of a turn came to, written before the next call runs: `content` is the
    text the model is shown (already truncated to its budget), `status` ok, error (a malformed call
    or a refused request: the model sees why), or recovered (the call was in flight when the
    harness was killed; its effect was read back from the world, never executed again)."""

    turn: int
    index: int
    call_id: str
    tool: str
    content: str
    status: str = "ok"
    wall_s: float = 0.0
    sim_time: float = 0.0
    commands: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"type": "tool_result", TRANSCRIPT_KEY: TRANSCRIPT_FORMAT, "turn": self.turn, "index": self.index,
                "call_id": self.call_id, "tool": self.tool, "content": self.content, "status": self.status,
                "wall_s": round(self.wall_s, 3), "sim_time": self.sim_time, "commands": self.commands}


@dataclass(frozen=True)
class SessionEndRecord:
    """How an interactive session ended: `budget` is what ended it (finish, wall, turns, tokens, or
    the world's own: actions, sim_seconds, record), `reason` says it in words."""

    budget: str
    reason: str
    turns: int
    commands: int
    sim_time: float
    wall_s: float
    prompt_tokens: int
    completion_tokens: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": "session_end", TRANSCRIPT_KEY: TRANSCRIPT_FORMAT, "budget": self.budget, "reason": self.reason,
                "turns": self.turns, "commands": self.commands, "sim_time": self.sim_time,
                "wall_s": round(self.wall_s, 3), "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens}


# ----- the one attempt type ----------------------------------------------------------------------------

#: An attempt's simulator flags (a suite's AttemptBudget.attempt_flags) and its infrastructure flag.
ATTEMPT_FLAGS = ("constraint_violation", "structural_failure", "numerical_instability", "infra_error")


class ContractError(ValueError):
    """A record that does not satisfy its contract (an attempt, a trajectory)."""


@dataclass(frozen=True)
class Attempt:
    """One attempt of an episode as every reader sees it (analysis, the methods, RL): built from
    its RoundRecord (`of_round`), or the starting design (`start`, index 0).

    `score` is the verifier's score of what the attempt left, None when nothing was scored (no
    program, a program that failed, an artefact the verifier rejected: `invalid_reason` says
    which) or for an infrastructure error. The contract fields (index to the flags) are what a
    trajectory file keeps (`to_dict`); `errors`, `diagnosis`, `outcome` (what the loop told the
    agent became of it), `report` (the verifier report on it the loop showed next; None when not
    known) and `notes` (what a method recorded in its round) come from the records of a run and
    take no part in comparisons."""

    index: int
    score: float | None
    passed: bool
    program: str | None = None
    invalid_reason: str = ""
    constraint_violation: bool = False
    structural_failure: bool = False
    numerical_instability: bool = False
    infra_error: bool = False
    errors: tuple[str, ...] = field(default=(), compare=False)
    diagnosis: str = field(default="", compare=False)
    outcome: str = field(default="", compare=False)
    report: str | None = field(default=None, compare=False)
    notes: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.index, int) or isinstance(self.index, bool) or self.index < 0:
            raise ContractError(f"attempt index must be an int >= 0, got {self.index!r}")
        if self.score is not None:
            if isinstance(self.score, bool) or not isinstance(self.score, (int, float)):
                raise ContractError(f"attempt {self.index}: score must be a number or None, got {self.score!r}")
            if not math.isfinite(self.score):
                raise ContractError(f"attempt {self.index}: score {self.score!r} is not finite; report a blow-up as "
                                    "numerical_instability=True with the evaluator's finite score")
            object.__setattr__(self, "score", float(self.score))
        if self.passed and self.score is None:
            raise ContractError(f"attempt {self.index}: passed without a score")
        if self.infra_error and (self.score is not None or self.passed):
            raise ContractError(f"attempt {self.index}: an infrastructure error carries no score and no pass")

    @classmethod
    def of_round(cls, record: RoundRecord, flags: dict[str, bool] | None = None, report: str | None = None) -> Attempt:
        """The attempt a round made. `flags`: the suite's attempt_flags of its verdict (kept only
        when the attempt was scored); `report`: the report the loop showed on it next."""
        scored = record.accepted and _finite(record.score)
        if scored:
            reason = ""
        else:
            reason = record.failure or ("the verifier rejected the artefact" if record.rejected else "invalid")
        return cls(index=record.round, score=record.score if scored else None, passed=scored and record.passed,
                   program=record.script, invalid_reason=reason, **(flags if scored and flags else {}),
                   errors=tuple(record.errors_after), diagnosis=record.diagnosis, outcome=record.outcome,
                   report=report, notes=record.method_notes)

    @classmethod
    def start(cls, score: Any, report: str | None = None) -> Attempt:
        """Attempt 0: the workspace as the task gives it (the source design), not a model attempt."""
        return cls(index=0, score=float(score) if _finite(score) else None, passed=False, report=report)

    @property
    def valid(self) -> bool:
        """Evaluated by the simulator (has a score) and not an infrastructure error."""
        return self.score is not None and not self.infra_error

    @property
    def value(self) -> float:
        """The score as a search value: -inf when nothing was scored."""
        return self.score if self.valid else float("-inf")

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "score": self.score, "passed": self.passed, "program": self.program,
                "invalid_reason": self.invalid_reason, **{f: getattr(self, f) for f in ATTEMPT_FLAGS}}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Attempt:
        """Read an attempt of a trajectory file; flags may be top-level keys or grouped under "flags"."""
        flags = dict(d.get("flags") or {})
        unknown = set(flags) - set(ATTEMPT_FLAGS)
        if unknown:
            raise ContractError(f"unknown attempt flags: {sorted(unknown)}")
        try:
            return cls(index=d["index"], score=d.get("score"), passed=bool(d["passed"]), program=d.get("program"),
                       invalid_reason=str(d.get("invalid_reason") or ""),
                       **{f: bool(d.get(f, flags.get(f, False))) for f in ATTEMPT_FLAGS})
        except KeyError as exc:
            raise ContractError(f"attempt record lacks {exc.args[0]!r}") from None


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


__all__ = ["ATTEMPT_FLAGS", "Attempt", "ContractError", "EndRecord", "EpisodeLog", "FORMAT", "FORMAT_KEY",
           "InfraErrorRecord", "LEGACY_FORMAT", "RoundRecord", "SessionEndRecord", "TRANSCRIPT_FORMAT", "TRANSCRIPT_KEY",
           "ToolResultRecord", "TurnRecord", "report_from_prompt", "split_feedback"]
