"""`run_sandboxed`: one confined program, run to its end."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Iterable

from simreflect.core.program import OutputCapture, ProgramResult, drain, kill_group, pump
from simreflect.core.sandbox.bwrap import _bwrap_argv, _clean_env, _plain_argv, _python_paths
from simreflect.core.sandbox.limits import Limits, MAX_WORKDIR_ENTRIES, MB, _rlimits
from simreflect.core.sandbox.outcome import _classify
from simreflect.core.sandbox.prepare import _prepare
from simreflect.core.sandbox.seccomp import _seccomp_filter
from simreflect.core.sandbox.spawn import _popen, _start_bwrap
from simreflect.core.sandbox.workdir import _dir_usage, _sanitize


def run_sandboxed(argv: list[str], workdir: Path, limits: Limits = Limits(), readonly_paths: Iterable[Path] = (),
                  env: dict[str, str] | None = None, strict: bool = False,
                  package_modules: Iterable[str] | None = ()) -> ProgramResult:
    """Run argv confined, with `workdir` as its only writable directory (seen as SANDBOX_WORKDIR).

    argv names paths as the program sees them: the work directory is SANDBOX_WORKDIR, the Python
    installation and the simreflect package are at their usual paths; `readonly_paths` adds more
    read-only host directories (at the same paths). `env` adds variables to the clean environment.

    `package_modules` (dotted names) limits what the program sees of simreflect to those modules
    and their parent packages: the rest of the package (task generators, which rebuild a seeded
    episode and its answer key; verifiers; task folders with answer keys) is not there to read.
    The default shows none of it; None shows the whole package (for trusted programs only).

    Never raises for what the program does; raises SandboxUnavailable only with strict=True when
    the isolation is degraded.
    """
    workdir, readonly_paths, package_files, probe, degraded, cg, cgroup_fds, launcher = _prepare(
        workdir, readonly_paths, package_modules, limits, strict)
    sandboxed = probe["mode"] == "bwrap"
    rlimits = _rlimits(limits, cg.dirs if cg is not None else {})

    capture = OutputCapture(limits.output_kb * 1024 // 2, limits.output_kb * 1024 - limits.output_kb * 1024 // 2)
    disk_note = ""

    def watch() -> str | None:
        nonlocal disk_note
        used, entries = _dir_usage(workdir, MAX_WORKDIR_ENTRIES)
        if used > limits.disk_mb * MB:
            disk_note = f"the work directory grew past {limits.disk_mb} MB"
            return "disk"
        if entries > MAX_WORKDIR_ENTRIES:
            disk_note = f"more than {MAX_WORKDIR_ENTRIES} files in the work directory"
            return "disk"
        return None

    start = time.monotonic()
    proc = None
    stopped = None
    try:
        if sandboxed:
            ro = _python_paths(include_package=package_files is None) + readonly_paths
            cmd = _bwrap_argv(probe["bwrap"], probe["_options"], workdir, limits, ro, list(argv), package_files)
            if launcher is not None:
                proc = launcher.launch(cmd, _clean_env(env, "/tmp"), rlimits, _seccomp_filter(), session=False)
            else:
                proc = _start_bwrap(cmd, _clean_env(env, "/tmp"), rlimits, cgroup_fds, _seccomp_filter())
        else:
            proc = _popen(_plain_argv(list(argv), workdir), _clean_env(env, str(workdir)), str(workdir),
                          rlimits, cgroup_fds)
    finally:
        for fd in cgroup_fds:
            os.close(fd)
        if proc is None and launcher is not None:
            launcher.discard()  # and its cgroup
        elif proc is None and cg is not None:
            cg.remove()
    try:
        stopped = pump(proc, capture, start + limits.wall_s, watch=watch)
        if stopped is not None:
            kill_group(proc.pid)
            if cg is not None:
                cg.kill_all()
            drain(proc, capture)
        proc.wait()
    finally:
        kill_group(proc.pid)  # whatever the program left running dies with it
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        stats: dict[str, Any] = {}
        if cg is not None:
            cg.kill_all()
            stats = cg.stats()
            cg.remove()
            if cg.problems:
                degraded.append("cgroup: " + "; ".join(cg.problems))
        _sanitize(workdir)
    elapsed = time.monotonic() - start

    status, exit_code, reason, hit = _classify(proc.returncode, sandboxed, stopped, stats, capture, limits, disk_note)
    out = capture.text()
    if sandboxed and proc.returncode == 1 and out.startswith("bwrap: ") and stopped is None:
        # bwrap's own setup failed (or the program imitates it: it only relabels its own failure)
        reason = f"exit code 1 (the sandbox reported: {out.splitlines()[0][len('bwrap: '):][:200]})"
    isolation: dict[str, Any] = {"mode": probe["mode"], "active": list(probe["active"])}
    if degraded:
        isolation["degraded"] = "; ".join(degraded)
    usage = {k: v for k, v in stats.items() if k in ("cpu_s", "peak_memory_mb")}
    usage["output_bytes"] = capture.total
    return ProgramResult(status, exit_code, out, elapsed, reason, tuple(hit), isolation, usage)
