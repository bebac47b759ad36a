"""The interactive episode: one attempt is one persistent session that a model drives turn by turn
with tools, until it calls `finish` or a budget ends it; then the suite grades the final state.

Tools (OpenAI-compatible function calls, `TOOL_SPECS`; a suite offers some of them):
    http(method, path, body)   one request to this session's service; its status and JSON reply
    python(code)               code run in the sandbox with the service reachable as for programs;
                               its exit status and output
    submit(script)             hand in a program to be graded now (a suite with an attempt budget:
                               audit); the grader's report comes back
    finish(summary)            end the session; the final state is graded
An endpoint without tool support uses the text protocol (`TEXT_PROTOCOL`): each call is a fenced
block ```tool {"name": ..., "arguments": {...}}```, the results come back in one user message.

Everything the model sends is hostile data (`parse_reply`): at most MAX_CALLS_PER_TURN calls a turn,
arguments of at most MAX_ARGUMENT_CHARS read by the bounded JSON reader, each field checked for its
type and size; a call that fails any of it is a tool error the model is shown, never an exception
of the harness. Results longer than MAX_RESULT_CHARS are cut with a note saying so.

Budgets (`SessionBudgets`): wall seconds for the whole session, model latency included (default
1,200, the seed's 20 minutes), model turns, tokens (prompt + completion, summed over turns), and the
world's own (a workshop's actions and simulated seconds), whichever is spent first. The turn that
spends a budget has its calls run (as the workshop runs the command that spends one), then the
session ends cleanly and `SessionEndRecord.budget` says which.

Records and resume: the transcript (`Transcript`, append-only and fsynced, one file of the run) gets
the model's reply (`TurnRecord`) before any of its calls runs and each call's result
(`ToolResultRecord`) before the next. A resumed session gets a world the suite restored by replaying
its recorded commands; the chat is rebuilt from the transcript; a call that was in flight at the
kill is never run again when the world shows it had an effect (`World.recover` reads the effect
back), and is run when it had none. Wall time between the last record and a kill is not counted.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol, Sequence

from simreflect.core.records import TRANSCRIPT_FORMAT, TRANSCRIPT_KEY, SessionEndRecord, ToolResultRecord, TurnRecord
from simreflect.core.untrusted import JsonLimits, Refusal, clean_text, load_json

#: What the model is shown of one tool result at most, and how much of one call it may send.
MAX_RESULT_CHARS = 40_000
MAX_ARGUMENT_CHARS = 200_000
MAX_CALLS_PER_TURN = 16
MAX_CODE_CHARS = 100_000
MAX_PATH_CHARS = 2_000
MAX_SUMMARY_CHARS = 4_000
MAX_CALL_ID_CHARS = 128
MAX_CONTENT_CHARS = 200_000  # the assistant's own text kept in the chat
HTTP_METHODS = ("GET", "POST")
#: How a call's arguments are read: a command body is a few kB; far more is refused, never parsed.
ARGUMENT_LIMITS = JsonLimits(max_bytes=MAX_ARGUMENT_CHARS, max_depth=16, max_items=100_000, max_string_chars=MAX_CODE_CHARS,
                             max_int_digits=32, max_abs=1e300, nonfinite="refuse", surrogates="refuse")
#: How a transcript line is read back (ours, but a run directory from elsewhere is data too).
TRANSCRIPT_LIMITS = JsonLimits(max_bytes=64 << 20, max_depth=64, max_items=1 << 24, max_string_chars=16 << 20,
                               nonfinite="allow", surrogates="replace")

TOOL_SPECS: dict[str, dict[str, Any]] = {
    "http": {"type": "function", "function": {
        "name": "http",
        "description": "Send one request to this session's service and get its status and JSON reply. "
                       "GET /state?fields=boards,screws returns only the named top-level fields.",
        "parameters": {"type": "object", "properties": {
            "method": {"type": "string", "enum": list(HTTP_METHODS)},
            "path": {"type": "string", "description": "e.g. /state, /spec, /act, /step, /note, /finish"},
            "body": {"type": "object", "description": "the JSON body of a POST (omit for GET)"}},
            "required": ["method", "path"], "additionalProperties": False}}},
    "python": {"type": "function", "function": {
        "name": "python",
        "description": "Run Python code in the sandbox (its work directory persists between calls; a "
                       "workshop session's service URL is in $WORKSHOP_URL). Returns the exit status and the output.",
        "parameters": {"type": "object", "properties": {"code": {"type": "string"}},
                       "required": ["code"], "additionalProperties": False}}},
    "submit": {"type": "function", "function": {
        "name": "submit",
        "description": "Submit a complete script as your answer: it runs in a fresh work directory and is "
                       "graded at once; the grader's report (exit code, output tail, failed checks) comes back. "
                       "Every submission counts against the attempt budget; a pass ends the session.",
        "parameters": {"type": "object", "properties": {"script": {"type": "string"}},
                       "required": ["script"], "additionalProperties": False}}},
    "finish": {"type": "function", "function": {
        "name": "finish",
        "description": "End the session: the final state is graded. Check the measured result first.",
        "parameters": {"type": "object", "properties": {"summary": {"type": "string"}},
                       "required": ["summary"], "additionalProperties": False}}},
}

TEXT_PROTOCOL = """## Tools (text protocol)
Call a tool with a fenced block in your reply, one block per call (at most {calls} a reply):
```tool
{{"name": "{name}", "arguments": {example}}}
```
Tools: {signatures}.
The results come back in the next message, one section per call, in order.
"""

#: Per tool: its signature in the text protocol, what the tools note says of it, an example call.
TOOL_NOTES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "http": ("http(method GET|POST, path, body: object)",
             "http(method, path, body) sends one request to the service and returns its status and JSON reply",
             {"method": "GET", "path": "/state?fields=boards"}),
    "python": ("python(code: string)", "python(code) runs code in the sandbox (its work directory persists "
               "between calls; a service, if the session has one, reachable as for a program)", {"code": "print(1)"}),
    "submit": ("submit(script: string)", "submit(script) runs a complete script in a fresh work directory and "
               "grades it at once, counted against the attempt budget", {"script": "print(1)"}),
    "finish": ("finish(summary: string)", "finish(summary) ends the session and the final state is graded",
               {"summary": "done"}),
}

TOOLS_NOTE = """## Tools
You work in one live session through tool calls: {tools}. A result longer than {limit} characters is
cut with a note. Budgets: {budgets}.
"""

_TOOL_BLOCK = re.compile(r"```tool[ \t]*\n(.*?)```", re.DOTALL)


@dataclass(frozen=True)
class ToolCall:
    """A call that passed every check: `arguments` hold exactly the tool's fields, of their types."""

    call_id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class MalformedCall:
    """A call the harness refused to run, with the reason the model is shown."""

    call_id: str
    name: str
    error: str


