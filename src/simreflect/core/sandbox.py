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
reply from stdout (its stderr is the captured output). A program that does not answer in time,
answers garbage or too much, or ends early fails the request (`SessionError`, with a kind) and
the session is over; `close()` returns the session's ProgramResult.

Files a program leaves in its work directory are untrusted too: read them with
`read_workspace_file` (no symlinks, no FIFOs, bounded size) and write into the directory with
`write_workspace_file`.
"""

from __future__ import annotations

import errno
import functools
import json
import math
import os
import platform
import re
import resource
import select
import shutil
import signal
import stat
import struct
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable

from simreflect.core.lifetime import die_with_parent, prctl_function
from simreflect.core.program import OutputCapture, ProgramResult, drain, kill_group, pump
from simreflect.core.untrusted import JsonLimits, Refusal, load_json

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


# ----- the probe ----------------------------------------------------------------------------------

def _bwrap_path() -> str | None:
    return shutil.which("bwrap") or ("/usr/bin/bwrap" if os.access("/usr/bin/bwrap", os.X_OK) else None)


def _cgroup_layout() -> dict[str, tuple[str, Path]]:
    """Where this process's own cgroup is, per controller we use: {controller: (version, dir)}."""
    mounts_v1: dict[str, tuple[str, str]] = {}
    mount_v2: tuple[str, str] | None = None
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
        own = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return {}
    for line in lines:
        pre, _, post = line.partition(" - ")
        pre_f, post_f = pre.split(), post.split()
        if len(pre_f) < 5 or len(post_f) < 3:
            continue
        root, mountpoint, fstype, superopts = pre_f[3], pre_f[4], post_f[0], post_f[2]
        if fstype == "cgroup":
            for c in superopts.split(","):
                if c in ("memory", "pids", "cpuacct"):
                    mounts_v1.setdefault(c, (root, mountpoint))
        elif fstype == "cgroup2" and mount_v2 is None:
            mount_v2 = (root, mountpoint)

    def place(mount: tuple[str, str], path: str) -> Path:
        root, mountpoint = mount
        if root != "/" and (path == root or path.startswith(root + "/")):
            path = path[len(root):]
        return Path(mountpoint) / path.lstrip("/")

    out: dict[str, tuple[str, Path]] = {}
    v2_path = None
    for line in own:
        hid, _, rest = line.partition(":")
        ctrls, _, path = rest.partition(":")
        if hid == "0" and ctrls == "":
            v2_path = path
            continue
        for c in ctrls.split(","):
            if c in mounts_v1:
                out[c] = ("v1", place(mounts_v1[c], path))
    if mount_v2 is not None and v2_path is not None:
        base = place(mount_v2, v2_path)
        try:  # only controllers already delegated to our children; we never reconfigure our cgroup
            enabled = set((base / "cgroup.subtree_control").read_text().split())
        except OSError:
            enabled = set()
        for c, name in (("memory", "memory"), ("pids", "pids"), ("cpuacct", "cpu")):
            if c not in out and (name in enabled or c == "cpuacct"):
                out[c] = ("v2", base)  # cpu.stat exists in every v2 cgroup
    return out


_CG_FILES = {  # controller -> version -> file that must exist in a fresh child cgroup
    "memory": {"v1": "memory.limit_in_bytes", "v2": "memory.max"},
    "pids": {"v1": "pids.max", "v2": "pids.max"},
    "cpuacct": {"v1": "cpuacct.usage", "v2": "cpu.stat"},
}


def _probe_cgroups() -> tuple[dict[str, tuple[str, Path]], list[str]]:
    usable: dict[str, tuple[str, Path]] = {}
    problems: list[str] = []
    for c, (version, base) in _cgroup_layout().items():
        probe = base / f"simreflect-probe-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        try:
            probe.mkdir()
        except OSError as e:
            problems.append(f"cgroup {c} ({version}) at {base}: {e.strerror}")
            continue
        try:
            f = probe / _CG_FILES[c][version]
            if not f.exists():
                problems.append(f"cgroup {c} ({version}): no {f.name} in a child cgroup")
                continue
            if c == "memory":
                f.write_text(str(64 * MB) if version == "v1" else "max")
            elif c == "pids":
                f.write_text("max")
            usable[c] = (version, base)
        except OSError as e:
            problems.append(f"cgroup {c} ({version}): {e.strerror}")
        finally:
            try:
                probe.rmdir()
            except OSError:
                pass
    return usable, problems


_RUN_CGROUP = re.compile(r"^simreflect-(?:probe-)?(\d+)-[0-9a-f]{8,12}$")


