"""The pace controller frames (suites/pace/wire.py): exact round trips, and the trusted side's
decoders fuzzed with hostile bytes (only FrameError ever leaves them, and what they accept is in
the layout and finite)."""

from __future__ import annotations

import json
import math
import struct

import pytest
from hypothesis import strategies as st

from fuzz_helpers import SIZES, each, fuzz, hostile_json, mutate, with_mutations
from simreflect.core.sandbox.session import FRAME_HEADER, FRAME_MAGIC
from simreflect.suites.pace import wire
from simreflect.suites.pace.evaluate import _ControlReplies, _decode_reply
from simreflect.suites.pace.task import load_spec
from simreflect.suites.pace.wire import FrameError, Layout

LANDER_SENSORS = {"t": 0.5, "x": -1.25, "altitude": 3.0, "vx": 0.0, "vy": -0.5, "angle": -0.0, "spin": 1e-300,
                  "fuel": 12.0, "left_leg": False, "right_leg": True, "pad_x": 2.0}
LANDER_COMMANDS = ["throttle", "torque"]


def test_the_sandbox_side_states_the_session_frame_format():
    assert wire.MAGIC == FRAME_MAGIC and wire.HEADER.format == FRAME_HEADER.format


def test_sensors_cross_exactly_as_json_would_carry_them():
    layout = Layout.of(LANDER_SENSORS, LANDER_COMMANDS)
    assert layout is not None and layout.kinds == ("f",) * 8 + ("b", "b", "f")
    got = layout.decode_sensors(layout.encode_sensors(LANDER_SENSORS))
    via_json = json.loads(json.dumps(LANDER_SENSORS))
    assert got == via_json and list(got) == list(via_json)
    assert [type(v) for v in got.values()] == [type(v) for v in via_json.values()]
    assert math.copysign(1.0, got["angle"]) == -1.0
    ints = {"phase": 3, "big": 2 ** 53, "t": 0.25}
    layout = Layout.of(ints, ["u"])
    got = layout.decode_sensors(layout.encode_sensors(ints))
    assert got == ints and type(got["phase"]) is int and type(got["big"]) is int


@pytest.mark.parametrize("changed", [
    {**LANDER_SENSORS, "x": float("nan")},  # not finite: JSON (which refuses it, as it always did)
    {**LANDER_SENSORS, "x": math.inf},
    {**LANDER_SENSORS, "left_leg": 1},  # another kind
    {k: v for k, v in LANDER_SENSORS.items() if k != "fuel"},  # another shape
    {**LANDER_SENSORS, "extra": 1.0},
    dict(reversed(list(LANDER_SENSORS.items()))),  # another order
])
def test_readings_that_leave_the_layout_go_as_json(changed):
    assert Layout.of(LANDER_SENSORS, LANDER_COMMANDS).encode_sensors(changed) is None


def test_sensors_without_a_binary_form_have_no_layout():
    assert Layout.of({"mode": "climb"}, ["u"]) is None
    assert Layout.of({"v": [1.0]}, ["u"]) is None
    assert Layout.of({"v": 1.0}, [f"a{i}" for i in range(wire.MAX_ACTUATORS + 1)]) is None
    assert Layout.of({f"s{i}": 0.0 for i in range(wire.MAX_SENSORS + 1)}, ["u"]) is None


def test_commands_cross_exactly_and_only_when_exact():
    layout = Layout.of(LANDER_SENSORS, LANDER_COMMANDS)
    for cmd in ({"throttle": 0.5, "torque": -0.0}, {"torque": 1e308}, {}, {"throttle": 3}, {"throttle": -(2 ** 53)}):
        got = layout.decode_command(layout.encode_command(cmd))
        assert got == {k: float(v) for k, v in cmd.items()} and list(got) == [c for c in LANDER_COMMANDS if c in cmd]
        assert all(type(v) is float for v in got.values())
    for cmd in ({"throttle": float("nan")}, {"throttle": math.inf}, {"teleport": 1.0}, {"throttle": True},
                {"throttle": "0.5"}, {"throttle": 2 ** 53 + 1}, {"throttle": None}, [0.5], "full", None,
                {1: 0.5}, {"throttle": 0.5, "torque": 0.0, "x": 1.0}):
        assert layout.encode_command(cmd) is None, cmd


@pytest.mark.parametrize("payload, words", [
    (b"", "0 bytes"),
    (b"C", "1 bytes"),
    (struct.pack("<BQ2d", wire.TAG_COMMAND, 1, 0.5, 0.0)[:-1], "24 bytes"),
    (struct.pack("<BQ2d", wire.TAG_COMMAND, 1, 0.5, 0.0) + b"\x00", "26 bytes"),
    (struct.pack("<BQ2d", wire.TAG_COMMAND, 0b100, 0.5, 0.0), "mask"),
    (struct.pack("<BQ2d", wire.TAG_COMMAND, 1, math.nan, 0.0), "not finite"),
    (struct.pack("<BQ2d", wire.TAG_COMMAND, 2, 0.0, -math.inf), "not finite"),
])
def test_bad_command_frames_are_refused_with_a_reason(payload, words):
    with pytest.raises(FrameError, match=words):
        Layout(list(zip(LANDER_SENSORS, "f" * 11)), LANDER_COMMANDS).decode_command(payload)


