"""The pictures on an episode's page: the task as given (core.contract.Pictures) and, where the suite
can draw an agent's program (core.contract.AttemptPictures), what the round's program produced.

The work is bounded: per episode only the last round with a program and the best-scored one are drawn,
each once (kept in media/ and reused by the next view), each program within the run's timeout, and a
view draws at most PictureBudget's pictures anew (the next view draws the next ones). A picture that
fails is left out with its reason; it never fails the viewer."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from simreflect.core.contract import AttemptPictures, Pictures
from simreflect.core.records import RoundRecord
from simreflect.core.suite import Suite
from simreflect.core.task import Task

MAX_REASON_CHARS = 200
#: Pictures of attempts one view draws anew (those already in media/ are reused and not counted).
MAX_NEW_PICTURES = 120


@dataclass
class PictureBudget:
    """How many more attempt pictures this view may draw."""

    left: int = MAX_NEW_PICTURES


@dataclass(frozen=True)
class RoundPicture:
    round: int
    name: str | None
    """The picture's file name in media/ (None: not drawn)."""
    why: str
    """Which round it is (the last, the best), or why it was not drawn."""


def task_picture(suite: Suite, task: Task, media: Path) -> str | None:
    """The task's picture copied into `media` (its name there), or None (none, or it failed)."""
    if not isinstance(suite, Pictures):
        return None
    try:
        pic = suite.picture(task)
        if pic is None:
            return None
        name = f"{task.id}{Path(pic).suffix}"
        if not (media / name).exists():
            shutil.copyfile(pic, media / name)
        return name
    except Exception:  # noqa: BLE001 - a picture failing must never fail the viewer
        return None


def _score(r: RoundRecord) -> float | None:
    s = (r.verdict or {}).get("score") if isinstance(r.verdict, dict) else None
    return float(s) if isinstance(s, (int, float)) and not isinstance(s, bool) and s == s else None


def chosen_rounds(rounds: Sequence[RoundRecord]) -> dict[int, str]:
    """The rounds drawn, with why: the last round whose program ran and the best-scored such round."""
    ran = [r for r in rounds if r.script is not None and r.ran and "interactive" not in (r.method_notes or {})]
    if not ran:
        return {}
    chosen = {ran[-1].round: "the last round"}
    scored = [r for r in ran if _score(r) is not None]
    if scored:
        best = max(scored, key=lambda r: (_score(r), -r.round))
        chosen[best.round] = "the last and best round" if best.round in chosen else "the best round"
    return chosen


def programs_up_to(rounds: Sequence[RoundRecord], number: int) -> list[str]:
    """The accepted programs before round `number`, then its own: what its workspace came from."""
    earlier = [r.script for r in rounds if r.round < number and r.accepted and r.script is not None]
    own = next(r.script for r in rounds if r.round == number)
    return earlier + [own]


def attempt_pictures(suite: Suite, task: Task, rounds: Sequence[RoundRecord], media: Path, stem: str,
                     timeout_s: float, budget: PictureBudget | None = None) -> list[RoundPicture]:
    """Pictures of the chosen rounds' programs in `media` as STEM-roundN.gif ([] when the suite cannot draw)."""
    budget = budget if budget is not None else PictureBudget()
    if not isinstance(suite, AttemptPictures):
        return []
    out = []
    for number, why in sorted(chosen_rounds(rounds).items()):
        name = f"{stem}-round{number}.gif"
        dest = media / name
        if dest.is_file() and dest.stat().st_size > 0:
            out.append(RoundPicture(number, name, why))
            continue
        if budget.left <= 0:
            out.append(RoundPicture(number, None, f"not drawn: this view drew its {MAX_NEW_PICTURES} new pictures "
                                                  "(the next view of the run draws more)"))
            continue
        budget.left -= 1
        try:
            written = suite.attempt_picture(task, programs_up_to(rounds, number), dest, timeout_s)
        except Exception as exc:  # noqa: BLE001 - a picture failing must never fail the viewer
            dest.unlink(missing_ok=True)
            out.append(RoundPicture(number, None, f"not drawn ({type(exc).__name__}: {str(exc)[:MAX_REASON_CHARS]})"))
            continue
        if written is None or not dest.is_file():
            out.append(RoundPicture(number, None, "nothing to draw (the program left nothing the suite can show)"))
        else:
            out.append(RoundPicture(number, name, why))
    return out
