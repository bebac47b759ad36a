"""An episode's page: what it ended in (solved, not solved, infrastructure error), the task's picture,
and every round: its score and result, the exact prompt, the diagnosis, the program with its diff
against the previous round's, pictures of what the program produced (where the suite draws them),
the program's output and the errors before and after. Everything a model wrote is escaped."""

from __future__ import annotations

import hashlib
import re
from typing import Any, Mapping, Sequence

from simreflect.core.records import RoundRecord
from simreflect.viewer.markup import diff_html, e, page, status_html
from simreflect.viewer.outcome import INFRA, episode_outcome, outcome_html, score_text
from simreflect.viewer.pictures import RoundPicture

SAFE_NAME = re.compile(r"[A-Za-z0-9_.-]{1,120}")


def page_stem(row: Mapping[str, Any]) -> str:
    """The file stem of an episode's page: TASK-LEVEL[-runN] when that is a plain file name, else a
    plain prefix of it and a digest (a task id is any text)."""
    stem = f"{row['task']}-{row['level']}" + (f"-run{row['run']}" if row.get("run") else "")
    if SAFE_NAME.fullmatch(stem) and not stem.startswith("."):
        return stem
    plain = re.sub(r"[^A-Za-z0-9_-]+", "_", stem)[:60].strip("_") or "episode"
    return f"{plain}-{hashlib.sha256(stem.encode('utf-8', 'backslashreplace')).hexdigest()[:12]}"


def _verdict_score(r: RoundRecord) -> Any:
    return r.verdict.get("score") if isinstance(r.verdict, dict) else None


def _pictures_html(pictures: Sequence[RoundPicture]) -> str:
    shown = [p for p in pictures if p.name]
    notes = [p for p in pictures if not p.name]
    out = ""
    if shown:
        out += "<div class='pictures'>" + "".join(
            f"<figure><img class='pic attempt' src='../media/{e(p.name)}' alt='what the program of round {p.round} "
            f"produced'><figcaption>what this round's program produced ({e(p.why)})</figcaption></figure>"
            for p in shown) + "</div>"
    out += "".join(f"<p class='meta'>no picture of this round's program: {e(p.why)}</p>" for p in notes)
    return out


def episode_page(row: dict[str, Any], rounds: list[RoundRecord], picture: str | None, session: str = "",
                 pictures: Sequence[RoundPicture] = (), index: str = "../index.html") -> str:
    outcome = episode_outcome(row)
    by_round: dict[int, list[RoundPicture]] = {}
    for p in pictures:
        by_round.setdefault(p.round, []).append(p)
    body = [f"<p><a href='{e(index)}'>&larr; run summary</a></p>",
            f"<h1>{e(row['task'])} at {e(row['level'])}: {outcome_html(outcome)}</h1>",
            f"<p>subsets: {e(', '.join(row['subsets']))}; rounds used {row['rounds_used']}; "
            f"scripts crashed {row['crashes']}/{row['scripts']}; tokens {row['tokens']:,}</p>"]
    if picture:
        body.append(f"<img class='pic' src='../media/{e(picture)}' alt='the task as given'>")
    if row["infra_errors"]:
        ended = ("this episode ended on them: it is not scored and enters no denominator (running the "
                 "same command again retries it)" if outcome == INFRA else "retried; not scored")
        body.append(f"<p class='infra'>infrastructure errors ({ended}): " + e("; ".join(row["infra_errors"])) + "</p>")
    previous = None
    for r in rounds:
        prompt = "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in r.prompt)
        body.append(f"<div class='round' id='round{r.round}'><h2>Round {r.round}</h2>")
        body.append(f"<p class='round-result'>score <span class='score'>{score_text(_verdict_score(r))}</span>; "
                    f"{status_html(r.passed)}</p>")
        body.append(f"<p>errors before: {e(', '.join(r.errors_before) or 'none')} &rarr; after: "
                    f"{e(', '.join(r.errors_after) or 'none')}</p>")
        if r.failure:
            body.append(f"<p class='fail'>{e(r.failure)}</p>")
        body.append(f"<details><summary>prompt ({len(prompt):,} characters)</summary><pre>{e(prompt)}</pre></details>")
        if "interactive" in (r.method_notes or {}):  # its turns are the session below
            body.append("</div>")
            continue
        body.append(f"<h3>Diagnosis</h3><pre class='diagnosis'>{e(r.diagnosis or '-')}</pre>")
        body.append(f"<h3>Program</h3><pre class='script'>{e(r.script if r.script is not None else '(none)')}</pre>")
        if previous is not None and r.script is not None:
            body.append(f"<details open><summary>diff against the previous round</summary>"
                        f"{diff_html(previous, r.script)}</details>")
        body.append(_pictures_html(by_round.get(r.round, [])))
        if r.output_tail:
            body.append(f"<details><summary>program output</summary><pre>{e(r.output_tail)}</pre></details>")
        body.append("</div>")
        if r.script is not None:
            previous = r.script
    if session:
        body.append(session)
    return page(f"{row['task']} {row['level']}", "\n".join(body))
