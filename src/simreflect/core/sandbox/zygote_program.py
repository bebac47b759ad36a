"""The zygote's own program (trusted, the standard library only): run by zygote.py as
`python -c <this file's text> FD`, never imported by the host.

The zygote is an interpreter started once, with the clean environment and nothing of simreflect
imported. It waits on a socket (FD) for fork requests, each carrying the pipes of one future run
and the cgroup.procs descriptors of that run's fresh cgroup, and forks a monitor per request:

* the monitor (outside every namespace, in a session of its own) asks to die with the zygote, joins the
  run's cgroup, unshares user, mount, pid, network, ipc, uts and cgroup namespaces (uid and gid
  65534 inside, mapped to the uid that started it; its loopback up), forks the namespace's init
  and reports the init's exit status (bwrap's convention: 128+N for a signal) on the status pipe;
* the init (pid 1, the leader of its own session: the process group the host kills) forks the
  program's process, drops every capability and becomes non-dumpable, then reaps until the
  program ends, reports its status and exits with it (the kernel then kills whatever is left in
  the namespace);
* the program's process says it is ready and waits for the run's one message: bubblewrap's own
  options (bwrap.py builds them; this file applies them), the command, the seccomp filter, the
  environment, the rlimits and the work directory's identity. It builds the root from nothing as
  bwrap does (a tmpfs; read-only binds of the system, the Python installation and the package
  files shown; a sized tmpfs on /tmp; a new /proc and a minimal /dev; the work directory, checked to
  be the host's by device and inode, read-write), remounts it read-only, pivots into it and detaches
  the host's tree, starts a new session, drops every capability (bounding and ambient sets too),
  sets no_new_privs and the rlimits, says "go", closes every other descriptor, applies the seccomp
  filter, and only then runs the command: a `python` command (-c, -m or a script, with -P, -I,
  -E, -s or -B) in this interpreter, anything else through exec.

Nothing of a run ever reaches the zygote: the run's message goes to the program's own process over
its own pipe, after the fork. Each forked tree serves one run.

Status pipe messages (each one write, under PIPE_BUF): a tag byte, a u16 length, the payload.
P: the init's pid (i32, as the host sees it), from the monitor; R: ready; G: confined, the command
starts; E: a setup error (its text); X: the program's exit status (i32, bwrap's convention), from
the init as soon as the program ends (and from the monitor when the init itself was killed).
"""

import ctypes
import errno
import marshal
import os
import resource
import signal
import socket
import struct
import sys

import array
import atexit
import builtins
import gc
import runpy
import threading
import traceback
import types

CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC = 0x20000, 0x02000000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC, MS_PRIVATE, MS_RELATIME = 1024, 2048, 4096, 16384, 1 << 18, 1 << 21
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_SECCOMP, PR_CAPBSET_DROP = 1, 4, 22, 24
PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 38, 47, 4
SECCOMP_MODE_FILTER = 2
SIOCSIFFLAGS, IFF_UP, IFF_LOOPBACK, IFF_RUNNING = 0x8914, 0x1, 0x8, 0x40
#: statvfs flags a read-only remount must keep (locked in a user namespace) -> mount flags
STATVFS_KEEP = ((2, MS_NOSUID), (4, MS_NODEV), (8, MS_NOEXEC), (1024, MS_NOATIME), (2048, MS_NODIRATIME),
                (4096, MS_RELATIME))
DEV_NODES = ("null", "zero", "full", "random", "urandom", "tty")
PYTHON_FLAGS = ("-P", "-I", "-E", "-s", "-B")

libc = ctypes.CDLL(None, use_errno=True)
UL = ctypes.c_ulong


def fail(what):
    e = ctypes.get_errno()
    raise OSError(e, f"{what}: {os.strerror(e)}")


def prctl(option, arg2=0, arg3=0):
    if libc.prctl(option, UL(arg2), UL(arg3), UL(0), UL(0)) != 0:
        fail(f"prctl({option})")


def die_with(parent):
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


def mount(source, target, fstype, flags, data=None):
    enc = (lambda s: None if s is None else os.fsencode(s))
    if libc.mount(enc(source), enc(target), enc(fstype), UL(flags), enc(data)) != 0:
        fail(f"mount {target}")


