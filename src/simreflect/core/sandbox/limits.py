"""What bounds a sandboxed run: the paths and ids inside, `Limits`, the errors, and the rlimits
derived from the limits."""

from __future__ import annotations

import math
import resource
from dataclasses import dataclass
from typing import Any


SANDBOX_WORKDIR = "/workdir"
SANDBOX_UID = 65534
SANDBOX_GID = 65534
MB = 1 << 20
#: The disk watch gives up (and stops the program) past this many entries in the work directory.
MAX_WORKDIR_ENTRIES = 10_000
#: /etc entries the dynamic loader and libc want; nothing with accounts or secrets.
ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/alternatives")
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed run."""

    wall_s: float = 60.0  # wall-clock seconds before the whole process tree is killed
    cpu_s: float = 60.0  # CPU seconds per process (RLIMIT_CPU)
    memory_mb: int = 2048  # memory of the whole tree, page cache and tmpfs included (cgroup)
    processes: int = 64  # processes and threads of the whole tree (pids cgroup)
    file_mb: int = 64  # largest file the program may write (RLIMIT_FSIZE)
    output_kb: int = 256  # captured stdout+stderr kept (head and tail)
    disk_mb: int = 512  # total size of the work directory, and the size of /tmp


class SandboxUnavailable(RuntimeError):
    """strict=True was asked for and the full isolation is not available here."""


class UnsafeWorkspaceFile(ValueError):
    """A file in a work directory that is a symlink, not a regular file, or too large."""

def _rlimits(limits: Limits, cgroups: dict[str, Any]) -> list[tuple[int, int, int]]:
    cpu = max(1, math.ceil(limits.cpu_s))
    want = [(resource.RLIMIT_CPU, cpu, cpu + 1),
            (resource.RLIMIT_FSIZE, limits.file_mb * MB, limits.file_mb * MB),
            (resource.RLIMIT_CORE, 0, 0),
            (resource.RLIMIT_NOFILE, 1024, 1024)]
    if "memory" not in cgroups:
        want.append((resource.RLIMIT_DATA, limits.memory_mb * MB, limits.memory_mb * MB))
    if "pids" not in cgroups:
        want.append((resource.RLIMIT_NPROC, limits.processes, limits.processes))
    out = []
    for res, soft, hard in want:
        _, cur_hard = resource.getrlimit(res)
        if cur_hard != resource.RLIM_INFINITY:
            hard = min(hard, cur_hard)
            soft = min(soft, hard)
        out.append((res, soft, hard))
    return out
