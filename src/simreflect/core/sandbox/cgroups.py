"""A run's cgroups: where this process's cgroup is, which controllers work here, one run's
cgroup (limits, stats, kill, removal) and the sweep of cgroups left by dead processes."""

from __future__ import annotations

import os
import re
import signal
import time
import uuid
from pathlib import Path
from typing import Any

from simreflect.core.sandbox.limits import Limits, MB


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

class _RunCgroup:
    """The cgroup(s) of one run, created under this process's own cgroup and removed afterwards."""

    def __init__(self, controllers: dict[str, tuple[str, Path]]):
        self.name = f"simreflect-{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self.dirs: dict[str, tuple[str, Path]] = {}
        self._made: list[Path] = []
        self.problems: list[str] = []
        self._cpu_base_s = 0.0
        #: CPU seconds spent in the cgroup before the run's command started (a launcher's start-up:
        #: the host's cost, not the program's; see rebase).
        self.prestart_cpu_s = 0.0
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

    def rebase(self) -> None:
        """Count from now on: what a launcher did in the cgroup before the run's command started is
        not the run's (cgroup v1 resets the CPU usage and the memory peak; v2, whose counters cannot
        be reset, has the CPU used so far subtracted, and its memory peak keeps the launcher's few MB)."""
        self._cpu_base_s = 0.0
        if "cpuacct" in self.dirs:
            if self.dirs["cpuacct"][0] == "v1":
                ns = self._read("cpuacct", "cpuacct.usage").strip()
                self.prestart_cpu_s = int(ns) / 1e9 if ns.isdigit() else 0.0
                self._write("cpuacct", "cpuacct.usage", "0")
            else:
                m = re.search(r"^usage_usec (\d+)", self._read("cpuacct", "cpu.stat"), re.M)
                self._cpu_base_s = self.prestart_cpu_s = int(m.group(1)) / 1e6 if m else 0.0
        if "memory" in self.dirs and self.dirs["memory"][0] == "v1":
            self._write("memory", "memory.max_usage_in_bytes", "0")

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
                    out["cpu_s"] = round(int(m.group(1)) / 1e6 - self._cpu_base_s, 3)
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
