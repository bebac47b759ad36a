"""How gait fix scripts are written and run: two strategies behind one protocol.

- python: the script edits the rig object (fixrunner) in the sandbox; the verifier reads the
  rig.json it left;
- blender: the script is a bpy script run by Blender on the episode's .blend (suites/gait/blender/);
  the saved .blend is read back by Blender, then the same verifier judges it.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from simreflect.core.program import ProgramRun
from simreflect.core.sandbox import (
    SANDBOX_WORKDIR,
    Limits,
    UnsafeWorkspaceFile,
    read_workspace_file,
    remove_workspace_file,
    run_sandboxed,
    write_workspace_file,
)
from simreflect.core.task import Task
from simreflect.core.untrusted import JsonLimits, Refusal, load_json
from simreflect.core.verdict import Verdict
from simreflect.suites.gait.fixrunner import RIG_FILE
from simreflect.suites.gait.rig import Rig, RigFormatError
from simreflect.suites.gait.verify import WalkReference, verify_rig

FIX_TIMEOUT_S = 60.0
#: The fix script, written inside the work directory for the run and removed afterwards.
FIX_SCRIPT = "fix.py"
#: Limits of a fix-script run; wall and CPU time follow the caller's timeout.
FIX_LIMITS = Limits(wall_s=FIX_TIMEOUT_S, cpu_s=FIX_TIMEOUT_S, memory_mb=2048, processes=64, file_mb=64,
                    output_kb=256, disk_mb=512)
#: All of simreflect a fix script's process can import. Not the generator: it rebuilds any seeded
#: episode, and its oracle, from the rig alone. Not the verifier: nothing to probe offline.
FIX_MODULES = ("simreflect.suites.gait.fixrunner", "simreflect.suites.gait.rig")
MAX_RIG_BYTES = 8 << 20  # an episode's rig.json is about 50 KB
#: How a rig.json an untrusted program (or Blender reading its .blend) left is read (core.untrusted).
#: NaN and infinities are refused (no key, weight or position of a rig may be one); a lone
#: surrogate in a name too (no bone of an episode has one). Names are short: the verifier's
#: messages, which the model reads, quote them. Every number within +-1e6 (metres, radians,
#: weights, masses, colours): a key of 1e300 overflowed the verifier's products to inf and NaN.
RIG_JSON_LIMITS = JsonLimits(max_bytes=MAX_RIG_BYTES, max_depth=16, max_items=2_000_000, max_string_chars=256,
                             max_abs=1e6)


def load_workspace_rig(workdir: Path) -> Rig:
    """The rig an untrusted program left in `workdir`: never through a symlink, never a FIFO or
    device, at most MAX_RIG_BYTES (RigFormatError otherwise)."""
    try:
        data = load_json(read_workspace_file(Path(workdir), RIG_FILE, MAX_RIG_BYTES), RIG_JSON_LIMITS, RIG_FILE)
    except (UnsafeWorkspaceFile, OSError, Refusal) as e:
        raise RigFormatError(f"cannot read rig file {RIG_FILE}: {e}") from None
    return Rig.from_dict(data)


def _episode_rig(task: Task) -> Path:
    return Path(task.params["dir"]) / RIG_FILE  # the episode folder: trusted


def _walk_reference(task: Task) -> WalkReference:
    return WalkReference.from_dict(task.hidden["walk_check"])


class FixInterface(Protocol):
    """What the gait suite asks of the way fix scripts are written and run."""

    name: str

    def check_available(self) -> None:
        """Raise ValueError when this interface cannot run here."""

    def prepare_workspace(self, task: Task, workdir: Path) -> None: ...

    def run_fix_script(self, program: str, workdir: Path, timeout_s: float) -> ProgramRun:
        """Run an (already screened) fix script on the work directory."""

    def verify(self, task: Task, workdir: Path) -> Verdict: ...

    def oracle(self, task: Task) -> str: ...

    def baseline_agent(self) -> Any:
        """The honest non-model baseline for this interface's scripts, or None."""


class PythonInterface:
    """Fix scripts edit the rig object (fixrunner) in the sandbox; the rig.json they leave is verified."""

    name = "python"

    def check_available(self) -> None:
        return None

    def prepare_workspace(self, task: Task, workdir: Path) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(_episode_rig(task), workdir / RIG_FILE)

    def run_fix_script(self, program: str, workdir: Path, timeout_s: float) -> ProgramRun:
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

    def verify(self, task: Task, workdir: Path) -> Verdict:
        trusted = Rig.load(_episode_rig(task))
        try:
            edited = load_workspace_rig(workdir)  # whatever the program left: untrusted
        except RigFormatError as e:
            return Verdict.invalid_artefact(str(e))
        return verify_rig(edited, _walk_reference(task), trusted=trusted)

    def oracle(self, task: Task) -> str:
        return task.hidden["oracle_fix"]

    def baseline_agent(self) -> Any:
        from simreflect.suites.gait.baseline import CycleRestoreBaseline

        return CycleRestoreBaseline()


class BlenderInterface:
    """Fix scripts are bpy scripts run by Blender on episode.blend; the saved .blend is read back by
    Blender, then the same verifier judges it."""

    name = "blender"

    def check_available(self) -> None:
        from simreflect.suites.gait.blender.runtime import BlenderUnavailable, find_blender

        try:
            find_blender()
        except BlenderUnavailable as e:
            raise ValueError(f"the gait suite's blender interface needs Blender: {e}") from None

    def prepare_workspace(self, task: Task, workdir: Path) -> None:
        from simreflect.suites.gait.blender import interface as blender

        blender.prepare_workspace(_episode_rig(task), Path(workdir))

    def run_fix_script(self, program: str, workdir: Path, timeout_s: float) -> ProgramRun:
        from simreflect.suites.gait.blender import interface as blender

        return ProgramRun(blender.run_fix_script(program, Path(workdir), timeout_s))

    def verify(self, task: Task, workdir: Path) -> Verdict:
        from simreflect.suites.gait.blender import interface as blender

        return blender.verify_workspace(_episode_rig(task), Path(workdir), _walk_reference(task))

    def oracle(self, task: Task) -> str:
        """The oracle as a bpy script: from the episode record when it has one, else derived from the
        same normal-vs-broken data (the Python oracle applied to the episode's rig)."""
        if task.hidden.get("oracle_fix_bpy"):
            return task.hidden["oracle_fix_bpy"]
        from simreflect.suites.gait.blender.oracle import oracle_bpy_for

        return oracle_bpy_for(Rig.load(_episode_rig(task)), task.hidden["oracle_fix"], task.id)

    def baseline_agent(self) -> Any:
        return None  # the cycle-restore baseline writes Python-interface scripts


#: The interfaces by name ("python" is the default).
INTERFACE_TYPES: dict[str, type] = {"python": PythonInterface, "blender": BlenderInterface}
INTERFACES = tuple(INTERFACE_TYPES)


def interface_for(name: str) -> FixInterface:
    if name not in INTERFACE_TYPES:
        raise ValueError(f"gait interface must be one of {', '.join(INTERFACES)}, not {name!r}")
    return INTERFACE_TYPES[name]()