def test_a_frame_of_another_type_or_bad_json_is_refused():
    replies = _ControlReplies(Layout.of(LANDER_SENSORS, LANDER_COMMANDS))
    with pytest.raises(FrameError, match="type 0x5a"):
        replies(b"Z" + bytes(24))
    with pytest.raises(FrameError, match="not one JSON value"):
        replies(b'J{"ok": true, "cmd": {"throttle": NaN}}')
    with pytest.raises(FrameError, match="type none"):
        _decode_reply(b"")
    assert replies(b'J{"ok":true,"cmd":{"throttle":0.5}}') == {"ok": True, "cmd": {"throttle": 0.5}}
    assert _ControlReplies(None)(b'J{"ok":false}') == {"ok": False}
    with pytest.raises(FrameError, match="type 0x43"):  # no layout was agreed: no C frame
        _ControlReplies(None)(wire.Layout.of(LANDER_SENSORS, LANDER_COMMANDS).encode_command({"throttle": 1.0}))


def test_the_layout_holds_every_control_tasks_sensors():
    from simreflect.suites.pace.engine import Sim

    for tid in ("control_lander", "control_cartpole", "control_seeker", "control_maze_escape",
                "control_logic_lock", "control_wheel_governor"):
        spec = load_spec(tid)
        env = spec.run_environment("stage1", spec.runs[0])
        sim = Sim(spec.engine_settings(env))
        world = spec.world_class(sim, env)
        world.build()
        sensors = world.sensors(0)
        layout = Layout.of(sensors, list(world.commands))
        assert layout is not None and layout.decode_sensors(layout.encode_sensors(sensors)) == sensors, tid


# ----- fuzzing the trusted side's decoders -------------------------------------------------------

LAYOUTS = st.builds(lambda n, m: Layout([(f"s{i}", "f") for i in range(n)], [f"a{i}" for i in range(m)]),
                    st.integers(0, 12), st.integers(0, wire.MAX_ACTUATORS))


def _command_frames(layout: Layout) -> st.SearchStrategy[list[bytes]]:
    n = len(layout.commands)
    good = st.builds(lambda mask, vals: struct.pack(f"<BQ{n}d", wire.TAG_COMMAND, mask, *vals),
                     st.one_of(st.integers(0, 2 ** 64 - 1), st.integers(0, max(0, 2 ** n - 1))),
                     st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=n, max_size=n))
    noise = st.binary(max_size=8 * n + 32).map(lambda b: bytes([wire.TAG_COMMAND]) + b)
    return with_mutations(st.one_of(good, noise, st.binary(max_size=600)))


def _check_command(item: tuple[Layout, bytes]) -> None:
    layout, payload = item
    try:
        cmd = _ControlReplies(layout)(payload)
    except FrameError:
        return
    assert isinstance(cmd, (dict, list, str, int, float, bool)) or cmd is None
    if payload[:1] == b"C":
        assert set(cmd) == {"ok", "cmd"} and set(cmd["cmd"]) <= set(layout.commands)
        assert all(type(v) is float and math.isfinite(v) for v in cmd["cmd"].values())


@pytest.mark.parametrize("n", SIZES)
def test_fuzz_command_frames(n):
    inputs = LAYOUTS.flatmap(lambda layout: _command_frames(layout).map(lambda b: [(layout, x) for x in b]))
    assert fuzz(n, inputs, _check_command) == n


def _check_json_reply(data: bytes) -> None:
    try:
        _ControlReplies(None)(b"J" + data)
    except FrameError:
        return


@pytest.mark.parametrize("n", SIZES)
def test_fuzz_json_reply_frames(n):
    assert fuzz(n, hostile_json(), _check_json_reply) == n


def _check_sensor_round_trip(values: list) -> None:
    sensors = {f"s{i}": v for i, v in enumerate(values)}
    layout = Layout.of(sensors, ["u"])
    payload = layout.encode_sensors(sensors) if layout is not None else None
    if payload is None:
        return
    assert layout.decode_sensors(payload) == json.loads(json.dumps(sensors, allow_nan=False))
    # the runner's decoder meets any bytes of the right length with readings or a FrameError
    try:
        layout.decode_sensors(mutate(payload, len(values)).ljust(len(payload), b"\x00")[:len(payload)])
    except FrameError:
        pass


@pytest.mark.parametrize("n", SIZES)
def test_fuzz_sensor_round_trip(n):
    scalar = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.booleans(),
                       st.integers(-(2 ** 60), 2 ** 60))
    assert fuzz(n, each(st.lists(scalar, max_size=20)), _check_sensor_round_trip) == n
