"""What every sandboxed start does first: check the paths, list the package files, probe, set up
the run's cgroup."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from simreflect.core.sandbox import probe as probing
from simreflect.core.sandbox.cgroups import _RunCgroup
from simreflect.core.sandbox.limits import Limits, SandboxUnavailable
from simreflect.core.sandbox.modules import _module_files


def _prepare(workdir: Path, readonly_paths: Iterable[Path], package_modules: Iterable[str] | None, limits: Limits,
             strict: bool):
    """What `run_sandboxed` and `open_session` do before starting a program: check the paths, list
    the package files to show, probe the isolation, and set up the run's cgroup (or refuse, when
    strict and degraded)."""
    workdir = Path(workdir).resolve()
    if not workdir.is_dir():
        raise FileNotFoundError(f"work directory {workdir} does not exist")
    readonly = [Path(p).resolve() for p in readonly_paths]
    for p in readonly:
        if not p.exists():
            raise FileNotFoundError(f"read-only path {p} does not exist")
    package_files = None if package_modules is None else _module_files(package_modules)
    probe = probing._probe()  # looked up on the module, so a test can stand in for the probe
    degraded = [probe["degraded"]] if probe.get("degraded") else []
    if strict and degraded:
        raise SandboxUnavailable(degraded[0])
    cg = _RunCgroup(probe["_cgroups"]) if probe["_cgroups"] else None
    if cg is not None:
        cg.apply(limits)
    cgroup_fds = cg.procs_fds() if cg is not None else []
    if cg is not None and cg.problems and strict:
        for fd in cgroup_fds:
            os.close(fd)
        cg.remove()
        raise SandboxUnavailable("cgroup: " + "; ".join(cg.problems))
    return workdir, readonly, package_files, probe, degraded, cg, cgroup_fds
