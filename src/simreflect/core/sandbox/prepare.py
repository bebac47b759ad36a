"""What every sandboxed start does first: check the paths, list the package files, probe, set up
the run's cgroup."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from simreflect.core.sandbox import probe as probing
from simreflect.core.sandbox.cgroups import _RunCgroup
from simreflect.core.sandbox.launcher import take_launcher
from simreflect.core.sandbox.limits import Limits, SandboxUnavailable
from simreflect.core.sandbox.modules import _module_files
from simreflect.core.sandbox.zygote import take_sandbox


def _prepare(workdir: Path, readonly_paths: Iterable[Path], package_modules: Iterable[str] | None, limits: Limits,
             strict: bool):
    """What `run_sandboxed` and `open_session` do before starting a program: check the paths, list
    the package files to show, probe the isolation, and set up the run's cgroup (or refuse, when
    strict and degraded). Under bwrap the cgroup is a pre-forked sandbox's (zygote.py) or a
    pre-started launcher's (launcher.py), when one is ready: the start then skips the cgroup join
    and the fork (and, from a sandbox, bwrap and the interpreter's start)."""
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
    launcher = None
    if probe["mode"] == "bwrap":
        launcher = take_sandbox(probe["_cgroups"]) or take_launcher(probe["_cgroups"])
    if launcher is not None:
        launcher.cgroup.apply(limits)
        if launcher.cgroup.problems:  # a limit below what the launcher holds: start the usual way
            launcher.discard()
            launcher = None
    if launcher is not None:
        cg, cgroup_fds = launcher.cgroup, []  # it is in its cgroup already
        cg.rebase()
        return workdir, readonly, package_files, probe, degraded, cg, cgroup_fds, launcher
    cg = _RunCgroup(probe["_cgroups"]) if probe["_cgroups"] else None
    if cg is not None:
        cg.apply(limits)
    cgroup_fds = cg.procs_fds() if cg is not None else []
    if cg is not None and cg.problems and strict:
        for fd in cgroup_fds:
            os.close(fd)
        cg.remove()
        raise SandboxUnavailable("cgroup: " + "; ".join(cg.problems))
    return workdir, readonly, package_files, probe, degraded, cg, cgroup_fds, None
