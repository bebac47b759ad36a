"""The toy suite: the smallest real suite, the subject of the core's own tests and of the checker's.

A task hides a whole number (drawn from the task's seed); the agent sees two factors whose product
it is and must write the number into answer.txt. The program runs in the core sandbox like any
suite's; the verifier reads answer.txt as untrusted data (never through a link, bounded). Reports
say "wrong" (L1), "too high / too low" (L2) and "within 10 or not" (L3): never the number itself.

It is not registered with the package: a test registers it (`toy_suite_registered()`), or a package
names `simreflect.testing.toy:ToySuite` under the `simreflect.suites` entry points.
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import numpy as np

from simreflect.core.cache import cache_dir
from simreflect.core.contract import HiddenValue, RunProtocol, ScoreScale
from simreflect.core.evidence import EvidenceLevel, render_report
from simreflect.core.program import ProgramRun, refuse_program
from simreflect.core.sandbox import (SANDBOX_WORKDIR, Limits, UnsafeWorkspaceFile, read_workspace_file, run_sandboxed,
                                     write_workspace_file)
from simreflect.core.suite import Suite
from simreflect.core.task import Task
from simreflect.core.verdict import Check, Detail, Verdict

NAME = "toy"
ANSWER_FILE = "answer.txt"
PROGRAM_FILE = "program.py"
TASKS_FILE = "toy_tasks.json"
SAVED_TASK = "toy_task.json"
MAX_ANSWER_BYTES = 64
DEFAULT_TASKS = 4
PROGRAM_LIMITS = Limits(wall_s=20.0, cpu_s=20.0, memory_mb=256, processes=8, file_mb=1, output_kb=16, disk_mb=8)


def make_task(index: int, seed: int = 0) -> Task:
    rng = np.random.default_rng([seed, index])
    a, b = (int(x) for x in rng.integers(101, 999, size=2))
    return Task(id=f"toy-{index:02d}", suite=NAME, seed=seed, params={"a": a, "b": b},
                hidden={"target": a * b}, budget=ToySuite.protocol.budget)


def write_task_list(root: Path, tasks: int, seed: int = 0) -> Path:
    """A toy benchmark directory: `tasks` tasks drawn with `seed`."""
    Path(root).mkdir(parents=True, exist_ok=True)
    text = json.dumps({"tasks": int(tasks), "seed": int(seed)}) + "\n"
    path = Path(root) / TASKS_FILE
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)
    return Path(root)


def read_answer(workdir: Path) -> int:
    """The whole number in answer.txt (ValueError with the reason when there is none)."""
    try:
        raw = read_workspace_file(Path(workdir), ANSWER_FILE, MAX_ANSWER_BYTES)
    except FileNotFoundError:
        raise ValueError(f"no {ANSWER_FILE}") from None
    except (UnsafeWorkspaceFile, OSError) as e:
        raise ValueError(f"cannot read {ANSWER_FILE}: {e}") from None
    text = raw.decode("ascii", errors="replace").strip(" \t\r\n")
    if not text.isascii() or not text.lstrip("-").isdigit() or len(text) > 20:
        raise ValueError(f"{ANSWER_FILE} does not hold a whole number")
    return int(text)


class ToySuite(Suite):
    name = NAME
    summary = "write the product of two numbers into answer.txt (a tiny real suite for tests)"
    protocol = RunProtocol(budget=3, levels=("L1", "L3"))
    scale = ScoreScale(0.0, 1.0, 0.0, 1.0, "1 for the right number, 0.5 within 10, else 0")
    program_filename = PROGRAM_FILE

    def load_tasks(self, root: Path | None = None) -> list[Task]:
        """DEFAULT_TASKS tasks, or those of `root`/toy_tasks.json ({"tasks": n, "seed": s})."""
        n, seed = DEFAULT_TASKS, 0
        if root is not None and (Path(root) / TASKS_FILE).is_file():
            cfg = json.loads((Path(root) / TASKS_FILE).read_text())
            n, seed = int(cfg.get("tasks", n)), int(cfg.get("seed", seed))
        return [make_task(i, seed) for i in range(n)]

    def default_root(self, seed: int = 0) -> Path:
        """A directory in the user's cache holding just the task list for `seed`."""
        root = cache_dir() / f"toy-seed{seed}"
        write_task_list(root, DEFAULT_TASKS, seed)
        return root

    def prepare_workspace(self, task: Task, workdir: Path) -> None:
        Path(workdir).mkdir(parents=True, exist_ok=True)
        write_workspace_file(Path(workdir), ANSWER_FILE, "0\n")

    def run_program(self, task: Task, program: str, workdir: Path, timeout_s: float = 20.0) -> ProgramRun:
        refused = refuse_program(program)
        if refused is not None:
            return ProgramRun(refused)
        write_workspace_file(Path(workdir), PROGRAM_FILE, program)
        return ProgramRun(run_sandboxed([sys.executable, "-I", f"{SANDBOX_WORKDIR}/{PROGRAM_FILE}"], Path(workdir),
                                        replace(PROGRAM_LIMITS, wall_s=timeout_s, cpu_s=timeout_s)))

    def verify(self, task: Task, workdir: Path, run: ProgramRun | None = None) -> Verdict:
        # the work directory is the whole artefact: `run` carries nothing more
        try:
            answer = read_answer(workdir)
        except ValueError as e:
            return Verdict.invalid_artefact(str(e))
        target = int(task.hidden["target"])
        right, near = answer == target, abs(answer - target) <= 10
        side = "too high" if answer > target else "too low"
        check = Check("answer", right, message="" if right else f"{ANSWER_FILE} holds the wrong number",
                      details=() if right else (Detail(2, f"the number is {side}"),
                                                Detail(3, "it is within 10" if near else "it is more than 10 off")))
        return Verdict((check,), score=1.0 if right else 0.5 if near else 0.0, reward=1.0 if right else 0.0)

    def oracle(self, task: Task) -> str:
        return f"open('{ANSWER_FILE}', 'w').write(str({task.params['a']} * {task.params['b']}))\n"

    def observe(self, task: Task, verdict: Verdict, level: EvidenceLevel) -> str:
        return render_report(verdict, level, title=f"Toy report for {task.id}")

    def instruction(self, task: Task) -> str:
        return (f"Write the product of {task.params['a']} and {task.params['b']} into {ANSWER_FILE} "
                "(a whole number, digits only).")

    def interface_notes(self, level: EvidenceLevel) -> str:
        return f"Your program is Python, run with the work directory (holding {ANSWER_FILE}) as its current directory."

    def hidden_values(self, task: Task) -> tuple[HiddenValue, ...]:
        return (HiddenValue((str(task.hidden["target"]),)),)

    def save_task(self, task: Task, dest: Path) -> None:
        Path(dest).mkdir(parents=True, exist_ok=True)
        (Path(dest) / SAVED_TASK).write_text(json.dumps(task.to_dict(), sort_keys=True) + "\n")

    def load_task(self, path: Path) -> Task:
        return Task.from_dict(json.loads((Path(path) / SAVED_TASK).read_text()))


