"""Harbor task directories: one per task, runnable by Harbor-, Inspect- and verifiers-based stacks.

    <suite>-<task>/
      instruction.md        the instruction, interface notes and the first verifier report (level L2)
      task.toml             metadata, timeouts, resources, no internet
      environment/          Dockerfile + app/ (the agent's starting workspace, copied to /app)
      solution/solve.sh     writes the oracle program to /app/<program file>
      tests/test.sh         re-runs /app/<program file> on a fresh workspace, verifies, writes
                            /logs/verifier/reward.json; ships its own copy of simreflect (a wheel)
                            and the task's trusted files (tests/ is uploaded only after the agent ends)

The scripts honour APP_DIR, TESTS_DIR and LOGS_DIR (defaults /app, /tests, /logs), and test.sh uses
SIMREFLECT_VERIFIER_PYTHON when set, so an exported task can also be run outside a container.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from simreflect.core.evidence import EvidenceLevel
from simreflect.core.contract import Exports
from simreflect.core.registry import get_suite

TEST_SH = """\
#!/usr/bin/env bash
# Verify the agent's program with simreflect's own verifier and write the reward.
set -uo pipefail
APP_DIR="${{APP_DIR:-/app}}"; TESTS_DIR="${{TESTS_DIR:-/tests}}"; LOGS_DIR="${{LOGS_DIR:-/logs}}"
mkdir -p "$LOGS_DIR/verifier"
if [ -n "${{SIMREFLECT_VERIFIER_PYTHON:-}}" ]; then
  PY="$SIMREFLECT_VERIFIER_PYTHON"  # a Python that already has simreflect (running a task outside Harbor)
else
  VENV="$(mktemp -d)/verifier"
  # A fresh environment with the simreflect shipped in tests/ (the agent's container may have been edited);
  # its dependencies come from the image (environment/Dockerfile installs them).
  python3 -m venv --system-site-packages "$VENV" >/dev/null
  "$VENV/bin/pip" install -q --no-index --no-deps "$TESTS_DIR"/simreflect-*.whl >/dev/null
  PY="$VENV/bin/python"
fi
"$PY" -m simreflect.export.harbor_verify --suite {suite} --task "$TESTS_DIR/task" \\
    --program "$APP_DIR/{program}" --out "$LOGS_DIR/verifier/reward.json"
"""

SOLVE_SH = """\
#!/usr/bin/env bash
# The reference solution: write the oracle program where the verifier looks for it.
set -euo pipefail
APP_DIR="${{APP_DIR:-/app}}"
cat > "$APP_DIR/{program}" <<'SIMREFLECT_ORACLE'
{oracle}SIMREFLECT_ORACLE
"""

DOCKERFILE = """\
FROM python:3.11-slim
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap && rm -rf /var/lib/apt/lists/*
COPY {wheel} /tmp/{wheel}
RUN pip install --no-cache-dir /tmp/{wheel} && rm /tmp/{wheel}
WORKDIR /app
COPY app/ /app/
"""

TASK_TOML = """\
version = "1.0"

[metadata]
author_name = "simreflect"
category = "{suite}"
tags = {tags}
difficulty = "{difficulty}"
source = "simreflect {suite} benchmark, task {task}"

[verifier]
timeout_sec = 600.0

[agent]
timeout_sec = 3600.0

[environment]
build_timeout_sec = 900.0
cpus = 2
memory_mb = 4096
storage_mb = 4096
allow_internet = false
"""


def build_wheel(dest: Path) -> Path:
    """A wheel of the simreflect source tree this module comes from."""
    root = Path(__file__).resolve().parents[3]
    if not (root / "pyproject.toml").is_file():
        raise FileNotFoundError("simreflect's source tree (pyproject.toml) is not next to the installed package; "
                                "pass a wheel with --wheel")
    dest.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dest), str(root)],
                   check=True, capture_output=True)
    return next(dest.glob("simreflect-*.whl"))


def export_harbor(suite_name: str, bench: Path, out: Path, level: str = "L2", wheel: Path | None = None) -> list[Path]:
    suite = get_suite(suite_name)
    if not isinstance(suite, Exports):
        raise ValueError(f"suite {suite_name!r} cannot be exported: it has no save_task/load_task")
    lvl = EvidenceLevel.parse(level)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        wheel = wheel or build_wheel(Path(tmp))
        written = []
        for task in suite.load_tasks(Path(bench)):
            d = out / f"{suite_name}-{task.id}"
            if d.exists():
                shutil.rmtree(d)
            app = d / "environment" / "app"
            suite.prepare_workspace(task, app)
            verdict = suite.verify(task, app)
            program = suite.program_filename
            instruction = "\n".join([
                suite.instruction(task),
                suite.interface_notes(lvl),
                "## Your deliverable",
                f"Write your complete program to `/app/{program}`. The verifier runs it on a fresh copy of the "
                "files in /app as they are now and re-runs the test; the reward is 1 on PASS, 0 otherwise.",
                "",
                suite.observe(task, verdict, lvl),
            ])
            (d / "instruction.md").write_text(instruction)
            n_kinds = len(task.hidden.get("kinds", [])) or 1
            (d / "task.toml").write_text(TASK_TOML.format(
                suite=suite_name, task=task.id, tags=json.dumps([suite_name, *suite.subsets(task)]),
                difficulty={1: "easy", 2: "medium"}.get(n_kinds, "hard")))
            shutil.copyfile(wheel, d / "environment" / wheel.name)
            (d / "environment" / "Dockerfile").write_text(DOCKERFILE.format(wheel=wheel.name))
            (d / "solution").mkdir()
            oracle = suite.oracle(task)
            (d / "solution" / "solve.sh").write_text(
                SOLVE_SH.format(program=program, oracle=oracle if oracle.endswith("\n") else oracle + "\n"))
            tests = d / "tests"
            suite.save_task(task, tests / "task")
            shutil.copyfile(wheel, tests / wheel.name)
            (tests / "test.sh").write_text(TEST_SH.format(suite=suite_name, program=program))
            for script in (d / "solution" / "solve.sh", tests / "test.sh"):
                script.chmod(0o755)
            written.append(d)
    return written