@dataclass(frozen=True)
class Reply:
    """A model reply as the harness keeps it: the assistant message that goes back into the chat
    (content cleaned and bounded, tool calls as sent but bounded) and the calls read from it."""

    message: dict[str, Any]
    calls: tuple[ToolCall | MalformedCall, ...]
    dropped: int = 0  # calls past MAX_CALLS_PER_TURN: not run, not kept (the last result says so)


def truncate(text: str, limit: int = MAX_RESULT_CHARS) -> str:
    """`text` cut to `limit` characters, with a note saying how much was left out."""
    if len(text) <= limit:
        return text
    note = f"\n[truncated: {len(text) - limit} of {len(text)} characters left out; ask for less, e.g. GET /state?fields=...]"
    return text[:limit] + note


def _short(value: Any, limit: int = 60) -> str:
    return clean_text(repr(value), limit)[0]


def check_arguments(name: str, args: Any) -> dict[str, Any] | str:
    """The arguments of a call to tool `name` checked field by field, or why they are refused."""
    if not isinstance(args, dict):
        return f"the arguments of {name} are not a JSON object"
    allowed = {"http": ("method", "path", "body"), "python": ("code",), "submit": ("script",),
               "finish": ("summary",)}[name]
    extra = [k for k in args if k not in allowed]
    if extra:
        return f"{name} takes no argument {_short(extra[0])} (it takes {', '.join(allowed)})"
    if name == "http":
        method, path = args.get("method"), args.get("path")
        if not isinstance(method, str) or method.upper() not in HTTP_METHODS:
            return f"http method must be one of {', '.join(HTTP_METHODS)}, not {_short(method)}"
        if not isinstance(path, str) or not path.startswith("/") or len(path) > MAX_PATH_CHARS:
            return f"http path must be a string starting with / of at most {MAX_PATH_CHARS} characters"
        if path.startswith("//") or any(c in path for c in "\r\n\t #\\") or not path.isascii():
            return "http path must be a plain ASCII path on this service (no host, spaces, fragments or escapes)"
        body = args.get("body")
        if body is not None and not isinstance(body, dict):
            return "http body must be a JSON object (or omitted)"
        return {"method": method.upper(), "path": path, "body": body}
    if name in ("python", "submit"):
        field = allowed[0]
        code = args.get(field)
        if not isinstance(code, str) or not code.strip():
            return f"{name} {field} must be a non-empty string"
        if len(code) > MAX_CODE_CHARS:
            return f"{name} {field} is {len(code)} characters, more than the {MAX_CODE_CHARS} accepted"
        return {field: code}
    summary = args.get("summary", "")
    if not isinstance(summary, str):
        return "finish summary must be a string"
    return {"summary": summary[:MAX_SUMMARY_CHARS]}


