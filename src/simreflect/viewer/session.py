"""An interactive episode's session on its page (run --mode interactive): its turn list (each model reply,
the tool calls and their arguments, each call's result and status, the harness's notes) and how the
session ended, beside the review videos the session's record holds. Everything a model wrote is
escaped. The session's files are looked up where run/interactive.py writes them (never where a
record says), and read only as bounded regular files, never through a link.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from simreflect.core.interactive import ARGUMENT_LIMITS, parse_transcript
from simreflect.core.records import SessionEndRecord, ToolResultRecord, TurnRecord
from simreflect.core.sandbox import UnsafeWorkspaceFile, read_workspace_file
from simreflect.core.untrusted import Refusal, load_json
from simreflect.run.interactive import TRANSCRIPT, session_dir
from simreflect.viewer.markup import e

#: What the viewer reads of a session: a transcript up to this size, a video up to this size, so many videos.
MAX_TRANSCRIPT_BYTES = 64 << 20
MAX_VIDEO_BYTES = 64 << 20
MAX_VIDEOS = 8
MAX_SHOWN_CHARS = 40_000  # of one reply, arguments or result on the page
VIDEO_SUFFIXES = (".mp4", ".gif")


def _real_dir(path: Path) -> bool:
    """`path` is a directory itself, not a link to one."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _session_files(run_dir: Path, row: dict[str, Any]) -> tuple[bytes | None, list[tuple[str, bytes]], str]:
    """The transcript of an episode's session and the review videos of its record (name, bytes),
    or why the transcript is not shown. Every directory on the way must be a directory, not a link."""
    base = session_dir(run_dir, row["task"], row["level"], row.get("run", 0))
    if not all(_real_dir(d) for d in (run_dir / base.parent.name, base)):
        return None, [], "the session's directory is missing or not a directory"
    try:
        transcript = read_workspace_file(base, TRANSCRIPT, MAX_TRANSCRIPT_BYTES)
    except (FileNotFoundError, UnsafeWorkspaceFile, OSError) as e:
        return None, [], f"the transcript is not shown: {e}"
    videos: list[tuple[str, bytes]] = []
    folder = base / "record" / "videos"
    if _real_dir(base / "record") and _real_dir(folder):
        for name in sorted(os.listdir(folder))[:64]:
            if len(videos) < MAX_VIDEOS and name.endswith(VIDEO_SUFFIXES) and re.fullmatch(r"[\w.-]{1,100}", name):
                try:
                    videos.append((name, read_workspace_file(folder, name, MAX_VIDEO_BYTES)))
                except (UnsafeWorkspaceFile, OSError):
                    continue
    return transcript, videos, ""


def _shown(text: Any) -> str:
    text = text if isinstance(text, str) else json.dumps(text, default=str)
    return e(text if len(text) <= MAX_SHOWN_CHARS else text[:MAX_SHOWN_CHARS] + f"\n[{len(text) - MAX_SHOWN_CHARS} more characters]")


def _arguments_text(arguments: Any) -> str:
    """A call's arguments as a reader wants them: each field on its own, code as code (the raw text
    when it is not a JSON object)."""
    try:
        args = load_json(arguments, ARGUMENT_LIMITS, "the arguments") if isinstance(arguments, str) else arguments
    except Refusal:
        return str(arguments)
    if not isinstance(args, dict):
        return arguments if isinstance(arguments, str) else json.dumps(arguments, default=str)
    return "\n".join(f"{k}:" + (f"\n{v}" if isinstance(v, str) and "\n" in v else f" {v if isinstance(v, str) else json.dumps(v)}")
                     for k, v in args.items())


def _turn_calls(message: Any) -> list[tuple[str, str]]:
    """(name, arguments) of each tool call a recorded message holds (a record is data: any shape)."""
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    out = []
    for c in calls if isinstance(calls, list) else []:
        fn = c.get("function") if isinstance(c, dict) else None
        fn = fn if isinstance(fn, dict) else {}
        out.append((str(fn.get("name", "?")), _arguments_text(fn.get("arguments", ""))))
    return out


def turns_html(records: list[Any]) -> str:
    """The session's turn list: each reply, its calls with their results, the harness's notes, the end."""
    results: dict[str, list[ToolResultRecord]] = {}  # by the turn's text: a record's fields may be of any type
    for r in records:
        if isinstance(r, ToolResultRecord):
            results.setdefault(repr(r.turn), []).append(r)
    out = []
    for t in (r for r in records if isinstance(r, TurnRecord)):
        content = t.message.get("content") if isinstance(t.message, dict) else ""
        out.append(f"<div class='turn' id='turn{e(t.turn)}'><h3>Turn {e(t.turn)}</h3>"
                   f"<p class='meta'>tokens {e(t.prompt_tokens)} + {e(t.completion_tokens)}; latency {e(t.latency_s)} s; "
                   f"wall {e(t.wall_s)} s; simulated {e(t.sim_time)} s; commands {e(t.commands)}</p>")
        if content:
            out.append(f"<pre class='reply'>{_shown(content)}</pre>")
        calls = _turn_calls(t.message)
        for res in sorted(results.get(repr(t.turn), []), key=lambda r: r.index if type(r.index) is int else 0):
            k = res.index if type(res.index) is int else -1
            if 0 <= k < len(calls):
                name, args = calls[k]
                out.append(f"<div class='call'><span class='tool'>{e(name)}</span>"
                           f"<pre class='args'>{_shown(args)}</pre>")
            else:  # the harness's own note (a reply that called no tool)
                out.append("<div class='call'><span class='tool'>note</span>")
            out.append(f"<pre class='result {_status_class(res.status)}'>[{e(res.status)}] {_shown(res.content)}</pre></div>")
        out.append("</div>")
    for end in (r for r in records if isinstance(r, SessionEndRecord)):
        out.append(f"<p class='session-end'>session ended ({e(end.budget)}): {e(end.reason)}; turns {e(end.turns)}, "
                   f"commands {e(end.commands)}, wall {e(end.wall_s)} s, simulated {e(end.sim_time)} s, tokens "
                   f"{e(end.prompt_tokens)} + {e(end.completion_tokens)}</p>")
    return "\n".join(out) or "<p>(no turns recorded)</p>"


def _status_class(status: Any) -> str:
    return {"ok": "ok-result", "error": "error-result", "recovered": "recovered-result"}.get(str(status), "")


def session_section(run_dir: Path, out: Path, row: dict[str, Any], stem: str) -> str:
    """The session part of an interactive episode's page; its videos copied into media/ as STEM-NAME."""
    transcript, videos, problem = _session_files(run_dir, row)
    if transcript is None:
        return f"<h2>Session</h2><p class='fail'>{e(problem)}</p>"
    media = []
    for name, data in videos:
        (out / "media" / f"{stem}-{name}").write_bytes(data)
        src = e(f"../media/{stem}-{name}")
        media.append(f"<video controls src='{src}'></video>" if name.endswith(".mp4")
                     else f"<img src='{src}' alt='review video {e(name)}'>")
    side = f"<div class='videos'>{''.join(media)}</div>" if media else ""
    return (f"<h2>Session</h2><div class='session'><div class='turns'>{turns_html(parse_transcript(transcript))}</div>"
            f"{side}</div>")