def _sweep_stale_cgroups(controllers: dict[str, tuple[str, Path]]) -> int:
    """Remove the empty run cgroups of processes that are gone (killed before they could clean up,
    by kill -9 say). Returns how many were removed."""
    removed = 0
    for _, base in set(controllers.values()):
        try:
            entries = list(base.iterdir())
        except OSError:
            continue
        for d in entries:
            m = _RUN_CGROUP.match(d.name)
            if not m or int(m.group(1)) == os.getpid():
                continue
            try:
                os.kill(int(m.group(1)), 0)
                continue  # its owner still runs
            except ProcessLookupError:
                pass
            except OSError:
                continue
            try:
                d.rmdir()  # fails, and is left alone, unless empty
                removed += 1
            except OSError:
                pass
    return removed


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


# ----- building the sandbox -----------------------------------------------------------------------

def _package_dir() -> str:
    import simreflect

    return os.path.dirname(os.path.abspath(simreflect.__file__))


def _python_paths(include_package: bool = True) -> list[Path]:
    """The Python installation in use and (unless told not to) the directory simreflect is
    imported from."""
    cands = [sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix,
             os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))]
    if include_package:
        cands.append(os.path.dirname(_package_dir()))
    paths: list[str] = []
    for c in cands:
        for p in (os.path.abspath(c), os.path.realpath(c)):
            if p != "/" and os.path.isdir(p) and p not in paths:
                paths.append(p)
    return [Path(p) for p in _outermost(paths)]


def _module_files(modules: Iterable[str]) -> list[str]:
    """The source (and cached bytecode) files of modules and of the packages above them."""
    import importlib.util

    files: list[str] = []
    for name in modules:
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            spec = importlib.util.find_spec(".".join(parts[:i]))
            if spec is None or not spec.origin or not os.path.isfile(spec.origin):
                raise ModuleNotFoundError(f"no source file for module {'.'.join(parts[:i])}")
            files.append(os.path.abspath(spec.origin))
            try:
                cached = importlib.util.cache_from_source(spec.origin)
            except (NotImplementedError, ValueError):
                continue
            if _ensure_bytecode(spec.origin, cached):
                files.append(cached)
    return list(dict.fromkeys(files))


_COMPILED: set[str] = set()


def _ensure_bytecode(source: str, cached: str) -> bool:
    """Write a module's bytecode next to its source unless a valid one is there (with
    PYTHONDONTWRITEBYTECODE nothing else writes it, and the sandbox cannot): otherwise every
    sandboxed start compiles the module again. False when there is none and it cannot be written
    (a read-only installation): the sandbox then compiles, as before."""
    if source not in _COMPILED:
        import py_compile

        try:
            if not _bytecode_is_current(source, cached):
                py_compile.compile(source, cfile=cached, doraise=True)
        except (OSError, py_compile.PyCompileError):
            pass
        _COMPILED.add(source)
    return os.path.isfile(cached)


