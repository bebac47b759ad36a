"""A loopback TCP port relayed to a Unix socket, for a sandboxed program that talks to a service.

    python -P .../simreflect/core/relay.py --port P --socket PATH -- PROGRAM [ARGS...]

(run as a file: importing the package would need more of it inside the sandbox than this file)

The sandbox gives a program a network namespace of its own (loopback only), so it cannot reach a
service listening on the host. The service listens on a Unix socket instead, which the suite binds
into the sandbox read-only; this relay runs inside the sandbox (as untrusted as the program: it
only carries bytes to the service, which validates every request itself), listens on 127.0.0.1:P
of the sandbox's own loopback, starts the program, and exits with the program's status (a program
killed by a signal kills the relay with the same signal, so the caller sees what happened).
"""

from __future__ import annotations

import argparse
import os
import selectors
import signal
import socket
import sys
import threading

BUFFER = 1 << 16


def _pipe(a: socket.socket, b: socket.socket) -> None:
    """Copy bytes both ways between a and b until both directions are closed."""
    sel = selectors.DefaultSelector()
    sel.register(a, selectors.EVENT_READ, b)
    sel.register(b, selectors.EVENT_READ, a)
    open_ends = 2
    try:
        while open_ends:
            for key, _ in sel.select():
                src, dst = key.fileobj, key.data
                try:
                    data = src.recv(BUFFER)
                except OSError:
                    data = b""
                if data:
                    try:
                        dst.sendall(data)
                        continue
                    except OSError:
                        return
                sel.unregister(src)
                open_ends -= 1
                try:
                    dst.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
    finally:
        sel.close()
        a.close()
        b.close()


def _serve(listener: socket.socket, target: str) -> None:
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(target)
        except OSError as e:
            print(f"relay: cannot reach the service at {target}: {e}", file=sys.stderr, flush=True)
            client.close()
            upstream.close()
            continue
        threading.Thread(target=_pipe, args=(client, upstream), daemon=True).start()


def listen(port: int, target: str) -> socket.socket:
    """Listen on 127.0.0.1:port and relay every connection to the Unix socket `target` (threads)."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    threading.Thread(target=_serve, args=(listener, target), daemon=True).start()
    return listener


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--socket", required=True)
    ap.add_argument("program", nargs=argparse.REMAINDER)
    args = ap.parse_args(argv)
    program = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not program:
        ap.error("no program to run")
    try:
        listen(args.port, args.socket)
    except OSError as e:
        print(f"relay: cannot listen on 127.0.0.1:{args.port}: {e}", file=sys.stderr, flush=True)
        return 1
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(program[0], program)
        except OSError as e:
            print(f"relay: cannot start {program[0]}: {e}", file=sys.stderr, flush=True)
        os._exit(127)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main())
