"""Harbor task directories: one per task, in the layout and task.toml schema Harbor reads.

    <out>/
      simreflect-<version>-*.whl   the one wheel of this export (each tests/ holds a hard link to it)
      <suite>-<task>/
        instruction.md        the instruction, interface notes and the first verifier report (level --level)
        task.toml             schema_version, [task] name, metadata (difficulty measured by a baseline run),
                              timeouts, resources, no network; the verifier runs in a separate environment
                              and receives only the agent's program (an artifact)
        environment/          the agent's image: Dockerfile, requirements.txt (pinned), app/ (its workspace).
                              No simreflect: no reference, key, generator or hidden value
        solution/solve.sh     writes the oracle program to /app/<program file>
        tests/                the verifier's own image (Harbor builds it from tests/Dockerfile): the pinned
                              requirements, the wheel, the saved task (hidden parts included) and test.sh,
                              which verifies /app/<program file> and writes /logs/verifier/reward.json
                              (numbers only) and /logs/verifier/verdict.json (the rest of the verdict)

The scripts honour APP_DIR, TESTS_DIR and LOGS_DIR (defaults /app, /tests, /logs), and test.sh uses
SIMREFLECT_VERIFIER_PYTHON when set, so an exported task can also be run outside a container.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from simreflect.core.contract import Exports
from simreflect.core.evidence import EvidenceLevel
from simreflect.core.registry import get_suite
from simreflect.core.selection import select_ids
from simreflect.export.difficulty import UNMEASURED, Difficulty, measured_difficulties
from simreflect.export.pins import pinned_requirements, python_image

#: The task.toml schema these directories follow (harbor.models.task.config.TaskConfig.schema_version).
SCHEMA_VERSION = "1.4"
#: The org of the exported tasks' names ("simreflect/<suite>-<task>").
ORG = "simreflect"

TEST_SH = """\
#!/usr/bin/env bash
# Verify the agent's program with simreflect's own verifier (installed in this image, never the agent's)
# and write Harbor's reward file and the rest of the verdict beside it.
set -uo pipefail
APP_DIR="${{APP_DIR:-/app}}"; TESTS_DIR="${{TESTS_DIR:-/tests}}"; LOGS_DIR="${{LOGS_DIR:-/logs}}"
PY="${{SIMREFLECT_VERIFIER_PYTHON:-python3}}"
mkdir -p "$LOGS_DIR/verifier"
"$PY" -m simreflect.export.harbor_verify --suite {suite} --task "$TESTS_DIR/task" \\
    --program "$APP_DIR/{program}" --reward "$LOGS_DIR/verifier/reward.json" \\
    --verdict "$LOGS_DIR/verifier/verdict.json"
