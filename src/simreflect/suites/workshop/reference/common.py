"""Motion primitives of the scripted reference controllers. HTTP only: every move is a velocity
segment sent to the service, closed in a loop on the exact state it reports.

Conventions of the hand (see world.py): the palm site is the centre of the palm face; the palm's
rotation matrix has columns (palm normal, finger-row direction index-wards, wrist direction); the
fingers point along minus the third column.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

import numpy as np

from simreflect.suites.workshop.client import WorkshopClient

HZ = 180
FINGERS = ("index", "middle", "ring", "little")


def rot_error(target: np.ndarray, current: np.ndarray) -> np.ndarray:
    """World-frame rotation vector taking `current` to `target`."""
    re = target @ current.T
    c = max(-1.0, min(1.0, (np.trace(re) - 1.0) / 2.0))
    angle = math.acos(c)
    if angle < 1e-9:
        return np.zeros(3)
    if angle > math.pi - 1e-6:
        w, v = np.linalg.eigh((re + re.T) / 2)
        axis = v[:, np.argmax(w)]
        return axis * angle
    axis = np.array([re[2, 1] - re[1, 2], re[0, 2] - re[2, 0], re[1, 0] - re[0, 1]]) / (2.0 * math.sin(angle))
    return axis * angle


def rot_z(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def rot_axis(axis, angle: float) -> np.ndarray:
    axis = np.asarray(axis, float)
    axis = axis / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k


def mat(x) -> np.ndarray:
    a = np.asarray(x, float)
    return a.reshape(3, 3) if a.size == 9 else a


class ControlError(RuntimeError):
    pass


def service_url(argv: list[str]) -> str:
    """The service URL: the first argument, else $WORKSHOP_URL, else the file service_url.txt."""
    import os
    from pathlib import Path

    if len(argv) > 1:
        return argv[1]
    if os.environ.get("WORKSHOP_URL"):
        return os.environ["WORKSHOP_URL"]
    return Path("service_url.txt").read_text().strip()


BASE_GAP = 0.42  # closest the two base centres may come in x (the bases are 0.34 m wide)


class Robot:
    """Closed-loop helpers over a WorkshopClient."""

    def __init__(self, client: WorkshopClient, log: Optional[Callable[[str], None]] = None):
        self.c = client
        self.spec = client.spec()
        self.vmax = {k: v["max_velocity"] for k, v in self.spec["robot"]["joints"].items()}
        self.s: Optional[dict] = None
        self.log = log or (lambda msg: None)
        self.actions = 0

    # ----- state ---------------------------------------------------------------------------------

    def state(self, fresh: bool = False) -> dict:
        if self.s is None or fresh:
            self.s = self.c.state()
        return self.s

    def act(self, segments: list[dict]) -> dict:
        """Send the segments; the answer brings the state after them (no second request to read it)."""
        self.actions += len(segments)
        res = self.c.act(segments, with_state=True)
        self.s = res.pop("state")
        return res

    def palm(self, side: str) -> tuple[np.ndarray, np.ndarray]:
        p = self.state()["arms"][side]["palm"]
        return np.asarray(p["pos"]), mat(p["rot"])

    def q(self, side: str, joint: str) -> float:
        return self.state()["arms"][side]["joints"][joint]["q"]

    def target(self, side: str, joint: str) -> float:
        return self.state()["arms"][side]["joints"][joint]["target"]

    def obj(self, name: str) -> dict:
        s = self.state()
        for group in ("boards", "drills", "screws"):
            if name in s[group]:
                return s[group][name]
        raise KeyError(name)

    def pose(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        o = self.obj(name)
        return np.asarray(o["pos"]), mat(o["rot"])

    def held(self, side: str, name: str) -> bool:
        return any(h["object"] == name and h["held"] for h in self.state()["arms"][side]["holds"])

    # ----- joints --------------------------------------------------------------------------------

    def joints_to(self, side: str, targets: dict[str, float], speed: float = 1.0, min_time: float = 2 / HZ,
                  extra: Optional[dict] = None, stop: Optional[list] = None) -> dict:
        """Move servo targets of `side` to `targets` (rad, m) in one segment, each joint at most
        `speed` times its rate limit, all arriving together."""
        s = self.state()
        joints = s["arms"][side]["joints"]
        deltas = {j: t - joints[j]["target"] for j, t in targets.items()}
        T = max([abs(dq) / (self.vmax[j] * speed) for j, dq in deltas.items()] + [min_time])
        T = math.ceil(T * HZ) / HZ
        vel = {j: dq / T for j, dq in deltas.items() if abs(dq) > 1e-9}
        seg = {"type": "move", "duration": T, side: {"joints": vel}}
        if extra:
            seg.update(extra)
        if stop:
            seg["stop"] = stop
        return self.act([seg])

    def note(self, text: str) -> dict:
        return self.c.note(text)

    def hold_still(self, seconds: float) -> dict:
        return self.act([{"type": "wait", "duration": seconds}])

    # ----- end effector ------------------------------------------------------------------------------

    def move_to(self, side: str, pos, rot=None, point: Optional[Callable[[dict], Any]] = None,
                vmax: float = 0.2, wmax: float = 0.8, tol: float = 0.001, rtol: float = 0.004, gain: float = 4.0,
                max_iter: int = 400, seg_max: float = 0.4, use_base: bool = False, stop: Optional[list] = None,
                other: Optional[dict] = None, must: bool = True) -> str:
        """Bring a hand point (default: the palm site) to `pos` and the palm to rotation `rot`.
        Returns "reached", or the stop reason when a stop condition ended a segment."""
        pos = np.asarray(pos, float)
        for _ in range(max_iter):
            s = self.state()
            cur = np.asarray(point(s), float) if point is not None else np.asarray(s["arms"][side]["palm"]["pos"])
            rcur = mat(s["arms"][side]["palm"]["rot"])
            e = pos - cur
            er = rot_error(np.asarray(rot, float), rcur) if rot is not None else np.zeros(3)
            ne, nr = float(np.linalg.norm(e)), float(np.linalg.norm(er))
            if ne < tol and nr < rtol:
                return "reached"
            v = gain * e
            if np.linalg.norm(v) > vmax:
                v *= vmax / np.linalg.norm(v)
            w = gain * er
            if np.linalg.norm(w) > wmax:
                w *= wmax / np.linalg.norm(w)
            t_lin = ne / max(np.linalg.norm(v), 1e-9)
            t_rot = nr / max(np.linalg.norm(w), 1e-9)
            T = min(seg_max, max(3 / HZ, 0.6 * max(t_lin if ne >= tol else 0, t_rot if nr >= rtol else 0)))
            T = math.ceil(T * HZ) / HZ
            ee = {"linear": [float(x) for x in v], "angular": [float(x) for x in w], "point": [float(x) for x in cur],
                  "use_base": use_base}
            seg = {"type": "move", "duration": T, side: {"ee": ee}}
            if other:
                seg.update(other)
            if stop:
                seg["stop"] = stop
            res = self.act([seg])
            r = res["results"][0]
            if r["stopped"] != "duration":
                return r["stopped"]
        if not must:
            return "not reached"
        raise ControlError(f"{side} hand did not reach {pos} within {max_iter} segments (error {ne * 1000:.1f} mm, {nr:.3f} rad)")

    def base_to(self, side: str, x: Optional[float] = None, y: Optional[float] = None, speed: float = 0.9,
                clear: bool = True) -> None:
        """Slide a base to joint positions (metres from its home); first slide the other base out
        of the way if the two would come closer than BASE_GAP."""
        if clear and x is not None:
            other = "right" if side == "left" else "left"
            hx = {"left": -0.32, "right": 0.32}
            want = hx[side] + x
            there = hx[other] + self.q(other, "base_x")
            if abs(there - want) < BASE_GAP:
                busy = [h["object"] for h in self.state()["arms"][other]["holds"] if h["held"]]
                if any(not b.startswith("drill") for b in busy):
                    raise ControlError(f"{side} base would hit the {other} base, whose hand holds {busy}")
                away = want + BASE_GAP + 0.02 if other == "right" else want - BASE_GAP - 0.02
                lo, hi = self.spec["robot"]["joints"]["base_x"]["range"]
                qo = min(max(away - hx[other], lo + 0.005), hi - 0.005)
                self.lift_clear(other)
                self.base_to(other, qo, None, speed=speed, clear=False)
        # off the table's ends a base may stand further forward than in front of it: step back
        # before sliding along the table, step forward only after
        cur_y = self.q(side, "base_y")
        if x is not None and y is not None and max(cur_y, y) > 0.245 and abs(x - self.q(side, "base_x")) > 0.01:
            if cur_y > 0.245:
                self.base_to(side, None, 0.2, speed=speed, clear=False)
                self.base_to(side, x, None, speed=speed, clear=False)
            else:
                self.base_to(side, x, None, speed=speed, clear=False)
            self.base_to(side, None, y, speed=speed, clear=False)
            return
        targets = {}
        if x is not None:
            targets["base_x"] = x
        if y is not None:
            targets["base_y"] = y
        for _ in range(3):
            self.joints_to(side, targets, speed=speed)
            self.hold_still(0.15)
            errs = [abs(self.q(side, j) - t) for j, t in targets.items()]
            if max(errs) < 0.003:
                return


# ----- hand shapes ---------------------------------------------------------------------------------

#: Hook grasp of a 90 mm wide board (or drill grip) with the palm 20 mm above its top face: the
#: fingers and thumb curl so their tips meet the two long edge faces a few millimetres below the top.
HOOK_OPEN = {**{f"{f}_spread": 0.0 for f in ("index", "ring", "little")},
             **{f"{f}_1": 0.35 for f in FINGERS}, **{f"{f}_2": 1.65 for f in FINGERS}, **{f"{f}_3": 0.93 for f in FINGERS},
             "thumb_opposition": 0.0, "thumb_1": -1.45, "thumb_2": 1.75, "thumb_3": 1.03}
HOOK_CLOSE = {**{f"{f}_1": 0.95 for f in FINGERS}, "thumb_1": -0.8}
#: Servo targets beyond the contact angles after closing: small enough to keep the servos below
#: their force limits, so the grip is stiff (a saturated servo has no stiffness left).
HOOK_SQUEEZE = {"finger": 0.12, "thumb": 0.2}
HOVER = 0.020  # palm face above the board's top face in the hook grasp
DRILL_HOVER = 0.001  # the drill is held with the palm on its grip, so feeding cannot pivot it in the hand
#: Straight fingers, thumb swung out of the way: the pose for moving around.
FLAT = {**{f"{f}_spread": 0.0 for f in ("index", "ring", "little")},
        **{f"{f}_{k}": 0.0 for f in FINGERS for k in (1, 2, 3)},
        "thumb_opposition": 1.5, "thumb_1": -0.6, "thumb_2": 0.0, "thumb_3": 0.0}
FEED_SEGMENT = 0.15  # seconds per closed-loop step while feeding a screw
FEED_LATERAL_GAIN = 4.0  # 1/s: keeps the bit on the screw axis while feeding
SAFE_Z = 1.0  # palm height for moving around the workshop
BASE_HOME = {"left": (-0.32, -0.78), "right": (0.32, -0.78)}
SHOULDER_DY = 0.14
TABLE_HALF_X = 0.72


def grasp_frame(rot: np.ndarray, fingers_towards: np.ndarray) -> np.ndarray:
    """Palm rotation for a hook grasp of a board with rotation `rot` (columns: long axis, width
    axis, thickness axis): palm normal down the board's thickness axis, finger row along its long
    axis, fingers pointing across it towards `fingers_towards` (a world direction)."""
    x, y, z = rot[:, 0], rot[:, 1], rot[:, 2]
    if z[2] < 0:  # a board lying upside down: grasp its upper face all the same
        z, y = -z, -y
    if np.dot(y, fingers_towards) < 0:
        y, x = -y, -x
    return np.column_stack([-z, x, -y])


class Workshop(Robot):
    """Build-level skills: base placement, board pick-and-place, the hook grasp."""

    def lift_clear(self, side: str) -> None:
        """Before sliding a base sideways: hand up to the safe height if it is low."""
        pp, _ = self.palm(side)
        if pp[2] < SAFE_Z - 0.1:
            self.move_to(side, [pp[0], pp[1], SAFE_Z - 0.05], None, vmax=0.25, tol=0.01, rtol=1.0)

    def base_for(self, side: str, point, dy: float = 0.47, dx: float = 0.0) -> tuple[float, float]:
        """Base joint positions that put the shoulder `dy` metres in front (-y) of a point and `dx`
        to its side."""
        hx, hy = BASE_HOME[side]
        bx = float(point[0]) + dx - hx
        by = float(point[1]) - dy - SHOULDER_DY - hy
        lo_x, hi_x = self.spec["robot"]["joints"]["base_x"]["range"]
        lo_y, hi_y = self.spec["robot"]["joints"]["base_y"]["range"]
        bx = min(max(bx, lo_x + 0.01), hi_x - 0.01)
        # in front of the table the base stops short of its edge; off the table's ends it may go further
        clear_of_table = abs(hx + bx) > TABLE_HALF_X + 0.2
        return bx, min(max(by, lo_y + 0.01), (hi_y - 0.01) if clear_of_table else 0.24)

    def lift_to_safe(self, side: str, rot=None, z: float = SAFE_Z) -> None:
        pp, _ = self.palm(side)
        if pp[2] < z - 0.005:
            self.move_to(side, [pp[0], pp[1], z], rot, vmax=0.25, tol=0.004, rtol=0.02)

    def go_over(self, side: str, point, rot, z: float = SAFE_Z, dy: float = 0.47) -> None:
        """Up to the safe height, slide the base, then over `point` (palm at height z)."""
        self.lift_to_safe(side)
        bx, by = self.base_for(side, point, dy)
        self.base_to(side, bx, by)
        self.move_to(side, [point[0], point[1], z], rot, vmax=0.3, wmax=1.0, tol=0.004, rtol=0.02)

    def squeeze(self, side: str, shape_close: dict, joints: tuple[str, ...], thumb_joints: tuple[str, ...],
                duration: float = 0.5, beyond: Optional[dict] = None) -> None:
        """Close to contact, then back the servo targets off to a little beyond the contact angles
        (`beyond`: the "finger" and "thumb" margins, HOOK_SQUEEZE unless given)."""
        beyond = beyond or HOOK_SQUEEZE
        self.joints_to(side, shape_close, speed=0.5)
        self.hold_still(0.15)
        st = self.state(fresh=True)["arms"][side]["joints"]
        soft = {j: st[j]["q"] + beyond["finger"] for j in joints}
        soft.update({j: st[j]["q"] + beyond["thumb"] for j in thumb_joints})
        self.joints_to(side, soft, speed=0.5)
        self.hold_still(0.2)

    def hook_grasp(self, side: str, name: str, fingers_towards, hover: float = HOVER) -> None:
        """Grasp a board (or a drill grip) lying anywhere with the hook grasp at its centre, the palm
        `hover` above its top face (0: touching it, for a grasp that cannot pivot)."""
        pos, rot = self.pose(name)
        rg = grasp_frame(rot, np.asarray(fingers_towards, float))
        normal = -rg[:, 0]
        thick = self.obj(name)["size"][2] if "size" in self.obj(name) else 0.04
        top = pos + normal * thick / 2
        self.go_over(side, top, rg, z=max(SAFE_Z, top[2] + 0.15))
        self.joints_to(side, HOOK_OPEN, speed=0.8)
        self.move_to(side, top + normal * 0.08, rg, vmax=0.25, tol=0.002, rtol=0.01)
        pos, rot = self.pose(name)  # it may have been nudged
        top = pos + normal * thick / 2
        self.move_to(side, top + normal * hover, rg, vmax=0.06, tol=0.0008, rtol=0.004)
        self.squeeze(side, HOOK_CLOSE, tuple(f"{f}_1" for f in FINGERS), ("thumb_1",))
        if not self.held(side, name):
            raise ControlError(f"{side} hand failed to grasp {name}: {self.state()['arms'][side]['holds']}")

    def release(self, side: str, up: float = 0.06) -> None:
        """Relax the grip first (servo targets onto the joint angles: no squeeze left), then open."""
        st = self.state(fresh=True)["arms"][side]["joints"]
        self.joints_to(side, {j: st[j]["q"] for j in HOOK_OPEN}, speed=0.5)
        self.hold_still(0.15)
        self.joints_to(side, HOOK_OPEN, speed=0.4)
        pp, pr = self.palm(side)
        self.move_to(side, pp + np.array([0, 0, up]), pr, vmax=0.1, tol=0.003, rtol=0.02)

    def place_board(self, side: str, name: str, target, tol_mm: float = 0.4, fingers_towards=(0.0, 1.0, 0.0)) -> dict:
        """Pick `name` up and put it down into its target outline (x, y, z centre, yaw)."""
        self.hook_grasp(side, name, fingers_towards)
        pos, rot = self.pose(name)
        pp, pr = self.palm(side)
        # lift off the rack along the board's normal first, then up
        self.move_to(side, pp + rot[:, 2] * 0.08, pr, vmax=0.1, tol=0.003, rtol=0.02)
        tx, ty, tz, tyaw = target
        byaw = math.atan2(rot[1, 0], rot[0, 0])
        # of the two equivalent target yaws (a board is symmetric), the one nearer the current yaw
        dyaw = (tyaw - byaw + math.pi / 2) % math.pi - math.pi / 2
        rt = rot_z(byaw + dyaw)
        grasp_p, grasp_r = self._grasp_relative(side, name)
        want_r = rt @ grasp_r
        self.lift_to_safe(side, None)
        palm_target = np.array([tx, ty, tz]) + rt @ grasp_p
        self.go_over(side, palm_target, want_r, z=max(SAFE_Z, tz + 0.25))
        return self.set_down(side, name, target, rt, tol_mm)

    def _grasp_relative(self, side: str, name: str) -> tuple[np.ndarray, np.ndarray]:
        """The palm's pose in the board's frame (position, rotation)."""
        pos, rot = self.pose(name)
        pp, pr = self.palm(side)
        return rot.T @ (pp - pos), rot.T @ pr

    def board_to(self, side: str, name: str, pos, rot, tol: float, rtol: float, vmax: float = 0.1,
                 stop: Optional[list] = None, max_iter: int = 60) -> str:
        """Close the loop on the board itself: move the palm so the board reaches (pos, rot)."""
        for _ in range(max_iter):
            bp, br = self.pose(name)
            gp, gr = self._grasp_relative(side, name)
            e = np.linalg.norm(np.asarray(pos) - bp)
            er = np.linalg.norm(rot_error(rot, br))
            if e < tol and er < rtol:
                return "reached"
            palm_goal = np.asarray(pos) + rot @ gp
            r = self.move_to(side, palm_goal, rot @ gr, vmax=vmax, tol=tol * 0.7, rtol=rtol * 0.7, max_iter=6, stop=stop, must=False)
            if r != "reached" and r.startswith("stop"):
                return r
        return "not reached"

    def set_down(self, side: str, name: str, target, rt: np.ndarray, tol_mm: float) -> dict:
        tx, ty, tz, _ = target
        above = np.array([tx, ty, tz + 0.012])
        self.board_to(side, name, above + np.array([0, 0, 0.05]), rt, tol=0.003, rtol=0.01, vmax=0.15)
        self.board_to(side, name, above, rt, tol=tol_mm / 1000, rtol=0.0015, vmax=0.05)
        # lower until it touches, keeping x, y, yaw
        stop = [{"a": name, "b": "static", "min_force": 0.5}, {"a": name, "b": "object", "min_force": 0.5}]
        self.board_to(side, name, np.array([tx, ty, tz - 0.004]), rt, tol=tol_mm / 1000, rtol=0.0015, vmax=0.01, stop=stop)
        self.hold_still(0.1)
        self.release(side)
        self.hold_still(0.3)
        return self.obj(name)["target"]

    def park(self, side: str) -> None:
        """Hand up, fingers flat, base home."""
        self.lift_to_safe(side)
        self.joints_to(side, FLAT, speed=0.8)
        self.base_to(side, 0.0, 0.0)

    # ----- drill and screws ---------------------------------------------------------------------------

    def align_rotation(self, side: str, axis_now, axis_want) -> np.ndarray:
        """The palm rotation that turns a hand-carried direction `axis_now` onto `axis_want`."""
        a = np.asarray(axis_now, float) / np.linalg.norm(axis_now)
        b = np.asarray(axis_want, float) / np.linalg.norm(axis_want)
        c = np.cross(a, b)
        s, cth = np.linalg.norm(c), float(np.dot(a, b))
        ra = np.eye(3) if s < 1e-9 else rot_axis(c, math.atan2(s, cth))
        return ra @ self.palm(side)[1]

    def pick_drill(self, side: str = "right", name: str = "drill0") -> None:
        """Hook-grasp the drill's grip where it lies, lift it and turn it bit-down."""
        self.hook_grasp(side, name, fingers_towards=(0.0, 1.0, 0.0), hover=DRILL_HOVER)
        pp, pr = self.palm(side)
        self.move_to(side, pp + np.array([0, 0, 0.12]), pr, vmax=0.15, tol=0.004, rtol=0.02)
        want = self.align_rotation(side, self.obj(name)["axis"], (0.0, 0.0, -1.0))
        pp, _ = self.palm(side)
        self.move_to(side, pp + np.array([0, 0, 0.05]), want, vmax=0.15, wmax=0.8, tol=0.004, rtol=0.01)
        if not self.held(side, name):
            raise ControlError(f"lost {name} while turning it bit-down")

    def put_drill_down(self, side: str, name: str, where) -> None:
        """Turn the drill back to lying, set it on the table at `where` (x, y) and let go."""
        want = self.align_rotation(side, self.obj(name)["axis"], (1.0, 0.0, 0.0))
        pp, _ = self.palm(side)
        self.move_to(side, [pp[0], pp[1], max(pp[2], SAFE_Z)], want, vmax=0.2, wmax=0.8, tol=0.004, rtol=0.01)
        pos, rot = self.pose(name)
        gp, gr = self._grasp_relative(side, name)
        goal = np.array([where[0], where[1], 0.72 + 0.02 + 0.004])
        rt = rot_z(math.atan2(rot[1, 0], rot[0, 0]))
        flat = np.column_stack([rt[:, 0], rt[:, 1], [0, 0, 1.0]])
        self.go_over(side, goal + flat @ gp, flat @ gr, z=SAFE_Z)
        stop = [{"a": name, "b": "static", "min_force": 0.5}, {"a": name, "b": "object", "min_force": 0.5}]
        self.board_to(side, name, goal - np.array([0, 0, 0.01]), flat, tol=0.002, rtol=0.01, vmax=0.03, stop=stop)
        self.release(side)

    def pick_screw(self, side: str, name: str) -> None:
        """Scissor grip: index and middle finger straddle the shaft under the head (which then rests
        on them), the index finger's spread joint squeezes the shaft against the middle finger."""
        s = self.state(fresh=True)
        head = np.asarray(s["screws"][name]["pos"])
        z = head[2] - 0.005 - 0.0088  # finger axes just under the head, so it comes to rest on them
        goal = np.array([head[0] - 0.005, head[1], z])  # the shaft enters mid-gap, nearer the opened index
        rot = np.column_stack([[0, 0, -1.0], [1.0, 0, 0], [0, -1.0, 0]])  # palm down, fingers +y
        pinch = lambda st: st["arms"][side]["pinch"]
        self.lift_to_safe(side)
        bx, by = self.base_for(side, goal, dy=0.5, dx=-0.12)
        self.base_to(side, bx, by)
        self.joints_to(side, {**FLAT, "index_spread": 0.22}, speed=0.8)
        self.move_to(side, goal + np.array([0, -0.09, 0.03]), rot, point=pinch, vmax=0.3, tol=0.002, rtol=0.01)
        self.move_to(side, goal + np.array([0, -0.09, 0.0]), rot, point=pinch, vmax=0.1, tol=0.001, rtol=0.005)
        head = np.asarray(self.obj(name)["pos"])
        self.move_to(side, [head[0] - 0.005, head[1], z], rot, point=pinch, vmax=0.05, tol=0.001, rtol=0.005)
        self.joints_to(side, {"index_spread": -0.2}, speed=0.5)
        self.hold_still(0.1)
        q = self.state(fresh=True)["arms"][side]["joints"]["index_spread"]["q"]
        self.joints_to(side, {"index_spread": q - 0.1}, speed=0.5)
        pp, pr = self.palm(side)
        self.move_to(side, pp + np.array([0, 0, 0.05]), pr, vmax=0.05, tol=0.002, rtol=0.01)
        if not self.held(side, name):
            raise ControlError(f"{side} hand failed to pick {name}: {self.state()['arms'][side]['holds']}")

    def set_screw(self, side: str, name: str, board: str, point) -> None:
        """Carry the held screw over `point` (x, y on `board`'s top face) and lower it until its tip
        touches the board."""
        rot = np.column_stack([[0, 0, -1.0], [1.0, 0, 0], [0, -1.0, 0]])
        tip = lambda st: st["screws"][name]["tip"]
        top_z = float(np.max(np.asarray(self.obj(board)["corners"])[:, 2]))
        goal = np.array([point[0], point[1], top_z + 0.012])
        self.lift_to_safe(side, rot, z=top_z + 0.15)
        bx, by = self.base_for(side, goal, dy=0.5, dx=-0.22)
        self.base_to(side, bx, by)
        self.move_to(side, goal + np.array([0, 0, 0.05]), rot, point=tip, vmax=0.2, tol=0.002, rtol=0.01)
        self.move_to(side, goal, rot, point=tip, vmax=0.05, tol=0.0007, rtol=0.004)
        stop = [{"a": name, "b": board, "min_force": 0.05}]
        self.move_to(side, [point[0], point[1], top_z - 0.004], rot, point=tip, vmax=0.01, tol=0.0005, rtol=0.004,
                     stop=stop, must=False, max_iter=30)
        # then hover just clear of the face: a screw left pressing on the board nudges it about
        tp = np.asarray(self.obj(name)["tip"])
        self.move_to(side, [point[0], point[1], tp[2] + 0.0008], rot, point=tip, vmax=0.005, tol=0.0003, rtol=0.004,
                     must=False, max_iter=10)

    def drill_onto(self, side: str, drill: str, screw: str) -> dict:
        """Bring the drill bit onto the screw head, aligned with the screw axis, and engage."""
        bit = lambda st: st["drills"][drill]["tip"]
        sc = self.obj(screw)
        axis = np.asarray(sc["axis"])
        head = np.asarray(sc["head_top"])
        want = self.align_rotation(side, self.obj(drill)["axis"], axis)
        above = head - axis * 0.04
        self.lift_to_safe(side, want, z=above[2] + 0.1 + 0.15)
        bx, by = self.base_for(side, above, dy=0.45, dx=0.26 if side == "right" else -0.26)
        self.base_to(side, bx, by)
        want = self.align_rotation(side, self.obj(drill)["axis"], axis)
        self.move_to(side, above + np.array([0, 0, 0.1]), want, point=bit, vmax=0.25, tol=0.003, rtol=0.01)
        for _ in range(3):
            sc = self.obj(screw)
            axis, head = np.asarray(sc["axis"]), np.asarray(sc["head_top"])
            want = self.align_rotation(side, self.obj(drill)["axis"], axis)
            self.move_to(side, head - axis * 0.012, want, point=bit, vmax=0.05, tol=0.0005, rtol=0.0015)
        stop = [{"a": drill, "b": screw, "min_force": 0.2}]
        self.move_to(side, head + axis * 0.003, want, point=bit, vmax=0.01, tol=0.0003, rtol=0.0015, stop=stop,
                     must=False, max_iter=40)
        res = self.act([{"type": "drill", "hand": side, "action": "engage"}])
        return res["results"][0]

    def let_go_of_screw(self, side: str) -> None:
        """Drop the fingers clear of the head (the screw is seated now), open the scissor, slide the
        fingers out backwards."""
        pp, pr = self.palm(side)
        self.move_to(side, pp + np.array([0, 0, -0.004]), pr, vmax=0.02, tol=0.001, rtol=0.02)
        self.joints_to(side, {"index_spread": 0.35}, speed=0.3)
        pp, pr = self.palm(side)
        self.move_to(side, pp + np.array([0, -0.09, 0.0]), pr, vmax=0.06, tol=0.003, rtol=0.02)
        pp, pr = self.palm(side)
        away = -0.1 if side == "left" else 0.1
        self.move_to(side, pp + np.array([away, -0.05, 0.08]), pr, vmax=0.1, tol=0.004, rtol=0.02)

    def feed(self, side: str, drill: str, screw: str, speed: float = 0.015, max_s: float = 10.0) -> str:
        """Push the engaged bit along the screw axis until the screw is driven; then withdraw."""
        bit = lambda st: st["drills"][drill]["tip"]
        t = 0.0
        result = "not driven"
        axis = np.asarray(self.obj(screw)["axis"])  # the axis it was seated on
        # re-centre the bit on the head first (letting go of the screw may have nudged things)
        head = np.asarray(self.obj(screw)["hole"]["head_top"])
        axis = np.asarray(self.obj(screw)["hole"]["axis"])
        want = self.align_rotation(side, self.obj(drill)["axis"], axis)
        self.move_to(side, head + axis * 0.0005, want, point=bit, vmax=0.01, tol=0.0005, rtol=0.002, must=False, max_iter=15)
        while t < max_s:
            s = self.state(fresh=True)
            sc = s["screws"][screw]
            if sc["state"] == "driven":
                result = "driven"
                break
            if s["drills"][drill]["engaged_screw"] != screw:
                result = "disengaged"
                break
            tip = np.asarray(s["drills"][drill]["tip"])
            head = np.asarray(sc["hole"]["head_top"])  # where the hole guides the head
            axis = np.asarray(sc["hole"]["axis"])
            rel = tip - head
            lateral = rel - np.dot(rel, axis) * axis
            v = axis * speed - FEED_LATERAL_GAIN * lateral
            want = self.align_rotation(side, s["drills"][drill]["axis"], axis)
            w = rot_error(want, mat(s["arms"][side]["palm"]["rot"])) * 5.0
            seg = {"type": "move", "duration": FEED_SEGMENT,
                   side: {"ee": {"linear": [float(x) for x in v], "angular": [float(x) for x in w], "point": [float(x) for x in tip]}},
                   "stop": [{"a": screw, "state": "driven"}]}
            self.act([seg])
            t += FEED_SEGMENT
        # withdraw straight back along the axis before any sideways move
        s = self.state(fresh=True)
        tip = np.asarray(s["drills"][drill]["tip"])
        want = self.align_rotation(side, s["drills"][drill]["axis"], axis)
        self.move_to(side, tip - axis * 0.03, want, point=bit, vmax=0.02, tol=0.001, rtol=0.004)
        return result

    def fix_screw(self, screw: str, board: str, point, drill: str = "drill0", screw_hand: str = "left",
                  drill_hand: str = "right") -> None:
        """One screw, start to end: pinch it from the comb, stand it on `board` at `point`, bring
        the bit onto it and engage, let go, feed it in, withdraw."""
        self.pick_screw(screw_hand, screw)
        self.set_screw(screw_hand, screw, board, point)
        res = self.drill_onto(drill_hand, drill, screw)
        if not res.get("ok"):
            res = self.drill_onto(drill_hand, drill, screw)  # once more, from the new state
            if not res.get("ok"):
                raise ControlError(f"engage refused for {screw}: {res.get('reason')}")
        self.let_go_of_screw(screw_hand)
        got = self.feed(drill_hand, drill, screw)
        if got != "driven":
            raise ControlError(f"{screw} not driven: {got}")
        # drill hand up and out of the way of the next screw
        pp, pr = self.palm(drill_hand)
        side_dx = 0.15 if drill_hand == "right" else -0.15
        self.move_to(drill_hand, [pp[0] + side_dx, pp[1] - 0.05, max(pp[2] + 0.1, SAFE_Z)], pr, vmax=0.25, tol=0.005, rtol=0.02)

    def joint_points(self, top: str, bottom: str, spread: float = 0.025) -> list[np.ndarray]:
        """Three non-collinear screw positions (x, y) in the overlap of two crossing boards: where
        their centre lines cross, +-`spread` along each board (a triangle 50 mm wide, 50 mm tall)."""
        pa, ra = self.pose(bottom)
        pb, rb = self.pose(top)
        u, v = ra[:, 0], rb[:, 0]
        m = np.array([[u[0], -v[0]], [u[1], -v[1]]])
        ts = np.linalg.solve(m, (pb - pa)[:2])
        c = pa + ts[0] * u
        return [(c - spread * u - spread * v)[:2], (c + spread * u - spread * v)[:2], (c + spread * v)[:2]]

    def finish_up(self, drill: Optional[str] = "drill0", drill_hand: str = "right", drill_spot=(0.5, -0.22)) -> None:
        """Put the drill down (if held), hands up and open, bases home."""
        if drill is not None and self.held(drill_hand, drill):
            self.put_drill_down(drill_hand, drill, drill_spot)
        for side in ("left", "right"):
            self.lift_to_safe(side)
            self.joints_to(side, FLAT, speed=0.8)


