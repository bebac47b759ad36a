"""The frames of the pace controller protocol: what crosses the session pipe, both ways.

This module is seen by both sides: the runner imports it inside the sandbox (with `api` and
`runner` it is all of simreflect the program can import), the trusted evaluation imports it to
encode requests and to judge replies. It imports nothing but the standard library.

Every message is one frame: an 8-byte header (the magic MAGIC, then the payload's length as a
little-endian u32) and the payload, whose first byte says what it is:

    J  a JSON document (UTF-8): the build request and reply, the first control request (which
       carries the Layout), a control request or reply that has no binary form, every error reply
    S  sensor readings (trusted -> runner): float64 values in the order of the Layout's sensors
    C  a command (runner -> trusted): a u64 mask of the actuators present, then one float64 per
       actuator of the Layout (0.0 where absent)

A Layout is fixed by the trusted side: the sensor names with their kinds (f float, i int, b bool)
and the actuator names. Sensors whose names or kinds differ from it go as JSON (with a new Layout);
a command the C frame cannot carry exactly (a key that is no actuator, a value that is not a finite
float or an int of at most 2**53, anything but a dict) goes as JSON, so the trusted side judges it
as it always has. The trusted side reads a C frame with `Layout.decode_command`, which checks the
length, the mask and every value (finite) and raises only FrameError.
"""

from __future__ import annotations

import math
import struct

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing costs every sandboxed start a few ms
    from typing import Any

MAGIC = b"srf\x01"
HEADER = struct.Struct("<4sI")
TAG_JSON = 0x4A  # J
TAG_SENSORS = 0x53  # S
TAG_COMMAND = 0x43  # C
#: At most this many actuators and sensors in a Layout (the command mask is a u64).
MAX_ACTUATORS = 64
MAX_SENSORS = 256
MAX_NAME_CHARS = 64
#: The largest int a float64 holds exactly: ints past it go as JSON.
EXACT_INT = 2 ** 53
_KINDS = {"f": float, "i": int, "b": bool}
_KIND_OF = {float: "f", int: "i", bool: "b"}


class FrameError(ValueError):
    """A frame that is not what the protocol allows (its reason in words)."""


def frame(payload: bytes) -> bytes:
    """`payload` with its header."""
    return HEADER.pack(MAGIC, len(payload)) + payload


def json_payload(text: str) -> bytes:
    return b"J" + text.encode("utf-8", "surrogatepass")


