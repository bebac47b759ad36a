"""Processes that do not outlive the process that started them.

A run killed with SIGKILL gets no chance to stop its pool workers, sandboxes or sessions, so each
child asks the kernel to kill it when its parent dies (Linux `PR_SET_PDEATHSIG`): pool workers in
their initializer (`worker_pool`), sandboxed programs before exec (core/sandbox/, which also runs
bubblewrap with --die-with-parent). Whatever those children started dies with them: a sandbox's
processes live in its own pid namespace, whose init is bwrap's child. The signal follows the
thread that forked the child: a process started from a thread that ends before it does is killed
then too (the pools and sandboxes here are started from threads that wait for them).
"""

from __future__ import annotations

import ctypes
import functools
import os
import signal
import sys
from concurrent.futures import ProcessPoolExecutor

PR_SET_PDEATHSIG = 1


@functools.lru_cache(maxsize=1)
def prctl_function():
    """libc's prctl, or None off Linux. Look it up in the parent: a child forked from a threaded
    process should not load libraries before exec."""
    if not sys.platform.startswith("linux"):
        return None
    return ctypes.CDLL(None, use_errno=True).prctl


def die_with_parent(parent: int) -> None:
    """In a child process: SIGKILL it when its parent dies. `parent` is the pid of the process
    that started it (read there, before the child existed); should it be gone already, the child
    ends at once. Without prctl (not Linux) nothing is done."""
    prctl = prctl_function()
    if prctl is None:
        return
    if prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    # the parent may have died between the fork and the prctl (the child then has another parent);
    # a forkserver's children have the forkserver as parent, and `parent` is still alive then
    if os.getppid() != parent and not _alive(parent):
        os._exit(1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool whose workers die with the process that made it."""
    return ProcessPoolExecutor(max_workers=workers, initializer=die_with_parent, initargs=(os.getpid(),))