# ----- screws along any axis (a horizontal screw through an upright board, say) -------------------------

#: How far the screw hand's fingers move along the screw axis, off the head, before they open.
LET_GO_ALONG_M = 0.004
#: The thumb curled up over the back of the hand: in the side pinch the swung-out thumb of FLAT
#: hangs 70 mm below the palm and meets the table when the screw is low.
THUMB_UP = {"thumb_opposition": 1.5, "thumb_1": 1.5, "thumb_2": 1.5}


def side_pinch_rotation(side: str, axis) -> np.ndarray:
    """Palm rotation of the scissor grip for a screw pointing along the horizontal `axis`: palm
    normal along the axis (the screw crosses the finger row as in the vertical grip), fingers level,
    pointing away from the hand's own side (left hand: to +x), so neither palm nor fingers reach
    below the screw towards the table."""
    a = np.asarray(axis, float)
    a = a / np.linalg.norm(a)
    out = np.cross(a, [0.0, 0.0, 1.0])  # level and across the axis
    out = out / np.linalg.norm(out)
    if (out[0] < 0) == (side == "left"):
        out = -out
    wrist = -out
    row = np.cross(wrist, a)
    return np.column_stack([a, row, wrist])


class AnyAxis(Workshop):
    """The seed's screw procedure along any axis the build needs: pinch the screw, turn it onto the
    axis, set its tip on the face (the hand keeps holding it: a horizontal screw cannot stand by
    itself), bring the bit onto the axis, engage, let go, feed, withdraw. The vertical procedure of
    Workshop is left as it is (its commands are pinned by the recorded references)."""

    def drill_rotation(self, side: str, drill: str, axis) -> np.ndarray:
        """The palm rotation that puts the drill's bit along `axis`, rolled about it so the palm is
        on top of the grip (for a level bit the fingers then hook the grip's sides above the table;
        palm below it would reach under the table top)."""
        r0 = self.align_rotation(side, self.obj(drill)["axis"], axis)
        a = np.asarray(axis, float)
        a = a / np.linalg.norm(a)
        n, down = r0[:, 0], np.array([0.0, 0.0, -1.0])
        pn, pd = n - np.dot(n, a) * a, down - np.dot(down, a) * a
        if np.linalg.norm(pd) < 1e-6 or np.linalg.norm(pn) < 1e-6:
            return r0  # a vertical bit: any roll does
        phi = math.atan2(float(np.dot(a, np.cross(pn, pd))), float(np.dot(pn, pd)))
        return rot_axis(a, phi) @ r0

    def turn_screw(self, side: str, screw: str, axis, rounds: int = 3) -> None:
        """With the screw in the scissor grip, at a safe height: turn the hand so the screw points
        along `axis`, closing the loop on the screw's own axis (it sags in the grip); the thumb
        curled up out of the way."""
        self.joints_to(side, THUMB_UP, speed=0.5)
        pp, _ = self.palm(side)
        self.move_to(side, [pp[0], pp[1], SAFE_Z - 0.1], side_pinch_rotation(side, axis), vmax=0.15, wmax=0.6,
                     tol=0.004, rtol=0.02)
        for _ in range(rounds):
            want = self.align_rotation(side, self.obj(screw)["axis"], axis)
            pp, _ = self.palm(side)
            self.move_to(side, pp, want, vmax=0.15, wmax=0.6, tol=0.004, rtol=0.005)
        if not self.held(side, screw):
            raise ControlError(f"{side} hand lost {screw} while turning it")

    def set_screw_on_face(self, side: str, screw: str, board: str, point, axis) -> None:
        """Carry the held screw, pointing along `axis`, to `point` (a world point on `board`'s
        entry face), bring its tip to touch the face, then back it off to just clear of it. The hand
        keeps holding it."""
        axis = np.asarray(axis, float) / np.linalg.norm(axis)
        point = np.asarray(point, float)
        tip = lambda st: st["screws"][screw]["tip"]
        self.turn_screw(side, screw, axis)
        goal = point - axis * 0.012
        bx, by = self.base_for(side, goal, dy=0.5, dx=-0.22 if side == "left" else 0.22)
        self.base_to(side, bx, by)
        want = self.align_rotation(side, self.obj(screw)["axis"], axis)
        self.move_to(side, goal - axis * 0.05, want, point=tip, vmax=0.2, tol=0.002, rtol=0.01, must=False)
        for _ in range(2):
            want = self.align_rotation(side, self.obj(screw)["axis"], axis)
            self.move_to(side, goal, want, point=tip, vmax=0.05, tol=0.0007, rtol=0.004)
        stop = [{"a": screw, "b": board, "min_force": 0.05}]
        self.move_to(side, point + axis * 0.004, want, point=tip, vmax=0.01, tol=0.0005, rtol=0.004, stop=stop,
                     must=False, max_iter=30)
        tp = np.asarray(self.obj(screw)["tip"])
        back = point + axis * float(np.dot(tp - point, axis)) - axis * 0.0008
        self.move_to(side, back, want, point=tip, vmax=0.005, tol=0.0003, rtol=0.004, must=False, max_iter=10)

    def drill_onto_axis(self, side: str, drill: str, screw: str, dy: float = 0.6) -> dict:
        """Bring the bit onto the screw head from behind, along the screw's axis, and engage."""
        bit = lambda st: st["drills"][drill]["tip"]
        sc = self.obj(screw)
        axis, head = np.asarray(sc["axis"]), np.asarray(sc["head_top"])
        want = self.drill_rotation(side, drill, axis)
        behind = head - axis * 0.1
        self.lift_to_safe(side, want, z=max(behind[2] + 0.15, SAFE_Z))
        bx, by = self.base_for(side, behind, dy=dy, dx=0.26 if side == "right" else -0.26)
        self.base_to(side, bx, by)
        want = self.drill_rotation(side, drill, axis)
        self.move_to(side, behind + np.array([0, 0, 0.1]), want, point=bit, vmax=0.25, tol=0.003, rtol=0.01)
        self.move_to(side, behind, want, point=bit, vmax=0.1, tol=0.002, rtol=0.01)
        for _ in range(3):
            sc = self.obj(screw)
            axis, head = np.asarray(sc["axis"]), np.asarray(sc["head_top"])
            want = self.drill_rotation(side, drill, axis)
            self.move_to(side, head - axis * 0.012, want, point=bit, vmax=0.05, tol=0.0005, rtol=0.0015, must=False)
        stop = [{"a": drill, "b": screw, "min_force": 0.2}]
        self.move_to(side, head + axis * 0.003, want, point=bit, vmax=0.01, tol=0.0003, rtol=0.0015, stop=stop,
                     must=False, max_iter=40)
        return self.act([{"type": "drill", "hand": side, "action": "engage"}])["results"][0]

    def let_go_along(self, side: str, screw: str) -> None:
        """Let go of a seated screw whatever its axis: the fingers off the head along the axis, the
        scissor open, the fingers out along the wrist direction, then the hand up and away."""
        axis = np.asarray(self.obj(screw)["hole"]["axis"])
        pp, pr = self.palm(side)
        self.move_to(side, pp + axis * LET_GO_ALONG_M, pr, vmax=0.02, tol=0.001, rtol=0.02)
        self.joints_to(side, {"index_spread": 0.35}, speed=0.3)
        pp, pr = self.palm(side)
        self.move_to(side, pp + pr[:, 2] * 0.09, pr, vmax=0.06, tol=0.003, rtol=0.02, use_base=True, must=False)
        if self.state()["screws"][screw]["held_by"] or any(
                c["with"] == screw for c in self.state()["arms"][side]["hand_contacts"]):
            raise ControlError(f"{side} hand could not slide its fingers off {screw}")
        pp, pr = self.palm(side)
        away = -0.05 if side == "left" else 0.05
        self.move_to(side, pp + np.array([away, -0.05, 0.08]), pr, vmax=0.1, tol=0.004, rtol=0.02)

    def fix_screw_along(self, screw: str, board: str, point, axis, drill: str = "drill0",
                        screw_hand: str = "left", drill_hand: str = "right") -> None:
        """One screw along `axis` into `board`'s face at `point`, start to end."""
        self.pick_screw(screw_hand, screw)
        self.set_screw_on_face(screw_hand, screw, board, point, axis)
        res = self.drill_onto_axis(drill_hand, drill, screw)
        if not res.get("ok"):
            res = self.drill_onto_axis(drill_hand, drill, screw)
            if not res.get("ok"):
                raise ControlError(f"engage refused for {screw}: {res.get('reason')}")
        self.let_go_along(screw_hand, screw)
        got = self.feed(drill_hand, drill, screw)
        if got != "driven":
            raise ControlError(f"{screw} not driven: {got}")
        # the drill back along the axis, then up and aside, out of the way of the next screw
        pp, pr = self.palm(drill_hand)
        axis_now = np.asarray(self.obj(screw)["hole"]["axis"])
        self.move_to(drill_hand, pp - axis_now * 0.05, pr, vmax=0.1, tol=0.005, rtol=0.02)
        pp, pr = self.palm(drill_hand)
        side_dx = 0.15 if drill_hand == "right" else -0.15
        self.move_to(drill_hand, [pp[0] + side_dx, pp[1] - 0.05, max(pp[2] + 0.1, SAFE_Z)], pr, vmax=0.25, tol=0.005,
                     rtol=0.02)


