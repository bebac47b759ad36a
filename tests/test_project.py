"""The project's promises to a new user: README's two commands and CI running exactly the test one."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, re.DOTALL)
    return [b.split("#")[0].strip() for b in blocks]


def test_readme_gives_two_commands():
    commands = readme_commands()
    assert len(commands) == 2
    assert all(c.startswith("bash scripts/") for c in commands)
    for c in commands:
        assert (ROOT / c.split()[1]).is_file()


def test_ci_runs_exactly_the_readme_test_command():
    test_command = readme_commands()[1]
    ci = (ROOT / ".ci" / "run").read_text()
    lines = [ln.strip() for ln in ci.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    assert lines[-1] == test_command
    assert "README" in ci


def test_the_test_command_runs_the_slow_tests_too():
    """A plain `pytest` is the quick suite (pyproject's addopts leave out @slow); the README's test
    command, which CI runs, must select them back."""
    script = (ROOT / readme_commands()[1].split()[1]).read_text()
    assert "not slow" in (ROOT / "pyproject.toml").read_text()
    assert '-m "slow or not slow"' in script