def _read_call(raw: Any, index: int, tools: Sequence[str]) -> tuple[dict[str, Any], ToolCall | MalformedCall]:
    """One entry of a message's tool_calls: (the entry as kept in the chat, the call read from it)."""
    call_id = f"call_{index}"
    if isinstance(raw, dict) and isinstance(raw.get("id"), str) and 0 < len(raw["id"]) <= MAX_CALL_ID_CHARS:
        call_id = clean_text(raw["id"], MAX_CALL_ID_CHARS)[0]
    fn = raw.get("function") if isinstance(raw, dict) else None
    name = fn.get("name") if isinstance(fn, dict) else None
    arguments = fn.get("arguments") if isinstance(fn, dict) else None
    shown_name = clean_text(name, 64)[0] if isinstance(name, str) else ""
    shown_args = clean_text(arguments, MAX_ARGUMENT_CHARS)[0] if isinstance(arguments, str) else "{}"
    kept = {"id": call_id, "type": "function", "function": {"name": shown_name, "arguments": shown_args}}
    if not isinstance(fn, dict):
        return kept, MalformedCall(call_id, shown_name, "a tool call without a function object")
    if not isinstance(name, str) or name not in tools:
        return kept, MalformedCall(call_id, shown_name, f"no tool {_short(name)}; the tools are {', '.join(tools)}")
    if isinstance(arguments, dict):  # some servers send the object itself
        args: Any = arguments
        kept["function"]["arguments"] = clean_text(json.dumps(arguments)[:MAX_ARGUMENT_CHARS], MAX_ARGUMENT_CHARS)[0]
    elif not isinstance(arguments, str):
        return kept, MalformedCall(call_id, name, f"the arguments of {name} are not a JSON string")
    elif len(arguments) > MAX_ARGUMENT_CHARS:
        return kept, MalformedCall(call_id, name, f"the arguments of {name} are {len(arguments)} characters, "
                                                  f"more than the {MAX_ARGUMENT_CHARS} accepted")
    else:
        try:
            args = load_json(arguments or "{}", ARGUMENT_LIMITS, f"the arguments of {name}")
        except Refusal as e:
            return kept, MalformedCall(call_id, name, clean_text(str(e), 500)[0])
    checked = check_arguments(name, args)
    if isinstance(checked, str):
        return kept, MalformedCall(call_id, name, checked)
    return kept, ToolCall(call_id, name, checked)


