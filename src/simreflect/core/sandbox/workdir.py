"""The work directory: its size watch, the setuid strip after a run, and safe reads and writes
of what a program left."""

from __future__ import annotations

import errno
import os
import shutil
import stat
from pathlib import Path

from simreflect.core.sandbox.limits import MAX_WORKDIR_ENTRIES, MB, UnsafeWorkspaceFile


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
