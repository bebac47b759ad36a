"""Finding Blender and running the bridge with it, confined like any untrusted program.

Blender is found, in this order, from:
- SIMREFLECT_BLENDER_PYTHON: a Python interpreter that has the `bpy` module (pip package `bpy`,
  Blender as a Python module; it pins numpy<2, so it lives in its own virtual environment);
- SIMREFLECT_BLENDER: a `blender` binary (run with --background --factory-startup);
- the default: `.venv-blender/bin/python` beside the main virtual environment or at the root of the
  source tree (what `scripts/setup.sh` creates).

Every Blender process runs under `run_sandboxed`: Blender's installation is added read-only, and of
simreflect only the bridge file is visible (it imports nothing of ours).
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

from simreflect.core.program import ProgramResult
from simreflect.core.sandbox import SANDBOX_WORKDIR, Limits, run_sandboxed

ENV_PYTHON = "SIMREFLECT_BLENDER_PYTHON"
ENV_BINARY = "SIMREFLECT_BLENDER"
VENV_NAME = ".venv-blender"
#: The only part of simreflect a Blender process can see.
BRIDGE_MODULE = "simreflect.suites.gait.blender.bridge"
BRIDGE_MODULES = (BRIDGE_MODULE,)
#: Limits of one Blender process: Blender starts a thread per core, hence the larger process count.
BLENDER_LIMITS = Limits(wall_s=120.0, cpu_s=120.0, memory_mb=3072, processes=256, file_mb=256, output_kb=256,
                        disk_mb=1024)
INSTALL_HINT = (f"install it with `bash scripts/setup.sh` (a virtual environment {VENV_NAME} with the pip package "
                f"bpy, Python 3.11), or point {ENV_PYTHON} at a Python that has bpy, or {ENV_BINARY} at a "
                "blender binary")

_PROBE = (
    "import sys, json, importlib.util, importlib.metadata as m\n"
    "ok = importlib.util.find_spec('bpy') is not None\n"
    "try:\n    v = m.version('bpy')\nexcept Exception:\n    v = None\n"
    "print(json.dumps({'bpy': ok, 'version': v, 'python': sys.version.split()[0], 'executable': sys.executable,"
    " 'prefixes': [sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix]}))\n"
)


class BlenderUnavailable(RuntimeError):
    """No usable Blender (a bpy Python or a blender binary) was found."""


@dataclass(frozen=True)
class BlenderRuntime:
    kind: str  # "bpy" (a Python with the bpy module) or "binary" (a blender executable)
    executable: str
    version: str
    source: str  # where it was found: the environment variable or "default"
    readonly: tuple[str, ...] = field(default=())

    def argv(self, *args: str) -> list[str]:
        """The command that runs the bridge with `args` (paths as the sandbox sees them)."""
        bridge = bridge_path()
        if self.kind == "bpy":
            # -P: the work directory is not on sys.path (files left there cannot stand in for modules)
            return [self.executable, "-P", bridge, *args]
        return [self.executable, "--background", "--factory-startup", "-noaudio", "--python-exit-code", "1",
                "--python", bridge, "--", *args]

    def describe(self) -> str:
        return f"Blender {self.version} ({'bpy module' if self.kind == 'bpy' else 'binary'}: {self.executable}, from {self.source})"


def bridge_path() -> str:
    return str(Path(__file__).with_name("bridge.py").resolve())


def _repo_default() -> Path | None:
    cands = [Path(sys.prefix).resolve().parent / VENV_NAME / "bin" / "python",
             Path(__file__).resolve().parents[5] / VENV_NAME / "bin" / "python"]
    for c in cands:
        if c.is_file() and os.access(c, os.X_OK):
            return c
    return None


@functools.lru_cache(maxsize=8)
def _probe_python(executable: str) -> dict:
    try:
        out = subprocess.run([executable, "-P", "-c", _PROBE], capture_output=True, text=True, timeout=60,
                             env={"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp")})
    except (OSError, subprocess.TimeoutExpired) as e:
        raise BlenderUnavailable(f"cannot run {executable}: {e}") from None
    if out.returncode != 0:
        raise BlenderUnavailable(f"{executable} is not a working Python (exit code {out.returncode}"
                                 f"{': ' + out.stderr.strip()[-300:] if out.stderr.strip() else ''}); {INSTALL_HINT}")
    try:
        return json.loads(out.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        raise BlenderUnavailable(f"{executable} did not answer like a Python; {INSTALL_HINT}") from None


@functools.lru_cache(maxsize=8)
def _probe_binary(executable: str) -> str:
    try:
        out = subprocess.run([executable, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise BlenderUnavailable(f"cannot run {executable}: {e}") from None
    first = (out.stdout or "").strip().splitlines()[:1]
    if out.returncode != 0 or not first or not first[0].startswith("Blender"):
        raise BlenderUnavailable(f"{executable} is not a blender binary: {(out.stdout + out.stderr).strip()[:300]}")
    return first[0].split()[1]


def _outer(paths) -> tuple[str, ...]:
    keep: list[str] = []
    for p in sorted({os.path.realpath(p) for p in paths if p} | {os.path.abspath(p) for p in paths if p}, key=len):
        if p != "/" and os.path.exists(p) and not any(p == k or p.startswith(k + "/") for k in keep):
            keep.append(p)
    return tuple(keep)


def python_runtime(executable: str | Path, source: str = "default") -> BlenderRuntime:
    executable = str(Path(executable).absolute())
    info = _probe_python(executable)
    if not info.get("bpy"):
        raise BlenderUnavailable(f"{executable} (Python {info.get('python')}) has no bpy module; {INSTALL_HINT}")
    exe_root = os.path.dirname(os.path.dirname(os.path.realpath(executable)))
    readonly = _outer([*info["prefixes"], exe_root, os.path.dirname(os.path.dirname(executable))])
    return BlenderRuntime("bpy", executable, str(info.get("version") or "?"), source, readonly)


def binary_runtime(executable: str | Path, source: str = "default") -> BlenderRuntime:
    executable = str(Path(executable).absolute())
    version = _probe_binary(executable)
    return BlenderRuntime("binary", executable, version, source,
                          _outer([os.path.dirname(os.path.realpath(executable)), os.path.dirname(executable)]))


def find_blender() -> BlenderRuntime:
    """The Blender to use (see the module docstring); BlenderUnavailable with what to do otherwise."""
    py = os.environ.get(ENV_PYTHON, "").strip()
    if py:
        return python_runtime(py, ENV_PYTHON)
    binary = os.environ.get(ENV_BINARY, "").strip()
    if binary:
        return binary_runtime(binary, ENV_BINARY)
    default = _repo_default()
    if default is None:
        raise BlenderUnavailable(f"no Blender found; {INSTALL_HINT}")
    return python_runtime(default, "default")


def blender_available() -> tuple[bool, str]:
    """(True, description) or (False, why not): for skipping tests and for error messages."""
    try:
        return True, find_blender().describe()
    except BlenderUnavailable as e:
        return False, str(e)


def run_bridge(runtime: BlenderRuntime, args: list[str], workdir: Path, limits: Limits = BLENDER_LIMITS,
               timeout_s: float | None = None) -> ProgramResult:
    """Run the bridge with `args` (paths under SANDBOX_WORKDIR) in the sandbox, on `workdir`."""
    if timeout_s is not None:
        limits = replace(limits, wall_s=timeout_s, cpu_s=timeout_s)
    for a in args:
        if a.startswith("/") and not (a == SANDBOX_WORKDIR or a.startswith(SANDBOX_WORKDIR + "/")):
            raise ValueError(f"bridge argument {a} is outside the sandbox work directory")
    return run_sandboxed(runtime.argv(*args), Path(workdir), limits, readonly_paths=[Path(p) for p in runtime.readonly],
                         package_modules=BRIDGE_MODULES)