# ----- a board stood on its long edge (the ell's upright board) ----------------------------------------

#: The top pinch of a board standing on its long edge: the palm face on the top edge, the four
#: fingers straight down the back face (their bases at the palm's finger end), the thumb straight
#: down the front face from the wrist end. Open: fingers and thumb splayed clear of the faces.
TOP_PINCH_OPEN = {**{f"{f}_spread": 0.0 for f in ("index", "ring", "little")}, **{f"{f}_1": 1.2 for f in FINGERS},
                  **{f"{f}_{k}": 0.0 for f in FINGERS for k in (2, 3)},
                  "thumb_opposition": 0.0, "thumb_1": 0.6, "thumb_2": 0.0, "thumb_3": 0.0}
TOP_PINCH_CLOSE = {**{f"{f}_1": 1.75 for f in FINGERS}, "thumb_1": 1.5}
#: From the palm site to the pinched board's mid-plane, along the fingers' side (the finger bases
#: sit 60 mm past the palm centre; a finger's side then lies on a 40 mm board's back face).
TOP_PINCH_OFFSET = 0.0315
TOP_PINCH_HOVER = 0.002  # the palm face this far above the top edge
#: Where the hand-over happens: the board's centre this high.
HANDOVER_Z = 0.98
#: The top pinch takes the board this far along its length from its centre (clear of the other hand).
HANDOVER_DX = 0.13
SET_DOWN_TRIES = 4
SET_DOWN_MM = 1.2  # set it down again if a corner ends further than this outside the outline


