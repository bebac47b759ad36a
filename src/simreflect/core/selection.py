"""Choosing some of a benchmark's tasks by id or glob pattern (a run's --tasks, an RL environment's
training split)."""

from __future__ import annotations

import fnmatch
from typing import Iterable


def select_ids(ids: Iterable[str], patterns: Iterable[str]) -> list[str]:
    """The ids matching any of `patterns` (exact ids or fnmatch globs, case-sensitive), in the
    order of `ids`; all of them when there are no patterns. A pattern that matches nothing is an
    error: a typo must not silently shrink a run or a training set."""
    ids, patterns = list(ids), [p for p in patterns if p]
    if not patterns:
        return ids
    unmatched = [p for p in patterns if not fnmatch.filter(ids, p)]
    if unmatched:
        raise ValueError(f"no task matches {', '.join(map(repr, unmatched))} (tasks: "
                         f"{', '.join(ids[:8])}{', ...' if len(ids) > 8 else ''}; {len(ids)} in all)")
    return [i for i in ids if any(fnmatch.fnmatchcase(i, p) for p in patterns)]
