"""SandboxSession.request_frame: a sandboxed program that answers frames, whole or in pieces, and
one that answers what no frame reader should take."""

from __future__ import annotations

import sys

import pytest

from simreflect.core.sandbox import Limits, SessionError, open_session, write_workspace_file
from simreflect.core.sandbox.session import FRAME_HEADER, FRAME_MAGIC

FRAMES = """
import os, struct, time
HEADER = struct.Struct('<4sI')
rfd, wfd = os.dup(0), os.dup(1)
os.dup2(2, 1)
buf = b''
while True:
    while len(buf) < 8 or len(buf) < 8 + HEADER.unpack_from(buf)[1]:
        chunk = os.read(rfd, 65536)
        if not chunk:
            raise SystemExit(0)
        buf += chunk
    n = HEADER.unpack_from(buf)[1]
    payload, buf = buf[8:8 + n], buf[8 + n:]
    op, _, arg = payload.partition(b' ')
    frame = HEADER.pack(b'srf\\x01', len(arg)) + arg
    if op == b'echo':
        os.write(wfd, frame)
    elif op == b'pieces':  # the frame a few bytes at a time
        for i in range(0, len(frame), 3):
            os.write(wfd, frame[i:i + 3]); time.sleep(0.002)
    elif op == b'twice':
        os.write(wfd, frame + frame)
    elif op == b'raw':  # these bytes as they are, then silence
        os.write(wfd, arg); time.sleep(30)
"""


@pytest.fixture
def frames_dir(tmp_path):
    write_workspace_file(tmp_path, "frames.py", FRAMES)
    return tmp_path


def _session(workdir, max_bytes=1 << 20):
    return open_session([sys.executable, "-P", "/workdir/frames.py"], workdir, Limits(wall_s=30, cpu_s=30),
                        package_modules=(), max_message_bytes=max_bytes)


def test_frames_whole_in_pieces_and_large_come_back_exactly(frames_dir):
    big = bytes(range(256)) * 1000  # 256 kB: several reads
    with _session(frames_dir) as s:
        assert s.request_frame(b"echo hello", 5, bytes) == b"hello"
        assert s.request_frame(b"pieces " + b"x" * 40, 5, bytes) == b"x" * 40
        assert s.request_frame(b"echo " + big, 5, bytes) == big
        assert s.request_frame(b"echo ", 5, bytes) == b""
        assert s.requests == 4 and s.alive
    assert s.close().status == "ok"


def _refused(s, payload: bytes, decode=bytes) -> SessionError:
    with pytest.raises(SessionError) as e:
        s.request_frame(payload, 1.0, decode)
    assert not s.alive
    return e.value


@pytest.mark.parametrize("raw, kind, words", [
    (b"garbage!", "protocol", "does not begin with a frame header"),
    (b"xy", "protocol", "does not begin with a frame header"),  # judged before a whole header came
    (FRAME_MAGIC[:2], "timeout", "no reply to request 1 within 1 s"),
    (FRAME_HEADER.pack(FRAME_MAGIC, 10) + b"abc", "timeout", "no reply to request 1 within 1 s"),
    (FRAME_HEADER.pack(FRAME_MAGIC, 2 ** 32 - 1), "too_large", "longer than 1000 bytes"),
])
def test_what_is_no_frame_fails_the_request_and_ends_the_session(frames_dir, raw, kind, words):
    s = _session(frames_dir, max_bytes=1000)
    try:
        e = _refused(s, b"raw " + raw)
        assert e.kind == kind and words in str(e), str(e)
    finally:
        s.close()


def test_a_decoder_refusal_and_an_unsolicited_frame_are_protocol_failures(frames_dir):
    def refuse(payload: bytes) -> bytes:
        raise ValueError("not what was asked")

    with _session(frames_dir) as s:
        e = _refused(s, b"echo hi", refuse)
        assert e.kind == "protocol" and "reply 1 is not a valid frame (not what was asked)" in str(e)
    with _session(frames_dir) as s:
        assert s.request_frame(b"twice hi", 5, bytes) == b"hi"
        e = _refused(s, b"echo again")
        assert e.kind == "protocol" and "without being asked" in str(e)
