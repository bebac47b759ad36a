"""What confinement works on this machine, probed once per process."""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path
from typing import Any

from simreflect.core.sandbox.bwrap import _bwrap_argv, _bwrap_path, _clean_env, _python_paths
from simreflect.core.sandbox.cgroups import _probe_cgroups, _sweep_stale_cgroups
from simreflect.core.sandbox.limits import Limits, SANDBOX_GID, SANDBOX_UID, SANDBOX_WORKDIR
from simreflect.core.sandbox.seccomp import _seccomp_filter
from simreflect.core.sandbox.spawn import _spawn_bwrap


def _probe_bwrap(bwrap: str) -> tuple[bool, str, dict[str, bool]]:
    try:
        help_text = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=10).stdout
        version = subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError) as e:
        return False, f"bwrap does not run: {e}", {}
    options = {"disable_userns": "--disable-userns" in help_text, "tmpfs_size": "--size" in help_text,
               "args_fd": "--args" in help_text, "version": version}
    # The real thing, on a throwaway work directory: a Python that must see uid 65534 and no network.
    import tempfile

    with tempfile.TemporaryDirectory(prefix="simreflect-sandbox-probe-") as tmp:
        check = ("import os, socket\n"
                 "s = socket.socket()\n"
                 "try:\n    s.connect(('127.0.0.1', 9)); net = 'open'\n"
                 "except OSError as e:\n    net = 'closed'\n"
                 "print(os.getuid(), os.getgid(), net, sorted(os.listdir('/')))\n")
        argv = _bwrap_argv(bwrap, options, Path(tmp), Limits(), _python_paths(), [sys.executable, "-S", "-c", check])
        try:
            res = _spawn_bwrap(argv, _clean_env({}, "/tmp"), timeout_s=30, seccomp=_seccomp_filter())
        except (OSError, subprocess.SubprocessError) as e:
            return False, f"bwrap failed to start: {e}", options
    out = res[1].decode(errors="replace").strip()
    if res[0] != 0 or not out.startswith(f"{SANDBOX_UID} {SANDBOX_GID} closed"):
        return False, f"bwrap is not usable here (exit {res[0]}): {out[-300:]}", options
    return True, "", options


@functools.lru_cache(maxsize=1)
def _probe() -> dict[str, Any]:
    report: dict[str, Any] = {"bwrap": None, "bwrap_version": None, "namespaces": [], "uid": None,
                              "seccomp": None, "cgroup": {}, "rlimits": ["cpu", "fsize", "core", "nofile"]}
    degraded: list[str] = []
    bwrap = _bwrap_path()
    options: dict[str, Any] = {}
    if bwrap is None:
        degraded.append("bubblewrap (bwrap) is not installed: no namespaces, the host filesystem and network "
                        "are visible to the program")
    else:
        ok, why, options = _probe_bwrap(bwrap)
        report["bwrap_version"] = options.get("version")
        if ok:
            report["bwrap"] = bwrap
            report["namespaces"] = ["user", "mount", "pid", "net", "ipc", "uts", "cgroup"]
            report["uid"] = SANDBOX_UID
            report["seccomp"] = "x86_64 denylist" if _seccomp_filter() else None
        else:
            degraded.append(why + "; running without namespaces")
    cgroups, problems = _probe_cgroups()
    _sweep_stale_cgroups(cgroups)
    report["cgroup"] = {c: f"{v}:{p}" for c, (v, p) in cgroups.items()}
    if "memory" not in cgroups:
        degraded.append("no usable memory cgroup: memory bounded per process by RLIMIT_DATA instead")
        report["rlimits"].append("data")
    if "pids" not in cgroups:
        degraded.append("no usable pids cgroup: process count bounded only by RLIMIT_NPROC, "
                        "which does not bind root-owned processes")
        report["rlimits"].append("nproc")
    if problems and ("memory" not in cgroups or "pids" not in cgroups):
        degraded.append("cgroup problems: " + "; ".join(problems))
    report["mode"] = "bwrap" if report["bwrap"] else "plain"
    report["_options"] = options
    report["_cgroups"] = cgroups
    active = ["own process group, killed as a whole", "clean environment", "rlimits: " + ",".join(report["rlimits"]),
              "output cap", "work directory size watch"]
    if report["bwrap"]:
        active = [report["bwrap_version"] or "bubblewrap",
                  "namespaces: " + ",".join(report["namespaces"]),
                  f"uid/gid {SANDBOX_UID} with every capability dropped, no_new_privs",
                  *(["no nested user namespaces"] if options.get("disable_userns") else []),
                  *([f"seccomp: {report['seccomp']}"] if report["seccomp"] else []),
                  "read-only system and Python; fresh /tmp, /proc, /dev; root read-only",
                  f"one writable work directory at {SANDBOX_WORKDIR}",
                  *active]
    if cgroups:
        active.append("cgroup " + ", ".join(f"{c} ({v})" for c, (v, _) in sorted(cgroups.items())))
    report["active"] = active
    if degraded:
        report["degraded"] = "; ".join(degraded)
    return report


def isolation_report() -> dict[str, Any]:
    """What confinement works on this machine (probed once per process, then cached).

    Keys: mode ("bwrap" or "plain"), bwrap (path or None), bwrap_version, namespaces, uid, seccomp,
    cgroup ({controller: "v1:/path"} for memory, pids, cpuacct), rlimits, active (the features
    every sandboxed run gets, in words) and, only when something is missing, degraded (why).
    """
    return {k: (list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v)
            for k, v in _probe().items() if not k.startswith("_")}
