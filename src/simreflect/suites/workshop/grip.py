"""Holds (grip): which hand holds which object (opposed, force-bearing contacts), how far a held
object slipped in the palm, and each board's lift / carry / lost history (tracked at 20 Hz)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

import mujoco
import numpy as np

from simreflect.suites.workshop.contacts import ContactArrays
from simreflect.suites.workshop.frames import _r
from simreflect.suites.workshop.layout import FIRST_OBJECT, LEFT_ARM, RIGHT_HAND, Layout, hand_code, object_code
from simreflect.suites.workshop.world import SIDES

HOLD_MIN_FORCE = 0.3  # N per contact of an opposed pair
HOLD_OPPOSED_COS = -0.5  # normals at least 120 degrees apart
LIFT_HOLD_S = 0.3  # a board supported by the robot alone this long has been lifted
LOST_Z = 0.45  # a board below this height (on the floor) is lost

Holds = dict[tuple[str, str], dict[str, Any]]


@dataclass
class BoardTrack:
    """A board's history: whether it was ever lifted, and where it was the last time it was carried
    (supported by the robot alone for LIFT_HOLD_S): the grader compares its final rest with that."""

    lifted: bool = False
    airborne_s: float = 0.0
    lost: bool = False
    carry_pos: list[float] = field(default_factory=list)
    carry_rot: list[float] = field(default_factory=list)  # 9, row by row

    def to_dict(self) -> dict[str, Any]:
        return {"lifted": self.lifted, "airborne_s": _r(self.airborne_s, 6), "lost": self.lost,
                "carry_pos": [float(x) for x in self.carry_pos], "carry_rot": [float(x) for x in self.carry_rot]}


def _opposed(strong: list[tuple[np.ndarray, float, int]]) -> bool:
    for a in range(len(strong)):
        for b in range(a + 1, len(strong)):
            if float(np.dot(strong[a][0], strong[b][0])) <= HOLD_OPPOSED_COS:
                return True
    return False


def holds(d: mujoco.MjData, layout: Layout, arrays: Optional[ContactArrays]) -> Holds:
    """Opposed, force-bearing finger/palm contacts of each hand on each object."""
    out: Holds = {}
    if arrays is None:
        return out
    geoms, o1, o2, f = arrays
    normals = d.contact.frame[: len(f), :3]
    for si, side in enumerate(SIDES):
        hand = hand_code(si)
        sel = ((o1 == hand) & (o2 >= FIRST_OBJECT)) | ((o2 == hand) & (o1 >= FIRST_OBJECT))
        if not np.any(sel):
            continue
        by_obj: dict[int, list[tuple[np.ndarray, float, int]]] = {}
        for i in np.nonzero(sel)[0]:
            if o1[i] == hand:
                obj, n, g = int(o2[i]), normals[i], int(geoms[i, 0])
            else:
                obj, n, g = int(o1[i]), -normals[i], int(geoms[i, 1])
            by_obj.setdefault(obj, []).append((n, float(f[i]), g))
        for obj, cs in by_obj.items():
            opposed = _opposed([c for c in cs if c[1] >= HOLD_MIN_FORCE])
            out[(side, layout.object_of(obj).name)] = {"held": opposed, "force": sum(c[1] for c in cs),
                                                       "parts": sorted({layout.geom_part.get(c[2], "?") for c in cs})}
    return out


def holders(hold_map: Holds, name: str) -> list[str]:
    """The hands that hold object `name`, sorted."""
    return sorted(h for (h, n), v in hold_map.items() if n == name and v["held"])


class Grip:
    """The trackers that run every TRACK_EVERY steps: board lift / carry / lost, and hold slip."""

    def __init__(self, d: mujoco.MjData, layout: Layout, board_names: list[str]):
        self.data, self.layout = d, layout
        self.boards = {name: BoardTrack() for name in board_names}
        self.hold_refs: dict[tuple[str, str], list[float]] = {}  # (hand, object) -> object origin in palm frame at grasp
        self.hold_slip: dict[tuple[str, str], float] = {}

    def in_palm(self, side: str, obj: str) -> np.ndarray:
        d = self.data
        s = self.layout.palm_site[side]
        b = self.layout.object_by_name[obj].body
        return d.site_xmat[s].reshape(3, 3).T @ (d.xpos[b] - d.site_xpos[s])

    def track(self, arrays: Optional[ContactArrays], hold_map: Holds, dt: float) -> None:
        self._track_boards(arrays, hold_map, dt)
        self._track_slip(hold_map)

    def _track_boards(self, arrays: Optional[ContactArrays], hold_map: Holds, dt: float) -> None:
        """Lifted (held, supported by the robot alone) and lost (on the floor)."""
        d = self.data
        for i, o in enumerate(self.layout.objects):
            if o.kind != "board":
                continue
            tr = self.boards[o.name]
            code = object_code(i)
            robot_only = False
            if arrays is not None:
                _, o1, o2, _ = arrays
                mine = (o1 == code) | (o2 == code)
                other = np.where(o1 == code, o2, o1)[mine]
                robot_only = other.size > 0 and bool(np.all((other >= LEFT_ARM) & (other <= RIGHT_HAND)))
            held = any(v["held"] for (h, n), v in hold_map.items() if n == o.name)
            if robot_only and held:
                tr.airborne_s += dt
                if tr.airborne_s >= LIFT_HOLD_S:
                    tr.lifted = True
                    tr.carry_pos = [float(x) for x in d.xpos[o.body]]
                    tr.carry_rot = [float(x) for x in d.xmat[o.body]]
            else:
                tr.airborne_s = 0.0
            if d.xpos[o.body][2] < LOST_Z:
                tr.lost = True

    def _track_slip(self, hold_map: Holds) -> None:
        """Object origin in the palm frame, relative to where it was when the hold began."""
        live = {k for k, v in hold_map.items() if v["held"]}
        for key in list(self.hold_refs):
            if key not in live:
                del self.hold_refs[key]
                self.hold_slip.pop(key, None)
        for key in live:
            rel = self.in_palm(*key)
            if key not in self.hold_refs:
                self.hold_refs[key] = [float(x) for x in rel]
                self.hold_slip[key] = 0.0
            else:
                self.hold_slip[key] = float(np.linalg.norm(rel - np.asarray(self.hold_refs[key])))

    def snapshot(self) -> dict[str, Any]:
        return {"boards": {k: v.to_dict() for k, v in self.boards.items()},
                "hold_refs": [[h, o, list(map(float, v))] for (h, o), v in sorted(self.hold_refs.items())],
                "hold_slip": [[h, o, float(v)] for (h, o), v in sorted(self.hold_slip.items())]}

    def restore(self, snap: dict[str, Any]) -> None:
        self.boards = {k: BoardTrack(**v) for k, v in snap["boards"].items()}
        self.hold_refs = {(h, o): list(v) for h, o, v in snap["hold_refs"]}
        self.hold_slip = {(h, o): float(v) for h, o, v in snap["hold_slip"]}
