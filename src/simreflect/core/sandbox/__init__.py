"""Running an untrusted program confined: bubblewrap namespaces, cgroup limits, rlimits.

`run_sandboxed(argv, workdir, limits)` runs argv under bubblewrap (`bwrap`):

* every namespace unshared (user, mount, pid, network, ipc, uts, cgroup): no network but a
  loopback of its own (the host's loopback and abstract sockets are out of reach), no view of the
  host's processes, its own hostname;
* uid/gid 65534 inside, every capability dropped, no_new_privs, no further user namespaces, and
  on x86_64 a seccomp filter refusing (EPERM) ptrace, mount, keyring, bpf, perf, kexec, module
  and similar calls. Outside, that uid is the uid that started bwrap (root on our machines, with no
  capability left): files the program leaves belong to it, so setuid/setgid bits are stripped from
  the work directory after every run;
* a filesystem built from nothing: read-only binds of the system (/usr and its /bin, /lib
  links, a few /etc files the loader needs), of the Python installation in use (sys.prefix and
  sys.base_prefix) and of the simreflect package (whole, or only the modules the caller names in
  `package_modules`: generators rebuild seeded episodes and their answer keys); a fresh tmpfs on
  /tmp, a new /proc and a minimal /dev; the root read-only; and one writable directory, the
  caller's work directory, always at `SANDBOX_WORKDIR` (/workdir), which is also the cwd. Nothing
  else of the host is visible: not episode folders, answer keys, tests, other workspaces, /root;
* a clean environment (PATH, HOME=/tmp, LANG, PYTHONDONTWRITEBYTECODE=1, ... plus the caller's
  `env`): nothing is inherited from the parent, so its secrets (API keys) never reach the program.
  bwrap itself gets the same clean environment and reads its arguments from a memfd, so
  /proc/1/environ and /proc/1/cmdline inside show nothing of the host either.

Limits (`Limits`): wall time (the whole process group is killed; the pid namespace takes every
descendant with it), CPU time (RLIMIT_CPU: SIGXCPU, then SIGKILL a second later), memory and
process count (a per-run cgroup, v1 or v2, created under this process's own cgroup and removed
afterwards; memory is never limited through the address space, which breaks simulators), file
size (RLIMIT_FSIZE; Python sees EFBIG), core dumps off, the size of the work directory and of /tmp
(`disk_mb`: the work directory is measured while the program runs, /tmp is a sized tmpfs), and the
captured output (`output_kb`: head and tail kept, the middle counted and cut).

The result (`ProgramResult`) names what stopped the program in `reason` (timeout, cpu limit,
memory limit, file too large, process limit, disk limit, killed by signal N, exit code N), lists
every limit met in `limits_hit`, and records the confinement in `isolation`. Under bwrap a program
killed by signal N is seen as exit status 128+N (bwrap's convention); a program that exits with
such a status itself can only fake the wording of its own failure.

When bubblewrap or cgroups do not work on a machine, the runner falls back to the strongest
confinement it has (at worst: own process group, clean environment, rlimits, RLIMIT_DATA for memory)
and says so in `isolation["degraded"]`; it never runs a program unconfined silently, and
`strict=True` refuses to run degraded at all. `isolation_report()` tells what works here; it is
probed once per process and cached (the module's only state).

A program that must keep running while the caller works (a controller the caller's simulator
asks for actions every few steps, say) runs as a session: `open_session(argv, workdir, limits,
package_modules=...)` starts it under the same confinement and returns a `SandboxSession` whose
`request(obj, timeout_s)` sends one JSON line to the program's stdin and returns its one-line JSON
reply from stdout (its stderr is the captured output); `request_frame(payload, timeout_s, decode)`
does the same with a length-prefixed frame each way (FRAME_HEADER: magic and length judged before
the payload is read) and hands a copy of the reply's payload to the caller's `decode`. A program that does not answer in time,
answers garbage or too much, or ends early fails the request (`SessionError`, with a kind) and
the session is over; `close()` returns the session's ProgramResult.

Files a program leaves in its work directory are untrusted too: read them with
`read_workspace_file` (no symlinks, no FIFOs, bounded size) and write into the directory with
`write_workspace_file`.

The package, one job per module: limits (Limits, the paths inside, the errors, the rlimits), bwrap
(its command line and the clean environment), seccomp (the filter), modules (the package files a
sandbox sees), cgroups (a run's cgroup), spawn (starting a confined process), probe (what works
here), workdir (the work directory's watch and safe file access), outcome (what stopped a program),
prepare (what every start does first), launcher (pre-started launchers: the cgroup join and the
fork done ahead of the run, each launcher used once), zygote and zygote_program (pre-forked
sandboxes from a pre-loaded trusted interpreter: the cgroup join, the namespaces and the shared part
of the root done ahead, each sandbox used once; opt-in with SIMREFLECT_SANDBOX_ZYGOTE=1), run
(`run_sandboxed`), session (`open_session`).
"""

from simreflect.core.sandbox.bwrap import _bwrap_argv, _python_paths
from simreflect.core.sandbox.cgroups import _RunCgroup, _sweep_stale_cgroups
from simreflect.core.sandbox.limits import (
    MAX_WORKDIR_ENTRIES,
    MB,
    SANDBOX_GID,
    SANDBOX_UID,
    SANDBOX_WORKDIR,
    Limits,
    SandboxUnavailable,
    UnsafeWorkspaceFile,
)
from simreflect.core.sandbox.modules import _bytecode_is_current, _module_files
from simreflect.core.sandbox.probe import _probe, isolation_report
from simreflect.core.sandbox.run import run_sandboxed
from simreflect.core.sandbox.session import (
    SESSION_MAX_MESSAGE_BYTES,
    SESSION_REPLY_LIMITS,
    SandboxSession,
    SessionError,
    open_session,
)
from simreflect.core.sandbox.workdir import read_workspace_file, remove_workspace_file, write_workspace_file

__all__ = [
    "MAX_WORKDIR_ENTRIES", "MB", "SANDBOX_GID", "SANDBOX_UID", "SANDBOX_WORKDIR", "SESSION_MAX_MESSAGE_BYTES",
    "SESSION_REPLY_LIMITS", "Limits", "SandboxSession", "SandboxUnavailable", "SessionError", "UnsafeWorkspaceFile",
    "isolation_report", "open_session", "read_workspace_file", "remove_workspace_file", "run_sandboxed",
    "write_workspace_file",
    # internals the tests and benchmarks/ reach for
    "_RunCgroup", "_bwrap_argv", "_bytecode_is_current", "_module_files", "_probe", "_python_paths",
    "_sweep_stale_cgroups",
]