def parse_reply(message: Any, tools: Sequence[str], text_protocol: bool = False) -> Reply:
    """The reply a chat-completions `message` holds. Never raises: whatever the model sent becomes
    calls or tool errors. With `text_protocol`, the calls are read from ```tool blocks of the content."""
    msg = message if isinstance(message, dict) else {}
    content = msg.get("content")
    if isinstance(content, list):  # content parts
        content = "".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    text = clean_text(content, MAX_CONTENT_CHARS)[0] if isinstance(content, str) else ""
    kept: dict[str, Any] = {"role": "assistant", "content": text}
    if text_protocol:
        raw_calls: list[Any] = []
        for k, block in enumerate(_TOOL_BLOCK.findall(text)):
            try:
                obj = load_json(block.strip(), ARGUMENT_LIMITS, "the tool block")
            except Refusal as e:
                raw_calls.append({"id": f"call_{k}", "function": {"name": "?", "arguments": "{}"}, "_error": str(e)})
                continue
            if not isinstance(obj, dict):
                obj = {}
            raw_calls.append({"id": f"call_{k}", "function": {"name": obj.get("name"), "arguments": obj.get("arguments", {})}})
    else:
        raw_calls = msg.get("tool_calls") if isinstance(msg.get("tool_calls"), list) else []
    calls: list[ToolCall | MalformedCall] = []
    kept_calls = []
    for k, raw in enumerate(raw_calls[:MAX_CALLS_PER_TURN]):
        entry, call = _read_call(raw, k, tools)
        if isinstance(raw, dict) and "_error" in raw:
            call = MalformedCall(call.call_id, "", clean_text("the tool block is not JSON: " + raw["_error"], 500)[0])
        kept_calls.append(entry)
        calls.append(call)
    ids = [c.call_id for c in calls]
    if len(set(ids)) != len(ids):  # the results must name their calls unambiguously
        calls = [replace(c, call_id=f"call_{k}") for k, c in enumerate(calls)]
        for k, entry in enumerate(kept_calls):
            entry["id"] = f"call_{k}"
    if kept_calls and not text_protocol:
        kept["tool_calls"] = kept_calls
    return Reply(kept, tuple(calls), max(0, len(raw_calls) - MAX_CALLS_PER_TURN))


# ----- the session -------------------------------------------------------------------------------

@dataclass(frozen=True)
class SessionBudgets:
    """The harness's budgets of a session. The turn cap is a safety net, not the binding budget: a
    reference controller making one request a turn needs 184 turns for place, 1,987 for lap and
    5,779 for frame; a model is bound first by the wall time, its tokens or the world's budgets."""

    wall_s: float = 1200.0
    max_turns: int = 10_000
    max_tokens: int = 20_000_000

    def __post_init__(self) -> None:
        if isinstance(self.wall_s, bool) or not isinstance(self.wall_s, (int, float)) or not (
                math.isfinite(self.wall_s) and self.wall_s >= 0):
            raise ValueError(f"wall_s must be a finite number of seconds >= 0, not {self.wall_s!r}")
        for name in ("max_turns", "max_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a whole number >= 0, not {value!r}")


@dataclass(frozen=True)
class ModelTurn:
    """What an interactive agent answered: the chat-completions message and what it cost; what it
    sent (`prompt_chars` characters of chat, `elided` earlier results cut by compact_chat)."""

    message: dict[str, Any]
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    prompt_chars: int = 0
    elided: int = 0


