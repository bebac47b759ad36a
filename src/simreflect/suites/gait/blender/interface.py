"""The gait suite's Blender interface, trusted side: episode .blend files, bpy fix scripts, verdicts.

- An episode's .blend is exported once from its rig.json (by the bridge, in the sandbox) into a
  content-addressed cache (SIMREFLECT_CACHE or ~/.cache/simreflect, folder gait-blend/), together
  with the file read straight back (the round trip).
- A fix script is a bpy script. It runs in the sandbox in Blender's own process: the bridge opens
  the work directory's episode.blend, runs the script and saves the file; a script that fails
  saves nothing.
- Verification reads the saved .blend in a second, separate Blender process (again sandboxed, on a
  private copy of the file, with the file's own scripts disabled) that writes the rig in rig.json
  form; that JSON is read here as untrusted data, checked against the episode's structure (to
  float32 precision, which is how Blender stores it) and verified by the numpy verifier, the single
  source of truth. Nothing from the .blend is ever loaded or executed in this process.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simreflect.core.cache import cache_dir
from simreflect.core.program import ProgramResult
from simreflect.core.sandbox import (
    SANDBOX_WORKDIR,
    UnsafeWorkspaceFile,
    read_workspace_file,
    remove_workspace_file,
    write_workspace_file,
)
from simreflect.core.untrusted import Refusal, load_json
from simreflect.core.verdict import Verdict
from simreflect.suites.gait.blender.runtime import (
    BlenderRuntime,
    BlenderUnavailable,
    bridge_path,
    find_blender,
    run_bridge,
)
from simreflect.suites.gait.rig import Rig, RigFormatError
from simreflect.suites.gait.suite import RIG_JSON_LIMITS
from simreflect.suites.gait.verify import WalkReference, verify_rig

BLEND_FILE = "episode.blend"
FIX_SCRIPT = "fix.py"
IMPORT_FILE = "rig.json"
ROUNDTRIP_FILE = "roundtrip.json"
MAX_BLEND_BYTES = 64 << 20
#: Blender stores positions as float32: a rest position or bone end within this of the episode's is unchanged.
STRUCTURE_TOL = 1e-6


class BlenderError(RuntimeError):
    """Blender failed on trusted input (exporting an episode): an infrastructure problem, not the agent's."""


def cache_root() -> Path:
    return cache_dir() / "gait-blend"


@dataclass(frozen=True)
class EpisodeBlend:
    blend: Path  # the episode as a .blend
    roundtrip: Path  # that file read back by the bridge (rig.json form + blender info)
    sha256: str  # of the .blend bytes

    def roundtrip_data(self) -> dict:
        return json.loads(self.roundtrip.read_text())


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def export_rig(rig_json: bytes, dest: Path, runtime: BlenderRuntime | None = None) -> EpisodeBlend:
    """Write a rig (its JSON bytes) as dest/episode.blend plus dest/roundtrip.json (the file read back)."""
    runtime = runtime or find_blender()
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    (dest / IMPORT_FILE).write_bytes(rig_json)
    result = run_bridge(runtime, ["export", f"{SANDBOX_WORKDIR}/{IMPORT_FILE}", f"{SANDBOX_WORKDIR}/{BLEND_FILE}",
                                  f"{SANDBOX_WORKDIR}/{ROUNDTRIP_FILE}"], dest)
    (dest / IMPORT_FILE).unlink(missing_ok=True)
    if not result.ok:
        raise BlenderError(f"exporting a rig to .blend failed ({result.status}: {result.reason}):\n"
                           f"{result.output_tail[-2000:]}")
    blend = dest / BLEND_FILE
    return EpisodeBlend(blend, dest / ROUNDTRIP_FILE, _sha256(blend.read_bytes()))


def _cache_key(rig_json: bytes, runtime: BlenderRuntime) -> str:
    h = hashlib.sha256()
    for part in (rig_json, Path(bridge_path()).read_bytes(), runtime.kind.encode(), runtime.version.encode()):
        h.update(hashlib.sha256(part).digest())
    return h.hexdigest()[:32]


