"""What a program left in its work directory, copied or checked as data.

A work directory is written by an untrusted program, and the trusted side (root, on our machines)
copies it between rounds, in rescore and in the RL environment. `copy_workspace` is the one way
to do that. It walks the tree through directory file descriptors, never following a symbolic
link, and accepts only directories and regular files:

* a symbolic link (to a task folder, an answer key, /etc/passwd, a directory), a FIFO (a reader
  would block), a socket or a device is refused;
* a regular file with other hard links outside the tree is refused (it would carry a file the
  program could not reach into the copy, or let the copy write through to one);
* the number of entries, the total apparent size (a sparse file counts at its full length: the
  copy would write it out) and the directory depth are bounded.

Without a destination it only checks (a `WorkspaceScan` lists every problem, in words such as
"symlink workdir/x -> /etc/passwd"); with one it checks the whole tree first and copies only a
clean one, checking each entry again as it copies (a lingering process cannot slip a link in
between), and raises `UnsafeWorkspace` otherwise. Copies keep permission bits without setuid,
setgid, sticky or world-write, and keep modification times.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from simreflect.core.sandbox import MAX_WORKDIR_ENTRIES

#: How a work directory is named in what the trusted side says about it.
DISPLAY_ROOT = "workdir"
MAX_WORKSPACE_BYTES = 1 << 30
MAX_WORKSPACE_DEPTH = 32
#: Problems listed in a refusal; the rest are counted.
MAX_LISTED = 8
_NAME_CHARS = 160
_COPY_CHUNK = 1 << 24
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_KIND = {stat.S_IFIFO: "fifo", stat.S_IFSOCK: "socket", stat.S_IFCHR: "character device",
         stat.S_IFBLK: "block device"}


@dataclass(frozen=True)
class WorkspaceBounds:
    entries: int = MAX_WORKDIR_ENTRIES  # files and directories
    bytes: int = MAX_WORKSPACE_BYTES  # total apparent size of the regular files
    depth: int = MAX_WORKSPACE_DEPTH  # directories below the top


@dataclass(frozen=True)
class WorkspaceScan:
    problems: tuple[str, ...] = ()
    files: int = 0
    dirs: int = 0
    bytes: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems

    def refusal(self) -> str:
        """The problems as one verdict reason: "invalid artefact: symlink workdir/x -> /etc/passwd; ..."."""
        listed = "; ".join(self.problems[:MAX_LISTED])
        more = len(self.problems) - MAX_LISTED
        return "invalid artefact: " + listed + (f"; and {more} more" if more > 0 else "")


class UnsafeWorkspace(ValueError):
    """A work directory `copy_workspace` will not copy; `scan` says why."""

    def __init__(self, scan: WorkspaceScan):
        super().__init__(scan.refusal())
        self.scan = scan


def copy_workspace(src: Path, dst: Path | None = None, bounds: WorkspaceBounds = WorkspaceBounds()) -> WorkspaceScan:
    """Check the work directory `src`; with `dst` (which must not exist), copy it there too.

    Returns the scan (its problems, when only checking). With `dst`, a tree with any problem is
    not copied at all (UnsafeWorkspace); a problem that appears during the copy raises too and
    leaves a partial `dst` for the caller to remove. Never follows a link, never opens a FIFO.
    """
    scan = _Walk(bounds).run(Path(src), None)
    if dst is None:
        return scan
    if not scan.ok:
        raise UnsafeWorkspace(scan)
    dst = Path(dst)
    dst.parent.mkdir(parents=True, exist_ok=True)
    os.mkdir(dst, 0o700)
    again = _Walk(bounds, copying=True).run(Path(src), dst)
    if not again.ok:  # the tree changed between the check and the copy
        raise UnsafeWorkspace(again)
    return scan


def _display(parts: tuple[str, ...]) -> str:
    """A path inside the work directory, as `_shown` text."""
    return _shown("/".join((DISPLAY_ROOT, *parts)))


def _shown(text: str) -> str:
    """A name the program chose, as text safe to show: control characters and undecodable bytes
    escaped, long names cut."""
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)  # a lone surrogate is not printable
    return text if len(text) <= _NAME_CHARS else text[:_NAME_CHARS] + "..."


def _copy_mode(st: os.stat_result, owner_bits: int) -> int:
    keep = stat.S_IMODE(st.st_mode) & ~(stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX | stat.S_IWOTH)
    return keep | owner_bits  # the host can always read, clean up and copy again what it copied


@dataclass
class _Walk:
    bounds: WorkspaceBounds
    copying: bool = False
    problems: list[str] = field(default_factory=list)
    files: int = 0
    dirs: int = 0
    bytes: int = 0
    entries: int = 0
    stopped: bool = False
    linked: dict[tuple[int, int], tuple[int, list[str]]] = field(default_factory=dict)  # (dev, ino) -> (nlink, names)

    def run(self, src: Path, dst: Path | None) -> WorkspaceScan:
        try:
            sfd = os.open(src, _DIR_FLAGS)
        except OSError as e:
            return WorkspaceScan((f"cannot open the work directory: {e.strerror}",))
        dfd = os.open(dst, _DIR_FLAGS) if dst is not None else None
        try:
            self._dir(sfd, dfd, ())
            if dfd is not None:
                _stamp_dir(dfd, os.fstat(sfd))
        finally:
            os.close(sfd)
            if dfd is not None:
                os.close(dfd)
        for nlink, shown in self.linked.values():
            for name in shown if len(shown) < nlink else ():
                self._problem(f"hard link {name} (its file has {nlink} links, {nlink - len(shown)} outside the work "
                              "directory)")
        return WorkspaceScan(tuple(self.problems), self.files, self.dirs, self.bytes)

    def _problem(self, text: str) -> None:
        self.problems.append(text)
        if self.copying:
            raise UnsafeWorkspace(WorkspaceScan(tuple(self.problems)))

    def _stop(self, text: str) -> None:
        self.stopped = True
        self._problem(text)

    def _dir(self, sfd: int, dfd: int | None, parts: tuple[str, ...]) -> None:
        try:
            with os.scandir(sfd) as it:
                names = sorted(e.name for e in it)
        except OSError as e:
            self._problem(f"cannot list {_display(parts)}: {e.strerror}")
            return
        for name in names:
            if self.stopped:
                return
            self.entries += 1
            if self.entries > self.bounds.entries:
                self._stop(f"more than {self.bounds.entries} files and directories in the work directory")
                return
            self._entry(sfd, dfd, parts + (name,))

    def _entry(self, sfd: int, dfd: int | None, parts: tuple[str, ...]) -> None:
        name, shown = parts[-1], _display(parts)
        try:
            st = os.stat(name, dir_fd=sfd, follow_symlinks=False)
        except OSError as e:
            self._problem(f"cannot read {shown}: {e.strerror}")
            return
        kind = stat.S_IFMT(st.st_mode)
        if kind == stat.S_IFLNK:
            try:
                target = os.readlink(name, dir_fd=sfd)
            except OSError:
                target = "?"
            self._problem(f"symlink {shown} -> {_shown(target)}")
        elif kind == stat.S_IFDIR:
            self._subdir(sfd, dfd, parts, st)
        elif kind == stat.S_IFREG:
            self._file(sfd, dfd, parts, st)
        else:
            self._problem(f"{_KIND.get(kind, 'special file')} {shown}")

    def _subdir(self, sfd: int, dfd: int | None, parts: tuple[str, ...], st: os.stat_result) -> None:
        if len(parts) > self.bounds.depth:
            self._stop(f"directories nested deeper than {self.bounds.depth} levels at {_display(parts)}")
            return
        self.dirs += 1
        try:
            sub = os.open(parts[-1], _DIR_FLAGS, dir_fd=sfd)
        except OSError as e:
            self._problem(f"cannot open {_display(parts)}: {e.strerror}")
            return
        dsub = None
        try:
            if not _same(os.fstat(sub), st):
                self._problem(f"{_display(parts)} changed while it was read")
                return
            if dfd is not None:
                os.mkdir(parts[-1], 0o700, dir_fd=dfd)
                dsub = os.open(parts[-1], _DIR_FLAGS, dir_fd=dfd)
            self._dir(sub, dsub, parts)
            if dsub is not None:
                _stamp_dir(dsub, st)
        finally:
            os.close(sub)
            if dsub is not None:
                os.close(dsub)

    def _file(self, sfd: int, dfd: int | None, parts: tuple[str, ...], st: os.stat_result) -> None:
        self.files += 1
        self.bytes += st.st_size
        if self.bytes > self.bounds.bytes:
            self._stop(f"more than {self.bounds.bytes >> 20} MB of files in the work directory")
            return
        if st.st_nlink > 1:
            self.linked.setdefault((st.st_dev, st.st_ino), (st.st_nlink, []))[1].append(_display(parts))
        if dfd is not None:
            self._copy_file(sfd, dfd, parts, st)

    def _copy_file(self, sfd: int, dfd: int, parts: tuple[str, ...], st: os.stat_result) -> None:
        src = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=sfd)
        try:
            now = os.fstat(src)
            if not stat.S_ISREG(now.st_mode) or not _same(now, st) or now.st_size != st.st_size:
                self._problem(f"{_display(parts)} changed while it was read")
                return
            out = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                          dir_fd=dfd)
            try:
                os.fchmod(out, _copy_mode(st, stat.S_IRUSR | stat.S_IWUSR))  # the mode as it was, not the umask's
                left = st.st_size  # never more than was counted against the bound
                while left > 0:
                    sent = os.sendfile(out, src, None, min(left, _COPY_CHUNK))
                    if sent == 0:
                        break
                    left -= sent
                os.utime(out, ns=_times(st))
            finally:
                os.close(out)
        finally:
            os.close(src)


def _same(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _stamp_dir(dfd: int, st: os.stat_result) -> None:
    """Give a copied directory its source's times and (unprivileged) mode, once its entries are in."""
    os.utime(dfd, ns=_times(st))
    os.chmod(dfd, _copy_mode(st, stat.S_IRWXU))


def _times(st: os.stat_result) -> tuple[int, int]:
    return st.st_atime_ns, st.st_mtime_ns