class TurnAgent(Protocol):
    """An agent of interactive episodes: the chat so far and the tool specs in, one message out.
    It raises the agents' InfrastructureError when the endpoint cannot be asked."""

    name: str
    text_protocol: bool

    def turn(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelTurn: ...


class World(Protocol):
    """One live session of a suite, restored by the suite before the loop starts (a resumed
    session's world has replayed its recorded commands)."""

    tools: tuple[str, ...]

    def call(self, call: ToolCall, time_left_s: float) -> tuple[str, str]:
        """Run a checked call (never `finish`) in at most `time_left_s` wall seconds (what the
        session has left): (status ok|error, the text the model is shown)."""

    def recover(self, call: ToolCall, commands_before: int) -> str | None:
        """The result of a call that was in flight when the harness died, read back from the world
        if it had an effect (commands past `commands_before`), else None (it is run again)."""

    def finish(self, summary: str) -> str:
        """End the session on the model's word; the text the model is shown."""

    def ended(self) -> tuple[str, str] | None:
        """(budget, reason) once the world has ended (finished, or one of its budgets spent)."""

    def end(self, reason: str) -> None:
        """End the session (a harness budget was spent) if the world has not ended yet."""

    def sim_time(self) -> float: ...

    def commands(self) -> int: ...


class Transcript:
    """An interactive session's records, one JSON line each, appended and fsynced."""

    def __init__(self, path: Path):
        self.path = Path(path)

    def append(self, record: TurnRecord | ToolResultRecord | SessionEndRecord) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = (json.dumps(record.to_dict(), sort_keys=True) + "\n").encode()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            if os.fstat(fd).st_size and not self._ends_with_newline():
                os.write(fd, b"\n")  # a line a kill cut short stands alone (and is skipped)
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)

    def _ends_with_newline(self) -> bool:
        with open(self.path, "rb") as f:
            f.seek(-1, os.SEEK_END)
            return f.read(1) == b"\n"

    def read(self) -> list[TurnRecord | ToolResultRecord | SessionEndRecord]:
        """The records in order; a line that is damaged, cut short or of another format is skipped."""
        return parse_transcript(self.path.read_bytes()) if self.path.is_file() else []


def parse_transcript(data: bytes) -> list[TurnRecord | ToolResultRecord | SessionEndRecord]:
    """The records of a transcript's bytes in order; a line that is damaged, cut short or of
    another format is skipped."""
    out: list[TurnRecord | ToolResultRecord | SessionEndRecord] = []
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            rec = load_json(raw, TRANSCRIPT_LIMITS, "a transcript line")
            out.append(_record_from(rec))
        except (ValueError, KeyError, TypeError):
            continue
    return out


def _record_from(rec: Any) -> TurnRecord | ToolResultRecord | SessionEndRecord:
    if not isinstance(rec, dict) or rec.get(TRANSCRIPT_KEY) != TRANSCRIPT_FORMAT:
        raise ValueError("not a transcript record of this format")
    fields = {k: v for k, v in rec.items() if k not in ("type", TRANSCRIPT_KEY)}
    kind = {"turn": TurnRecord, "tool_result": ToolResultRecord, "session_end": SessionEndRecord}[rec["type"]]
    out = kind(**fields)
    for f in dataclasses.fields(kind):
        if not _of_type(getattr(out, f.name), str(f.type)):
            raise TypeError(f"a transcript record whose {f.name} is not a {f.type}")
    return out


def _of_type(value: Any, declared: str) -> bool:
    """A transcript field read back is of the type its record declares (a hand-edited or foreign
    file must not put a string where the session sums numbers)."""
    if declared == "int":
        return type(value) is int and value >= 0
    if declared == "float":
        return type(value) in (int, float) and math.isfinite(value) and value >= 0
    if declared == "str":
        return isinstance(value, str)
    return isinstance(value, dict)  # the message


def wall_used(records: Sequence[Any]) -> float:
    """The session's wall seconds as its last record counted them (0 for a new session)."""
    return max([float(r.wall_s) for r in records] + [0.0])


def tool_message(result: ToolResultRecord) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": result.call_id, "content": result.content}


def conversation(opening: list[dict[str, Any]], records: Sequence[Any], text_protocol: bool) -> list[dict[str, Any]]:
    """The chat as the model saw it: the opening messages, then per turn the assistant message and
    its results (tool messages, or one user message in the text protocol; a turn without a call
    gets a user message saying so)."""
    messages = list(opening)
    pending: list[ToolResultRecord] = []

    def flush() -> None:
        if not pending:
            return
        if text_protocol or pending[0].call_id == "":
            messages.append({"role": "user", "content": "\n\n".join(
                f"Result of call {r.index + 1} ({r.tool or 'no call'}):\n{r.content}" for r in pending)})
        else:
            messages.extend(tool_message(r) for r in pending)
        pending.clear()

    for rec in records:
        if isinstance(rec, TurnRecord):
            flush()
            messages.append(rec.message)
        elif isinstance(rec, ToolResultRecord):
            pending.append(rec)
    flush()
    return messages


