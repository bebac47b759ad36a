"""Dependencies flow one way (docs/architecture.md): core imports nothing above it (no suite, no
agent, no run, no analysis), and analysis reads runs without importing the run package."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "simreflect"
ABOVE = {
    "core": ("simreflect.run", "simreflect.agents", "simreflect.analysis", "simreflect.suites", "simreflect.viewer",
             "simreflect.rl", "simreflect.cli", "simreflect.export", "simreflect.integrations"),
    "analysis": ("simreflect.run", "simreflect.agents", "simreflect.viewer", "simreflect.cli", "simreflect.integrations"),
}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    return names | {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module and n.level == 0}


@pytest.mark.parametrize("layer", sorted(ABOVE))
def test_a_layer_imports_nothing_above_it(layer):
    files = sorted((PACKAGE / layer).rglob("*.py"))
    assert files
    found = {f"{f.relative_to(PACKAGE)}: {m}" for f in files for m in imported_modules(f)
             if any(m == a or m.startswith(a + ".") for a in ABOVE[layer])}
    assert found == set()


def test_the_environment_plays_the_loops_own_round():
    env = imported_modules(PACKAGE / "core" / "env.py")
    episode = imported_modules(PACKAGE / "run" / "episode.py")
    assert "simreflect.core.rounds" in env and "simreflect.core.rounds" in episode
    assert "simreflect.core.attempt" not in env  # no second round step of its own