def status(fd, tag, payload=b""):
    os.write(fd, tag + struct.pack("<H", len(payload)) + payload[:3000])


def read_message(fd):
    def read(n):
        data = b""
        while len(data) < n:
            chunk = os.read(fd, n - len(data))
            if not chunk:
                return None
            data += chunk
        return data
    head = read(8)
    if not head:
        return None
    size = int.from_bytes(head, "little")
    return marshal.loads(read(size)) if size else None


# --- the monitor

def monitor(fds, zygote):
    stdin_r, stdout_w, stderr_w, control_r, status_w, *cgroup_fds = fds
    try:
        os.setsid()
        die_with(zygote)
        for fd in cgroup_fds:
            os.write(fd, b"0")
            os.close(fd)
        os.setgroups([])
        uid, gid = os.getuid(), os.getgid()
        if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
                        | CLONE_NEWCGROUP) != 0:
            fail("unshare")
        with open("/proc/self/uid_map", "w") as f:
            f.write(f"65534 {uid} 1\n")
        with open("/proc/self/setgroups", "w") as f:
            f.write("deny\n")
        with open("/proc/self/gid_map", "w") as f:
            f.write(f"65534 {gid} 1\n")
        if libc.sethostname(b"sandbox", 7) != 0:
            fail("sethostname")
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            import fcntl
            fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", IFF_UP | IFF_LOOPBACK | IFF_RUNNING))
        with open("/proc/sys/user/max_user_namespaces", "w") as f:  # none nested in the sandbox
            f.write("0\n")
        mount(None, "/", None, MS_REC | MS_PRIVATE)
        me = os.getpid()
        init_pid = os.fork()
        if init_pid == 0:
            try:
                init(stdin_r, stdout_w, stderr_w, control_r, status_w, me)
            except BaseException as e:
                status(status_w, b"E", f"init: {e}".encode(errors="replace"))
            os._exit(1)
        status(status_w, b"P", struct.pack("<i", init_pid))
        for fd in (stdin_r, stdout_w, stderr_w, control_r):
            os.close(fd)
        _, st = os.waitpid(init_pid, 0)
        code = os.waitstatus_to_exitcode(st)
        status(status_w, b"X", struct.pack("<i", code if code >= 0 else 128 - code))
    except BaseException as e:
        try:
            status(status_w, b"E", f"monitor: {e}".encode(errors="replace"))
        except OSError:
            pass
        os._exit(1)
    os._exit(0)


# --- the namespace's init

def init(stdin_r, stdout_w, stderr_w, control_r, status_w, monitor_pid):
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # its parent is outside the namespace: getppid() is 0
    os.setsid()  # the group the host kills (kill_group): the namespace dies with its init
    pid = os.fork()
    if pid == 0:
        try:
            program(stdin_r, stdout_w, stderr_w, control_r, status_w)
        except BaseException as e:
            status(status_w, b"E", f"{type(e).__name__}: {e}".encode(errors="replace"))
        os._exit(1)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE, signal.SIGUSR1, signal.SIGUSR2):
        signal.signal(s, signal.SIG_DFL)  # pid 1: signals sent from inside are dropped
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.closerange(3, status_w)  # all but the status pipe
    os.closerange(status_w + 1, 65536)
    prctl(PR_SET_DUMPABLE, 0)
    drop_capabilities()
    while True:
        try:
            got, st = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(1)
        if got == pid:  # reported at once: the monitor learns it only after the namespace is torn down
            code = os.waitstatus_to_exitcode(st)
            code = code if code >= 0 else 128 - code
            status(status_w, b"X", struct.pack("<i", code))
            os._exit(code)


def drop_bounding_set():
    """Empty the bounding and ambient sets (what an exec could gain); the capabilities in effect
    stay until drop_capabilities."""
    try:
        last = int(open("/proc/sys/kernel/cap_last_cap").read())
    except (OSError, ValueError):
        last = 63
    for cap in range(last + 1):
        if libc.prctl(PR_CAPBSET_DROP, UL(cap), UL(0), UL(0), UL(0)) != 0 and ctypes.get_errno() != errno.EINVAL:
            fail("drop the bounding set")
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)