"""

SOLVE_SH = """\
#!/usr/bin/env bash
# The reference solution: write the oracle program where the verifier looks for it.
set -euo pipefail
APP_DIR="${{APP_DIR:-/app}}"
cat > "$APP_DIR/{program}" <<'SIMREFLECT_ORACLE'
{oracle}SIMREFLECT_ORACLE
"""

AGENT_DOCKERFILE = """\
FROM {image}
COPY requirements.txt /tmp/requirements.txt
RUN pip install --no-cache-dir -r /tmp/requirements.txt && rm /tmp/requirements.txt
WORKDIR /app
COPY app/ /app/
"""

VERIFIER_DOCKERFILE = """\
FROM {image}
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap && rm -rf /var/lib/apt/lists/*
COPY requirements.txt /tmp/requirements.txt
RUN pip install --no-cache-dir -r /tmp/requirements.txt && rm /tmp/requirements.txt
COPY {wheel} /tmp/{wheel}
RUN pip install --no-cache-dir --no-deps /tmp/{wheel} && rm /tmp/{wheel}
COPY test.sh /tests/test.sh
COPY task/ /tests/task/
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


def _toml_value(value: object) -> str:
    """A TOML value of a string, number, bool or list of them (JSON's escapes are TOML's)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(value)


def task_toml(suite_name: str, task_id: str, description: str, keywords: list[str], program: str,
              difficulty: Difficulty) -> str:
    sections = {
        "task": {"name": f"{ORG}/{suite_name}-{task_id}", "description": description, "keywords": keywords},
        "metadata": {"author_name": ORG, "category": suite_name, "tags": keywords, **difficulty.metadata()},
        # the verifier gets its own container, built from tests/; of the agent's it sees only the program
        "verifier": {"timeout_sec": 600.0, "environment_mode": "separate"},
        "agent": {"timeout_sec": 3600.0},
        "environment": {"build_timeout_sec": 900.0, "cpus": 2, "memory_mb": 4096, "storage_mb": 4096,
                        "network_mode": "no-network"},
    }
    lines = [f"schema_version = {_toml_value(SCHEMA_VERSION)}",
             f"source = {_toml_value(f'simreflect {suite_name} benchmark, task {task_id}')}",
             f"artifacts = {_toml_value([f'/app/{program}'])}", ""]
    for name, table in sections.items():
        lines.append(f"[{name}]")
        lines += [f"{key} = {_toml_value(value)}" for key, value in table.items() if value is not None]
        if name == "task":
            lines.append(f"authors = [{{ name = {_toml_value(ORG)} }}]")
        lines.append("")
    return "\n".join(lines)


def _link_or_copy(source: Path, dest: Path) -> None:
    """A hard link (one wheel on disk for the whole export), a copy across file systems."""
    try:
        os.link(source, dest)
    except OSError:
        shutil.copyfile(source, dest)


def export_harbor(suite_name: str, bench: Path | None, out: Path, level: str = "L2", wheel: Path | None = None,
                  tasks: tuple[str, ...] = (), baseline_run: Path | None = None) -> list[Path]:
    """Write one Harbor task directory per task (those matching `tasks`, ids or globs; all without).

    `baseline_run`: a run directory of this suite whose per-task pass rates set each task's difficulty
    (without one, or for a task it did not cover, the difficulty is "unmeasured")."""
    suite = get_suite(suite_name)
    if not isinstance(suite, Exports):
        raise ValueError(f"suite {suite_name!r} cannot be exported: it has no save_task/load_task")
    lvl = EvidenceLevel.parse(level)
    every = {t.id: t for t in suite.load_tasks(Path(bench) if bench is not None else None)}
    chosen = [every[i] for i in select_ids(every, tasks)]
    difficulties = measured_difficulties(baseline_run, suite_name)
    requirements = "".join(f"{r}\n" for r in pinned_requirements())
    image = python_image()
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("simreflect-*.whl"):
        old.unlink()
    with tempfile.TemporaryDirectory() as tmp:
        source_wheel = wheel or build_wheel(Path(tmp))
        shared_wheel = out / source_wheel.name
        shutil.copyfile(source_wheel, shared_wheel)
    written = []
    for task in chosen:
        d = out / f"{suite_name}-{task.id}"
        if d.exists():
            shutil.rmtree(d)
        written.append(d)
        program = suite.program_filename
        app = d / "environment" / "app"
        suite.prepare_workspace(task, app)
        verdict = suite.verify(task, app)
        (d / "instruction.md").write_text("\n".join([
            suite.instruction(task),
            suite.interface_notes(lvl),
            "## Your deliverable",
            f"Write your complete program to `/app/{program}`. The verifier runs it on a fresh copy of the "
            "files in /app as they are now and re-runs the test; the reward is 1 on PASS, less otherwise.",
            "",
            suite.observe(task, verdict, lvl),
        ]))
        keywords = [suite_name, *suite.subsets(task)]
        (d / "task.toml").write_text(task_toml(
            suite_name, task.id, f"simreflect {suite_name}: {task.id}", keywords, program,
            difficulties.get(task.id, Difficulty(UNMEASURED))))
        (d / "environment" / "requirements.txt").write_text(requirements)
        (d / "environment" / "Dockerfile").write_text(AGENT_DOCKERFILE.format(image=image))
        (d / "solution").mkdir()
        oracle = suite.oracle(task)
        (d / "solution" / "solve.sh").write_text(
            SOLVE_SH.format(program=program, oracle=oracle if oracle.endswith("\n") else oracle + "\n"))
        tests = d / "tests"
        suite.save_task(task, tests / "task")
        _link_or_copy(shared_wheel, tests / shared_wheel.name)
        (tests / "requirements.txt").write_text(requirements)
        (tests / "Dockerfile").write_text(VERIFIER_DOCKERFILE.format(image=image, wheel=shared_wheel.name))
        (tests / "test.sh").write_text(TEST_SH.format(suite=suite_name, program=program))
        for script in (d / "solution" / "solve.sh", tests / "test.sh"):
            script.chmod(0o755)
    return written
