"""The audit's interactive episode (core.interactive): one session in which the model runs code in
its sandboxed workspace with `python` and reads the output, then hands in its audit with
`submit(script)`. Each submission runs in a fresh work directory holding only params.json and
CONTRACT.md (what the interface notes promise, and what the variant re-runs use), is graded at once
as a round's program is, and counts against the suite's attempt budget (3); the model is shown the
grader's report at the episode's evidence level (at L1 exit code, output tail and failed checks, as
the seed's auditor was). Every script, a python call's or a submission's, runs for at most the
suite's program timeout and never past the session's wall budget. The session ends
at a pass, when the budget is spent, or at `finish`; its verdict is the last submission's (none:
the verdict of no run).

A session lives in a directory of the run (`base`): `workspace/` (the sandbox's work directory, kept
between python calls) and `calls.jsonl` (ours, never in the sandbox: each python, submit and finish
call's result, a submission's verdict, and a harness end), appended and fsynced when the call is done.
A resumed session reads it back: the submissions keep their count and verdicts, and a call that was
in flight at a kill is recovered from it when it completed, else run again.
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from simreflect.core.evidence import EvidenceLevel
from simreflect.core.interactive import ModelTurn, ToolCall, Transcript
from simreflect.core.program import refuse_program
from simreflect.core.sandbox import SANDBOX_WORKDIR, UnsafeWorkspaceFile, run_sandboxed, write_workspace_file
from simreflect.core.untrusted import JsonLimits, Refusal, load_json
from simreflect.core.verdict import Verdict
from simreflect.suites.audit.suite import SCRIPT_LIMITS, SCRIPT_TIMEOUT_S

WORKSPACE, CALLS = "workspace", "calls.jsonl"
TOOL_SCRIPT = "tool_call.py"
#: calls.jsonl is ours, but a run directory from elsewhere is data too.
CALLS_LIMITS = JsonLimits(max_bytes=16 << 20, max_depth=64, max_items=1 << 22, max_string_chars=8 << 20,
                          nonfinite="allow", surrogates="replace")
_KINDS = ("python", "submit", "finish", "end")


@dataclass(frozen=True)
class CallEntry:
    """One completed call of the session (or the harness's end): what the model was shown, and a
    submission's verdict."""

    kind: str
    shown: str
    status: str = "ok"
    verdict: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "shown": self.shown, "status": self.status, "verdict": self.verdict}

    @classmethod
    def from_dict(cls, d: Any) -> CallEntry:
        if not isinstance(d, dict) or d.get("kind") not in _KINDS or not isinstance(d.get("shown"), str):
            raise ValueError("not a call entry")
        verdict = d.get("verdict")
        if verdict is not None:
            Verdict.from_dict(verdict)  # a verdict that does not rebuild is no entry
        return cls(d["kind"], d["shown"], str(d.get("status", "ok")), verdict)


def read_calls(path: Path) -> list[CallEntry]:
    """The entries of calls.jsonl in order; a damaged line (a kill cut it short) is skipped."""
    if not Path(path).is_file():
        return []
    out = []
    for raw in Path(path).read_bytes().split(b"\n"):
        if not raw.strip():
            continue
        try:
            out.append(CallEntry.from_dict(load_json(raw, CALLS_LIMITS, CALLS)))
        except (Refusal, ValueError, KeyError, TypeError):
            continue
    return out