@contextmanager
def toy_suite_registered() -> Iterator[None]:
    """`get_suite("toy")` is the toy suite inside the block (for tests), unknown again after it."""
    from simreflect.core.registry import register_suite, unregister_suite

    register_suite(NAME, ToySuite)
    try:
        yield
    finally:
        unregister_suite(NAME)


def plugin_site(site: Path, entry_points: str, name: str = "toy_simreflect", modules: dict[str, str] | None = None) -> Path:
    """A directory that, on a process's path, installs a distribution `name` declaring
    `entry_points` (an entry_points.txt text), with `modules` (file name -> source) beside it:
    how a test puts the toy suite, or a third-party plugin, into a fresh `simreflect` process
    through the entry points alone."""
    site = Path(site)
    site.mkdir(parents=True, exist_ok=True)
    for file, text in (modules or {}).items():
        (site / file).write_text(text)
    info = site / f"{name}-0.1.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(entry_points)
    return site


def env_with(site: Path) -> dict[str, str]:
    """The environment of a child process that sees `site` (plugin_site) first on its path."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *filter(None, sys.path)])}


#: The entry point that registers the toy suite under its own name.
TOY_ENTRY_POINTS = f"[simreflect.suites]\n{NAME} = simreflect.testing.toy:ToySuite\n"
