"""The user's simreflect cache: built benchmarks, Blender exports, task pictures."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """$SIMREFLECT_CACHE, default ~/.cache/simreflect (not created here)."""
    return Path(os.environ.get("SIMREFLECT_CACHE", Path.home() / ".cache" / "simreflect"))
