from __future__ import annotations

from pathlib import Path

import pytest

from simreflect.suites.gait.build import build_benchmark


@pytest.fixture(scope="session")
def gait_bench(tmp_path_factory) -> Path:
    """A full 30-episode gait benchmark built once per test session (no GIFs)."""
    out = tmp_path_factory.mktemp("gait") / "bench"
    build_benchmark(out, seed=0, episodes=30, gifs=False)
    return out
