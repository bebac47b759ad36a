"""The HTML every viewer page shares: escaping, the page frame (style, and a Content-Security-Policy that
lets run only the viewer's own inline script), the summary's markdown as tables, diffs, status marks."""

from __future__ import annotations

import base64
import difflib
import hashlib
import html
import re
from typing import Any, Mapping

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5rem auto; max-width: 1100px; color: #222; padding: 0 0.5rem; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2rem; } h3 { font-size: 1.05rem; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.9rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.6rem; text-align: left; }
th { background: #f2f2f2; }
pre { background: #f7f7f7; border: 1px solid #ddd; padding: 0.6rem; overflow-x: auto; font-size: 0.8rem;
      white-space: pre-wrap; }
.ok { color: #1a7f37; font-weight: 600; } .fail { color: #cf222e; font-weight: 600; }
.infra { color: #9a6700; font-weight: 600; }
.add { color: #1a7f37; } .del { color: #cf222e; } .hunk { color: #8250df; }
.round { border-left: 4px solid #4e79a7; padding-left: 1rem; margin: 1.5rem 0; }
img.pic { max-width: 360px; border: 1px solid #ddd; }
.pictures { display: flex; gap: 1rem; flex-wrap: wrap; } .pictures figure { margin: 0; }
.pictures figcaption { font-size: 0.8rem; color: #666; }
.session { display: flex; gap: 1rem; align-items: flex-start; }
.turns { flex: 1 1 auto; min-width: 0; } .videos { flex: 0 0 360px; position: sticky; top: 0; }
.videos video, .videos img { width: 100%; border: 1px solid #ddd; margin-bottom: 0.5rem; }
.turn { border-left: 4px solid #59a14f; padding-left: 0.8rem; margin: 1rem 0; }
.call { margin: 0.4rem 0 0.8rem; } .tool { font-weight: 600; } .meta { color: #666; font-size: 0.8rem; }
.controls { display: flex; gap: 0.6rem; flex-wrap: wrap; align-items: center; margin: 0.5rem 0; font-size: 0.9rem; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 1rem; }
svg.chart { width: 100%; height: auto; display: block; }
svg.chart text { font: 12px system-ui, sans-serif; fill: #333; } svg.chart .title { font-weight: 600; font-size: 13px; }
svg.chart .axis { stroke: #999; } svg.chart .grid { stroke: #eee; }
.wide { overflow-x: auto; max-width: 100%; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
"""


def e(text: Any) -> str:
    """Escaped for HTML text and attributes; a lone surrogate a model wrote (not encodable text) is shown as its escape."""
    return html.escape(str(text), quote=True).encode("utf-8", "backslashreplace").decode("utf-8")


def _csp(script: str) -> str:
    """Nothing loads from the network; only `script` (by its hash) may run: never a model's text."""
    scripts = "'none'"
    if script:
        digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
        scripts = f"'sha256-{digest}'"
    return (f"default-src 'none'; img-src 'self' file: data:; media-src 'self' file:; style-src 'unsafe-inline'; "
            f"script-src {scripts}; base-uri 'none'; form-action 'none'")


def page(title: str, body: str, script: str = "") -> str:
    """A whole page: `script` is the viewer's own code (a constant), never data."""
    tail = f"<script>{script}</script>" if script else ""
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            f"<meta http-equiv='Content-Security-Policy' content=\"{_csp(script)}\">"
            f"<meta name='viewport' content='width=device-width, initial-scale=1'><title>{e(title)}</title>"
            f"<style>{STYLE}</style></head><body>{body}{tail}</body></html>\n")


def markdown_tables(md: str, sections: Mapping[str, str] | None = None) -> str:
    """The summary's markdown (headings, pipe tables, paragraphs) as HTML; a table wider than the page
    scrolls in its own box. `sections`: heading text -> HTML shown instead of that section (its
    heading kept, its text up to the next heading of its level or above replaced)."""
    out, table = [], []
    sections = dict(sections or {})
    skipping: int | None = None  # the level of the section being replaced

    def flush():
        if table:
            head, *rows = [r for r in table if not set(r.replace("|", "").replace(" ", "")) <= {"-", ":"}]
            cells = lambda r: [c.strip() for c in r.split("|")]  # noqa: E731
            out.append("<div class='wide'><table><tr>" + "".join(f"<th>{e(c)}</th>" for c in cells(head)) + "</tr>"
                       + "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in cells(r)) + "</tr>" for r in rows)
                       + "</table></div>")
            table.clear()

    for line in md.splitlines():
        heading = re.match(r"^(#{1,4}) (.*)$", line)
        if skipping is not None:
            if not heading or len(heading.group(1)) > skipping:
                continue
            skipping = None
        if "|" in line:
            table.append(line)
            continue
        flush()
        if heading:
            level = min(6, len(heading.group(1)) + 1)
            out.append(f"<h{level}>{e(heading.group(2))}</h{level}>")
            if heading.group(2) in sections:
                out.append(sections.pop(heading.group(2)))
                skipping = len(heading.group(1))
        elif line.strip():
            out.append(f"<p>{e(line)}</p>")
    flush()
    return "\n".join(out)


def diff_html(old: str | None, new: str | None) -> str:
    if old is None or new is None:
        return ""
    lines = []
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), "previous round", "this round", lineterm=""):
        cls = "add" if line.startswith("+") else "del" if line.startswith("-") else "hunk" if line.startswith("@@") else ""
        lines.append(f"<span class='{cls}'>{e(line)}</span>" if cls else e(line))
    return "<pre class='diff'>" + ("\n".join(lines) or "(no change)") + "</pre>"


def status_html(ok: bool, yes: str = "solved", no: str = "not solved") -> str:
    return f"<span class='ok'>{yes}</span>" if ok else f"<span class='fail'>{no}</span>"
