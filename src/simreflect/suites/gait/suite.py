"""The gait suite behind the core Suite interface: tasks from a built benchmark directory."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Sequence

from simreflect.core.cache import cache_dir
from simreflect.core.contract import HiddenValue, RunProtocol, ScoreScale, value_texts
from simreflect.core.evidence import EvidenceLevel, render_report
from simreflect.core.program import ProgramRun, refuse_program
from simreflect.core.suite import Suite
from simreflect.core.task import Task
from simreflect.core.verdict import Verdict
from simreflect.suites.gait import notes
from simreflect.suites.gait.fixrunner import RIG_FILE
from simreflect.suites.gait.interfaces import (  # noqa: F401 - names the tests and tools import from here
    FIX_LIMITS,
    FIX_MODULES,
    FIX_SCRIPT,
    FIX_TIMEOUT_S,
    INTERFACES,
    MAX_RIG_BYTES,
    RIG_JSON_LIMITS,
    FixInterface,
    interface_for,
    load_workspace_rig,
)

EPISODE_FILE = "episode.json"
ORACLE_FILE = "oracle_fix.py"
EPISODES_DIR = "episodes"


def task_from_record(record: dict, episode_dir: Path) -> Task:
    gait = record["params"]["gait"]
    return Task(
        id=record["id"],
        suite="gait",
        seed=int(record["index"]),
        params={"dir": str(episode_dir.resolve()), "period": int(gait["period"]), "frames": 60},
        hidden={
            "defects": record["defects"],
            "kinds": record["kinds"],
            "walk_check": record["walk_check"],
            "oracle_fix": record["oracle_fix"],
            **({"oracle_fix_bpy": record["oracle_fix_bpy"]} if record.get("oracle_fix_bpy") else {}),
        },
        budget=GaitSuite.protocol.budget,
    )


def load_episode(episode_dir: Path) -> Task:
    """The task of one episode folder (its episode.json and rig.json)."""
    episode_dir = Path(episode_dir)
    path = episode_dir / EPISODE_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{episode_dir} is not a gait episode folder: no {EPISODE_FILE}")
    return task_from_record(json.loads(path.read_text()), episode_dir)


class GaitSuite(Suite):
    name = "gait"
    summary = "repair the planted defects of a robot's walk cycle with a fix script (rig keys and weights)"
    protocol = RunProtocol(budget=3, timeout_s=FIX_TIMEOUT_S)
    # the score counts checks passed (of seven); the reward is 1 only when all pass
    scale = ScoreScale(0.0, 1.0, 0.0, 1.0, "share of the walk checks passed (of 7); reward 1 when all pass")
    program_filename = FIX_SCRIPT
    subset_order = ("contains leak", "contains balance", "contains knee", "1 defect", "2 defects", "3 defects")
    options_help = {"interface": "python (default: fix scripts edit the rig object) or blender (fix scripts are bpy "
                                 "scripts run by Blender 5 on the episode's .blend; needs bpy, see scripts/setup.sh "
                                 "and SIMREFLECT_BLENDER_PYTHON)",
                    "hint": "L3's cycle hint: seed (default, as the seed states it: restore values from the same "
                            "phase one cycle earlier) or improved (or one cycle later if the earlier is broken too)"}

    def __init__(self, interface: str = "python", hint: str = "seed") -> None:
        if hint not in notes.CYCLE_HINTS:
            raise ValueError(f"hint must be one of {', '.join(notes.CYCLE_HINTS)}, not {hint!r}")
        self.strategy: FixInterface = interface_for(interface)  # how fix scripts are written and run
        self.interface = interface
        self.hint = hint

    def with_options(self, **options) -> GaitSuite:
        if not options:
            return self
        super().with_options(**{k: v for k, v in options.items() if k not in self.options_help})
        suite = GaitSuite(interface=str(options.get("interface", self.interface)).strip().lower(),
                          hint=str(options.get("hint", self.hint)).strip().lower())
        suite.strategy.check_available()
        return suite

    def load_tasks(self, root: Path) -> list[Task]:
        root = Path(root)
        rows = [json.loads(line) for line in (root / "episodes.jsonl").read_text().splitlines() if line.strip()]
        return [task_from_record(r, root / EPISODES_DIR / r["id"]) for r in rows]

    def prepare_workspace(self, task: Task, workdir: Path) -> None:
        self.strategy.prepare_workspace(task, workdir)

    def run_program(self, task: Task, program: str, workdir: Path, timeout_s: float = FIX_TIMEOUT_S) -> ProgramRun:
        """Run a fix script in the sandbox: the work directory (rig.json and the script, fix.py) is
        all it can write, and all it sees of the episode. `timeout_s` bounds wall and CPU time.
        With the blender interface the script is a bpy script run by Blender on episode.blend."""
        refused = refuse_program(program)
        if refused is not None:
            return ProgramRun(refused)
        return self.strategy.run_fix_script(program, workdir, timeout_s)

    def verify(self, task: Task, workdir: Path, run: ProgramRun | None = None) -> Verdict:
        """The rig left in `workdir` (the artefact is the work directory: `run` adds nothing)."""
        return self.strategy.verify(task, workdir)

    def oracle(self, task: Task) -> str:
        return self.strategy.oracle(task)

    def oracle_bpy(self, task: Task) -> str:
        """The oracle as a bpy script (interfaces.BlenderInterface.oracle), whatever this suite's interface."""
        return interface_for("blender").oracle(task)

    def observe(self, task: Task, verdict: Verdict, level: EvidenceLevel) -> str:
        return render_report(verdict, level, title=f"Walk verifier report for {task.id}")

    def instruction(self, task: Task) -> str:
        return notes.instruction(self.interface) + f"\nThe walk cycle of this robot lasts {task.params['period']} frames.\n"

    def interface_notes(self, level: EvidenceLevel) -> str:
        return notes.interface_notes(level, interface=self.interface, hint=self.hint)

    def subsets(self, task: Task) -> list[str]:
        kinds = task.hidden["kinds"]
        n = len(kinds)
        return [f"contains {k}" for k in ("leak", "balance", "knee") if k in kinds] + [f"{n} defect{'s' if n > 1 else ''}"]

    def hidden_values(self, task: Task) -> tuple[HiddenValue, ...]:
        """The planted defects' magnitudes as the generator drew them (repr, 6 digits). The reports
        show what the verifier measures, rounded (a torso turned by +46.7 deg): evidence, not these."""
        return tuple(HiddenValue(value_texts(d.get("magnitude"), digits=(6,))) for d in task.hidden["defects"])

    def save_task(self, task: Task, dest: Path) -> None:
        dest.mkdir(parents=True, exist_ok=True)
        for name in (EPISODE_FILE, RIG_FILE):
            shutil.copyfile(Path(task.params["dir"]) / name, dest / name)

    def load_task(self, path: Path) -> Task:
        return load_episode(path)

    def picture(self, task: Task) -> Path | None:
        gif = Path(task.params["dir"]) / "walk.gif"
        return gif if gif.is_file() else None

    def attempt_picture(self, task: Task, programs: Sequence[str], dest: Path, timeout_s: float) -> Path | None:
        """The walk the rig left by `programs` (each fix script run in turn on what the one before left,
        as the episode's rounds built on each other), drawn as the episode's GIF is; None when one of
        them did not run or the rig it left cannot be read."""
        import tempfile

        from simreflect.suites.gait.pictures import attempt_gif
        from simreflect.suites.gait.rig import RigFormatError

        if not programs:
            return None
        with tempfile.TemporaryDirectory(prefix="simreflect-gait-picture-") as tmp:
            work = Path(tmp) / "work"
            self.prepare_workspace(task, work)
            for program in programs:
                run = self.run_program(task, program, work, timeout_s)
                if run.result.status != "ok":
                    return None
            try:
                rig = load_workspace_rig(work)
            except RigFormatError:
                return None
            attempt_gif(task, rig, Path(dest))
        return Path(dest)

    def default_root(self, seed: int = 0) -> Path:
        """A benchmark built once (in seconds) into the user's cache directory."""
        import os

        from simreflect.suites.gait.build import build_benchmark

        cache = cache_dir()
        path = cache / f"gait-seed{seed}"
        if not (path / "episodes.jsonl").exists():
            tmp = cache / f".gait-seed{seed}.building-{os.getpid()}"
            build_benchmark(tmp, seed=seed, gifs=False, workers=1)
            try:
                tmp.rename(path)
            except OSError:  # another process finished first
                shutil.rmtree(tmp, ignore_errors=True)
        return path

    def baseline_agent(self):
        return self.strategy.baseline_agent()
