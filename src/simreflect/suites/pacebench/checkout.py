"""Where PACE-Bench's code comes from: a checkout the user names, never a copy in this package.

`SIMREFLECT_PACEBENCH=/path/to/PACE-Bench` (or the suite's `checkout` option) names the folder
holding PACE-Bench's `src/pace_bench`. Its modules (environment, evaluator, feedback, renderer,
stages, reference solutions) are trusted code of the user's choosing and run in this process;
the design programs they are handed never do (runner.py runs them in the sandbox).
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from types import ModuleType

from simreflect.core.suite import SuiteUnavailable

ENV_VAR = "SIMREFLECT_PACEBENCH"
#: What running its tasks needs beyond simreflect's own dependencies (Box2D 2.3.10 is one of them).
EXTRA_HINT = "pip install 'simreflect[pacebench]' (pygame)"


class PaceBenchMissing(SuiteUnavailable):
    """No usable PACE-Bench checkout: the message says what is missing and how to provide it."""


def checkout_root(explicit: str | os.PathLike | None = None) -> Path:
    """The checkout's root (the folder with src/pace_bench), from `explicit` or $SIMREFLECT_PACEBENCH."""
    raw = explicit if explicit not in (None, "") else os.environ.get(ENV_VAR, "")
    if not raw:
        raise PaceBenchMissing(f"no PACE-Bench checkout: set {ENV_VAR}=/path/to/PACE-Bench "
                               "(a clone of github.com/thunlp/PACE-Bench) or pass the suite option checkout=PATH")
    root = Path(raw).expanduser().resolve()
    if (root / "pace_bench").is_dir() and not (root / "src" / "pace_bench").is_dir():
        root = root.parent
    if not (root / "src" / "pace_bench" / "tasks" / "categories").is_dir():
        raise PaceBenchMissing(f"{root} is not a PACE-Bench checkout (no src/pace_bench/tasks/categories); "
                               f"set {ENV_VAR} to the folder of a PACE-Bench clone")
    return root


def load(explicit: str | os.PathLike | None = None) -> ModuleType:
    """PACE-Bench's package `pace_bench`, imported from the checkout. Raises PaceBenchMissing when
    the checkout is absent, is another copy than one already imported, or a dependency is missing."""
    root = checkout_root(explicit)
    src = str(root / "src")
    loaded = sys.modules.get("pace_bench")
    if loaded is not None:
        where = Path(getattr(loaded, "__file__", "") or "").resolve().parent.parent
        if where != Path(src):
            raise PaceBenchMissing(f"pace_bench is already imported from {where}, not from {src}")
        return loaded
    if src not in sys.path:
        sys.path.append(src)
    try:
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
        os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        module = importlib.import_module("pace_bench")
        importlib.import_module("pace_bench.evaluation.verification.verifier")
    except ModuleNotFoundError as e:
        raise PaceBenchMissing(f"PACE-Bench at {root} needs the module {e.name!r}: {EXTRA_HINT}") from None
    return module


def available(explicit: str | os.PathLike | None = None) -> str:
    """'' when a checkout can be loaded, else the reason it cannot (for skips and listings)."""
    try:
        load(explicit)
    except PaceBenchMissing as e:
        return str(e)
    return ""
