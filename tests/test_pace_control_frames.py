"""Hostile controllers against the frame protocol, through the real path (the sandboxed runner,
`evaluate`): each writes its own bytes on the reply channel in the middle of a landing. Every one
is a failed evaluation whose reason names what was wrong; the trusted side never raises and never
waits past the control timeout. And the honest path: the sandboxed channel speaks binary frames
after the first request and answers exactly what the program in this process answers."""

from __future__ import annotations

import math
import struct
from pathlib import Path

import pytest

from simreflect.core.sandbox import write_workspace_file
from simreflect.suites.pace import wire
from simreflect.suites.pace.evaluate import (CONTROL_TIMEOUT_S, PROGRAM_FILE, InProcessChannel, SandboxChannel,
                                             evaluate)
from simreflect.suites.pace.task import load_spec

LANDER = load_spec("control_lander")
LANDER_REF = LANDER.program("stage1")


def _attack(data: bytes, then: str = "") -> str:
    """The stage-1 reference with, at t > 1 s, `data` written on every descriptor that takes it (the
    reply channel among them) before control() goes on to `then` (or to its own answer)."""
    code = ("    if s['t'] > 1.0:\n        import os, time\n        for fd in range(3, 20):\n"
            "            try:\n                os.write(fd, " + repr(data) + ")\n"
            "            except OSError:\n                pass\n")
    if then:
        code += "".join(f"        {line}\n" for line in then.splitlines())
    return LANDER_REF.replace("def control(s):\n", "def control(s):\n" + code, 1)


def _command(mask: int, *values: float) -> bytes:
    return wire.frame(struct.pack("<BQ2d", wire.TAG_COMMAND, mask, *values))


HANG = "time.sleep(30)"
CASES = {
    "truncated_frame_then_exit": (_attack(wire.HEADER.pack(wire.MAGIC, 100) + b"C" * 10, "os._exit(0)"),
                                  ("ended without answering",)),
    "truncated_frame_then_hang": (_attack(wire.HEADER.pack(wire.MAGIC, 100) + b"C" * 10, HANG),
                                  ("no reply to request",)),
    "half_a_header_then_hang": (_attack(wire.MAGIC[:2], HANG), ("no reply to request",)),
    "oversized_length": (_attack(wire.HEADER.pack(wire.MAGIC, 2 ** 31), HANG), ("longer than",)),
    "nan_command": (_attack(_command(1, math.nan, 0.0)), ("not finite",)),
    "inf_command": (_attack(_command(2, 0.5, -math.inf)), ("not finite",)),
    "mask_past_the_actuators": (_attack(_command(0b1000, 0.5, 0.0)), ("mask",)),
    "command_of_the_wrong_length": (_attack(wire.frame(b"C" + bytes(9))), ("command frame of 10 bytes",)),
    "wrong_type_tag": (_attack(wire.frame(b"Z" + bytes(24)), HANG), ("type 0x5a",)),
    "json_frame_with_nan": (_attack(wire.frame(b'J{"ok":true,"cmd":{"throttle":NaN}}')), ("not one JSON value",)),
    "garbage_then_hang": (_attack(b"garbage!", HANG), ("does not begin with a frame header",)),
    "closes_the_channel": (
        _attack(b"", "for fd in range(3, 20):\n    try:\n        os.close(fd)\n    except OSError:\n"
                     "        pass\n" + HANG), ("ended without answering", "no reply to request")),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_hostile_controller_gets_a_failed_verdict_with_its_reason(name, tmp_path):
    program, words = CASES[name]
    ev = evaluate(LANDER, "stage1", program, workdir=tmp_path / "work", timeout_s=30)
    reason = " | ".join([ev.invalid, ev.failure, ev.constraints[0].detail if ev.constraints else ""])
    assert not ev.passed and ev.score < 100, reason
    assert any(w in reason for w in words), reason
    assert "the controller failed at step" in reason, reason
    assert ev.program.status in ("error", "timeout"), (ev.program.status, ev.program.reason)
    # the failure is where the attack was: past t = 1 s, and no later than the first request after it
    assert 60 <= ev.failure_step <= 80, (ev.failure_step, reason)
    if any(w == "no reply to request" for w in words) and "no reply" in reason:
        assert f"within {CONTROL_TIMEOUT_S:g} s" in reason


def test_the_reference_still_lands_through_frames(tmp_path):
    ev = evaluate(LANDER, "stage1", LANDER_REF, workdir=tmp_path)
    assert ev.passed and ev.timings.requests > 250


def test_the_sandboxed_channel_speaks_frames_and_answers_as_in_process(tmp_path):
    write_workspace_file(tmp_path, PROGRAM_FILE, LANDER_REF)
    env = LANDER.run_environment("stage1", LANDER.runs[0])
    visible = LANDER.visible("stage1")
    sandboxed, local = SandboxChannel(Path(tmp_path), 30.0), InProcessChannel(LANDER_REF)
    try:
        build = {"op": "build", "env": visible}
        assert sandboxed.request(build, 10)["ok"] and local.request(build, 10)["ok"]
        commands = ("throttle", "torque")
        for i in range(40):
            sensors = {"t": round(i / 20, 4), "x": 0.1 * i - 2.0, "altitude": 8.0 - 0.2 * i, "vx": -0.0,
                       "vy": -1.5 + 0.01 * i, "angle": 0.02 * math.sin(i), "spin": 0.001 * i, "fuel": 30.0 - i * 0.1,
                       "left_leg": i > 30, "right_leg": i > 35, "pad_x": env.get("pad_x", 0.0)}
            assert sandboxed.control(sensors, commands, 5) == local.control(sensors, commands, 5), i
            assert sandboxed._layout is not None  # the readings went as an S frame after the first
        assert sandboxed.session.requests == 41
    finally:
        result = sandboxed.close()
    assert result.status == "ok", result.reason