def episode_blend(rig_path: Path, runtime: BlenderRuntime | None = None) -> EpisodeBlend:
    """The .blend of a (trusted) rig file, exported once into the cache and reused."""
    runtime = runtime or find_blender()
    rig_json = Path(rig_path).read_bytes()
    final = cache_root() / _cache_key(rig_json, runtime)
    blend, roundtrip = final / BLEND_FILE, final / ROUNDTRIP_FILE
    if not (blend.is_file() and roundtrip.is_file()):
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.", dir=final.parent))
        try:
            export_rig(rig_json, tmp, runtime)
            try:
                tmp.rename(final)
            except OSError:  # another process finished first
                pass
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return EpisodeBlend(blend, roundtrip, _sha256(blend.read_bytes()))


# ----- the agent's side: workspace and fix script ---------------------------------------------------

def prepare_workspace(rig_path: Path, workdir: Path) -> None:
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(episode_blend(rig_path).blend, workdir / BLEND_FILE)


def run_fix_script(program: str, workdir: Path, timeout_s: float) -> ProgramResult:
    """Run a bpy fix script on workdir/episode.blend in Blender, in the sandbox (saved only on success)."""
    runtime = find_blender()
    workdir = Path(workdir)
    write_workspace_file(workdir, FIX_SCRIPT, program)
    try:
        return run_bridge(runtime, ["run", f"{SANDBOX_WORKDIR}/{BLEND_FILE}", f"{SANDBOX_WORKDIR}/{FIX_SCRIPT}"],
                          workdir, timeout_s=timeout_s)
    finally:
        remove_workspace_file(workdir, FIX_SCRIPT)


# ----- reading a .blend back and verifying it ---------------------------------------------------------

class BlendImportError(ValueError):
    """A saved .blend that Blender could not read back into rig form (the agent's artefact is rejected)."""


def import_blend(blob: bytes, frames: tuple[int, ...] = (), runtime: BlenderRuntime | None = None,
                 timeout_s: float = 120.0) -> dict:
    """The rig form of .blend bytes, read by the bridge in its own sandboxed Blender process on a private
    copy. Returns untrusted data (a dict, not yet checked); BlendImportError if Blender cannot read it."""
    runtime = runtime or find_blender()
    with tempfile.TemporaryDirectory(prefix="simreflect-blend-") as tmp:
        (Path(tmp) / BLEND_FILE).write_bytes(blob)
        args = ["import", f"{SANDBOX_WORKDIR}/{BLEND_FILE}", f"{SANDBOX_WORKDIR}/{IMPORT_FILE}"]
        if frames:
            args.append(",".join(str(int(f)) for f in frames))
        result = run_bridge(runtime, args, Path(tmp), timeout_s=timeout_s)
        if not result.ok:
            lines = [ln for ln in result.output_tail.strip().splitlines() if ln.strip()]
            said = next((ln for ln in reversed(lines) if ln.startswith("not a gait rig:")), lines[-1] if lines else "")
            raise BlendImportError(f"Blender could not read the saved {BLEND_FILE} back ({result.reason})"
                                   + (f": {said[:400]}" if said else ""))
        try:
            data = load_json(read_workspace_file(Path(tmp), IMPORT_FILE, RIG_JSON_LIMITS.max_bytes), RIG_JSON_LIMITS,
                             f"the rig Blender read from {BLEND_FILE}")
        except (FileNotFoundError, UnsafeWorkspaceFile, OSError, Refusal) as e:
            raise BlendImportError(f"reading {BLEND_FILE} back gave no rig: {e}") from None
    if not isinstance(data, dict):
        raise BlendImportError("reading the .blend back gave no rig object")
    return data


def blender_problems(data: dict) -> list[str]:
    info = data.get("blender")
    problems = info.get("problems") if isinstance(info, dict) else None
    if not isinstance(problems, list):
        return ["the bridge's report is missing"]
    return [str(p)[:300] for p in problems]


