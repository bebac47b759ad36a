"""The run viewer: a static web page of a run (`simreflect view RUN_DIR`).

index.html holds the summary tables, the plot and one line per episode x level; each episode page
shows the task's picture (the GIF of the broken input), and every round: the exact prompt, the
diagnosis, the program with its diff against the previous round's, the program's output and the
errors before and after. An interactive episode (run --mode interactive) shows its session as its
turn list instead: each model reply (its text, the tool calls and their arguments, each call's
result and status, the harness's notes) and how the session ended, beside the review videos the
session's record holds. Everything a model wrote is escaped: a page never runs model output. The
session's files are looked up where run/interactive.py writes them (never where a record says),
and read only as bounded regular files, never through a link.
"""

from __future__ import annotations

import difflib
import html
import json
import os
import re
import shutil
import stat
from pathlib import Path
from typing import Any

from rich.progress import track

from simreflect.analysis.plots import solved_by_level
from simreflect.core.contract import Pictures
from simreflect.core.interactive import ARGUMENT_LIMITS, parse_transcript
from simreflect.core.records import RoundRecord, SessionEndRecord, ToolResultRecord, TurnRecord
from simreflect.core.sandbox import UnsafeWorkspaceFile, read_workspace_file
from simreflect.core.untrusted import Refusal, load_json
from simreflect.core.registry import get_suite
from simreflect.run.interactive import TRANSCRIPT, session_dir
from simreflect.run.report import rows_of, write_report
from simreflect.run.runner import _tasks
from simreflect.run.store import RunStore, episode_key

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5rem auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2rem; } h3 { font-size: 1.05rem; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.9rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.6rem; text-align: left; }
th { background: #f2f2f2; }
pre { background: #f7f7f7; border: 1px solid #ddd; padding: 0.6rem; overflow-x: auto; font-size: 0.8rem;
      white-space: pre-wrap; }
.ok { color: #1a7f37; font-weight: 600; } .fail { color: #cf222e; font-weight: 600; }
.add { color: #1a7f37; } .del { color: #cf222e; } .hunk { color: #8250df; }
.round { border-left: 4px solid #4e79a7; padding-left: 1rem; margin: 1.5rem 0; }
img.pic { max-width: 360px; border: 1px solid #ddd; }
.session { display: flex; gap: 1rem; align-items: flex-start; }
.turns { flex: 1 1 auto; min-width: 0; } .videos { flex: 0 0 360px; position: sticky; top: 0; }
.videos video, .videos img { width: 100%; border: 1px solid #ddd; margin-bottom: 0.5rem; }
.turn { border-left: 4px solid #59a14f; padding-left: 0.8rem; margin: 1rem 0; }
.call { margin: 0.4rem 0 0.8rem; } .tool { font-weight: 600; } .meta { color: #666; font-size: 0.8rem; }
"""

#: What the viewer reads of a session: a transcript up to this size, a video up to this size, so many videos.
MAX_TRANSCRIPT_BYTES = 64 << 20
MAX_VIDEO_BYTES = 64 << 20
MAX_VIDEOS = 8
MAX_SHOWN_CHARS = 40_000  # of one reply, arguments or result on the page
VIDEO_SUFFIXES = (".mp4", ".gif")


def _e(text: Any) -> str:
    """Escaped for HTML; a lone surrogate a model wrote (not encodable text) is shown as its escape."""
    return html.escape(str(text), quote=True).encode("utf-8", "backslashreplace").decode("utf-8")


def _page(title: str, body: str) -> str:
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{_e(title)}</title>"
            f"<style>{STYLE}</style></head><body>{body}</body></html>\n")


def _markdown_tables(md: str) -> str:
    """The summary's markdown (headings, pipe tables, paragraphs) as HTML."""
    out, table = [], []

    def flush():
        if table:
            head, *rows = [r for r in table if not set(r.replace("|", "").replace(" ", "")) <= {"-", ":"}]
            cells = lambda r: [c.strip() for c in r.split("|")]  # noqa: E731
            out.append("<table><tr>" + "".join(f"<th>{_e(c)}</th>" for c in cells(head)) + "</tr>"
                       + "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in cells(r)) + "</tr>" for r in rows)
                       + "</table>")
            table.clear()

    for line in md.splitlines():
        if "|" in line:
            table.append(line)
            continue
        flush()
        heading = re.match(r"^(#{1,4}) (.*)$", line)
        if heading:
            level = min(6, len(heading.group(1)) + 1)
            out.append(f"<h{level}>{_e(heading.group(2))}</h{level}>")
        elif line.strip():
            out.append(f"<p>{_e(line)}</p>")
    flush()
    return "\n".join(out)


def _diff(old: str | None, new: str | None) -> str:
    if old is None or new is None:
        return ""
    lines = []
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), "previous round", "this round", lineterm=""):
        cls = "add" if line.startswith("+") else "del" if line.startswith("-") else "hunk" if line.startswith("@@") else ""
        lines.append(f"<span class='{cls}'>{_e(line)}</span>" if cls else _e(line))
    return "<pre class='diff'>" + ("\n".join(lines) or "(no change)") + "</pre>"


def _status(ok: bool, yes: str = "solved", no: str = "not solved") -> str:
    return f"<span class='ok'>{yes}</span>" if ok else f"<span class='fail'>{no}</span>"


def _episode_page(row: dict[str, Any], rounds: list[RoundRecord], picture: str | None, session: str = "") -> str:
    body = ["<p><a href='../index.html'>&larr; run summary</a></p>",
            f"<h1>{_e(row['task'])} at {_e(row['level'])}: {_status(row['solved'])}</h1>",
            f"<p>subsets: {_e(', '.join(row['subsets']))}; rounds used {row['rounds_used']}; "
            f"scripts crashed {row['crashes']}/{row['scripts']}; tokens {row['tokens']:,}</p>"]
    if picture:
        body.append(f"<img class='pic' src='../media/{_e(picture)}' alt='the task as given'>")
    if row["infra_errors"]:
        body.append("<p class='fail'>infrastructure errors (not scored): " + _e("; ".join(row["infra_errors"])) + "</p>")
    previous = None
    for r in rounds:
        prompt = "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in r.prompt)
        body.append(f"<div class='round' id='round{r.round}'><h2>Round {r.round}</h2>")
        body.append(f"<p>errors before: {_e(', '.join(r.errors_before) or 'none')} &rarr; after: "
                    f"{_e(', '.join(r.errors_after) or 'none')}</p>")
        if r.failure:
            body.append(f"<p class='fail'>{_e(r.failure)}</p>")
        body.append(f"<details><summary>prompt ({len(prompt):,} characters)</summary><pre>{_e(prompt)}</pre></details>")
        if "interactive" in (r.method_notes or {}):  # its turns are the session below
            body.append("</div>")
            continue
        body.append(f"<h3>Diagnosis</h3><pre class='diagnosis'>{_e(r.diagnosis or '-')}</pre>")
        body.append(f"<h3>Program</h3><pre class='script'>{_e(r.script if r.script is not None else '(none)')}</pre>")
        if previous is not None and r.script is not None:
            body.append(f"<details open><summary>diff against the previous round</summary>{_diff(previous, r.script)}</details>")
        if r.output_tail:
            body.append(f"<details><summary>program output</summary><pre>{_e(r.output_tail)}</pre></details>")
        body.append("</div>")
        if r.script is not None:
            previous = r.script
    if session:
        body.append(session)
    return _page(f"{row['task']} {row['level']}", "\n".join(body))


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
    return _e(text if len(text) <= MAX_SHOWN_CHARS else text[:MAX_SHOWN_CHARS] + f"\n[{len(text) - MAX_SHOWN_CHARS} more characters]")


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


def _turns_html(records: list[Any]) -> str:
    """The session's turn list: each reply, its calls with their results, the harness's notes, the end."""
    results: dict[str, list[ToolResultRecord]] = {}  # by the turn's text: a record's fields may be of any type
    for r in records:
        if isinstance(r, ToolResultRecord):
            results.setdefault(repr(r.turn), []).append(r)
    out = []
    for t in (r for r in records if isinstance(r, TurnRecord)):
        content = t.message.get("content") if isinstance(t.message, dict) else ""
        out.append(f"<div class='turn' id='turn{_e(t.turn)}'><h3>Turn {_e(t.turn)}</h3>"
                   f"<p class='meta'>tokens {_e(t.prompt_tokens)} + {_e(t.completion_tokens)}; latency {_e(t.latency_s)} s; "
                   f"wall {_e(t.wall_s)} s; simulated {_e(t.sim_time)} s; commands {_e(t.commands)}</p>")
        if content:
            out.append(f"<pre class='reply'>{_shown(content)}</pre>")
        calls = _turn_calls(t.message)
        for res in sorted(results.get(repr(t.turn), []), key=lambda r: r.index if type(r.index) is int else 0):
            k = res.index if type(res.index) is int else -1
            if 0 <= k < len(calls):
                name, args = calls[k]
                out.append(f"<div class='call'><span class='tool'>{_e(name)}</span>"
                           f"<pre class='args'>{_shown(args)}</pre>")
            else:  # the harness's own note (a reply that called no tool)
                out.append("<div class='call'><span class='tool'>note</span>")
            out.append(f"<pre class='result {_status_class(res.status)}'>[{_e(res.status)}] {_shown(res.content)}</pre></div>")
        out.append("</div>")
    for end in (r for r in records if isinstance(r, SessionEndRecord)):
        out.append(f"<p class='session-end'>session ended ({_e(end.budget)}): {_e(end.reason)}; turns {_e(end.turns)}, "
                   f"commands {_e(end.commands)}, wall {_e(end.wall_s)} s, simulated {_e(end.sim_time)} s, tokens "
                   f"{_e(end.prompt_tokens)} + {_e(end.completion_tokens)}</p>")
    return "\n".join(out) or "<p>(no turns recorded)</p>"


def _status_class(status: Any) -> str:
    return {"ok": "ok-result", "error": "error-result", "recovered": "recovered-result"}.get(str(status), "")


def _session_section(run_dir: Path, out: Path, row: dict[str, Any], stem: str) -> str:
    """The session part of an interactive episode's page; its videos copied into media/ as STEM-NAME."""
    transcript, videos, problem = _session_files(run_dir, row)
    if transcript is None:
        return f"<h2>Session</h2><p class='fail'>{_e(problem)}</p>"
    media = []
    for name, data in videos:
        (out / "media" / f"{stem}-{name}").write_bytes(data)
        src = _e(f"../media/{stem}-{name}")
        media.append(f"<video controls src='{src}'></video>" if name.endswith(".mp4")
                     else f"<img src='{src}' alt='review video {_e(name)}'>")
    side = f"<div class='videos'>{''.join(media)}</div>" if media else ""
    return (f"<h2>Session</h2><div class='session'><div class='turns'>{_turns_html(parse_transcript(transcript))}</div>"
            f"{side}</div>")


def write_viewer(run_dir: Path, out: Path | None = None) -> Path:
    """Write the viewer into `out` (default RUN_DIR/view). Returns the path of index.html."""
    run_dir = Path(run_dir)
    out = Path(out) if out else run_dir / "view"
    md = write_report(run_dir)
    summary = json.loads((run_dir / "summary.json").read_text())
    config, rows = rows_of(run_dir)
    logs = RunStore(run_dir).episodes()
    suite = get_suite(config.suite)
    tasks = _tasks(config.suite, config.bench)
    (out / "episodes").mkdir(parents=True, exist_ok=True)
    (out / "media").mkdir(exist_ok=True)
    solved_by_level(summary, out / "media" / "solved", title=f"{config.suite}: agent {config.agent}")
    lines = []
    pictures: dict[str, str | None] = {}  # task id -> its picture's name in media/ (several rows share a task)
    # the first view of a run may render each task's picture (pace: a simulation per task)
    for row in track(rows, description="episode pages", transient=True):
        task = tasks[row["task"]]
        if task.id not in pictures:
            pic = suite.picture(task) if isinstance(suite, Pictures) else None
            pictures[task.id] = None if pic is None else f"{task.id}{pic.suffix}"
            if pic is not None and not (out / "media" / pictures[task.id]).exists():
                shutil.copyfile(pic, out / "media" / pictures[task.id])
        name = pictures[task.id]
        page = f"episodes/{row['task']}-{row['level']}" + (f"-run{row['run']}" if row.get("run") else "") + ".html"
        rounds = logs[episode_key(row["task"], row["level"], row.get("run", 0))].rounds
        interactive = any("interactive" in (r.method_notes or {}) for r in rounds)
        session = _session_section(run_dir, out, row, Path(page).stem) if interactive else ""
        (out / page).write_text(_episode_page(row, rounds, name, session))
        label = row["task"] + (f" (run {row['run']})" if row.get("run") else "")
        lines.append(f"<tr><td><a href='{_e(page)}'>{_e(label)}</a></td><td>{_e(row['level'])}</td>"
                     f"<td>{_status(row['solved'])}</td><td>{row['solved_round'] or '-'}</td>"
                     f"<td>{row['crashes']}/{row['scripts']}</td><td>{row['tokens']:,}</td>"
                     f"<td>{_e(', '.join(row['subsets']))}</td></tr>")
    body = [f"<h1>simreflect run: {_e(config.suite)}, agent {_e(config.agent)}</h1>",
            f"<p>benchmark {_e(config.bench)}; levels {_e(', '.join(config.levels))}; up to {config.rounds} rounds</p>",
            _markdown_tables(md),
            "<img src='media/solved.png' alt='solved by evidence level'>",
            "<h2>Episodes</h2><table id='episodes'><tr><th>episode</th><th>level</th><th>result</th>"
            "<th>solved in round</th><th>scripts crashed</th><th>tokens</th><th>subsets</th></tr>",
            *lines, "</table>"]
    index = out / "index.html"
    index.write_text(_page(f"simreflect run {config.suite} {config.agent}", "\n".join(body)))
    return index
