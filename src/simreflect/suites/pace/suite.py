"""PaceSuite: the pace tasks behind the core Suite interface.

A pace Task is one (base task, target stage) pair: the agent starts from the base task's source
design (program.py in the workspace, with task.json describing the visible environment) and must
adapt it to the target stage within the budget (20 verified attempts). One round runs the new
program through the sandbox and the simulator (`evaluate`); the verdict is the evaluation's
constraints, score and report. `run_program` hands its Evaluation to `verify` in the ProgramRun
it returns; without a run (a work directory this suite did not run), `verify` evaluates the
workspace's program.py itself. Evaluations are deterministic, so both give the same verdict.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Sequence

from simreflect.core.cache import cache_dir
from simreflect.core.contract import BrokenTask, HiddenValue, RunProtocol, ScoreScale, value_texts
from simreflect.core.evidence import EvidenceLevel, render_report
from simreflect.core.program import ProgramResult, ProgramRun, refuse_program
from simreflect.core.sandbox import UnsafeWorkspaceFile, read_workspace_file, write_workspace_file
from simreflect.core.suite import Suite
from simreflect.core.task import Task
from simreflect.core.verdict import Verdict
from simreflect.suites.pace import prompt
from simreflect.suites.pace.evaluate import (
    DEFAULT_TIMEOUT_S,
    PROGRAM_FILE,
    TASK_FILE,
    Evaluation,
    evaluate,
    task_description,
)
from simreflect.suites.pace.task import TARGETS, TaskSpec, discover, load_spec, load_specs, parse_stage, tasks_dir
from simreflect.suites.pace.render import gif_frames

MAX_PROGRAM_BYTES = 1 << 20
SAVED_TASK = "pace_task.json"


def task_id(spec_id: str, stage: str) -> str:
    return f"{spec_id}.{stage}"


def task_for(spec: TaskSpec, stage: str, index: int = 0) -> Task:
    return Task(id=task_id(spec.id, stage), suite="pace", seed=index,
                params={"task": spec.id, "stage": stage, "domain": spec.domain, "visible": spec.visible(stage),
                        "invisible": spec.invisible_names(), "controller": spec.controller},
                hidden={"dir": str(spec.folder), "stage": stage, "mutations": spec.mutations(stage)},
                budget=PaceSuite.protocol.budget)


#: What a from-scratch run starts from: a design that declares nothing.
SCRATCH_PROGRAM = "def build(api):\n    pass\n"
#: The video-feedback intervention: how many frames of the latest attempt's run the model is shown.
FEEDBACK_FRAMES = 4


class PaceSuite(Suite):
    name = "pace"
    summary = "adapt a working 2D design (Box2D) to a changed environment, some changes invisible"
    # Pass@2 / Score@2 over 20 attempts, the last and best shown, at the full diagnostic report
    # (L3), as the PACE protocol gives
    protocol = RunProtocol(budget=20, runs=2, history="previous+best", invalid_streak=3, invalid_retries=2, levels=("L3",),
                           timeout_s=DEFAULT_TIMEOUT_S)
    # a program that did not run scores -100 (reward -1), as an invalid design does
    scale = ScoreScale(-100.0, 100.0, -1.0, 1.0, "100 on success, -100 x share of hard constraints violated, "
                       "else partial progress")
    stages = tuple(range(1, len(TARGETS) + 1))
    program_filename = PROGRAM_FILE
    subset_order = ("domain: statics", "domain: kinematics", "domain: dynamics", "domain: granular",
                    "domain: control", "domain: exotic", "stage 1", "stage 2", "stage 3", "stage 4")

    options_help = {"start": "source (adapt the source design, default) or scratch (design from nothing)",
                    "disclose": "true: reveal the exact values of every changed variable (an intervention)",
                    "video": "true: the latest attempt's rendered frames go to the model with its report, as "
                             "images (the video-feedback intervention; needs a vision-capable endpoint)"}

    def __init__(self, start: str = "source", disclose: bool = False, video: bool = False) -> None:
        if start not in ("source", "scratch"):
            raise ValueError(f"start must be source or scratch, not {start!r}")
        self.start, self.disclose, self.video_feedback = start, disclose, video

    def with_options(self, **options) -> PaceSuite:
        if not options:
            return self
        super().with_options(**{k: v for k, v in options.items() if k not in self.options_help})

        def flag(name: str) -> bool:
            return str(options.get(name, getattr(self, "video_feedback" if name == "video" else name))).lower() in (
                "1", "true", "yes")

        return PaceSuite(start=str(options.get("start", self.start)), disclose=flag("disclose"), video=flag("video"))

    # --- tasks

    def load_tasks(self, root: Path | None = None) -> list[Task]:
        """Every (task, target stage) pair of a tasks directory (default: the packaged tasks); a folder
        that does not load is left out with a BrokenTaskWarning naming it (`broken_tasks`)."""
        specs = load_specs(root)
        out = []
        for spec in specs:
            for st in TARGETS:
                out.append(task_for(spec, st, len(out)))
        return out

    def broken_tasks(self, root: Path | None = None) -> tuple[BrokenTask, ...]:
        """The task folders of `root` that do not load (`load_tasks` leaves them out)."""
        return discover(root).broken

    def default_root(self, seed: int = 0) -> Path:
        """The packaged task folders (they are the benchmark; there is nothing to build)."""
        return tasks_dir()

    def save_task(self, task: Task, dest: Path) -> None:
        dest = Path(dest)
        dest.mkdir(parents=True, exist_ok=True)
        (dest / SAVED_TASK).write_text(json.dumps(task.to_dict(), indent=2, sort_keys=True) + "\n")

    def load_task(self, path: Path) -> Task:
        """A saved task; its task folder is looked up in the packaged tasks when the saved path is gone
        (a task exported on one machine and verified on another)."""
        path = Path(path)
        task = Task.from_dict(json.loads((path / SAVED_TASK if path.is_dir() else path).read_text()))
        folder = Path(task.hidden["dir"])
        if not folder.is_dir() and (tasks_dir() / folder.name).is_dir():
            task = Task.from_dict({**task.to_dict(), "hidden": {**task.hidden, "dir": str(tasks_dir() / folder.name)}})
        return task

    def spec(self, task: Task) -> TaskSpec:
        folder = Path(task.hidden["dir"])
        return load_spec(folder.name, folder.parent)

    # --- programs and verdicts

    def prepare_workspace(self, task: Task, workdir: Path) -> None:
        spec = self.spec(task)
        workdir = Path(workdir)
        workdir.mkdir(parents=True, exist_ok=True)
        start = spec.program("source") if self.start == "source" else SCRATCH_PROGRAM
        write_workspace_file(workdir, PROGRAM_FILE, start)
        write_workspace_file(workdir, TASK_FILE, task_description(spec, task.hidden["stage"]))

    def evaluation(self, task: Task, program: str, workdir: Path | None = None,
                   timeout_s: float = DEFAULT_TIMEOUT_S) -> Evaluation:
        """The evaluation of `program` in the task's environment (run afresh on every call)."""
        return evaluate(self.spec(task), task.hidden["stage"], program, workdir=workdir, timeout_s=timeout_s)

    def run_program(self, task: Task, program: str, workdir: Path, timeout_s: float = DEFAULT_TIMEOUT_S) -> ProgramRun:
        """Write program.py into the workspace and evaluate it: the program runs in the sandbox
        (build, and the controller during the simulation); the result is its process's, the
        artefact the Evaluation `verify` reads."""
        refused = refuse_program(program)
        if refused is not None:
            return ProgramRun(refused)
        workdir = Path(workdir)
        ev = self.evaluation(task, program, workdir=workdir, timeout_s=timeout_s)
        write_workspace_file(workdir, PROGRAM_FILE, program)
        result = ev.program if ev.program is not None else ProgramResult("error", None, "", 0.0, "not run")
        return ProgramRun(result, ev)

    def refuse(self, reason: str) -> Verdict:
        return Verdict.invalid_artefact(reason, score=-100.0, reward=-1.0)  # as an unreadable program.py

    def verify(self, task: Task, workdir: Path, run: ProgramRun | None = None) -> Verdict:
        if run is not None and isinstance(run.artefact, Evaluation):
            return run.artefact.verdict()
        try:
            program = read_workspace_file(Path(workdir), PROGRAM_FILE, MAX_PROGRAM_BYTES).decode("utf-8")
        except FileNotFoundError:
            return Verdict.invalid_artefact(f"no {PROGRAM_FILE} in the work directory", score=-100.0, reward=-1.0)
        except (UnsafeWorkspaceFile, OSError, UnicodeDecodeError) as e:
            return Verdict.invalid_artefact(f"cannot read {PROGRAM_FILE}: {e}", score=-100.0, reward=-1.0)
        with tempfile.TemporaryDirectory(prefix="simreflect-pace-verify-") as tmp:
            return self.evaluation(task, program, workdir=Path(tmp)).verdict()

    def source_program(self, task: Task) -> str:
        """The source design the workspace's program.py starts as (with start=source)."""
        return self.spec(task).program("source")

    def oracle(self, task: Task) -> str:
        return self.spec(task).reference(task.hidden["stage"])

    def picture(self, task: Task) -> Path | None:
        """A GIF of what the agent is handed: the source design run in the target environment.
        Rendered once into the user's cache, keyed by the task folder and the simulator's code."""
        spec = self.spec(task)
        digest = hashlib.sha256()
        for f in sorted(spec.folder.glob("*.*")) + sorted(Path(__file__).parent.glob("*.py")):
            if f.is_file():
                digest.update(f.name.encode() + b"\0" + f.read_bytes())
        cache = cache_dir() / "pace-pictures"
        path = cache / f"{task.id}-{digest.hexdigest()[:12]}.gif"
        if not path.is_file():
            cache.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{task.id}-", suffix=".gif", dir=cache)
            os.close(fd)
            try:
                evaluate(spec, task.hidden["stage"], spec.program("source"), gif=Path(tmp))
                os.replace(tmp, path)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
        return path

    def attempt_picture(self, task: Task, programs: Sequence[str], dest: Path, timeout_s: float) -> Path | None:
        """A GIF of the last of `programs` run in the target environment (a pace program is a whole
        design: the earlier rounds change nothing it needs), or None when its design was not built."""
        if not programs or refuse_program(programs[-1]) is not None:
            return None
        dest = Path(dest)
        fd, tmp = tempfile.mkstemp(prefix=f".{dest.stem}-", suffix=".gif", dir=dest.parent)
        os.close(fd)
        os.unlink(tmp)  # the evaluation writes it only when the design was built and simulated
        try:
            evaluate(self.spec(task), task.hidden["stage"], programs[-1], gif=Path(tmp), timeout_s=timeout_s)
            if not os.path.isfile(tmp) or os.path.getsize(tmp) == 0:
                return None
            os.replace(tmp, dest)
            return dest
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

    def feedback_frames(self, task: Task, program: str, timeout_s: float) -> tuple[bytes, ...]:
        """The video-feedback intervention: FEEDBACK_FRAMES frames of `program`'s run in the target
        (evenly spaced, the last included), each a PNG of at most FEEDBACK_FRAME_BYTES; () when
        its design was not built."""
        with tempfile.TemporaryDirectory(prefix="simreflect-frames-") as tmp:
            gif = self.attempt_picture(task, [program], Path(tmp) / "attempt.gif", timeout_s)
            return () if gif is None else gif_frames(gif, FEEDBACK_FRAMES)

    # --- text

    def observe(self, task: Task, verdict: Verdict, level: EvidenceLevel) -> str:
        levels = verdict.diagnostics.get("feedback")
        if isinstance(levels, dict) and levels:
            return levels.get(str(int(level))) or levels[max(levels)]
        return render_report(verdict, level, title=f"PACE report for {task.id}")

    def instruction(self, task: Task) -> str:
        return prompt.instruction(self.spec(task), task.hidden["stage"], start=self.start, disclose=self.disclose)

    def interface_notes(self, level: EvidenceLevel) -> str:
        return prompt.interface_notes()

    def hidden_values(self, task: Task) -> tuple[HiddenValue, ...]:
        """The changed values of the invisible variables near their names (unless this run discloses
        them), without renderings a visible value of the stage or the source shares: round numbers
        such as 0.05 or 11.5 occur in the notes and the reports for other reasons."""
        if self.disclose:
            return ()
        spec, stage = self.spec(task), task.hidden["stage"]
        env = spec.environment(stage)
        shown = {t for st in (stage, "source") for v in spec.visible(st).values() for t in value_texts(v)}
        return tuple(HiddenValue(tuple(sorted(set(value_texts(env[n])) - shown)), near=(n, n.replace("_", " ")))
                     for n in spec.invisible_names() if n in task.hidden["mutations"])

    def trajectory_fields(self, task: Task) -> dict:
        return {"domain": task.params["domain"], "stage": int(parse_stage(task.hidden["stage"]).removeprefix("stage"))}

    def attempt_flags(self, verdict: dict) -> dict[str, bool]:
        metrics = verdict.get("diagnostics", {}).get("metrics", {})
        return {
            "constraint_violation": any(not c.get("passed", True) for c in metrics.get("constraints", [])),
            "structural_failure": any(e.get("kind") == "joint_failure" for e in metrics.get("events", [])),
            "numerical_instability": (metrics.get("health") or {}).get("status", "ok") != "ok",
        }

    def subsets(self, task: Task) -> list[str]:
        return [f"domain: {task.params['domain']}", f"stage {task.hidden['stage'][-1]}"]


__all__ = ["PaceSuite", "task_for", "task_id", "tasks_dir"]
