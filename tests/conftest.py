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


@pytest.fixture(scope="session")
def small_bench(tmp_path_factory) -> Path:
    """A 3-episode gait benchmark (one of each defect kind count)."""
    out = tmp_path_factory.mktemp("gait-small") / "bench"
    build_benchmark(out, seed=5, episodes=3, gifs=False, workers=1)
    return out


@pytest.fixture(scope="session")
def one_bench(tmp_path_factory) -> Path:
    """A 1-episode gait benchmark (with its GIF)."""
    out = tmp_path_factory.mktemp("gait-one") / "bench"
    build_benchmark(out, seed=6, episodes=1, gifs=True, workers=1)
    return out


#: One pace task per domain: what tests that run every task of a bench use (the full suite is
#: checked by the controls in test_pace.py).
PACE_SAMPLE = ("statics_bridge", "kinematics_rover", "dynamics_launcher", "granular_dam", "control_lander",
               "exotic_egg_cradle")


@pytest.fixture(scope="session")
def pace_sample_root(tmp_path_factory) -> Path:
    """A pace bench root holding copies of PACE_SAMPLE's task folders."""
    import shutil

    from simreflect.suites.pace.task import tasks_dir

    root = tmp_path_factory.mktemp("pace-sample")
    for task in PACE_SAMPLE:
        shutil.copytree(tasks_dir() / task, root / task, ignore=shutil.ignore_patterns("__pycache__"))
    return root
