"""Starting a confined process: death with the caller, the cgroup join and the rlimits before
exec, bwrap's options through a memfd."""

from __future__ import annotations

import os
import resource
import subprocess
import time
from typing import Any

from simreflect.core.lifetime import die_with_parent, prctl_function
from simreflect.core.program import OutputCapture, kill_group, pump


def _memfd(name: str, data: bytes) -> int:
    fd = os.memfd_create(name)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _preexec(rlimits: list[tuple[int, int, int]], cgroup_fds: list[int]):
    """In the child before exec: die with the caller (also without bwrap), join the run's cgroups,
    then set the rlimits."""
    parent = os.getpid()
    prctl_function()  # looked up here, before the fork

    def setup() -> None:
        die_with_parent(parent)
        for fd in cgroup_fds:
            os.write(fd, b"0")  # "0" moves the writing process
        for res, soft, hard in rlimits:
            resource.setrlimit(res, (soft, hard))
    return setup


def _popen(cmd: list[str], env: dict[str, str], cwd: str, rlimits: list[tuple[int, int, int]],
           cgroup_fds: list[int], pass_fds: tuple[int, ...] = (), stdin: Any = subprocess.DEVNULL,
           stderr: Any = subprocess.STDOUT) -> subprocess.Popen:
    return subprocess.Popen(cmd, cwd=cwd, env=env, stdin=stdin, stdout=subprocess.PIPE,
                            stderr=stderr, start_new_session=True, pass_fds=pass_fds,
                            preexec_fn=_preexec(rlimits, cgroup_fds))


def _start_bwrap(bwrap_argv: list[str], env: dict[str, str], rlimits: list[tuple[int, int, int]],
                 cgroup_fds: list[int], seccomp: bytes | None, stdin: Any = subprocess.DEVNULL,
                 stderr: Any = subprocess.STDOUT) -> subprocess.Popen:
    """Start bwrap with its options in a memfd (so the host paths do not show in /proc/1/cmdline)."""
    bwrap, args = bwrap_argv[0], bwrap_argv[1:]
    fds = []
    try:
        dash = args.index("--")
        options, command = args[:dash], args[dash:]
        if seccomp:
            sfd = _memfd("simreflect-seccomp", seccomp)
            fds.append(sfd)
            options += ["--seccomp", str(sfd)]
        # bwrap takes options from the file, the command from its own command line
        afd = _memfd("simreflect-bwrap-args", b"".join(a.encode() + b"\0" for a in options))
        fds.append(afd)
        return _popen([bwrap, "--args", str(afd), *command], env, "/", rlimits, cgroup_fds, tuple(fds),
                      stdin=stdin, stderr=stderr)
    finally:
        for fd in fds:
            os.close(fd)


def _spawn_bwrap(bwrap_argv: list[str], env: dict[str, str], timeout_s: float,
                 seccomp: bytes | None) -> tuple[int | None, bytes]:
    """A bare run (for the probe): exit status and output."""
    proc = _start_bwrap(bwrap_argv, env, [], [], seccomp)
    cap = OutputCapture(0, 64 * 1024)
    try:
        pump(proc, cap, time.monotonic() + timeout_s)
    finally:
        kill_group(proc.pid)
        proc.wait()
        proc.stdout.close()
    return proc.returncode, cap.data()