#: How much of an old tool result compact_chat keeps: its head, then a note saying what was cut.
ELIDED_HEAD_CHARS = 300
#: An old assistant message's own text is kept up to this many characters.
ELIDED_TEXT_CHARS = 2_000


def _elide(text: str, head: int, turn: int, full_turns: int) -> str:
    return (text[:head] + f"\n[elided: {len(text) - head} of {len(text)} characters of this result of turn {turn}; "
            f"only the last {full_turns} turns are shown in full; ask again for what you need]")


def compact_chat(messages: Sequence[dict[str, Any]], full_turns: int) -> tuple[list[dict[str, Any]], int]:
    """The chat with the results of all but the last `full_turns` model turns cut to their head and
    a note (and those turns' own text to ELIDED_TEXT_CHARS); the opening, every tool call and the
    recent turns stay whole. (chat, how many results were cut). `full_turns` 0 keeps everything."""
    out = [dict(m) if isinstance(m, dict) else m for m in messages]
    starts = [k for k, m in enumerate(out) if isinstance(m, dict) and m.get("role") == "assistant"]
    if full_turns <= 0 or len(starts) <= full_turns:
        return out, 0
    elided = 0
    for number, (start, end) in enumerate(zip(starts, starts[1:]), start=1):
        if number > len(starts) - full_turns:
            break
        own = out[start].get("content")
        if isinstance(own, str) and len(own) > ELIDED_TEXT_CHARS:
            out[start]["content"] = own[:ELIDED_TEXT_CHARS] + f"\n[elided: {len(own) - ELIDED_TEXT_CHARS} characters]"
        for k in range(start + 1, end):
            content = out[k].get("content") if isinstance(out[k], dict) else None
            if isinstance(content, str) and len(content) > ELIDED_HEAD_CHARS + 200:
                out[k]["content"] = _elide(content, ELIDED_HEAD_CHARS, number, full_turns)
                elided += 1
    return out, elided


@dataclass(frozen=True)
class SessionOutcome:
    end: SessionEndRecord
    turns: tuple[TurnRecord, ...]
    results: tuple[ToolResultRecord, ...]


NO_CALL = "Your reply called no tool. Work through the tools, and call finish when you are done."


