"""bubblewrap's command line: the read-only system and Python, the package files shown, the work
directory, the clean environment (and the degraded mode's argv)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any, Iterable

from simreflect.core.sandbox.limits import ETC_FILES, Limits, MB, SANDBOX_GID, SANDBOX_UID, SANDBOX_WORKDIR, SYSTEM_DIRS


def _bwrap_path() -> str | None:
    return shutil.which("bwrap") or ("/usr/bin/bwrap" if os.access("/usr/bin/bwrap", os.X_OK) else None)


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

def _plain_argv(argv: list[str], workdir: Path) -> list[str]:
    """In the degraded mode there is no /workdir: point the program's paths at the real directory."""
    real = str(workdir)
    return [real + a[len(SANDBOX_WORKDIR):] if a == SANDBOX_WORKDIR or a.startswith(SANDBOX_WORKDIR + "/") else a
            for a in argv]