def snap_structure(edited: Rig, trusted: Rig, tol: float = STRUCTURE_TOL) -> Rig:
    """The edited rig with the trusted bones and rest mesh where they agree to `tol` (float32 storage),
    so the exact structure check then sees only real changes. Keys and weights are the edited ones."""
    bones = edited.bones
    if (len(bones) == len(trusted.bones)
            and all(a.name == b.name and a.parent == b.parent for a, b in zip(bones, trusted.bones))
            and all(np.max(np.abs(np.subtract(a.head, b.head))) <= tol and np.max(np.abs(np.subtract(a.tail, b.tail))) <= tol
                    for a, b in zip(bones, trusted.bones))):
        bones = trusted.bones
    verts = edited.rest_vertices
    if verts.shape == trusted.rest_vertices.shape and np.max(np.abs(verts - trusted.rest_vertices), initial=0.0) <= tol:
        verts = trusted.rest_vertices
    return Rig(bones, verts, edited.faces, edited.parts, edited.weights, edited.location, edited.rotation_euler,
               trusted.fps)


def rig_from_import(data: dict, trusted: Rig) -> Rig:
    """The rig a read-back .blend holds, ready for verify_rig (RigFormatError when it cannot be one)."""
    problems = blender_problems(data)
    if problems:
        raise RigFormatError("the saved .blend does not hold a rig the verifier can read: " + "; ".join(problems[:6]))
    return snap_structure(Rig.from_dict(data), trusted)


def verify_data(data: dict, trusted: Rig, ref: WalkReference) -> Verdict:
    try:
        edited = rig_from_import(data, trusted)
    except RigFormatError as e:
        return Verdict.invalid_artefact(str(e))
    return verify_rig(edited, ref, trusted=trusted)


def verify_workspace(rig_path: Path, workdir: Path, ref: WalkReference) -> Verdict:
    """The verdict on the episode.blend an agent's program left in `workdir`."""
    trusted = Rig.load(Path(rig_path))
    try:
        blob = read_workspace_file(Path(workdir), BLEND_FILE, MAX_BLEND_BYTES)
    except FileNotFoundError:
        return Verdict.invalid_artefact(f"no {BLEND_FILE} in the work directory")
    except (UnsafeWorkspaceFile, OSError) as e:
        return Verdict.invalid_artefact(f"cannot read {BLEND_FILE}: {e}")
    pristine = episode_blend(rig_path)
    try:
        # the untouched episode file: its read-back is already in the cache (made from trusted input)
        data = pristine.roundtrip_data() if _sha256(blob) == pristine.sha256 else import_blend(blob)
    except BlendImportError as e:
        return Verdict.invalid_artefact(str(e))
    return verify_data(data, trusted, ref)


# ----- whole benchmarks and single files ----------------------------------------------------------------

def export_benchmark(bench: Path, out: Path) -> list[Path]:
    """Every episode of a built benchmark as out/epXX.blend, with its bpy oracle as out/epXX_oracle_bpy.py."""
    from simreflect.suites.gait.suite import GaitSuite

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    runtime = find_blender()
    suite = GaitSuite(interface="blender")
    written = []
    for task in suite.load_tasks(Path(bench)):
        eb = episode_blend(Path(task.params["dir"]) / IMPORT_FILE, runtime)
        shutil.copyfile(eb.blend, out / f"{task.id}.blend")
        (out / f"{task.id}_oracle_bpy.py").write_text(suite.oracle(task))
        written.append(out / f"{task.id}.blend")
    return written


def import_blend_file(path: Path) -> tuple[Rig, list[str]]:
    """A .blend (any, e.g. one edited in Blender by hand) read back into the rig format, with the
    problems that would make the verifier reject it (a rolled or scaled bone, a constraint, ...)."""
    data = import_blend(Path(path).read_bytes())
    return Rig.from_dict(data), blender_problems(data)


__all__ = ["export_benchmark", "import_blend_file", "BLEND_FILE", "BlenderError", "BlenderUnavailable", "BlendImportError", "EpisodeBlend", "episode_blend",
           "export_rig", "import_blend", "prepare_workspace", "run_fix_script", "verify_workspace", "verify_data",
           "rig_from_import", "snap_structure", "cache_root"]