@dataclass
class AuditWorld:
    """One audit session behind the World protocol of core.interactive. `suite` and `task` grade a
    submission exactly as a round's program is graded (suite.run_program, suite.verify)."""

    suite: Any
    task: Any
    base: Path
    level: EvidenceLevel = EvidenceLevel.L1  # what a submission's report shows (the seed's auditor: L1)
    budget: int = 3
    tools: tuple[str, ...] = ("python", "submit", "finish")
    entries: list[CallEntry] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.base = Path(self.base)
        self.workspace = self.base / WORKSPACE
        if not self.workspace.is_dir():
            self.workspace.mkdir(parents=True)
            self.suite.prepare_workspace(self.task, self.workspace)
        self.log = Transcript(self.base / CALLS)  # the same append-and-fsync writer
        self.entries = read_calls(self.base / CALLS)

    # ----- state ---------------------------------------------------------------------------------

    def _calls(self) -> list[CallEntry]:
        return [e for e in self.entries if e.kind != "end"]

    def submissions(self) -> list[CallEntry]:
        return [e for e in self.entries if e.kind == "submit"]

    def verdict(self) -> Verdict | None:
        """The last submission's verdict (None before the first)."""
        subs = self.submissions()
        return Verdict.from_dict(subs[-1].verdict) if subs else None

    def _record(self, entry: CallEntry) -> CallEntry:
        self.log.append(entry)
        self.entries.append(entry)
        return entry

    # ----- the World protocol --------------------------------------------------------------------

    def commands(self) -> int:
        return len(self._calls())

    def sim_time(self) -> float:
        return 0.0

    def ended(self) -> tuple[str, str] | None:
        subs = self.submissions()
        if subs and self.verdict().passed:
            return "passed", f"submission {len(subs)} passed"
        if len(subs) >= self.budget:
            return "attempts", f"the {self.budget} submissions are spent"
        for e in self.entries:
            if e.kind == "finish":
                return "finish", "finished by the model"
            if e.kind == "end":
                return "harness", e.shown
        return None

    def end(self, reason: str) -> None:
        if self.ended() is None:
            self._record(CallEntry("end", reason[:2000]))

    def finish(self, summary: str) -> str:
        left = self.budget - len(self.submissions())
        shown = ("The session is finished: " + (f"the last of {len(self.submissions())} submission(s) is graded."
                                                  if self.submissions() else "nothing was submitted, so nothing passes."))
        return self._record(CallEntry("finish", shown + (f" ({left} submission(s) were left.)" if left else ""))).shown

    def call(self, call: ToolCall, time_left_s: float = SCRIPT_TIMEOUT_S) -> tuple[str, str]:
        # a script may run for the suite's program timeout, and never past the session's wall budget
        timeout = max(1.0, min(SCRIPT_TIMEOUT_S, time_left_s))
        if call.name == "submit":
            return self._submit(call.arguments["script"], timeout)
        return self._python(call.arguments["code"], timeout)

    def recover(self, call: ToolCall, commands_before: int) -> str | None:
        """A call in flight at the kill that completed has its entry: its result is what it showed."""
        done = self._calls()[commands_before:]
        return done[0].shown if done else None

    def close(self) -> None:
        pass

    # ----- tools ---------------------------------------------------------------------------------

    def _python(self, code: str, timeout_s: float) -> tuple[str, str]:
        try:
            write_workspace_file(self.workspace, TOOL_SCRIPT, code)
        except (UnsafeWorkspaceFile, OSError, ValueError) as e:
            return "error", f"tool error: cannot write the code into the workspace: {type(e).__name__}"
        result = run_sandboxed([sys.executable, f"{SANDBOX_WORKDIR}/{TOOL_SCRIPT}"], self.workspace,
                               replace(SCRIPT_LIMITS, wall_s=timeout_s, cpu_s=timeout_s))
        head = f"exit: {result.exit_code} ({result.status}{': ' + result.reason if result.reason else ''})"
        entry = CallEntry("python", f"{head}\noutput:\n{result.output_tail}", "ok" if result.ok else "error")
        return entry.status, self._record(entry).shown

    def _submit(self, script: str, timeout_s: float) -> tuple[str, str]:
        refused = refuse_program(script)
        if refused is not None:  # never a program: a malformed call, not counted
            return "error", f"tool error: submission refused: {refused.reason}"
        n = len(self.submissions()) + 1
        with tempfile.TemporaryDirectory(prefix="simreflect-audit-submit-") as tmp:
            work = Path(tmp) / "work"
            self.suite.prepare_workspace(self.task, work)
            run = self.suite.run_program(self.task, script, work, timeout_s)
            verdict = self.suite.verify(self.task, work, run)
        report = self.suite.observe(self.task, verdict, self.level)
        left = self.budget - n
        tail = ("The audit passed: the session ends." if verdict.passed else
                f"{left} submission(s) left." if left else "No submission left: the session ends.")
        shown = f"Submission {n} of {self.budget}: {'passed' if verdict.passed else 'not passed'}.\n{report}\n{tail}"
        entry = CallEntry("submit", shown, "ok", verdict.to_dict())
        return ("ok" if verdict.passed else "error"), self._record(entry).shown


def no_submission_verdict(suite: Any, task: Any) -> Verdict:
    """The verdict of a session that submitted nothing: the grade of a workspace where nothing ran."""
    with tempfile.TemporaryDirectory(prefix="simreflect-audit-none-") as tmp:
        work = Path(tmp) / "work"
        suite.prepare_workspace(task, work)
        return suite.verify(task, work)


class ReferenceSubmitAgent:
    """The interactive oracle: submits the task's reference at once, then finishes."""

    name = "oracle"
    text_protocol = False

    def __init__(self, reference: str):
        self.reference = reference

    def turn(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelTurn:
        submitted = any(isinstance(m, dict) and m.get("role") == "tool" for m in messages)
        name, args = ("finish", {"summary": "the reference was submitted"}) if submitted else (
            "submit", {"script": self.reference})
        call = {"id": f"call_{int(submitted)}", "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)}}
        return ModelTurn({"role": "assistant", "content": "", "tool_calls": [call]})

