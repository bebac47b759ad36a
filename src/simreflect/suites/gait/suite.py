"""The gait suite behind the core Suite interface: tasks from a built benchmark directory."""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import replace
from pathlib import Path

from simreflect.core.cache import cache_dir
from simreflect.core.contract import HiddenValue, RunProtocol, ScoreScale, value_texts
from simreflect.core.evidence import EvidenceLevel, render_report
from simreflect.core.program import ProgramRun, refuse_program
from simreflect.core.sandbox import (
    SANDBOX_WORKDIR,
    Limits,
    UnsafeWorkspaceFile,
    read_workspace_file,
    remove_workspace_file,
    run_sandboxed,
    write_workspace_file,
)
from simreflect.core.suite import Suite
from simreflect.core.task import Task
from simreflect.core.untrusted import JsonLimits, Refusal, load_json
from simreflect.core.verdict import Verdict
from simreflect.suites.gait import notes
from simreflect.suites.gait.fixrunner import RIG_FILE
from simreflect.suites.gait.rig import Rig, RigFormatError
from simreflect.suites.gait.verify import WalkReference, verify_rig

EPISODE_FILE = "episode.json"
ORACLE_FILE = "oracle_fix.py"
EPISODES_DIR = "episodes"
FIX_TIMEOUT_S = 60.0
#: The fix script, written inside the work directory for the run and removed afterwards.
FIX_SCRIPT = "fix.py"
#: Limits of a fix-script run; wall and CPU time follow the caller's timeout.
FIX_LIMITS = Limits(wall_s=FIX_TIMEOUT_S, cpu_s=FIX_TIMEOUT_S, memory_mb=2048, processes=64, file_mb=64,
                    output_kb=256, disk_mb=512)
MAX_RIG_BYTES = 8 << 20  # an episode's rig.json is about 50 KB
#: How a rig.json an untrusted program (or Blender reading its .blend) left is read (core.untrusted).
#: NaN and infinities are refused (no key, weight or position of a rig may be one); a lone
#: surrogate in a name too (no bone of an episode has one). Names are short: the verifier's
#: messages, which the model reads, quote them. Every number within +-1e6 (metres, radians,
#: weights, masses, colours): a key of 1e300 overflowed the verifier's products to inf and NaN.
RIG_JSON_LIMITS = JsonLimits(max_bytes=MAX_RIG_BYTES, max_depth=16, max_items=2_000_000, max_string_chars=256,
                             max_abs=1e6)
#: How fix scripts are written and run: "python" (the rig object, fixrunner) or "blender" (bpy scripts
#: run by Blender on a .blend of the episode; see suites/gait/blender/).
INTERFACES = ("python", "blender")
#: All of simreflect a fix script's process can import. Not the generator: it rebuilds any seeded
#: episode, and its oracle, from the rig alone. Not the verifier: nothing to probe offline.
FIX_MODULES = ("simreflect.suites.gait.fixrunner", "simreflect.suites.gait.rig")


