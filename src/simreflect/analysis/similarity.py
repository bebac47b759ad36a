"""Code similarity between consecutive attempts of a run.

similarity(a, b) is difflib's SequenceMatcher ratio (2 * matches / total length, in [0, 1]) over
the token sequences of the two normalised programs:

- normalise: comments removed (with Python's tokenizer; a program it cannot read falls back to a
  quote-aware strip of `#` to the end of the line), every line's whitespace collapsed to single
  spaces, blank lines dropped. Docstrings and other strings are code and stay.
- tokens: identifiers/numbers (`\\w+`) and single punctuation characters of the normalised text.
  Matching tokens rather than characters keeps the ratio meaningful (a shared `e` in two different
  names is no match) and fast; autojunk is off so frequent tokens such as `(` still count.

A transition t is the step from the attempt before it to attempt t (transition 1 is source design
-> first model attempt when attempt 0 is present). Its similarity is None when either side has no
program (nothing was parsed), so a gap is never read as "identical" or "different".

Cost: SequenceMatcher is quadratic in the worst case; on 1,000-2,500-token programs a pair takes
about 0.01-0.3 s (identical programs are answered at once, and results are cached by content).
"""

from __future__ import annotations

import difflib
import io
import re
import tokenize
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Sequence

import numpy as np

from simreflect.analysis.bootstrap import bootstrap_interval
from simreflect.analysis.infra import InfraSplit, split_infra
from simreflect.analysis.trajectory import Trajectory, check_group_fields, group_key

_TOKEN = re.compile(r"\w+|[^\w\s]")


def _strip_comments_tokenize(src: str) -> str:
    lines = io.StringIO(src).readlines()  # the tokenizer's own notion of a line
    cuts: dict[int, int] = {}
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == tokenize.COMMENT:
            cuts[tok.start[0] - 1] = tok.start[1]
    return "".join(line[:cuts[i]] + "\n" if i in cuts else line for i, line in enumerate(lines))


def _strip_comments_fallback(src: str) -> str:
    out = []
    for line in src.splitlines():
        quote = None
        cut = len(line)
        i = 0
        while i < len(line):
            ch = line[i]
            if quote:
                if ch == "\\":
                    i += 1
                elif ch == quote:
                    quote = None
            elif ch in "'\"":
                quote = ch
            elif ch == "#":
                cut = i
                break
            i += 1
        out.append(line[:cut])
    return "\n".join(out)


@lru_cache(maxsize=8192)
def normalise_source(src: str) -> str:
    """The program without comments, with collapsed whitespace and no blank lines."""
    try:
        stripped = _strip_comments_tokenize(src)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        stripped = _strip_comments_fallback(src)
    lines = (" ".join(line.split()) for line in stripped.splitlines())
    return "\n".join(line for line in lines if line)


@lru_cache(maxsize=8192)
def source_tokens(src: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(normalise_source(src)))


@lru_cache(maxsize=65536)
def _ratio(a: str, b: str) -> float:
    ta, tb = source_tokens(a), source_tokens(b)
    if ta == tb:
        return 1.0
    return difflib.SequenceMatcher(None, ta, tb, autojunk=False).ratio()


def similarity(a: str | None, b: str | None) -> float | None:
    """SequenceMatcher ratio of the normalised programs; None when either program is missing."""
    if a is None or b is None:
        return None
    return _ratio(a, b)


@dataclass(frozen=True)
class Transition:
    index: int
    """The attempt reached (transition t goes from the previous attempt to attempt t)."""
    previous: int
    similarity: float | None


def transition_series(traj: Trajectory, include_attempt0: bool = True) -> list[Transition]:
    """Similarity of each consecutive pair of non-infra attempts, in budget order."""
    attempts = traj.considered(include_attempt0)
    return [Transition(b.index, a.index, similarity(a.program, b.program)) for a, b in zip(attempts, attempts[1:])]


def mean_similarity(series: Iterable[Transition]) -> float | None:
    vals = [t.similarity for t in series if t.similarity is not None]
    return float(np.mean(vals)) if vals else None


@dataclass(frozen=True)
class TransitionStat:
    index: int
    n: int
    """Runs with a defined similarity at this transition."""
    mean: float
    ci: tuple[float, float]


def similarity_by_transition(trajectories: Iterable[Trajectory], include_attempt0: bool = True,
                             seed: int = 0, resamples: int = 2000) -> list[TransitionStat]:
    """Mean similarity per transition index over runs, with a 95% bootstrap interval over runs."""
    per: dict[int, list[float]] = {}
    for traj in trajectories:
        for t in transition_series(traj, include_attempt0):
            if t.similarity is not None:
                per.setdefault(t.index, []).append(t.similarity)
    return [TransitionStat(i, len(v), float(np.mean(v)), bootstrap_interval(v, seed=seed, resamples=resamples))
            for i, v in sorted(per.items())]


def similarity_by_group(trajectories: Iterable[Trajectory], by: Sequence[str] = ("method",),
                        include_attempt0: bool = True, seed: int = 0,
                        resamples: int = 2000) -> tuple[dict[tuple, list[TransitionStat]], InfraSplit]:
    """Per group, the mean similarity per transition (finished runs only; infrastructure split apart)."""
    by = check_group_fields(by)
    split = split_infra(trajectories)
    groups: dict[tuple, list[Trajectory]] = {}
    for t in split.kept:
        groups.setdefault(group_key(t, by), []).append(t)
    return ({key: similarity_by_transition(groups[key], include_attempt0, seed, resamples)
             for key in sorted(groups, key=lambda k: tuple(map(str, k)))}, split)