def drop_capabilities(bounding=True):
    if bounding:
        drop_bounding_set()
    header = struct.pack("<Ii", 0x20080522, 0)
    data = ctypes.create_string_buffer(24)
    if libc.capset(ctypes.c_char_p(header), data) != 0:
        fail("capset")


# --- the program's process

def program(stdin_r, stdout_w, stderr_w, control_r, status_w):
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != 1:
        os._exit(1)
    for src, fd in ((stdin_r, 0), (stdout_w, 1), (stderr_w, 2)):
        os.dup2(src, fd)
        os.close(src)
    ahead = read_message(control_r)  # what every run shares: bwrap's first options, the staging directory
    if ahead is None:
        os._exit(0)
    base, staging = ahead
    root = Root(staging, base)
    drop_bounding_set()
    status(status_w, b"R")
    msg = read_message(control_r)
    if msg is None:
        os._exit(0)
    os.close(control_r)
    (options, command, seccomp, env, session, rlimits, workdir) = msg
    del msg
    chdir_to = root.confine(options, workdir)
    if not session:
        null = os.open("/dev/null", os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(1, 2)
    os.setsid()
    drop_capabilities(bounding=False)  # emptied before the sandbox said it was ready
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    for res, soft, hard in rlimits:
        resource.setrlimit(res, (soft, hard))
    os.chdir(chdir_to)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as a fresh interpreter has them
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    status(status_w, b"G")
    os.closerange(3, 65536)
    env = dict(env, PWD=chdir_to)  # as bwrap sets it
    os.environ.clear()
    os.environ.update(env)
    if seccomp:
        apply_seccomp(seccomp)
    run(command, env)


def apply_seccomp(prog):
    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    buf = ctypes.create_string_buffer(prog, len(prog))
    fprog = SockFprog(len(prog) // 8, ctypes.addressof(buf))
    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fprog))


def makedirs(path):
    try:
        os.makedirs(path, 0o755, exist_ok=True)
    except FileExistsError:
        pass


def mountpoint_for(source, target):
    if os.path.isdir(source):
        makedirs(target)
    else:
        makedirs(os.path.dirname(target))
        if not os.path.lexists(target):
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644))


def keep_flags(path):
    have = os.statvfs(path).f_flag
    return sum(ms for st, ms in STATVFS_KEEP if have & st)


MOUNT_ATTR_RDONLY, MOUNT_ATTR_NOSUID, MOUNT_ATTR_NODEV, AT_RECURSIVE, AT_FDCWD = 1, 2, 4, 0x8000, -100
SYS_MOUNT_SETATTR = 442


def remount_ro(path, recursive):
    """Read-only, nosuid and nodev: the mount at `path` (and with `recursive` every mount under it,
    as bwrap's --ro-bind does), one mount_setattr; the older remount where the kernel has none."""
    attr = struct.pack("<QQQQ", MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0, 0, 0)
    flags = AT_RECURSIVE if recursive else 0
    if libc.syscall(SYS_MOUNT_SETATTR, AT_FDCWD, os.fsencode(path), flags, attr, len(attr)) == 0:
        return
    if ctypes.get_errno() != errno.ENOSYS:
        fail(f"read-only {path}")
    for mp in (submounts(path) if recursive else [path]):
        mount(None, mp, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | keep_flags(mp))


def submounts(root):
    """Mount points at or under `root` (mountinfo's octal escapes decoded)."""
    out = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split(" ")
            if len(fields) > 4:
                mp = fields[4].encode().decode("unicode_escape")
                if mp == root or mp.startswith(root.rstrip("/") + "/"):
                    out.append(mp)
    return out


