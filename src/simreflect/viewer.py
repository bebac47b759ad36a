"""The run viewer: a static web page of a run (`simreflect view RUN_DIR`).

index.html holds the summary tables, the plot and one line per episode x level; each episode page
shows the task's picture (the GIF of the broken input), and every round: the exact prompt, the
diagnosis, the program with its diff against the previous round's, the program's output and the
errors before and after. Everything a model wrote is escaped: a page never runs model output.
"""

from __future__ import annotations

import difflib
import html
import json
import re
import shutil
from pathlib import Path
from typing import Any

from rich.progress import track

from simreflect.analysis.plots import solved_by_level
from simreflect.core.contract import Pictures
from simreflect.core.records import RoundRecord
from simreflect.core.registry import get_suite
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
"""


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


def _episode_page(row: dict[str, Any], rounds: list[RoundRecord], picture: str | None) -> str:
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
        body.append(f"<h3>Diagnosis</h3><pre class='diagnosis'>{_e(r.diagnosis or '-')}</pre>")
        body.append(f"<h3>Program</h3><pre class='script'>{_e(r.script if r.script is not None else '(none)')}</pre>")
        if previous is not None and r.script is not None:
            body.append(f"<details open><summary>diff against the previous round</summary>{_diff(previous, r.script)}</details>")
        if r.output_tail:
            body.append(f"<details><summary>program output</summary><pre>{_e(r.output_tail)}</pre></details>")
        body.append("</div>")
        if r.script is not None:
            previous = r.script
    return _page(f"{row['task']} {row['level']}", "\n".join(body))


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
        (out / page).write_text(_episode_page(row, rounds, name))
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