def _bytecode_is_current(source: str, cached: str) -> bool:
    """Whether `cached` is what the import system would accept for `source`: this Python's magic
    number and the source's modification time and size in its header."""
    import importlib.util

    try:
        with open(cached, "rb") as f:
            header = f.read(16)
    except OSError:
        return False
    st = os.stat(source)
    return (len(header) == 16 and header[:4] == importlib.util.MAGIC_NUMBER
            and int.from_bytes(header[4:8], "little") == 0
            and int.from_bytes(header[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(header[12:16], "little") == st.st_size & 0xFFFFFFFF)


def _outermost(paths: Iterable[str]) -> list[str]:
    """Paths without those already inside another one of them."""
    keep: list[str] = []
    for p in sorted(set(paths), key=len):
        if not any(p == k or p.startswith(k.rstrip("/") + "/") for k in keep):
            keep.append(p)
    return keep


def _clean_env(extra: dict[str, str] | None, home: str) -> dict[str, str]:
    env = {
        "PATH": f"{Path(sys.prefix) / 'bin'}:/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "USER": "nobody",
        "LOGNAME": "nobody",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
        "PYTHONHASHSEED": "0",
    }
    if home == "/tmp":
        env["TMPDIR"] = "/tmp"
    env.update(extra or {})
    return env


def _bwrap_argv(bwrap: str, options: dict[str, Any], workdir: Path, limits: Limits, ro_paths: list[Path],
                argv: list[str], package_files: list[str] | None = None) -> list[str]:
    """bwrap's arguments (after the binary) for one run; see the module docstring.

    With `package_files`, the simreflect package directory is an empty read-only tmpfs holding only
    those files (whatever else binds it, an installed package in site-packages say)."""
    args = ["--unshare-all", "--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_GID),
            "--hostname", "sandbox", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    if options.get("disable_userns"):
        args.append("--disable-userns")
    if options.get("tmpfs_size"):
        args += ["--size", str(limits.disk_mb * MB)]
    args += ["--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev"]
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    for f in ETC_FILES:
        if os.path.lexists(f):
            args += ["--ro-bind", f, f]
    for p in _outermost(str(p) for p in ro_paths):
        if p == SANDBOX_WORKDIR or p.startswith(SANDBOX_WORKDIR + "/") or SANDBOX_WORKDIR.startswith(p + "/"):
            raise ValueError(f"read-only path {p} collides with the sandbox work directory {SANDBOX_WORKDIR}")
        if not any(p == d or p.startswith(d + "/") for d in SYSTEM_DIRS):
            args += ["--ro-bind", p, p]
    if package_files is not None:
        pkg = _package_dir()
        args += ["--tmpfs", pkg]
        for f in package_files:
            args += ["--ro-bind", f, f]
        args += ["--remount-ro", pkg]
    args += ["--bind", str(workdir), SANDBOX_WORKDIR, "--remount-ro", "/", "--chdir", SANDBOX_WORKDIR]
    return [bwrap, *args, "--", *argv]


def _seccomp_filter() -> bytes | None:
    """A classic-BPF seccomp program refusing dangerous syscalls with EPERM (x86_64 only)."""
    if platform.machine() != "x86_64":
        return None
    denied = [101, 310, 311,  # ptrace, process_vm_readv, process_vm_writev
              165, 166, 155, 161,  # mount, umount2, pivot_root, chroot
              272, 308,  # unshare, setns
              248, 249, 250,  # add_key, request_key, keyctl
              321, 298, 323,  # bpf, perf_event_open, userfaultfd
              246, 320, 175, 313, 176,  # kexec_load, kexec_file_load, init/finit/delete_module
              169, 167, 168, 163, 179,  # reboot, swapon, swapoff, acct, quotactl
              304, 303, 103, 300, 212,  # open_by_handle_at, name_to_handle_at, syslog, fanotify_init, lookup_dcookie
              172, 173,  # iopl, ioperm
              425, 426, 427,  # io_uring_setup, io_uring_enter, io_uring_register
              428, 429, 430, 431, 432, 433, 442]  # open_tree, move_mount, fsopen, fsconfig, fsmount, fspick, mount_setattr
    ld_w_abs, jeq_k, jge_k, ret_k = 0x20, 0x15, 0x35, 0x06
    audit_arch_x86_64 = 0xC000003E
    ret_allow, ret_eperm, ret_kill = 0x7FFF0000, 0x00050000 | errno.EPERM, 0x80000000
    n = len(denied)
    prog = [
        (ld_w_abs, 0, 0, 4),  # A = arch
        (jeq_k, 1, 0, audit_arch_x86_64),  # native: skip the kill
        (ret_k, 0, 0, ret_kill),
        (ld_w_abs, 0, 0, 0),  # A = syscall number
        (jge_k, n + 1, 0, 0x40000000),  # the x32 ABI: refuse
    ]
    for i, nr in enumerate(denied):
        prog.append((jeq_k, n - i, 0, nr))  # to the EPERM return
    prog += [(ret_k, 0, 0, ret_allow), (ret_k, 0, 0, ret_eperm)]
    return b"".join(struct.pack("HBBI", *ins) for ins in prog)


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


# ----- a run's cgroup -----------------------------------------------------------------------------

class _RunCgroup:
    """The cgroup(s) of one run, created under this process's own cgroup and removed afterwards."""

    def __init__(self, controllers: dict[str, tuple[str, Path]]):
        self.name = f"simreflect-{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self.dirs: dict[str, tuple[str, Path]] = {}
        self._made: list[Path] = []
        self.problems: list[str] = []
        for c, (version, base) in controllers.items():
            d = base / self.name
            try:
                if d not in self._made:
                    d.mkdir()
                    self._made.append(d)
                self.dirs[c] = (version, d)
            except OSError as e:
                self.problems.append(f"cannot create the {c} cgroup: {e.strerror}")

    def _write(self, c: str, name: str, value: str) -> bool:
        try:
            (self.dirs[c][1] / name).write_text(value)
            return True
        except (OSError, KeyError):
            return False

    def _read(self, c: str, name: str) -> str:
        try:
            return (self.dirs[c][1] / name).read_text()
        except (OSError, KeyError):
            return ""

    def apply(self, limits: Limits) -> None:
        mem = limits.memory_mb * MB
        if "memory" in self.dirs:
            v1 = self.dirs["memory"][0] == "v1"
            if not self._write("memory", "memory.limit_in_bytes" if v1 else "memory.max", str(mem)):
                self.problems.append("cannot set the memory limit")
                del self.dirs["memory"]
            else:  # no escape into swap
                self._write("memory", "memory.memsw.limit_in_bytes" if v1 else "memory.swap.max", str(mem) if v1 else "0")
        if "pids" in self.dirs:
            # bwrap's monitor and the namespace's init are counted too
            if not self._write("pids", "pids.max", str(limits.processes + 2)):
                self.problems.append("cannot set the pids limit")
                del self.dirs["pids"]

    def procs_fds(self) -> list[int]:
        fds = []
        for d in self._made:
            try:
                fds.append(os.open(d / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC))
            except OSError as e:
                self.problems.append(f"cannot join {d.name}: {e.strerror}")
        return fds

    def stats(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if "memory" in self.dirs:
            v1 = self.dirs["memory"][0] == "v1"
            m = re.search(r"^oom_kill (\d+)", self._read("memory", "memory.oom_control" if v1 else "memory.events"), re.M)
            out["oom_kills"] = int(m.group(1)) if m else 0
            if v1 and not m:  # old kernels: fall back on the failure counter
                out["oom_kills"] = int(self._read("memory", "memory.failcnt").strip() or 0) > 0
            peak = self._read("memory", "memory.max_usage_in_bytes" if v1 else "memory.peak").strip()
            if peak.isdigit():
                out["peak_memory_mb"] = round(int(peak) / MB, 1)
        if "pids" in self.dirs:
            m = re.search(r"^max (\d+)", self._read("pids", "pids.events"), re.M)
            out["pids_refused"] = int(m.group(1)) if m else 0
        if "cpuacct" in self.dirs:
            if self.dirs["cpuacct"][0] == "v1":
                ns = self._read("cpuacct", "cpuacct.usage").strip()
                if ns.isdigit():
                    out["cpu_s"] = round(int(ns) / 1e9, 3)
            else:
                m = re.search(r"^usage_usec (\d+)", self._read("cpuacct", "cpu.stat"), re.M)
                if m:
                    out["cpu_s"] = round(int(m.group(1)) / 1e6, 3)
        return out

    def _pids(self) -> set[int]:
        pids: set[int] = set()
        for d in self._made:
            try:
                pids.update(int(p) for p in (d / "cgroup.procs").read_text().split())
            except (OSError, ValueError):
                pass
        return pids

    def kill_all(self, timeout_s: float = 2.0) -> None:
        """SIGKILL whatever is still in the cgroup (through pidfds: no pid-reuse accidents)."""
        end = time.monotonic() + timeout_s
        while True:
            pids = self._pids()
            if not pids or time.monotonic() > end:
                return
            for pid in pids:
                _kill_in_cgroup(pid, self.name)
            time.sleep(0.005)

    def remove(self, timeout_s: float = 10.0) -> None:
        """rmdir the run's cgroups, waiting for killed processes to go (one stuck in disk I/O can
        take seconds); what is still busy after `timeout_s` is left for `_sweep_stale_cgroups`
        of a later process and noted in `problems`."""
        end = time.monotonic() + timeout_s
        for d in reversed(self._made):
            while True:
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > end:
                        self.problems.append(f"could not remove cgroup {d}")
                        break
                    time.sleep(0.005)


def _kill_in_cgroup(pid: int, cgroup_name: str) -> None:
    try:
        pidfd = os.pidfd_open(pid)
    except (OSError, AttributeError):
        return
    try:
        try:
            if f"/{cgroup_name}" not in Path(f"/proc/{pid}/cgroup").read_text():
                return
        except OSError:
            return
        signal.pidfd_send_signal(pidfd, signal.SIGKILL)
    except (OSError, AttributeError):
        pass
    finally:
        os.close(pidfd)


# ----- the work directory ------------------------------------------------------------------------

def _dir_usage(root: Path, max_entries: int) -> tuple[int, int]:
    """(bytes on disk, entries) of a directory tree, without following symlinks; stops counting
    entries past max_entries."""
    total, entries = 0, 0
    stack = [str(root)]
    while stack:
        try:
            with os.scandir(stack.pop()) as it:
                for e in it:
                    entries += 1
                    if entries > max_entries:
                        return total, entries
                    try:
                        st = e.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    total += st.st_blocks * 512
                    if stat.S_ISDIR(st.st_mode):
                        stack.append(e.path)
        except OSError:
            continue
    return total, entries


def _sanitize(root: Path) -> None:
    """Strip setuid/setgid and world-write bits the program may have set on what it left.

    Inside the sandbox the program's uid maps to the host uid that started it, so a setuid file it
    leaves behind would be setuid to that uid on the host.
    """
    stack = [str(root)]
    seen = 0
    while stack and seen <= 10 * MAX_WORKDIR_ENTRIES:
        try:
            with os.scandir(stack.pop()) as it:
                for e in it:
                    seen += 1
                    try:
                        st = e.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if stat.S_ISLNK(st.st_mode):
                        continue
                    if stat.S_ISDIR(st.st_mode):
                        stack.append(e.path)
                    bad = st.st_mode & (stat.S_ISUID | stat.S_ISGID | stat.S_IWOTH)
                    if bad:
                        try:
                            os.chmod(e.path, stat.S_IMODE(st.st_mode) & ~bad)
                        except OSError:
                            pass
        except OSError:
            continue


def read_workspace_file(workdir: Path, name: str, max_bytes: int = 256 * MB) -> bytes:
    """The bytes of `workdir/name`, a file an untrusted program may have tampered with.

    Refuses (UnsafeWorkspaceFile) a symlink, anything but a regular file (a FIFO would block the
    reader) and files larger than `max_bytes`; FileNotFoundError when there is none.
    """
    if "/" in name or name in ("", ".", ".."):
        raise ValueError(f"not a plain file name: {name!r}")
    dfd = os.open(workdir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dfd)
        except OSError as e:
            if e.errno == errno.ELOOP:
                raise UnsafeWorkspaceFile(f"{name} is a symbolic link, not a file") from None
            raise
    finally:
        os.close(dfd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeWorkspaceFile(f"{name} is not a regular file")
        if st.st_size > max_bytes:
            raise UnsafeWorkspaceFile(f"{name} is larger than {max_bytes} bytes")
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if size > max_bytes:
                raise UnsafeWorkspaceFile(f"{name} is larger than {max_bytes} bytes")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def remove_workspace_file(workdir: Path, name: str) -> None:
    """Remove `workdir/name` whatever the program turned it into (never following a link)."""
    path = Path(workdir) / name
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    except FileNotFoundError:
        pass


def write_workspace_file(workdir: Path, name: str, data: str | bytes) -> Path:
    """Create `workdir/name` afresh: whatever was there (a link planted by an earlier program, say)
    is removed first and the new file is created exclusively, never through a link."""
    if "/" in name or name in ("", ".", ".."):
        raise ValueError(f"not a plain file name: {name!r}")
    remove_workspace_file(workdir, name)
    raw = data.encode() if isinstance(data, str) else data
    dfd = os.open(workdir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=dfd)
    finally:
        os.close(dfd)
    try:
        view = memoryview(raw)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
    return Path(workdir) / name


# ----- the run ------------------------------------------------------------------------------------

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


_SIGNAL_EXIT_BASE = 128


def _exception_line(text: str) -> str:
    """The last line of a Python traceback in the output, if the output ends with one."""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    for ln in reversed(lines[-5:]):
        if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b", ln):
            return ln
    return ""


def _classify(rc: int | None, sandboxed: bool, stopped: str | None, stats: dict[str, Any], capture: OutputCapture,
              limits: Limits, watch_note: str) -> tuple[str, int | None, str, list[str]]:
    """(status, exit_code, reason, limits_hit) of a finished run."""
    hit: list[str] = []
    if stopped == "timeout":
        hit.append("wall_time")
    if stopped == "disk":
        hit.append("disk")
    if stats.get("oom_kills"):
        hit.append("memory")
    if stats.get("pids_refused"):
        hit.append("processes")
    if stats.get("cpu_s", 0.0) >= limits.cpu_s:
        hit.append("cpu")
    if capture.truncated:
        hit.append("output")
    sig = None
    if rc is not None:
        if sandboxed and rc > _SIGNAL_EXIT_BASE and rc - _SIGNAL_EXIT_BASE < signal.NSIG:
            sig = rc - _SIGNAL_EXIT_BASE
        elif rc < 0:
            sig = -rc
    exc = _exception_line(capture.text()) if rc not in (None, 0) and sig is None else ""
    exc_type = exc.split(":", 1)[0]
    if sig == signal.SIGXCPU and "cpu" not in hit:
        hit.append("cpu")
    if sig == signal.SIGXFSZ or "File too large" in exc:
        hit.append("file_size")
    if "MemoryError" in exc_type and "memory" not in hit:
        hit.append("memory")
    exit_code = None if sig is None and rc is None else (-sig if sig is not None else rc)

    if stopped == "timeout":
        return "timeout", None, f"timeout: killed after {limits.wall_s:g} s of wall time", hit
    if stopped == "disk":
        return "limit", None, f"disk limit: {watch_note}", hit
    if rc == 0:
        return "ok", 0, "", hit
    if sig is not None:
        name = _signal_name(sig)
        if "cpu" in hit and sig in (signal.SIGXCPU, signal.SIGKILL):
            return "limit", exit_code, f"cpu limit: {limits.cpu_s:g} s of CPU time ({name})", hit
        if "memory" in hit and sig == signal.SIGKILL:
            return "limit", exit_code, f"memory limit: killed by the OOM killer at {limits.memory_mb} MB", hit
        if sig == signal.SIGXFSZ:
            return "limit", exit_code, f"file too large: a file grew past {limits.file_mb} MB ({name})", hit
        return "crash", exit_code, f"killed by signal {sig} ({name})", hit
    if "memory" in hit:
        what = "MemoryError" if "MemoryError" in exc_type else f"the OOM killer stopped a process at {limits.memory_mb} MB"
        return "limit", rc, f"memory limit: {what} (exit code {rc})", hit
    if "file_size" in hit:
        return "limit", rc, f"file too large: a file grew past {limits.file_mb} MB (exit code {rc})", hit
    if "processes" in hit and ("Resource temporarily unavailable" in exc or "BlockingIOError" in exc):
        return "limit", rc, f"process limit: more than {limits.processes} processes (exit code {rc})", hit
    return "error", rc, f"exit code {rc}", hit


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"


def _plain_argv(argv: list[str], workdir: Path) -> list[str]:
    """In the degraded mode there is no /workdir: point the program's paths at the real directory."""
    real = str(workdir)
    return [real + a[len(SANDBOX_WORKDIR):] if a == SANDBOX_WORKDIR or a.startswith(SANDBOX_WORKDIR + "/") else a
            for a in argv]


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
    probe = _probe()
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
    workdir, readonly_paths, package_files, probe, degraded, cg, cgroup_fds = _prepare(
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
            proc = _start_bwrap(cmd, _clean_env(env, "/tmp"), rlimits, cgroup_fds, _seccomp_filter())
        else:
            proc = _popen(_plain_argv(list(argv), workdir), _clean_env(env, str(workdir)), str(workdir),
                          rlimits, cgroup_fds)
    finally:
        for fd in cgroup_fds:
            os.close(fd)
        if proc is None and cg is not None:
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


# ----- persistent sessions -------------------------------------------------------------------------

#: Longest reply line a session accepts unless told otherwise.
SESSION_MAX_MESSAGE_BYTES = 1 << 20
_SESSION_WATCH_S = 0.25


class SessionError(RuntimeError):
    """A session request that failed; the session cannot be used any more.

    `kind` is timeout (no answer in time, or the session's wall time is spent), closed (the
    program ended or stopped reading), protocol (a reply that is not one JSON value on one line,
    or output on the reply channel nobody asked for), too_large (a reply past the size limit) or
    disk (the work directory grew past its limit)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


#: How a session's replies are read unless told otherwise (the length is always `max_message_bytes`):
#: NaN and infinities refused, lone surrogates in strings replaced by U+FFFD.
SESSION_REPLY_LIMITS = JsonLimits(surrogates="replace")


class SandboxSession:
    """A confined program that stays alive and answers requests, one JSON value per line.

    Made by `open_session`: the same confinement as `run_sandboxed` (bubblewrap, cgroup, rlimits,
    seccomp, clean environment, one writable work directory at SANDBOX_WORKDIR), with three pipes:
    requests go to the program's stdin, its replies come from its stdout (one JSON line per
    request), and whatever it prints on stderr is captured like a run's output (`output_kb`, head
    and tail). A program that does not answer in time, answers with something that is not one JSON
    value on one line, answers too much or ends early fails the request (`SessionError`) and the
    session is over: `close()` then kills it. The session's whole life is bounded by `limits.wall_s`.

    `close()` returns the ProgramResult of the whole session (status, reason, limits met,
    isolation, usage), like `run_sandboxed` does for a run.
    """

    def __init__(self, proc: subprocess.Popen, cg: Any, capture: OutputCapture, limits: Limits, workdir: Path,
                 start: float, sandboxed: bool, degraded: list[str], probe: dict[str, Any], max_message_bytes: int,
                 reply_limits: JsonLimits = SESSION_REPLY_LIMITS):
        self._proc = proc
        self._cg = cg
        self._capture = capture
        self._limits = limits
        self._workdir = workdir
        self._start = start
        self._sandboxed = sandboxed
        self._degraded = degraded
        self._probe = probe
        self._max = int(max_message_bytes)
        self._reply_limits = replace(reply_limits, max_bytes=self._max)
        self._buf = bytearray()
        self._stdout_fd = proc.stdout.fileno()
        self._stderr_fd = proc.stderr.fileno()
        self._stdin_fd = proc.stdin.fileno()
        for fd in (self._stdout_fd, self._stderr_fd, self._stdin_fd):
            os.set_blocking(fd, False)
        self._stderr_open = True
        self._wall_deadline = start + limits.wall_s
        self._next_watch = start + _SESSION_WATCH_S
        self._disk_note = ""
        self._error: SessionError | None = None
        self._result: ProgramResult | None = None
        #: Requests answered so far.
        self.requests = 0

    # --- state

    @property
    def alive(self) -> bool:
        """True while requests can still be made (no failure, not closed)."""
        return self._error is None and self._result is None

    @property
    def error(self) -> SessionError | None:
        """The failure that ended the session, if one did."""
        return self._error

    @property
    def pid(self) -> int:
        return self._proc.pid

    # --- requests

    def request(self, obj: Any, timeout_s: float) -> Any:
        """Send `obj` as one JSON line and return the program's one-line JSON reply.

        Raises SessionError when the program does not answer within `timeout_s` (or the
        session's wall time runs out first), ends, or answers with anything but one JSON value on
        one line of at most `max_message_bytes` within the session's `reply_limits` (depth, items,
        strings, numbers: core.untrusted). NaN and infinities are refused both ways."""
        if self._result is not None:
            raise SessionError("closed", "the session is closed")
        if self._error is not None:
            raise self._error
        n = self.requests + 1
        if self._buf:
            self._fail("protocol", f"the program wrote to the reply channel without being asked (before request {n})")
        data = (json.dumps(obj, separators=(",", ":"), allow_nan=False) + "\n").encode()
        deadline = min(time.monotonic() + max(0.0, float(timeout_s)), self._wall_deadline)
        self._write(data, deadline, n, timeout_s)
        line = self._read_line(deadline, n, timeout_s)
        try:
            value = load_json(line, self._reply_limits, "it")
        except Refusal as e:
            shown = line[:120].decode("utf-8", errors="replace")
            self._fail("protocol", f"reply {n} is not one JSON value ({e}); it began {shown!r}")
        self.requests = n
        return value

    def _fail(self, kind: str, message: str) -> None:
        self._error = SessionError(kind, message)
        raise self._error

    def _timed_out(self, n: int, timeout_s: float) -> None:
        if time.monotonic() >= self._wall_deadline:
            self._fail("timeout", f"timeout: the session's {self._limits.wall_s:g} s of wall time ran out "
                                  f"waiting for reply {n}")
        self._fail("timeout", f"timeout: no reply to request {n} within {timeout_s:g} s")

    def _watch(self) -> None:
        now = time.monotonic()
        if now < self._next_watch:
            return
        self._next_watch = now + _SESSION_WATCH_S
        used, entries = _dir_usage(self._workdir, MAX_WORKDIR_ENTRIES)
        if used > self._limits.disk_mb * MB:
            self._disk_note = f"the work directory grew past {self._limits.disk_mb} MB"
        elif entries > MAX_WORKDIR_ENTRIES:
            self._disk_note = f"more than {MAX_WORKDIR_ENTRIES} files in the work directory"
        if self._disk_note:
            self._fail("disk", f"disk limit: {self._disk_note}")

    def _drain_stderr(self) -> None:
        while self._stderr_open:
            try:
                chunk = os.read(self._stderr_fd, 1 << 16)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self._stderr_open = False
                return
            self._capture.feed(chunk)

    def _write(self, data: bytes, deadline: float, n: int, timeout_s: float) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._stdin_fd, view):]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, OSError):
                self._fail("closed", f"the program stopped reading requests before request {n} "
                                     "(it has probably ended)")
            now = time.monotonic()
            if now >= deadline:
                self._timed_out(n, timeout_s)
            self._watch()
            rd = [self._stderr_fd] if self._stderr_open else []
            r, _, _ = select.select(rd, [self._stdin_fd], [], min(deadline - now, _SESSION_WATCH_S))
            if r:
                self._drain_stderr()

    def _read_line(self, deadline: float, n: int, timeout_s: float) -> bytes:
        while True:
            idx = self._buf.find(b"\n")
            if idx >= 0:
                if idx > self._max:
                    self._fail("too_large", f"reply {n} is longer than {self._max} bytes")
                line = bytes(self._buf[:idx])
                del self._buf[:idx + 1]
                return line
            if len(self._buf) > self._max:
                self._fail("too_large", f"reply {n} is longer than {self._max} bytes")
            now = time.monotonic()
            if now >= deadline:
                self._timed_out(n, timeout_s)
            self._watch()
            fds = [self._stdout_fd] + ([self._stderr_fd] if self._stderr_open else [])
            r, _, _ = select.select(fds, [], [], min(deadline - now, _SESSION_WATCH_S))
            if self._stderr_fd in r:
                self._drain_stderr()
            if self._stdout_fd in r:
                try:
                    chunk = os.read(self._stdout_fd, 1 << 16)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    self._drain_stderr()
                    self._fail("closed", f"the program ended without answering request {n}")
                self._buf += chunk

    # --- the end

    def close(self, grace_s: float = 2.0) -> ProgramResult:
        """End the session and describe it. A healthy session gets EOF on its stdin and `grace_s`
        seconds to exit; a failed one (or one that does not exit) is killed with its whole tree.
        Idempotent: later calls return the same result."""
        if self._result is not None:
            return self._result
        proc, cg = self._proc, self._cg
        stopped: str | None = None
        try:
            if self._error is None:
                try:
                    proc.stdin.close()
                except OSError:
                    pass
                end = min(time.monotonic() + grace_s, self._wall_deadline + grace_s)
                while proc.poll() is None and time.monotonic() < end:
                    rd = [self._stderr_fd] if self._stderr_open else []
                    if rd:
                        r, _, _ = select.select(rd, [], [], 0.02)
                        if r:
                            self._drain_stderr()
                    else:
                        time.sleep(0.005)
                if proc.poll() is None:
                    stopped = "linger"
            else:
                stopped = self._error.kind
            if stopped is not None:
                kill_group(proc.pid)
                if cg is not None:
                    cg.kill_all()
            proc.wait()
            end = time.monotonic() + 0.5
            while self._stderr_open and time.monotonic() < end:
                r, _, _ = select.select([self._stderr_fd], [], [], 0.05)
                if r:
                    self._drain_stderr()
        finally:
            kill_group(proc.pid)
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            for f in (proc.stdin, proc.stdout, proc.stderr):
                try:
                    f.close()
                except OSError:
                    pass
            stats: dict[str, Any] = {}
            if cg is not None:
                cg.kill_all()
                stats = cg.stats()
                cg.remove()
                if cg.problems:
                    self._degraded.append("cgroup: " + "; ".join(cg.problems))
            _sanitize(self._workdir)
        elapsed = time.monotonic() - self._start
        kind = self._error.kind if self._error is not None else None
        classify_stop = "timeout" if kind == "timeout" else "disk" if kind == "disk" else None
        status, exit_code, reason, hit = _classify(proc.returncode, self._sandboxed, classify_stop, stats,
                                                   self._capture, self._limits, self._disk_note)
        if kind == "timeout":
            reason = str(self._error)
        elif kind in ("protocol", "too_large"):
            status, exit_code, reason = "error", exit_code, f"protocol: {self._error}"
        elif kind == "closed" and status == "ok":
            status, reason = "error", f"protocol: {self._error} (exit code 0)"
        elif stopped == "linger":
            status, reason = "timeout", f"timeout: the program did not end within {grace_s:g} s of its last request"
            hit = [*hit, "wall_time"] if "wall_time" not in hit else hit
        isolation: dict[str, Any] = {"mode": self._probe["mode"], "active": list(self._probe["active"]),
                                     "session": True}
        if self._degraded:
            isolation["degraded"] = "; ".join(self._degraded)
        usage = {k: v for k, v in stats.items() if k in ("cpu_s", "peak_memory_mb")}
        usage["output_bytes"] = self._capture.total
        usage["requests"] = self.requests
        self._result = ProgramResult(status, exit_code, self._capture.text(), elapsed, reason, tuple(hit),
                                     isolation, usage)
        return self._result

    def __enter__(self) -> SandboxSession:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def open_session(argv: list[str], workdir: Path, limits: Limits = Limits(), readonly_paths: Iterable[Path] = (),
                 env: dict[str, str] | None = None, strict: bool = False,
                 package_modules: Iterable[str] | None = (),
                 max_message_bytes: int = SESSION_MAX_MESSAGE_BYTES,
                 reply_limits: JsonLimits = SESSION_REPLY_LIMITS) -> SandboxSession:
    """Start argv confined exactly as `run_sandboxed` would, but keep it running as a session that
    answers JSON-lines requests on its stdin/stdout (see SandboxSession). Same arguments as
    `run_sandboxed`, plus how long a reply may be and how it is read (`reply_limits`); raises
    SandboxUnavailable only with strict=True when isolation is degraded."""
    workdir, readonly_paths, package_files, probe, degraded, cg, cgroup_fds = _prepare(
        workdir, readonly_paths, package_modules, limits, strict)
    sandboxed = probe["mode"] == "bwrap"
    rlimits = _rlimits(limits, cg.dirs if cg is not None else {})
    capture = OutputCapture(limits.output_kb * 1024 // 2, limits.output_kb * 1024 - limits.output_kb * 1024 // 2)
    start = time.monotonic()
    proc = None
    try:
        if sandboxed:
            ro = _python_paths(include_package=package_files is None) + readonly_paths
            cmd = _bwrap_argv(probe["bwrap"], probe["_options"], workdir, limits, ro, list(argv), package_files)
            proc = _start_bwrap(cmd, _clean_env(env, "/tmp"), rlimits, cgroup_fds, _seccomp_filter(),
                                stdin=subprocess.PIPE, stderr=subprocess.PIPE)
        else:
            proc = _popen(_plain_argv(list(argv), workdir), _clean_env(env, str(workdir)), str(workdir),
                          rlimits, cgroup_fds, stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    finally:
        for fd in cgroup_fds:
            os.close(fd)
        if proc is None and cg is not None:
            cg.remove()
    return SandboxSession(proc, cg, capture, limits, workdir, start, sandboxed, degraded, probe, max_message_bytes,
                          reply_limits)