class Root:
    """The sandbox's root, built in `staging` from bwrap's options: the options every run shares
    (`base`) before the sandbox says it is ready, the run's own (`confine`) after its message."""

    def __init__(self, staging, base):
        self.path = staging
        self.base = base
        mount("tmpfs", staging, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")
        self.readonly, self.remounts, self.chdir_to, self.sized = [], [], "/", {}
        self.apply(base, None)
        for target in self.readonly:
            remount_ro(target, True)
        self.readonly = []

    def at(self, path):
        return self.path + "/" + path.lstrip("/")

    def confine(self, options, workdir):
        """Apply the run's options past the base ones (the base must be their beginning, the size of
        a tmpfs aside), make the read-only parts read-only, pivot into the root and detach the
        host's tree; returns the directory to change into."""
        n = len(self.base)
        if len(options) < n or [o for i, o in enumerate(options[:n]) if i == 0 or options[i - 1] != "--size"] != \
                [o for i, o in enumerate(self.base) if i == 0 or self.base[i - 1] != "--size"]:
            raise ValueError("the run's sandbox options do not begin with the pre-forked sandbox's")
        size = None
        for i, op in enumerate(options[:n]):
            if op == "--size":
                size = options[i + 1]
            elif op == "--tmpfs" and size is not None:
                if self.sized.get(options[i + 1]) != size:
                    mount(None, self.at(options[i + 1]), None, MS_REMOUNT | MS_NOSUID | MS_NODEV,
                          f"mode=0755,size={size}")
                size = None
        self.apply(options[n:], workdir)
        for target in self.readonly:
            remount_ro(target, True)
        for target in self.remounts:
            remount_ro(target, False)
        os.chdir(self.path)
        if libc.syscall(155, b".", b".") != 0:  # pivot_root(".", "."): the old root stacked under the new
            fail("pivot_root")
        if libc.umount2(b".", MNT_DETACH) != 0:
            fail("detach the host's tree")
        os.chdir("/")
        return self.chdir_to

    def apply(self, options, workdir):
        at = self.at
        size = None
        i = 0
        while i < len(options):
            op = options[i]
            if op in ("--uid", "--gid", "--hostname", "--cap-drop"):
                i += 2
                continue
            if op in ("--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", "--disable-userns"):
                i += 1
                continue
            if op == "--size":
                size = options[i + 1]
                i += 2
                continue
            arg = options[i + 1]
            if op == "--tmpfs":
                makedirs(at(arg))
                mount("tmpfs", at(arg), "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755" + (f",size={size}" if size else ""))
                if size:
                    self.sized[arg] = size
                size = None
            elif op == "--proc":
                makedirs(at(arg))
                mount("proc", at(arg), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
                for name in ("sys", "sysrq-trigger", "irq", "bus"):  # as bwrap: read-only over themselves
                    part = at(arg) + "/" + name
                    try:
                        mount(part, part, None, MS_BIND | MS_REC)
                        remount_ro(part, True)
                    except OSError:
                        pass
            elif op == "--dev":
                dev = at(arg)
                makedirs(dev)
                mount("tmpfs", dev, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")
                for name in DEV_NODES:
                    if os.path.exists("/dev/" + name):
                        mountpoint_for("/dev/" + name, dev + "/" + name)
                        mount("/dev/" + name, dev + "/" + name, None, MS_BIND)
                        mount(None, dev + "/" + name, None,
                              MS_REMOUNT | MS_BIND | MS_NOSUID | keep_flags(dev + "/" + name))
                for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                                     ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2"),
                                     ("core", "/proc/kcore")):
                    os.symlink(target, dev + "/" + name)
                makedirs(dev + "/shm")
                makedirs(dev + "/pts")
                mount("devpts", dev + "/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620")
                os.symlink("pts/ptmx", dev + "/ptmx")
            elif op == "--symlink":
                makedirs(os.path.dirname(at(options[i + 2])))
                os.symlink(arg, at(options[i + 2]))
                i += 3
                continue
            elif op in ("--ro-bind", "--bind"):
                target = at(options[i + 2])
                if op == "--bind":  # the work directory: the host's, by device and inode
                    if workdir is None:
                        raise ValueError("a writable bind among the options every run shares")
                    wd_path, wd_dev, wd_ino = workdir
                    fd = os.open(arg, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
                    st = os.fstat(fd)
                    if arg != wd_path or (st.st_dev, st.st_ino) != (wd_dev, wd_ino):
                        raise OSError(errno.ESTALE, f"the work directory {arg} is not the one asked for")
                    makedirs(target)
                    mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC)
                    mount(None, target, None, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV | keep_flags(target))
                    os.close(fd)
                else:
                    fd = os.open(arg, os.O_PATH | os.O_CLOEXEC)
                    mountpoint_for(arg, target)
                    mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC)
                    os.close(fd)
                    self.readonly.append(target)
                i += 3
                continue
            elif op == "--remount-ro":
                self.remounts.append(at(arg))
            elif op == "--chdir":
                self.chdir_to = arg
            else:
                raise ValueError(f"unknown sandbox option {op}")
            i += 2


# --- running the command

def python_command(command, executable):
    """(flags, kind, target, args) of a python command this interpreter can run as it is, or None."""
    if not command or command[0] != executable:
        return None
    flags = []
    i = 1
    while i < len(command) and command[i] in PYTHON_FLAGS:
        flags.append(command[i])
        i += 1
    if i >= len(command):
        return None
    if command[i] in ("-c", "-m"):
        if i + 1 >= len(command):
            return None
        return flags, command[i], command[i + 1], command[i + 2:]
    if command[i].startswith("-"):
        return None
    return flags, "script", command[i], command[i + 1:]


def run(command, env):
    parsed = python_command(command, sys.executable)
    asked = {k: v for k, v in env.items() if k.startswith("PYTHON")}
    if parsed is None or asked != BASE_PYTHON_ENV:
        try:
            os.execvpe(command[0], command, env)
        except OSError as e:
            os.write(2, f"sandbox: cannot run {command[0]!r}: {e.strerror}\n".encode(errors="replace"))
            os._exit(127)
    flags, kind, target, args = parsed
    safe_path = "-P" in flags or "-I" in flags
    sys.dont_write_bytecode = True
    main = types.ModuleType("__main__")
    main.__builtins__ = builtins
    sys.modules["__main__"] = main
    base = list(BASE_PATH)
    code = 0
    try:
        if kind == "-c":
            sys.argv = ["-c", *args]
            sys.path[:] = ([] if safe_path else [""]) + base
            exec(compile(target, "<string>", "exec"), main.__dict__)
        elif kind == "-m":
            sys.argv = ["-m", *args]
            sys.path[:] = ([] if safe_path else [os.getcwd()]) + base
            runpy._run_module_as_main(target, alter_argv=True)
        else:
            sys.argv = [target, *args]
            sys.path[:] = ([] if safe_path else [os.path.dirname(os.path.realpath(target))]) + base
            runpy.run_path(target, run_name="__main__")
    except SystemExit as e:
        code = exit_code(e.code)
    except KeyboardInterrupt:
        traceback.print_exc()
        code = -signal.SIGINT
    except BaseException:
        sys.excepthook(*sys.exc_info())
        code = 1
    finish(code)


def exit_code(value):
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    try:
        print(value, file=sys.stderr)
    except Exception:
        pass
    return 1


def finish(code):
    """What the interpreter's exit does that a program can notice: wait for its threads, run its
    atexit functions, let its objects go (open files flush), flush the standard streams."""
    try:
        threading._shutdown()
    except BaseException:
        pass
    try:
        atexit._run_exitfuncs()
    except BaseException:
        pass
    try:
        main = sys.modules.get("__main__")
        if main is not None:
            main.__dict__.clear()
        gc.collect()
    except BaseException:
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code)