def load_workspace_rig(workdir: Path) -> Rig:
    """The rig an untrusted program left in `workdir`: never through a symlink, never a FIFO or
    device, at most MAX_RIG_BYTES (RigFormatError otherwise)."""
    try:
        data = load_json(read_workspace_file(Path(workdir), RIG_FILE, MAX_RIG_BYTES), RIG_JSON_LIMITS, RIG_FILE)
    except (UnsafeWorkspaceFile, OSError, Refusal) as e:
        raise RigFormatError(f"cannot read rig file {RIG_FILE}: {e}") from None
    return Rig.from_dict(data)


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
    protocol = RunProtocol(budget=3)
    # the score counts checks passed (of seven); the reward is 1 only when all pass
    scale = ScoreScale(0.0, 1.0, 0.0, 1.0, "share of the walk checks passed (of 7); reward 1 when all pass")
    program_filename = FIX_SCRIPT
    subset_order = ("contains leak", "contains balance", "contains knee", "1 defect", "2 defects", "3 defects")
    options_help = {"interface": "python (default: fix scripts edit the rig object) or blender (fix scripts are bpy "
                                 "scripts run by Blender 5 on the episode's .blend; needs bpy, see scripts/setup.sh "
                                 "and SIMREFLECT_BLENDER_PYTHON)"}

    def __init__(self, interface: str = "python") -> None:
        if interface not in INTERFACES:
            raise ValueError(f"gait interface must be one of {', '.join(INTERFACES)}, not {interface!r}")
        self.interface = interface

    def with_options(self, **options) -> GaitSuite:
        if not options:
            return self
        super().with_options(**{k: v for k, v in options.items() if k not in self.options_help})
        interface = str(options.get("interface", self.interface)).strip().lower()
        suite = GaitSuite(interface=interface)
        if interface == "blender":
            from simreflect.suites.gait.blender.runtime import BlenderUnavailable, find_blender

            try:
                find_blender()
            except BlenderUnavailable as e:
                raise ValueError(f"the gait suite's blender interface needs Blender: {e}") from None
        return suite

    def load_tasks(self, root: Path) -> list[Task]:
        root = Path(root)
        rows = [json.loads(line) for line in (root / "episodes.jsonl").read_text().splitlines() if line.strip()]
        return [task_from_record(r, root / EPISODES_DIR / r["id"]) for r in rows]

    def prepare_workspace(self, task: Task, workdir: Path) -> None:
        if self.interface == "blender":
            from simreflect.suites.gait.blender import interface as blender

            return blender.prepare_workspace(Path(task.params["dir"]) / RIG_FILE, Path(workdir))
        workdir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(task.params["dir"]) / RIG_FILE, workdir / RIG_FILE)

    def run_program(self, task: Task, program: str, workdir: Path, timeout_s: float = FIX_TIMEOUT_S) -> ProgramRun:
        """Run a fix script in the sandbox: the work directory (rig.json and the script, fix.py) is
        all it can write, and all it sees of the episode. `timeout_s` bounds wall and CPU time.
        With the blender interface the script is a bpy script run by Blender on episode.blend."""
        refused = refuse_program(program)
        if refused is not None:
            return ProgramRun(refused)
        if self.interface == "blender":
            from simreflect.suites.gait.blender import interface as blender

            return ProgramRun(blender.run_fix_script(program, Path(workdir), timeout_s))
        workdir = Path(workdir)
        write_workspace_file(workdir, FIX_SCRIPT, program)
        try:
            # -P: the work directory is not put on sys.path, so files the program left there cannot
            # stand in for the modules of a later run
            return ProgramRun(run_sandboxed(
                [sys.executable, "-P", "-m", "simreflect.suites.gait.fixrunner", SANDBOX_WORKDIR,
                 f"{SANDBOX_WORKDIR}/{FIX_SCRIPT}"],
                workdir, replace(FIX_LIMITS, wall_s=timeout_s, cpu_s=timeout_s), package_modules=FIX_MODULES))
        finally:
            remove_workspace_file(workdir, FIX_SCRIPT)

    def verify(self, task: Task, workdir: Path, run: ProgramRun | None = None) -> Verdict:
        """The rig left in `workdir` (the artefact is the work directory: `run` adds nothing)."""
        if self.interface == "blender":  # the saved .blend, read back by Blender, then the same verifier
            from simreflect.suites.gait.blender import interface as blender

            return blender.verify_workspace(Path(task.params["dir"]) / RIG_FILE, Path(workdir),
                                            WalkReference.from_dict(task.hidden["walk_check"]))
        trusted = Rig.load(Path(task.params["dir"]) / RIG_FILE)  # the episode folder: trusted
        try:
            edited = load_workspace_rig(workdir)  # whatever the program left: untrusted
        except RigFormatError as e:
            return Verdict.invalid_artefact(str(e))
        return verify_rig(edited, WalkReference.from_dict(task.hidden["walk_check"]), trusted=trusted)

    def oracle(self, task: Task) -> str:
        if self.interface == "blender":
            return self.oracle_bpy(task)
        return task.hidden["oracle_fix"]

    def oracle_bpy(self, task: Task) -> str:
        """The oracle as a bpy script: from the episode record when it has one, else derived from the
        same normal-vs-broken data (the Python oracle applied to the episode's rig)."""
        if task.hidden.get("oracle_fix_bpy"):
            return task.hidden["oracle_fix_bpy"]
        from simreflect.suites.gait.blender.oracle import oracle_bpy_for

        return oracle_bpy_for(Rig.load(Path(task.params["dir"]) / RIG_FILE), task.hidden["oracle_fix"], task.id)

    def observe(self, task: Task, verdict: Verdict, level: EvidenceLevel) -> str:
        return render_report(verdict, level, title=f"Walk verifier report for {task.id}")

    def instruction(self, task: Task) -> str:
        return notes.instruction(self.interface) + f"\nThe walk cycle of this robot lasts {task.params['period']} frames.\n"

    def interface_notes(self, level: EvidenceLevel) -> str:
        return notes.interface_notes(level, interface=self.interface)

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
        if self.interface == "blender":
            return None  # the cycle-restore baseline writes Python-interface scripts
        from simreflect.suites.gait.baseline import CycleRestoreBaseline

        return CycleRestoreBaseline()