def on_edge_rotation(long_axis, down_edge_first: bool = False) -> np.ndarray:
    """The rotation of a board standing on its long edge with its length along the horizontal
    `long_axis`: width vertical (its y axis down), thickness horizontal (x cross y)."""
    x = np.asarray(long_axis, float)
    x = np.array([x[0], x[1], 0.0]) / np.linalg.norm(x[:2])
    y = np.array([0.0, 0.0, -1.0])
    return np.column_stack([x, y, np.cross(x, y)])


class OnEdge(AnyAxis):
    """Standing a board on its long edge, contact-only: the hook grasp takes it from the rack (fingers
    on its far edge), the hand turns it a quarter turn about its length in the air (that edge down,
    the fingers under it), the other hand takes it by the top pinch beside the first hand, the first
    lets go, and the pinching hand lowers it onto its edge into the outline and lets go."""

    def pinch_frame(self, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The board's upward width axis, its back (+y side) thickness axis and the palm rotation of
        the top pinch (palm normal down, fingers down the back face)."""
        _, rot = self.pose(name)
        up = rot[:, 1] if rot[2, 1] > 0 else -rot[:, 1]
        back = rot[:, 2] if rot[1, 2] > 0 else -rot[:, 2]
        c0, c2 = -up, -back
        return up, back, np.column_stack([c0, np.cross(c2, c0), c2])

    def top_pinch(self, side: str, name: str, along: float = 0.0, dx: float = 0.0) -> None:
        """Take a board standing on its edge (on the table or held) by the top pinch, `along`
        metres from its centre along its length."""
        pos, rot = self.pose(name)
        up, back, rg = self.pinch_frame(name)
        half = self.obj(name)["size"][1] / 2
        palm = pos + rot[:, 0] * along + up * (half + TOP_PINCH_HOVER) - back * TOP_PINCH_OFFSET
        self.lift_to_safe(side, z=max(SAFE_Z, palm[2] + 0.15))
        bx, by = self.base_for(side, palm, dx=dx)
        self.base_to(side, bx, by)
        self.joints_to(side, TOP_PINCH_OPEN, speed=0.8)
        self.move_to(side, palm + up * 0.15, rg, vmax=0.3, wmax=1.0, tol=0.004, rtol=0.02)
        self.move_to(side, palm + up * 0.03, rg, vmax=0.1, tol=0.002, rtol=0.01)
        pos, rot = self.pose(name)  # a held board may have swung a little
        palm = pos + rot[:, 0] * along + up * (half + TOP_PINCH_HOVER) - back * TOP_PINCH_OFFSET
        self.move_to(side, palm, rg, vmax=0.03, tol=0.0008, rtol=0.004, must=False)
        self.squeeze(side, TOP_PINCH_CLOSE, tuple(f"{f}_1" for f in FINGERS), ("thumb_1",))
        if not self.held(side, name):
            raise ControlError(f"{side} hand failed to pinch {name}: {self.state()['arms'][side]['holds']}")

    def let_go_back(self, side: str, shape: dict, back: float = 0.06) -> None:
        """Relax the grip, open to `shape`, then move the palm back off the board along its normal
        and up."""
        st = self.state(fresh=True)["arms"][side]["joints"]
        self.joints_to(side, {j: st[j]["q"] for j in shape}, speed=0.5)
        self.hold_still(0.15)
        self.joints_to(side, shape, speed=0.4)
        pp, pr = self.palm(side)
        self.move_to(side, pp - pr[:, 0] * back, pr, vmax=0.1, tol=0.003, rtol=0.02)
        pp, pr = self.palm(side)
        self.move_to(side, pp + np.array([0.0, 0.0, 0.06]), pr, vmax=0.1, tol=0.003, rtol=0.02)

    def stand_up(self, name: str, target, hook_hand: str = "left", pinch_hand: str = "right",
                 tol_mm: float = 0.4) -> dict:
        """From the rack onto its long edge into `target` (x, y, z, yaw, pitch, roll of an outline on
        its edge: its width vertical)."""
        target = [float(v) for v in target]
        t_pos = np.asarray(target[:3])
        t_long = np.array([math.cos(target[3]), math.sin(target[3]), 0.0])  # the outline's length axis
        self.hook_grasp(hook_hand, name, (0.0, 1.0, 0.0))
        pos, rot = self.pose(name)
        pp, pr = self.palm(hook_hand)
        self.move_to(hook_hand, pp + rot[:, 2] * 0.08, pr, vmax=0.1, tol=0.003, rtol=0.02)
        self.lift_to_safe(hook_hand, None)
        # the quarter turn in the air, over the outline: the finger edge down, the palm behind
        _, rot = self.pose(name)
        sign = 1.0 if np.dot(rot[:, 0], t_long) >= 0 else -1.0
        want = on_edge_rotation(sign * t_long)
        if np.dot(want[:, 1], rot[:, 1]) < 0:  # keep the finger edge (the board's +y) the one going down
            want = want @ np.diag([1.0, -1.0, -1.0])
        gp, gr = self._grasp_relative(hook_hand, name)
        handover = np.array([t_pos[0], t_pos[1], HANDOVER_Z])
        palm_goal = handover + want @ gp
        self.base_to(hook_hand, *self.base_for(hook_hand, palm_goal, dx=-0.15 if hook_hand == "left" else 0.15))
        self.move_to(hook_hand, palm_goal, want @ gr, vmax=0.3, wmax=1.0, tol=0.004, rtol=0.02)
        self.board_to(hook_hand, name, handover, want, tol=0.003, rtol=0.01, vmax=0.1)
        self.hold_still(0.3)
        # the hand-over: the other hand pinches the top edge beside the first, which lets go
        _, rot = self.pose(name)
        along = HANDOVER_DX if np.dot(rot[:, 0], [1.0, 0.0, 0.0]) * (1 if pinch_hand == "right" else -1) > 0 else -HANDOVER_DX
        self.top_pinch(pinch_hand, name, along=along, dx=0.25 if pinch_hand == "right" else -0.25)
        self.let_go_back(hook_hand, HOOK_OPEN)
        self.lift_to_safe(hook_hand)
        # down onto its edge, into the outline; letting go of the pinch nudges it a millimetre or
        # so, much the same way each time: if it ends outside, take it again where it was taken,
        # lift it clear and set it down offset by the nudge seen
        offset, turn = np.zeros(3), 0.0
        for attempt in range(SET_DOWN_TRIES):
            if attempt:
                self.top_pinch(pinch_hand, name, along=along, dx=0.25 if pinch_hand == "right" else -0.25)
                pp, pr = self.palm(pinch_hand)
                self.move_to(pinch_hand, pp + np.array([0.0, 0.0, 0.02]), pr, vmax=0.02, tol=0.001, rtol=0.01)
                self.hold_still(0.4)  # carried: supported by the hand alone
            _, rot = self.pose(name)
            rt = rot_axis([0.0, 0.0, 1.0], -turn) @ target_on_edge_nearest(target, rot)
            goal = t_pos - offset
            self.board_to(pinch_hand, name, goal + np.array([0, 0, 0.03]), rt, tol=0.002, rtol=0.01, vmax=0.1)
            self.board_to(pinch_hand, name, goal + np.array([0, 0, 0.008]), rt, tol=tol_mm / 1000, rtol=0.0015, vmax=0.03)
            stop = [{"a": name, "b": "static", "min_force": 0.5}, {"a": name, "b": "object", "min_force": 0.5}]
            self.board_to(pinch_hand, name, goal - np.array([0, 0, 0.004]), rt, tol=tol_mm / 1000, rtol=0.0015,
                          vmax=0.01, stop=stop)
            self.hold_still(0.1)
            p0, r0 = self.pose(name)
            self.let_go_up(pinch_hand)
            self.hold_still(0.3)
            p1, r1 = self.pose(name)
            got = self.obj(name)["target"]
            if got["worst_protrusion_mm"] <= SET_DOWN_MM:
                break
            offset += np.array([p1[0] - p0[0], p1[1] - p0[1], 0.0])
            turn += math.atan2(r1[1, 0], r1[0, 0]) - math.atan2(r0[1, 0], r0[0, 0])
        self.lift_to_safe(pinch_hand)
        return self.obj(name)["target"]

    def let_go_up(self, side: str, up: float = 0.08) -> None:
        """Out of the top pinch: relax, open, palm straight up off the top edge."""
        st = self.state(fresh=True)["arms"][side]["joints"]
        self.joints_to(side, {j: st[j]["q"] for j in TOP_PINCH_OPEN}, speed=0.5)
        self.hold_still(0.15)
        self.joints_to(side, TOP_PINCH_OPEN, speed=0.4)
        pp, pr = self.palm(side)
        self.move_to(side, pp + np.array([0.0, 0.0, up]), pr, vmax=0.05, tol=0.003, rtol=0.02)


def target_on_edge_nearest(target, rot) -> np.ndarray:
    """Of the target rotation's box-symmetric equivalents, the one nearest the board's `rot`."""
    x, y, z, yaw, pitch, roll = target
    cy, sy, cp, sp, cr, sr = math.cos(yaw), math.sin(yaw), math.cos(pitch), math.sin(pitch), math.cos(roll), math.sin(roll)
    rz = np.array([[cy, -sy, 0.0], [sy, cy, 0.0], [0.0, 0.0, 1.0]])
    ry = np.array([[cp, 0.0, sp], [0.0, 1.0, 0.0], [-sp, 0.0, cp]])
    rx = np.array([[1.0, 0.0, 0.0], [0.0, cr, -sr], [0.0, sr, cr]])
    base = rz @ ry @ rx
    options = [base @ np.diag(d) for d in ((1, 1, 1), (1, -1, -1), (-1, 1, -1), (-1, -1, 1))]
    return min(options, key=lambda r: float(np.linalg.norm(rot_error(r, rot))))