# --- the zygote

#: The interpreter's own path (this zygote's, without the -c entry), and the PYTHON* variables it was
#: started with: a command is run in this interpreter only when it asks for the same.
BASE_PATH = [p for p in sys.path if p]
BASE_PYTHON_ENV = {k: v for k, v in os.environ.items() if k.startswith("PYTHON")}


def reap(*_):
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def serve(sock_fd):
    sock = socket.socket(fileno=sock_fd)
    signal.signal(signal.SIGCHLD, reap)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    me = os.getpid()
    gc.collect()
    gc.freeze()  # the zygote's objects: never scanned (nor copied) by a child's collections
    space = socket.CMSG_SPACE(32 * array.array("i").itemsize)
    while True:
        try:
            data, ancdata, _, _ = sock.recvmsg(16, space)
        except OSError:
            os._exit(0)
        if not data:
            os._exit(0)
        fds = array.array("i")
        for level, kind, payload in ancdata:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
        fds = list(fds)
        if data != b"F" or len(fds) < 5:
            for fd in fds:
                os.close(fd)
            sock.send(struct.pack("<i", -1))
            continue
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            sock.close()
            monitor(fds, me)
            os._exit(1)
        for fd in fds:
            os.close(fd)
        sock.send(struct.pack("<i", pid))


if __name__ == "__main__":
    serve(int(sys.argv[1]))