class Layout:
    """The sensors' names and kinds and the actuators' names, as both sides agreed on them."""

    __slots__ = ("sensors", "kinds", "commands", "_types", "_ints", "_bools", "_sensor_struct", "_command_struct",
                 "_index", "_n")

    def __init__(self, sensors: list[tuple[str, str]], commands: list[str]):
        if len(sensors) > MAX_SENSORS or len(commands) > MAX_ACTUATORS:
            raise FrameError("too many sensors or actuators for a binary layout")
        names = [s for s, _ in sensors]
        if len(set(names)) != len(names) or len(set(commands)) != len(commands):
            raise FrameError("a layout names a sensor or an actuator twice")
        for name in (*names, *commands):
            if type(name) is not str or not 0 < len(name) <= MAX_NAME_CHARS:
                raise FrameError("a layout's names are strings of 1 to 64 characters")
        if any(k not in _KINDS for _, k in sensors):
            raise FrameError("a sensor's kind is f, i or b")
        self.sensors = tuple(names)
        self.kinds = tuple(k for _, k in sensors)
        self.commands = tuple(commands)
        self._types = tuple(_KINDS[k] for k in self.kinds)
        self._ints = tuple(i for i, k in enumerate(self.kinds) if k == "i")
        self._bools = tuple(i for i, k in enumerate(self.kinds) if k == "b")
        self._sensor_struct = struct.Struct(f"<B{len(names)}d")
        self._n = len(commands)
        self._command_struct = struct.Struct(f"<BQ{self._n}d")
        self._index = {name: i for i, name in enumerate(commands)}

    @classmethod
    def of(cls, sensors: dict[str, Any], commands: list[str]) -> Layout | None:
        """The layout of these readings, or None when they have no binary form (a value of another
        kind, a name that is not a short string, too many)."""
        kinds = []
        for name, v in sensors.items():
            kind = _KIND_OF.get(type(v))
            if kind is None or type(name) is not str:
                return None
            kinds.append((name, kind))
        try:
            return cls(kinds, list(commands))
        except FrameError:
            return None

    def to_json(self) -> dict[str, Any]:
        return {"sensors": [[s, k] for s, k in zip(self.sensors, self.kinds)], "commands": list(self.commands)}

    @classmethod
    def from_json(cls, data: Any) -> Layout:
        """The layout a JSON control request carries (the runner's side: from the trusted side)."""
        try:
            return cls([(str(s), str(k)) for s, k in data["sensors"]], [str(c) for c in data["commands"]])
        except (KeyError, TypeError, ValueError) as e:
            raise FrameError(f"not a layout: {e}") from None

    # --- sensors: trusted -> runner

    def encode_sensors(self, sensors: dict[str, Any]) -> bytes | None:
        """The S payload of these readings, or None when they do not fit this layout exactly (other
        names or kinds, an int past EXACT_INT, a value that is not finite): they go as JSON then."""
        values = tuple(sensors.values())
        if tuple(map(type, values)) != self._types or tuple(sensors) != self.sensors:
            return None
        for i in self._ints:
            if abs(values[i]) > EXACT_INT:
                return None
        if not math.isfinite(sum(values)):  # a NaN or an infinity (or a sum past the float range: JSON then)
            return None
        return self._sensor_struct.pack(TAG_SENSORS, *values)

    def decode_sensors(self, payload: bytes) -> dict[str, Any]:
        """The readings of an S payload (the runner's side); raises FrameError, nothing else."""
        if len(payload) != self._sensor_struct.size:
            raise FrameError(f"a sensor frame of {len(payload)} bytes; this layout's are {self._sensor_struct.size}")
        values = self._sensor_struct.unpack(payload)
        out = dict(zip(self.sensors, values[1:]))
        for i in self._ints:
            v = values[i + 1]
            if not math.isfinite(v):
                raise FrameError(f"a sensor frame gives the int {self.sensors[i]} the value {v!r}")
            out[self.sensors[i]] = int(v)
        for i in self._bools:
            out[self.sensors[i]] = values[i + 1] != 0.0
        return out

    # --- commands: runner -> trusted

    def encode_command(self, cmd: Any) -> bytes | None:
        """The C payload of `cmd`, or None when it has no exact binary form (then it goes as JSON)."""
        if type(cmd) is not dict or len(cmd) > self._n:
            return None
        values = [0.0] * self._n
        mask = 0
        index = self._index
        for name, v in cmd.items():
            if type(name) is not str:
                return None
            i = index.get(name)
            if i is None:
                return None
            t = type(v)
            if t is int:
                if abs(v) > EXACT_INT:
                    return None
                v = float(v)
            elif t is not float or not math.isfinite(v):
                return None
            values[i] = v
            mask |= 1 << i
        return self._command_struct.pack(TAG_COMMAND, mask, *values)

    def decode_command(self, payload: bytes) -> dict[str, float]:
        """The command of a C payload (the trusted side: hostile bytes). Checks its length, that the
        mask names only this layout's actuators and that every value present is finite; raises
        FrameError, nothing else."""
        if len(payload) != self._command_struct.size:
            raise FrameError(f"a command frame of {len(payload)} bytes; this task's are {self._command_struct.size}")
        values = self._command_struct.unpack(payload)
        mask = values[1]
        if mask >> self._n:
            raise FrameError(f"a command frame's mask names actuators past this task's {self._n}")
        out = {}
        for i, name in enumerate(self.commands):
            if mask >> i & 1:
                v = values[i + 2]
                if not math.isfinite(v):
                    raise FrameError(f"a command frame gives {name} the value {v!r}, which is not finite")
                out[name] = v
        return out