def run_session(agent: TurnAgent, world: World, opening: list[dict[str, Any]], transcript: Transcript,
                budgets: SessionBudgets = SessionBudgets(), clock=time.monotonic) -> SessionOutcome:
    """Play (or resume) one interactive session to its end; the caller grades the world after."""
    records = transcript.read()
    ends = [r for r in records if isinstance(r, SessionEndRecord)]
    turns = [r for r in records if isinstance(r, TurnRecord)]
    results = [r for r in records if isinstance(r, ToolResultRecord)]
    if ends:
        return SessionOutcome(ends[0], tuple(turns), tuple(results))
    wall_before = wall_used(records)
    start = clock()

    def wall() -> float:
        return wall_before + clock() - start

    tokens = [sum(t.prompt_tokens for t in turns), sum(t.completion_tokens for t in turns)]
    tools = [TOOL_SPECS[name] for name in world.tools]
    ended: tuple[str, str] | None = None

    def result(turn: int, index: int, call_id: str, tool: str, status: str, content: str) -> None:
        rec = ToolResultRecord(turn, index, call_id, tool, truncate(content), status, wall(), world.sim_time(),
                               world.commands())
        transcript.append(rec)
        results.append(rec)

    def play_calls(turn: TurnRecord, done: int) -> tuple[str, str] | None:
        reply = parse_reply(turn.message, world.tools, agent.text_protocol)
        if not reply.calls and done == 0:
            result(turn.turn, 0, "", "", "error", NO_CALL)
            return None
        before = ([r.commands for r in results if r.turn == turn.turn] or [turn.commands])[-1]
        for index, call in enumerate(reply.calls[done:], start=done):
            status, text = "error", ""
            recovered = None if isinstance(call, MalformedCall) else world.recover(call, before)
            if isinstance(call, MalformedCall):
                text = f"tool error: {call.error}"
            elif recovered is not None:
                status, text = "recovered", recovered
            elif world.ended() is not None:
                text = "not run: the session has ended"
            elif call.name == "finish":
                status, text = "ok", world.finish(call.arguments["summary"])
            else:
                status, text = world.call(call, max(0.0, budgets.wall_s - wall()))
            if index == len(reply.calls) - 1 and reply.dropped:
                text += f"\n[{reply.dropped} more call(s) in this reply were not run: at most {MAX_CALLS_PER_TURN} a reply]"
            result(turn.turn, index, call.call_id, call.name, status, text)
            before = world.commands()
            over = world.ended()
            if over is not None:
                return over
        return None

    # a turn whose calls were not all answered when the harness died: finish it first
    if turns:
        last = turns[-1]
        done = len([r for r in results if r.turn == last.turn])
        expected = max(1, len(parse_reply(last.message, world.tools, agent.text_protocol).calls))
        if done < expected:
            ended = play_calls(last, done)
    ended = ended or world.ended()
    while ended is None:
        n = len(turns) + 1
        if wall() >= budgets.wall_s:
            ended = ("wall", f"the session's {budgets.wall_s:g} s of wall time are spent")
            break
        if len(turns) >= budgets.max_turns:
            ended = ("turns", f"the {budgets.max_turns} model turns are spent")
            break
        if sum(tokens) >= budgets.max_tokens:
            ended = ("tokens", f"the {budgets.max_tokens} tokens are spent")
            break
        messages = conversation(opening, [*turns_and_results(turns, results)], agent.text_protocol)
        answer = agent.turn(messages, tools)
        reply = parse_reply(answer.message, world.tools, agent.text_protocol)
        turn = TurnRecord(n, reply.message, int(answer.prompt_tokens), int(answer.completion_tokens),
                          float(answer.latency_s), wall(), world.sim_time(), world.commands(),
                          int(answer.prompt_chars), int(answer.elided))
        transcript.append(turn)
        turns.append(turn)
        tokens[0] += turn.prompt_tokens
        tokens[1] += turn.completion_tokens
        if wall() >= budgets.wall_s:  # the model's own latency spent the session
            ended = ("wall", f"the session's {budgets.wall_s:g} s of wall time were spent while the model answered")
            break
        ended = play_calls(turn, 0)
    budget, reason = ended
    world.end(reason)
    end = SessionEndRecord(budget, reason, len(turns), world.commands(), world.sim_time(), wall(), tokens[0], tokens[1])
    transcript.append(end)
    return SessionOutcome(end, tuple(turns), tuple(results))


def turns_and_results(turns: Sequence[TurnRecord], results: Sequence[ToolResultRecord]) -> list[Any]:
    """Turns and results in the order they were written (results after their turn, by index)."""
    by_turn: dict[int, list[ToolResultRecord]] = {}
    for r in results:
        by_turn.setdefault(r.turn, []).append(r)
    out: list[Any] = []
    for t in turns:
        out.append(t)
        out.extend(sorted(by_turn.get(t.turn, []), key=lambda r: r.index))
    return out


def tools_note(budgets: SessionBudgets, world_budgets: str, text_protocol: bool,
               tools: Sequence[str] = ("http", "python", "finish")) -> str:
    """What the opening message says of `tools` (a suite's interactive_tools) and the budgets."""
    text = TOOLS_NOTE.format(tools="; ".join(TOOL_NOTES[t][1] for t in tools), limit=MAX_RESULT_CHARS, budgets=(
        f"{budgets.wall_s:g} s of wall time in all (your thinking included), {budgets.max_turns} turns, "
        f"{budgets.max_tokens} tokens" + (f"; {world_budgets}" if world_budgets else "")))
    if not text_protocol:
        return text
    first = tools[0]
    return text + "\n" + TEXT_PROTOCOL.format(calls=MAX_CALLS_PER_TURN, name=first, example=json.dumps(TOOL_NOTES[first][2]),
                                              signatures=", ".join(TOOL_NOTES[t][0] for t in tools))
