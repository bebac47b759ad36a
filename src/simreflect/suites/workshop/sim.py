"""The workshop engine: stepping, rate-limited servo targets, IK, contacts, holds, slip, screw driving.

Simulated time advances only inside commands, at 180 steps per second. Each actuated joint has a
position servo whose target the engine moves: a commanded velocity (clamped to the joint's rate
limit) is integrated into the target, the target is kept inside the joint range and never more than
the joint's lag limit ahead of the joint itself, so a joint that is blocked (by a collision, a held
object, a finger pressing a board) stops where it is instead of winding up; what the blocked servo
pushes with is its gain times that lag, capped by its force limit. Finger grip force comes from
exactly this: curl past contact and the fingers press.

Screw driving, the model's abstraction (everything else is plain rigid-body contact physics):
- engage (a drill action of the hand that holds the drill): the bit tip must be within
  ENGAGE_TIP_MM of the head's top centre (measured along and across the screw axis), the bit axis
  within ENGAGE_ANGLE_DEG of the screw axis; a screw that is not yet seated must stand with its tip
  on a board face (within SEAT_TIP_MM of the face plane, SEAT_INSET_MM inside its edges), its axis
  within SEAT_ANGLE_DEG of that face's inward normal. Otherwise the engage is refused and nothing
  changes. A successful engage seats the screw: its weld to that board (the "top" board) turns on
  with the current relative pose, so nothing moves, and its shaft stops colliding (it is in the wood).
- feed: while engaged, the screw turns in as fast as the bit tip is fed along the screw axis (the
  motor's torque is not modelled), at most FEED_MAX_SPEED: each step the head is moved to keep at
  most FEED_LEAD ahead of the bit tip, never while a finger still touches the screw (let go first).
  The engine moves the weld's anchor along the hole's axis, so the screw is pulled in by the
  constraint, not teleported, and the bit hardly presses on it: feeding does not shove the boards.
- the bit sits in the screw's head from the engage until it is withdrawn: a drill "release" stops
  driving (the screw no longer turns in) but leaves the bit in the head; engage again to drive on.
- withdraw: moving the bit WITHDRAW_MM back along the axis takes it out of the head. That is the only
  clean way out (the seed's procedure: withdraw before any sideways move).
- stripped: a bit in a head that tilts more than CAMOUT_ANGLE_DEG or moves CAMOUT_OFFSET_MM off the
  axis before it is withdrawn levers the screw and strips it: the screw stays where it is but no
  longer holds anything (a driven one never joins its boards) and cannot be engaged again.
- done: when the head reaches the face the screw is driven. If its tip then lies inside another
  board at least EMBED_MIN_MM deep, that board is the one below: the screw's connect constraint
  between the two boards turns on, anchored where the screw crosses into the lower board, written
  from the current relative pose so nothing jumps. One screw is a ball joint, two make a hinge,
  three non-collinear make the joint rigid: that is the physics of the constraints, not a flag.
"""

from __future__ import annotations

import base64
import math
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import mujoco
import numpy as np

from simreflect.suites.workshop import world
from simreflect.suites.workshop.builds.spec import BuildSpec
from simreflect.suites.workshop.protocol import Act, DrillAction, Move, StopWhen
from simreflect.suites.workshop.world import (
    ARM_JOINTS,
    BASE_JOINTS,
    HZ,
    JOINT_CLASSES,
    JOINT_RANGES,
    SIDE_JOINTS,
    SIDES,
    joint_class,
)

DT = 1.0 / HZ
TRACK_EVERY = 9  # steps between hold / lift / collision tracking updates (20 Hz)
IK_EVERY = 4  # steps between end-effector IK solutions (45 Hz); the joint velocities are held in between
HOLD_MIN_FORCE = 0.3  # N per contact of an opposed pair
HOLD_OPPOSED_COS = -0.5  # normals at least 120 degrees apart
LIFT_HOLD_S = 0.3  # a board supported by the robot alone this long has been lifted
SETTLE_S = 1.0  # the finish command lets the world settle this long before the final state
SETTLED_SPEED = 0.002  # m/s
SETTLED_SPIN = 0.02  # rad/s
LOST_Z = 0.45  # a board below this height (on the floor) is lost

ENGAGE_TIP_MM = 4.0
ENGAGE_ANGLE_DEG = 3.0
SEAT_TIP_MM = 2.5
SEAT_INSET_MM = 6.0
SEAT_ANGLE_DEG = 10.0
FEED_LEAD = 0.0003  # the head runs at most this far ahead of the bit tip
FEED_MAX_SPEED = 0.03
CAMOUT_ANGLE_DEG = 6.0
CAMOUT_OFFSET_MM = 3.5
WITHDRAW_MM = 10.0
EMBED_MIN_MM = 10.0
WITHDRAWN_CLEAR_MM = 10.0
JOINT_RELAX_STEPS = 18  # 0.1 s

STATE_SPEC = mujoco.mjtState.mjSTATE_INTEGRATION


class CommandRejected(Exception):
    """A well-formed command the session cannot take now (finished, budget spent): HTTP 409."""


# ----- small math -----------------------------------------------------------------------------------

def _r(x: float, nd: int = 7) -> float:
    return round(float(x), nd)


def _rl(v, nd: int = 7) -> list[float]:
    return [round(float(x), nd) for x in np.ravel(v)]


def _rows(r) -> list[list[float]]:
    return [_rl(row) for row in np.asarray(r).reshape(3, 3)]


def quat_to_mat(q) -> np.ndarray:
    m = np.zeros(9)
    mujoco.mju_quat2Mat(m, np.asarray(q, float))
    return m.reshape(3, 3)


def mat_to_quat(r) -> np.ndarray:
    q = np.zeros(4)
    mujoco.mju_mat2Quat(q, np.asarray(r, float).ravel())
    return q


def box_corners(pos, rot, size) -> np.ndarray:
    """The eight corners (8, 3) of a box of full `size` at `pos` with rotation `rot`."""
    half = np.asarray(size, float) / 2
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float)
    return np.asarray(pos, float) + (signs * half) @ np.asarray(rot, float).T


def yaw_of(rot) -> float:
    rot = np.asarray(rot)
    return math.atan2(rot[1, 0], rot[0, 0])


# ----- bookkeeping ----------------------------------------------------------------------------------

@dataclass
class ObjectInfo:
    name: str
    kind: str  # board, drill, screw
    body: int
    geoms: list[int]
    qadr: int
    dadr: int
    index: int  # index within its kind


@dataclass
class ScrewState:
    state: str = "free"  # free, seated, driven, stripped
    top: Optional[str] = None
    bottom: Optional[str] = None
    depth: float = 0.0
    max_depth: float = world.SCREW_LENGTH
    entry: list[float] = field(default_factory=list)  # screw origin at seating, in the top board frame
    axis: list[float] = field(default_factory=list)  # screw axis (towards the tip) in the top board frame
    anchor_top: list[float] = field(default_factory=list)  # connect anchor in the top / bottom frames
    anchor_bottom: list[float] = field(default_factory=list)
    camouts: int = 0
    relax_steps: int = 0  # steps since the bit left a driven screw whose joint is not yet on
    embed: float = 0.0  # how deep the tip went into the lower board (m)
    held_warned: bool = False
    stripped_how: str = ""  # what stripped it (state "stripped")

    def to_dict(self) -> dict[str, Any]:
        return {"state": self.state, "top": self.top, "bottom": self.bottom, "depth": _r(self.depth),
                "max_depth": _r(self.max_depth), "entry": _rl(self.entry), "axis": _rl(self.axis),
                "anchor_top": _rl(self.anchor_top), "anchor_bottom": _rl(self.anchor_bottom), "camouts": self.camouts,
                "relax_steps": self.relax_steps, "embed": _r(self.embed, 9), "held_warned": self.held_warned,
                "stripped_how": self.stripped_how}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ScrewState:
        return cls(**d)


@dataclass
class DrillState:
    screw: Optional[int] = None  # the screw whose head the bit is in (from the engage to the withdraw)
    hand: Optional[str] = None
    driving: bool = True  # False after a drill "release": the bit stays in the head, the screw stops

    def to_dict(self) -> dict[str, Any]:
        return {"screw": self.screw, "hand": self.hand, "driving": self.driving}


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


class Engine:
    """One workshop session's physics: build it from a spec, then `execute` commands."""

    def __init__(self, spec: BuildSpec, noslip_iterations: int = world.NOSLIP_ITERATIONS):
        self.spec = spec
        self.xml = world.model_xml(spec, noslip_iterations=noslip_iterations)
        self.model = mujoco.MjModel.from_xml_string(self.xml)
        self.data = mujoco.MjData(self.model)
        m = self.model
        self.step_count = 0
        self.actions_used = 0
        self.finished = False
        self.listeners: list[Callable[[Engine], None]] = []  # called every step (the recorder samples)
        self._index()
        self._home()
        self.screws = [ScrewState() for _ in range(spec.screws)]
        self.drills = [DrillState() for _ in range(spec.drills)]
        self.boards = {b.name: BoardTrack() for b in spec.boards}
        self.hold_refs: dict[tuple[str, str], list[float]] = {}  # (hand, object) -> object origin in palm frame at grasp
        self.hold_slip: dict[tuple[str, str], float] = {}
        self.events: list[str] = []
        self._arrays_at = (-1, -1)
        self._arrays = None
        self._forwards = 0  # bumped by every out-of-step mj_forward (contacts may change)
        self._jacp = np.zeros((3, m.nv))
        self._jacr = np.zeros((3, m.nv))
        self._potential = self.potential()

    # ----- setup ---------------------------------------------------------------------------------

    def _index(self) -> None:
        m = self.model
        self.act_name = [m.actuator(i).name for i in range(m.nu)]
        self.act_index = {n: i for i, n in enumerate(self.act_name)}
        jid = [int(m.actuator_trnid[i, 0]) for i in range(m.nu)]
        self.act_qadr = np.array([m.jnt_qposadr[j] for j in jid])
        self.act_dadr = np.array([m.jnt_dofadr[j] for j in jid])
        shorts = [n.split("/", 1)[1] for n in self.act_name]
        self.act_lo = np.array([JOINT_RANGES[s][0] for s in shorts])
        self.act_hi = np.array([JOINT_RANGES[s][1] for s in shorts])
        self.act_vmax = np.array([JOINT_CLASSES[joint_class(s)].max_velocity for s in shorts])
        self.act_lag = np.array([JOINT_CLASSES[joint_class(s)].max_lag for s in shorts])
        self.act_ff = np.array([JOINT_CLASSES[joint_class(s)].kv / JOINT_CLASSES[joint_class(s)].kp for s in shorts])
        self.arm_act = {s: np.array([self.act_index[f"{s}/{j}"] for j in ARM_JOINTS]) for s in SIDES}
        self.base_act = {s: np.array([self.act_index[f"{s}/{j}"] for j in BASE_JOINTS]) for s in SIDES}
        self.hand_body = {s: m.body(f"{s}/hand").id for s in SIDES}
        self.palm_site = {s: m.site(f"{s}/palm").id for s in SIDES}
        self.pinch_site = {s: m.site(f"{s}/pinch").id for s in SIDES}
        self.tip_sites = {s: {f: m.site(f"{s}/{f}_tip").id for f in world.FINGERS + ("thumb",)} for s in SIDES}
        # geom owners: -1 static, -2 floor, 0/1 arm link of left/right, 2/3 hand of left/right, >=10 object
        owner = np.full(m.ngeom, -1, dtype=np.int64)
        self.geom_part: dict[int, str] = {}
        hand_bodies = {s: set() for s in SIDES}
        for s in SIDES:
            root = m.body(f"{s}/hand").id
            for b in range(m.nbody):
                k = b
                while k != 0:
                    if k == root:
                        hand_bodies[s].add(b)
                        break
                    k = int(m.body_parentid[k])
        self.objects: list[ObjectInfo] = []
        self.object_by_name: dict[str, ObjectInfo] = {}
        names = [b.name for b in self.spec.boards] + [f"drill{k}" for k in range(self.spec.drills)] + \
                [f"screw{k}" for k in range(self.spec.screws)]
        for n in names:
            body = m.body(n).id
            kind = "board" if n in {b.name for b in self.spec.boards} else ("drill" if n.startswith("drill") else "screw")
            j = int(m.body_jntadr[body])
            idx = sum(1 for o in self.objects if o.kind == kind)
            info = ObjectInfo(n, kind, body, [g for g in range(m.ngeom) if m.geom_bodyid[g] == body],
                              int(m.jnt_qposadr[j]), int(m.jnt_dofadr[j]), idx)
            self.objects.append(info)
            self.object_by_name[n] = info
        body_obj = {o.body: 10 + i for i, o in enumerate(self.objects)}
        for g in range(m.ngeom):
            b = int(m.geom_bodyid[g])
            name = m.geom(g).name
            if name == "floor":
                owner[g] = -2
            elif b in body_obj:
                owner[g] = body_obj[b]
            else:
                for si, s in enumerate(SIDES):
                    if b in hand_bodies[s]:
                        owner[g] = 2 + si
                        self.geom_part[g] = name.split("/", 1)[1]
                        break
                    if name.startswith(f"{s}/"):
                        owner[g] = si
                        self.geom_part[g] = name.split("/", 1)[1]
                        break
        self.geom_owner = owner
        self.screw_shaft = [m.geom(f"screw{k}/shaft").id for k in range(self.spec.screws)]
        self.screw_head = [m.geom(f"screw{k}/head").id for k in range(self.spec.screws)]
        self.screw_top_site = [m.site(f"screw{k}/top").id for k in range(self.spec.screws)]
        self.screw_tip_site = [m.site(f"screw{k}/tip").id for k in range(self.spec.screws)]
        self.drill_tip_site = [m.site(f"drill{k}/tip").id for k in range(self.spec.drills)]
        self.drill_bit_geom = [m.geom(f"drill{k}/bit").id for k in range(self.spec.drills)]
        self.seat_eq = [m.equality(f"screw{k}/seat").id for k in range(self.spec.screws)]
        self.joint_eq = [m.equality(f"screw{k}/joint").id for k in range(self.spec.screws)]

    def _home(self) -> None:
        m, d = self.model, self.data
        for i, n in enumerate(self.act_name):
            side, short = n.split("/", 1)
            d.qpos[self.act_qadr[i]] = world.home_qpos(side, short)
        mujoco.mj_forward(m, d)
        self.target = d.qpos[self.act_qadr].copy()
        d.ctrl[:] = self.target

    # ----- state -----------------------------------------------------------------------------------

    @property
    def time(self) -> float:
        return self.step_count * DT

    def physics_state(self) -> np.ndarray:
        size = mujoco.mj_stateSize(self.model, STATE_SPEC)
        out = np.empty(size)
        mujoco.mj_getState(self.model, self.data, out, STATE_SPEC)
        return out

    def snapshot(self) -> dict[str, Any]:
        """Everything needed to continue from here: the physics state (mj_getState with
        mjSTATE_INTEGRATION: time, qpos, qvel, warm start, controls, equality activations; float64,
        zlib-compressed, base64), the servo targets, the runtime model edits (screw constraint bodies
        and anchors, screw collision bits) and the engine's own trackers. Sleep bookkeeping is not in
        it (see restore)."""
        m = self.model
        eq = []
        for k in range(self.spec.screws):
            for e in (self.seat_eq[k], self.joint_eq[k]):
                eq.append({"id": int(e), "obj1": int(m.eq_obj1id[e]), "obj2": int(m.eq_obj2id[e]),
                           "data": [float(x) for x in m.eq_data[e]]})
        return {
            "step": self.step_count,
            "actions_used": self.actions_used,
            "physics": base64.b64encode(zlib.compress(self.physics_state().astype("<f8").tobytes(), 6)).decode(),
            "target": [float(x) for x in self.target],
            "tree_asleep": [int(x) for x in self.data.tree_asleep],
            "eq": eq,
            "collide": [[int(g), int(m.geom_contype[g]), int(m.geom_conaffinity[g])]
                        for g in self.screw_shaft + self.screw_head],
            "screws": [s.to_dict() for s in self.screws],
            "drills": [dd.to_dict() for dd in self.drills],
            "boards": {k: v.to_dict() for k, v in self.boards.items()},
            "hold_refs": [[h, o, list(map(float, v))] for (h, o), v in sorted(self.hold_refs.items())],
            "hold_slip": [[h, o, float(v)] for (h, o), v in sorted(self.hold_slip.items())],
            "potential": float(self._potential),
            "finished": self.finished,
        }

    def restore(self, snap: dict[str, Any]) -> None:
        m, d = self.model, self.data
        self.step_count = int(snap["step"])
        self.actions_used = int(snap["actions_used"])
        for e in snap["eq"]:
            m.eq_obj1id[e["id"]] = e["obj1"]
            m.eq_obj2id[e["id"]] = e["obj2"]
            m.eq_data[e["id"]] = e["data"]
        for g, t, a in snap["collide"]:
            m.geom_contype[g] = t
            m.geom_conaffinity[g] = a
        state = np.frombuffer(zlib.decompress(base64.b64decode(snap["physics"])), dtype="<f8").copy()
        mujoco.mj_setState(m, d, state, STATE_SPEC)
        self.target = np.asarray(snap["target"], float)
        # Sleep bookkeeping is not part of mjSTATE and cannot be put back through the API (MuJoCo
        # wakes a tree whose state was set from outside): after a restore every tree is awake, and
        # resting objects fall asleep again within mjMINAWAKE steps. A restart from a mid-episode
        # snapshot therefore matches the original run closely but not bit for bit; a replay from the
        # initial state with the recorded commands does (see recording.replay).
        warm = d.qacc_warmstart.copy()
        mujoco.mj_forward(m, d)
        self._forwards += 1
        d.qacc_warmstart[:] = warm
        self.screws = [ScrewState.from_dict(s) for s in snap["screws"]]
        self.drills = [DrillState(**dd) for dd in snap["drills"]]
        self.boards = {k: BoardTrack(**v) for k, v in snap["boards"].items()}
        self.hold_refs = {(h, o): list(v) for h, o, v in snap["hold_refs"]}
        self.hold_slip = {(h, o): float(v) for h, o, v in snap["hold_slip"]}
        self._potential = float(snap["potential"])
        self.finished = bool(snap["finished"])

    # ----- contacts --------------------------------------------------------------------------------

    def contacts(self) -> list[dict[str, Any]]:
        """Active contacts: geoms, owners, world point, normal (from geom1 to geom2), normal force."""
        d = self.data
        n = d.ncon
        if n == 0:
            return []
        con = d.contact
        geoms = con.geom[:n]
        forces = np.zeros(n)
        addr = con.efc_address[:n]
        ok = addr >= 0
        forces[ok] = d.efc_force[addr[ok]]
        out = []
        for i in range(n):
            g1, g2 = int(geoms[i, 0]), int(geoms[i, 1])
            out.append({"g1": g1, "g2": g2, "o1": int(self.geom_owner[g1]), "o2": int(self.geom_owner[g2]),
                        "pos": con.pos[i].copy(), "normal": con.frame[i, :3].copy(), "force": float(forces[i])})
        return out

    def _contact_arrays(self):
        """(geom pairs, owner codes of each side, normal forces) of the current contacts; cached per step."""
        if self._arrays_at == (self.step_count, self._forwards):
            return self._arrays
        self._arrays_at = (self.step_count, self._forwards)
        self._arrays = self._contact_arrays_now()
        return self._arrays

    def _contact_arrays_now(self):
        d = self.data
        n = d.ncon
        if n == 0:
            return None
        con = d.contact
        geoms = con.geom[:n]
        o1 = self.geom_owner[geoms[:, 0]]
        o2 = self.geom_owner[geoms[:, 1]]
        addr = con.efc_address[:n]
        f = np.where(addr >= 0, d.efc_force[np.maximum(addr, 0)], 0.0)
        return geoms, o1, o2, f

    def _owner_set(self, spec: str) -> Optional[set[int] | str]:
        """Owner codes a stop-condition name stands for ('any' -> None means everything)."""
        if spec == "any":
            return None
        if spec == "static":
            return {-1}
        if spec == "object":
            return {10 + i for i in range(len(self.objects))}
        if spec == "robot":
            return {0, 1, 2, 3}
        if spec in ("left_hand", "right_hand"):
            return {2 + SIDES.index(spec.split("_")[0])}
        if spec in SIDES:
            si = SIDES.index(spec)
            return {si, 2 + si}
        if spec in self.object_by_name:
            return {10 + self.objects.index(self.object_by_name[spec])}
        raise KeyError(spec)

    def validate_stop(self, stop: StopWhen) -> None:
        if stop.state is not None:
            if stop.a not in self.object_by_name or self.object_by_name[stop.a].kind != "screw":
                raise ValueError(f"stop.a must name a screw when a state is given, not {stop.a!r}")
            return
        for which, name in (("a", stop.a), ("b", stop.b)):
            try:
                got = self._owner_set(name)
            except KeyError:
                raise ValueError(f"stop.{which}: unknown name {name!r}") from None
            if which == "a" and got is None:
                raise ValueError("stop.a must name an object or a hand, not 'any'")

    def _stop_met(self, stops: list, arrays) -> int:
        for k, st in enumerate(stops):
            if st[0] == "state":
                order = ("free", "seated", "driven")
                if self.screws[st[1]].state in order and order.index(self.screws[st[1]].state) >= order.index(st[2]):
                    return k
        if arrays is None:
            return -1
        _, o1, o2, f = arrays
        for k, st in enumerate(stops):
            if st[0] == "state":
                continue
            a, b, fmin = st
            ina1 = np.isin(o1, list(a))
            ina2 = np.isin(o2, list(a))
            if b is None:
                hit = (ina1 & ~ina2) | (ina2 & ~ina1)
            else:
                bl = list(b)
                hit = (ina1 & np.isin(o2, bl)) | (ina2 & np.isin(o1, bl))
            if np.any(hit & (f >= fmin)):
                return k
        return -1

    def holds(self, arrays=None) -> dict[tuple[str, str], dict[str, Any]]:
        """Opposed, force-bearing finger/palm contacts of each hand on each object."""
        arrays = self._contact_arrays() if arrays is None else arrays
        out: dict[tuple[str, str], dict[str, Any]] = {}
        if arrays is None:
            return out
        geoms, o1, o2, f = arrays
        d = self.data
        normals = d.contact.frame[: len(f), :3]
        for si, side in enumerate(SIDES):
            hand = 2 + si
            sel = ((o1 == hand) & (o2 >= 10)) | ((o2 == hand) & (o1 >= 10))
            if not np.any(sel):
                continue
            idx = np.nonzero(sel)[0]
            by_obj: dict[int, list[tuple[np.ndarray, float, int]]] = {}
            for i in idx:
                if o1[i] == hand:
                    obj, n, g = int(o2[i]), normals[i], int(geoms[i, 0])
                else:
                    obj, n, g = int(o1[i]), -normals[i], int(geoms[i, 1])
                by_obj.setdefault(obj, []).append((n, float(f[i]), g))
            for obj, cs in by_obj.items():
                strong = [c for c in cs if c[1] >= HOLD_MIN_FORCE]
                opposed = False
                for a in range(len(strong)):
                    for b in range(a + 1, len(strong)):
                        if float(np.dot(strong[a][0], strong[b][0])) <= HOLD_OPPOSED_COS:
                            opposed = True
                            break
                    if opposed:
                        break
                name = self.objects[obj - 10].name
                out[(side, name)] = {"held": opposed, "force": sum(c[1] for c in cs),
                                     "parts": sorted({self.geom_part.get(c[2], "?") for c in cs})}
        return out

    # ----- one physics step ------------------------------------------------------------------------

    def _ee_velocities(self, side: str, ee, point_local: np.ndarray) -> np.ndarray:
        """Joint velocities (arm joints, then base x, y if used) for an end-effector twist."""
        m, d = self.model, self.data
        hb = self.hand_body[side]
        p = d.xpos[hb] + d.xmat[hb].reshape(3, 3) @ point_local
        mujoco.mj_jac(m, d, self._jacp, self._jacr, p, hb)
        acts = self.arm_act[side]
        if ee.use_base:
            acts = np.concatenate([acts, self.base_act[side]])
        dofs = self.act_dadr[acts]
        J = np.vstack([self._jacp[:, dofs], self._jacr[:, dofs]])
        twist = np.concatenate([ee.linear, ee.angular])
        lam2 = 2.5e-3
        qd = J.T @ np.linalg.solve(J @ J.T + lam2 * np.eye(6), twist)
        ratio = np.max(np.abs(qd) / self.act_vmax[acts])
        if ratio > 1.0:
            qd /= ratio
        return acts, qd

    def _step(self, qdot: np.ndarray) -> None:
        d = self.data
        q = d.qpos[self.act_qadr]
        target = self.target + qdot * DT
        np.clip(target, q - self.act_lag, q + self.act_lag, out=target)
        np.clip(target, self.act_lo, self.act_hi, out=target)
        self.target = target
        # velocity feed-forward: kp (target + kv/kp v - q) - kv qdot = kp (target - q) + kv (v - qdot)
        d.ctrl[:] = target + self.act_ff * qdot
        mujoco.mj_step(self.model, d)
        self.step_count += 1
        if self._drive_active:
            self._drive_step()
        if self.step_count % TRACK_EVERY == 0:
            self._track()
        for fn in self.listeners:
            fn(self)

    # ----- trackers --------------------------------------------------------------------------------

    def _track(self) -> None:
        arrays = self._contact_arrays()
        holds = self.holds(arrays)
        dt = TRACK_EVERY * DT
        d = self.data
        # boards: lifted (held, supported by the robot alone) and lost (on the floor)
        for i, o in enumerate(self.objects):
            if o.kind != "board":
                continue
            tr = self.boards[o.name]
            code = 10 + i
            robot_only = False
            if arrays is not None:
                _, o1, o2, _ = arrays
                mine = (o1 == code) | (o2 == code)
                other = np.where(o1 == code, o2, o1)[mine]
                robot_only = other.size > 0 and bool(np.all((other >= 0) & (other <= 3)))
            held = any(v["held"] for (h, n), v in holds.items() if n == o.name)
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
        # slip: object origin in the palm frame, relative to where it was when the hold began
        live = {k for k, v in holds.items() if v["held"]}
        for key in list(self.hold_refs):
            if key not in live:
                del self.hold_refs[key]
                self.hold_slip.pop(key, None)
        for key in live:
            rel = self._in_palm(*key)
            if key not in self.hold_refs:
                self.hold_refs[key] = [float(x) for x in rel]
                self.hold_slip[key] = 0.0
            else:
                self.hold_slip[key] = float(np.linalg.norm(rel - np.asarray(self.hold_refs[key])))

    def _in_palm(self, side: str, obj: str) -> np.ndarray:
        d = self.data
        s = self.palm_site[side]
        b = self.object_by_name[obj].body
        return d.site_xmat[s].reshape(3, 3).T @ (d.xpos[b] - d.site_xpos[s])

    # ----- screws and drills -----------------------------------------------------------------------

    def _screw_axis(self, k: int) -> np.ndarray:
        b = self.object_by_name[f"screw{k}"].body
        return -self.data.xmat[b].reshape(3, 3)[:, 2]

    def _drill_axis(self, k: int) -> np.ndarray:
        b = self.object_by_name[f"drill{k}"].body
        return self.data.xmat[b].reshape(3, 3)[:, 0]

    def _screw_touched_by_hand(self, k: int, arrays) -> bool:
        if arrays is None:
            return False
        _, o1, o2, f = arrays
        code = 10 + self.objects.index(self.object_by_name[f"screw{k}"])
        sel = ((o1 == code) & ((o2 == 2) | (o2 == 3))) | ((o2 == code) & ((o1 == 2) | (o1 == 3)))
        return bool(np.any(sel & (f > 0.05)))

    def _seat_axis(self, sk: int) -> tuple[np.ndarray, np.ndarray]:
        """Axis and head-top point of a screw. A seated screw is guided by its hole: its axis and
        head are where the hole in the top board puts them (the weld's target), not where the light
        screw body momentarily is while the weld pulls it there."""
        st = self.screws[sk]
        d = self.data
        if st.state == "free":
            return self._screw_axis(sk), d.site_xpos[self.screw_top_site[sk]].copy()
        top = self.object_by_name[st.top].body
        rt = d.xmat[top].reshape(3, 3)
        axis = rt @ np.asarray(st.axis)
        origin = d.xpos[top] + rt @ (np.asarray(st.entry) + st.depth * np.asarray(st.axis))
        return axis, origin - axis * world.SCREW_HEAD_HALF[2]

    def _bit_geometry(self, dk: int, sk: int) -> tuple[float, float, float]:
        """(angle deg between bit and screw axes, lateral offset mm of the tip from the screw axis,
        axial position mm of the tip relative to the head top, positive = pushed past it)."""
        d = self.data
        tip = d.site_xpos[self.drill_tip_site[dk]]
        a_s, top = self._seat_axis(sk)
        a_d = self._drill_axis(dk)
        ang = math.degrees(math.acos(max(-1.0, min(1.0, float(np.dot(a_s, a_d))))))
        rel = tip - top
        axial = float(np.dot(rel, a_s))
        lateral = float(np.linalg.norm(rel - axial * a_s))
        return ang, lateral * 1000.0, axial * 1000.0

    def drill_holder(self, dk: int, holds=None) -> Optional[str]:
        holds = self.holds() if holds is None else holds
        for side in SIDES:
            h = holds.get((side, f"drill{dk}"))
            if h and h["held"]:
                return side
        return None

    def _board_face_hit(self, tip: np.ndarray, axis: np.ndarray):
        """The board whose face the screw tip stands on, with the entry details, or a reason."""
        d = self.data
        best = None
        for o in self.objects:
            if o.kind != "board":
                continue
            size = np.asarray(self.spec.board(o.name).size)
            rot = d.xmat[o.body].reshape(3, 3)
            local_tip = rot.T @ (tip - d.xpos[o.body])
            local_axis = rot.T @ axis
            for dim in range(3):
                for sgn in (-1.0, 1.0):
                    normal_in = np.zeros(3)
                    normal_in[dim] = -sgn  # inward normal of the face at +sgn*half
                    height = sgn * local_tip[dim] - size[dim] / 2  # signed distance above the face
                    others = [k for k in range(3) if k != dim]
                    inside = all(abs(local_tip[k]) <= size[k] / 2 - SEAT_INSET_MM / 1000 for k in others)
                    if not inside or abs(height) > SEAT_TIP_MM / 1000:
                        continue
                    ang = math.degrees(math.acos(max(-1.0, min(1.0, float(np.dot(local_axis, normal_in))))))
                    cand = (abs(height), o.name, height, ang)
                    if best is None or cand < best:
                        best = cand
        return best

    def _engage(self, hand: str) -> dict[str, Any]:
        d = self.data
        holds = self.holds()
        drills = [k for k in range(self.spec.drills) if self.drill_holder(k, holds) == hand]
        if not drills:
            return {"ok": False, "reason": f"the {hand} hand holds no drill (a hold is opposed, force-bearing contact)"}
        dk = drills[0]
        ds = self.drills[dk]
        if ds.screw is not None:
            if ds.driving:
                return {"ok": False, "reason": f"drill{dk} is already engaged with screw{ds.screw}"}
            ds.driving = True  # the bit never left the head: drive on
            return {"ok": True, "drill": f"drill{dk}", "screw": f"screw{ds.screw}", "resumed": True,
                    "state": self.screws[ds.screw].state}
        if not self.spec.screws:
            return {"ok": False, "reason": "there are no screws in this build"}
        tip = d.site_xpos[self.drill_tip_site[dk]]
        dists = [float(np.linalg.norm(tip - d.site_xpos[s])) for s in self.screw_top_site]
        sk = int(np.argmin(dists))
        ang, lateral, axial = self._bit_geometry(dk, sk)
        if lateral > ENGAGE_TIP_MM or abs(axial) > ENGAGE_TIP_MM:
            return {"ok": False, "reason": f"the bit tip is not on a screw head: nearest is screw{sk}, tip {lateral:.1f} mm "
                                           f"off its axis and {-axial:.1f} mm above its head (limit {ENGAGE_TIP_MM} mm)"}
        if ang > ENGAGE_ANGLE_DEG:
            return {"ok": False, "reason": f"bit misaligned with screw{sk}: {ang:.2f} deg between bit and screw axes "
                                           f"(limit {ENGAGE_ANGLE_DEG} deg)"}
        st = self.screws[sk]
        if st.state == "driven":
            return {"ok": False, "reason": f"screw{sk} is already driven"}
        if st.state == "stripped":
            return {"ok": False, "reason": f"screw{sk} is stripped ({st.stripped_how}): it cannot be driven"}
        if st.state == "free":
            axis = self._screw_axis(sk)
            tipp = d.site_xpos[self.screw_tip_site[sk]].copy()
            hit = self._board_face_hit(tipp, axis)
            if hit is None:
                return {"ok": False, "reason": f"screw{sk}'s tip is not standing on a board face "
                                               f"(within {SEAT_TIP_MM} mm of it and {SEAT_INSET_MM} mm inside its edges)"}
            _, bname, height, sang = hit
            if sang > SEAT_ANGLE_DEG:
                return {"ok": False, "reason": f"screw{sk} is not square to {bname}: {sang:.1f} deg off the face normal "
                                               f"(limit {SEAT_ANGLE_DEG} deg)"}
            self._seat(sk, bname, height)
        self.drills[dk] = DrillState(screw=sk, hand=hand)
        return {"ok": True, "drill": f"drill{dk}", "screw": f"screw{sk}", "angle_deg": _r(ang, 3),
                "offset_mm": _r(lateral, 3), "state": self.screws[sk].state}

    def _seat(self, sk: int, board: str, height: float) -> None:
        m, d = self.model, self.data
        sb = self.object_by_name[f"screw{sk}"].body
        bb = self.object_by_name[board].body
        rb = d.xmat[bb].reshape(3, 3)
        rs = d.xmat[sb].reshape(3, 3)
        entry = rb.T @ (d.xpos[sb] - d.xpos[bb])
        axis = rb.T @ self._screw_axis(sk)
        e = self.seat_eq[sk]
        m.eq_obj1id[e] = sb
        m.eq_obj2id[e] = bb
        data = np.zeros(m.eq_data.shape[1])
        data[0:3] = entry
        data[3:6] = 0.0
        qs = mat_to_quat(rs)
        qb = mat_to_quat(rb)
        qsi = np.zeros(4)
        mujoco.mju_negQuat(qsi, qs)
        qrel = np.zeros(4)
        mujoco.mju_mulQuat(qrel, qsi, qb)
        data[6:10] = qrel
        data[10] = 1.0
        m.eq_data[e] = data
        d.eq_active[e] = 1
        g = self.screw_shaft[sk]
        m.geom_contype[g] = 0
        m.geom_conaffinity[g] = 0
        h = self.screw_head[sk]
        m.geom_contype[h], m.geom_conaffinity[h] = world.SEATED_HEAD
        # height > 0: the tip stands that far above the face, so the head meets the face after L + height
        self.screws[sk] = ScrewState(state="seated", top=board, depth=0.0,
                                     max_depth=float(world.SCREW_LENGTH + height),
                                     entry=[float(x) for x in entry], axis=[float(x) for x in axis])
        self.events.append(f"screw{sk} seated in {board}")

    @property
    def _drive_active(self) -> bool:
        """A drill is engaged, or a driven screw waits for its joint (checked every step: cheap)."""
        for ds in self.drills:
            if ds.screw is not None:
                return True
        for st in self.screws:
            if st.state == "driven" and st.bottom is not None and not st.anchor_top:
                return True
        return False

    def _drive_step(self) -> None:
        arrays = self._contact_arrays()
        engaged = {ds.screw for ds in self.drills if ds.screw is not None}
        for sk, st in enumerate(self.screws):
            if st.state == "driven" and st.bottom is not None and not st.anchor_top:
                if sk in engaged:
                    st.relax_steps = 0
                else:
                    st.relax_steps += 1
                    if st.relax_steps >= JOINT_RELAX_STEPS:
                        self._activate_joint(sk)
        for dk, ds in enumerate(self.drills):
            if ds.screw is None:
                continue
            sk = ds.screw
            st = self.screws[sk]
            ang, lateral, axial = self._bit_geometry(dk, sk)
            if axial < -WITHDRAW_MM:
                self.drills[dk] = DrillState()
                self.events.append(f"drill{dk} withdrawn from screw{sk}")
                continue
            if ang > CAMOUT_ANGLE_DEG or lateral > CAMOUT_OFFSET_MM:
                self.drills[dk] = DrillState()
                st.camouts += 1
                self._strip(sk, f"drill{dk}'s bit was moved off its axis ({ang:.1f} deg, {lateral:.1f} mm) "
                                f"before it was withdrawn")
                continue
            if st.state != "seated" or not ds.driving:
                continue
            # the head keeps FEED_LEAD ahead of the bit tip while the bit is fed along the axis
            advance = min(axial / 1000.0 + FEED_LEAD, FEED_MAX_SPEED * DT, st.max_depth - st.depth)
            if advance <= 0.0:
                continue
            if self._screw_touched_by_hand(sk, arrays):
                if not st.held_warned:
                    self.events.append(f"screw{sk} is still touched by a hand: it does not turn in")
                    st.held_warned = True
                continue
            st.held_warned = False
            st.depth += advance
            self._write_seat(sk)
            if st.depth >= st.max_depth - 1e-9:
                self._finish_screw(sk)

    def _strip(self, sk: int, how: str) -> None:
        """A bit levered out of a head sideways strips the screw: it stays where it is, holds
        nothing (a driven screw's joint never turns on) and cannot be engaged again."""
        st = self.screws[sk]
        was = "driven" if st.state == "driven" else f"at depth {st.depth * 1000:.1f} mm"
        st.state = "stripped"
        st.stripped_how = how
        self.events.append(f"screw{sk} stripped ({was}): {how}; it holds nothing")

    def _write_seat(self, sk: int) -> None:
        st = self.screws[sk]
        e = self.seat_eq[sk]
        self.model.eq_data[e, 0:3] = np.asarray(st.entry) + st.depth * np.asarray(st.axis)

    def _finish_screw(self, sk: int) -> None:
        d = self.data
        st = self.screws[sk]
        st.state = "driven"
        # the tip where the weld will hold it (the weld is soft for a step or two; use the target)
        top = self.object_by_name[st.top].body
        rt = d.xmat[top].reshape(3, 3)
        axis_w = rt @ np.asarray(st.axis)
        origin = d.xpos[top] + rt @ (np.asarray(st.entry) + st.depth * np.asarray(st.axis))
        tip = origin + axis_w * (world.SCREW_HEAD_HALF[2] + world.SCREW_LENGTH)
        best = None
        for o in self.objects:
            if o.kind != "board" or o.name == st.top:
                continue
            size = np.asarray(self.spec.board(o.name).size)
            rot = d.xmat[o.body].reshape(3, 3)
            lt = rot.T @ (tip - d.xpos[o.body])
            if not all(abs(lt[k]) <= size[k] / 2 - 0.001 for k in range(3)):
                continue
            # how far along the axis the tip is inside this board (entry face to tip)
            la = rot.T @ axis_w
            # distance back along the axis to leave the box
            tmax = np.inf
            for k in range(3):
                if abs(la[k]) > 1e-9:
                    bound = size[k] / 2 if -la[k] > 0 else -size[k] / 2
                    t = (bound - lt[k]) / (-la[k])
                    tmax = min(tmax, t)
            embed = float(tmax)
            if embed * 1000 >= EMBED_MIN_MM and (best is None or embed > best[0]):
                best = (embed, o.name)
        if best is None:
            self.events.append(f"screw{sk} driven into {st.top} only: its tip is in no board below "
                               f"(it must reach {EMBED_MIN_MM} mm into one)")
            return
        embed, bname = best
        st.bottom = bname
        st.embed = float(embed)
        self.events.append(f"screw{sk} driven through {st.top} into {bname} ({embed * 1000:.1f} mm deep); "
                           f"it holds the boards together once the bit is off it")

    def _activate_joint(self, sk: int) -> None:
        """Turn on a driven screw's connect constraint between its two boards, anchored where it
        crosses into the lower one, from the boards' current relative pose (nothing jumps). This
        waits until the bit has been off the screw for JOINT_RELAX_STEPS, so the boards are no
        longer pressed into each other by the feed (a constraint locked at that pressed-in pose
        would fight the contact between the boards)."""
        m, d = self.model, self.data
        st = self.screws[sk]
        top = self.object_by_name[st.top].body
        bottom = self.object_by_name[st.bottom].body
        rt = d.xmat[top].reshape(3, 3)
        rbt = d.xmat[bottom].reshape(3, 3)
        axis_w = rt @ np.asarray(st.axis)
        origin = d.xpos[top] + rt @ (np.asarray(st.entry) + st.depth * np.asarray(st.axis))
        tip = origin + axis_w * (world.SCREW_HEAD_HALF[2] + world.SCREW_LENGTH)
        anchor = tip - axis_w * st.embed
        e = self.joint_eq[sk]
        m.eq_obj1id[e] = top
        m.eq_obj2id[e] = bottom
        data = np.zeros(m.eq_data.shape[1])
        data[0:3] = rt.T @ (anchor - d.xpos[top])
        data[3:6] = rbt.T @ (anchor - d.xpos[bottom])
        data[10] = 1.0
        m.eq_data[e] = data
        d.eq_active[e] = 1
        st.anchor_top = [float(x) for x in data[0:3]]
        st.anchor_bottom = [float(x) for x in data[3:6]]
        self.events.append(f"screw{sk} now joins {st.top} to {st.bottom}")

    # ----- commands --------------------------------------------------------------------------------

    def validate(self, act: Act) -> None:
        """Checks that need the world (names); raises ValueError (HTTP 422). Changes nothing."""
        for i, seg in enumerate(act.segments):
            if isinstance(seg, Move):
                for s in seg.stop:
                    try:
                        self.validate_stop(s)
                    except ValueError as e:
                        raise ValueError(f"segments[{i}]: {e}") from None
            if isinstance(seg, DrillAction) and self.spec.drills == 0:
                raise ValueError(f"segments[{i}]: this build has no drills")

    def execute(self, act: Act, budget_steps: Optional[int] = None, budget_actions: Optional[int] = None) -> list[dict]:
        """Run the segments in order; each segment's result. Stops early when a budget runs out."""
        results = []
        for seg in act.segments:
            if budget_actions is not None and self.actions_used >= budget_actions:
                results.append({"type": seg.type, "skipped": "action budget spent"})
                continue
            if budget_steps is not None and self.step_count >= budget_steps:
                results.append({"type": seg.type, "skipped": "simulated-time budget spent"})
                continue
            self.actions_used += 1
            self.events = []
            if isinstance(seg, DrillAction):
                if seg.action == "engage":
                    res = self._engage(seg.hand)
                else:
                    res = self._release_drill(seg.hand)
                res = {"type": "drill", "action": seg.action, "hand": seg.hand, **res, "events": self.events}
            else:
                res = self._move(seg, budget_steps)
            results.append(res)
        return results

    def _release_drill(self, hand: str) -> dict[str, Any]:
        """Stop driving; the bit stays in the head until it is withdrawn."""
        released = []
        for dk, ds in enumerate(self.drills):
            if ds.screw is not None and ds.hand == hand and ds.driving:
                released.append(f"drill{dk}")
                ds.driving = False
        return {"ok": True, "released": released}

    def _move(self, seg, budget_steps: Optional[int]) -> dict[str, Any]:
        steps = seg.steps
        if budget_steps is not None:
            steps = min(steps, budget_steps - self.step_count)
        qdot_fixed = np.zeros(self.model.nu)
        ee_cmds = []
        stops = []
        if isinstance(seg, Move):
            for side in SIDES:
                cmd = getattr(seg, side)
                if cmd is None:
                    continue
                for short, v in cmd.joints.items():
                    qdot_fixed[self.act_index[f"{side}/{short}"]] = v
                if cmd.ee is not None:
                    hb = self.hand_body[side]
                    d = self.data
                    if cmd.ee.point is None:
                        p = d.site_xpos[self.palm_site[side]]
                    else:
                        p = np.asarray(cmd.ee.point, float)
                    local = d.xmat[hb].reshape(3, 3).T @ (p - d.xpos[hb])
                    ee_cmds.append((side, cmd.ee, local))
            for s in seg.stop:
                if s.state is not None:
                    stops.append(("state", self.object_by_name[s.a].index, s.state))
                else:
                    stops.append((self._owner_set(s.a), self._owner_set(s.b), s.min_force))
        commanded = qdot_fixed != 0
        stopped = "duration"
        start_step = self.step_count
        blocked_any = np.zeros(self.model.nu, bool)
        limit_any = np.zeros(self.model.nu, bool)
        collisions: dict[tuple[str, str], float] = {}
        events: list[str] = []
        qdot = qdot_fixed.copy()
        for n in range(steps):
            if ee_cmds and n % IK_EVERY == 0:
                for side, ee, local in ee_cmds:
                    acts, qd = self._ee_velocities(side, ee, local)
                    qdot[acts] = qd
                    commanded[acts] |= np.abs(qd) > 1e-6
            self._step(qdot)
            if self.events:
                events += self.events
                self.events = []
            if n % IK_EVERY == 0 or n == steps - 1:
                q = self.data.qpos[self.act_qadr]
                lag = np.abs(self.target - q)
                blocked_any |= commanded & (lag >= 0.9 * self.act_lag)
                limit_any |= commanded & ((q <= self.act_lo + 0.005) | (q >= self.act_hi - 0.005))
            if n % TRACK_EVERY == 0 or stops:
                arrays = self._contact_arrays()
                if n % TRACK_EVERY == 0:
                    self._collect_collisions(arrays, collisions)
                if stops:
                    k = self._stop_met(stops, arrays)
                    if k >= 0:
                        s = seg.stop[k]
                        stopped = f"stop[{k}]: {s.a} " + (f"is {s.state}" if s.state else f"touched {s.b}")
                        break
        if self.step_count - start_step < seg.steps and stopped == "duration":
            stopped = "simulated-time budget spent"
        return {
            "type": seg.type,
            "steps": self.step_count - start_step,
            "stopped": stopped,
            "blocked": [self.act_name[i] for i in np.nonzero(blocked_any)[0]],
            "at_limit": [self.act_name[i] for i in np.nonzero(limit_any)[0]],
            "collisions": [{"arm": a, "with": b, "max_force": _r(f, 3)} for (a, b), f in sorted(collisions.items())],
            "events": events,
        }

    def _collect_collisions(self, arrays, acc: dict) -> None:
        """Arm-link (not hand) contacts, and any contact between the two arms."""
        if arrays is None:
            return
        geoms, o1, o2, f = arrays
        arm = (o1 <= 1) & (o1 >= 0) | (o2 <= 1) & (o2 >= 0) | ((o1 >= 2) & (o1 <= 3) & (o2 >= 2) & (o2 <= 3))
        for i in np.nonzero(arm)[0]:
            a, b = int(o1[i]), int(o2[i])
            for x, y, gx, gy in ((a, b, geoms[i, 0], geoms[i, 1]), (b, a, geoms[i, 1], geoms[i, 0])):
                arm = x in (0, 1) or (x in (2, 3) and y in (0, 1, 2, 3) and (x % 2) != (y % 2))
                if arm:
                    what = self._owner_name(y, gy)
                    key = (self.model.geom(int(gx)).name, what)
                    acc[key] = max(acc.get(key, 0.0), float(f[i]))

    def _owner_name(self, code: int, geom: int) -> str:
        if code == -1:
            return self.model.geom(int(geom)).name or "static"
        if code == -2:
            return "floor"
        if code in (0, 1, 2, 3):
            return self.model.geom(int(geom)).name
        return self.objects[code - 10].name

    # ----- progress and reward ---------------------------------------------------------------------

    def board_pose(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        b = self.object_by_name[name].body
        return self.data.xpos[b].copy(), self.data.xmat[b].reshape(3, 3).copy()

    def potential(self) -> float:
        total = 0.0
        for b in self.spec.boards:
            pos, _ = self.board_pose(b.name)
            total -= float(np.linalg.norm(pos - np.asarray(b.target[:3])))
        return total

    def reward_update(self, lost_before: int, success_before: bool, success_now: bool) -> float:
        new = self.potential()
        r = new - self._potential
        self._potential = new
        lost_now = sum(1 for t in self.boards.values() if t.lost)
        r -= 1.0 * max(0, lost_now - lost_before)
        if success_now and not success_before:
            r += 10.0
        return r

    # ----- observation -----------------------------------------------------------------------------

    def _point_velocity(self, body: int, p: np.ndarray) -> np.ndarray:
        res = np.zeros(6)
        mujoco.mj_objectVelocity(self.model, self.data, mujoco.mjtObj.mjOBJ_BODY, body, res, 0)
        return res[3:] + np.cross(res[:3], p - self.data.xpos[body])

    def observe(self) -> dict[str, Any]:
        """The exact structured state (positions m, velocities m/s and rad/s, forces N, angles rad,
        quaternions w x y z, rotation matrices row by row)."""
        from simreflect.suites.workshop.grader import carry_shift_mm, joint_status, pose_errors, protrusion_mm

        m, d = self.model, self.data
        arrays = self._contact_arrays()
        holds = self.holds(arrays)
        con = self.contacts()
        touching: dict[str, set[str]] = {o.name: set() for o in self.objects}
        robot_touch: dict[str, set[str]] = {o.name: set() for o in self.objects}
        hand_contacts: dict[str, list] = {s: [] for s in SIDES}
        for c in con:
            for a, b, ga, gb, sgn in ((c["o1"], c["o2"], c["g1"], c["g2"], 1.0), (c["o2"], c["o1"], c["g2"], c["g1"], -1.0)):
                if a >= 10:
                    touching[self.objects[a - 10].name].add(self._owner_name(b, gb))
                    if b in (0, 1, 2, 3):
                        robot_touch[self.objects[a - 10].name].add(SIDES[b % 2])
                if a in (2, 3):
                    side = SIDES[a - 2]
                    entry = {"part": self.geom_part.get(ga, "?"), "with": self._owner_name(b, gb),
                             "force": _r(c["force"], 4), "normal": _rl(sgn * c["normal"], 5), "pos": _rl(c["pos"], 5)}
                    if b >= 10:
                        body_o = self.objects[b - 10].body
                        body_h = int(m.geom_bodyid[ga])
                        rel = self._point_velocity(body_o, c["pos"]) - self._point_velocity(body_h, c["pos"])
                        n = c["normal"]
                        slip = rel - np.dot(rel, n) * n
                        entry["slip_speed_mm_s"] = _r(np.linalg.norm(slip) * 1000.0, 3)
                    hand_contacts[side].append(entry)
        arms = {}
        for side in SIDES:
            joints = {}
            for short in SIDE_JOINTS:
                i = self.act_index[f"{side}/{short}"]
                q = float(d.qpos[self.act_qadr[i]])
                joints[short] = {"q": _r(q), "target": _r(self.target[i]), "velocity": _r(d.qvel[self.act_dadr[i]]),
                                 "range": [self.act_lo[i], self.act_hi[i]],
                                 "at_limit": bool(q <= self.act_lo[i] + 0.005 or q >= self.act_hi[i] - 0.005),
                                 "lagging": bool(abs(self.target[i] - q) >= 0.9 * self.act_lag[i])}
            ps = self.palm_site[side]
            rot = d.site_xmat[ps].reshape(3, 3)
            arm_hits = []
            for c in con:
                for a, b, ga, gb in ((c["o1"], c["o2"], c["g1"], c["g2"]), (c["o2"], c["o1"], c["g2"], c["g1"])):
                    if a == SIDES.index(side):
                        arm_hits.append({"part": self.geom_part.get(ga, "?"), "with": self._owner_name(b, gb),
                                         "force": _r(c["force"], 4)})
            arm_holds = []
            for (h, obj), v in sorted(holds.items()):
                if h != side:
                    continue
                arm_holds.append({"object": obj, "held": v["held"], "force": _r(v["force"], 4), "parts": v["parts"],
                                  "slip_mm": _r(self.hold_slip.get((h, obj), 0.0) * 1000.0, 4)})
            arms[side] = {
                "joints": joints,
                "palm": {"pos": _rl(d.site_xpos[ps]), "rot": _rows(rot), "quat": _rl(mat_to_quat(rot))},
                "pinch": _rl(d.site_xpos[self.pinch_site[side]]),
                "tips": {f: _rl(d.site_xpos[s]) for f, s in self.tip_sites[side].items()},
                "hand_contacts": hand_contacts[side],
                "arm_collisions": arm_hits,
                "holds": arm_holds,
            }
        boards = {}
        for b in self.spec.boards:
            o = self.object_by_name[b.name]
            pos = d.xpos[o.body]
            rot = d.xmat[o.body].reshape(3, 3)
            lin = d.qvel[o.dadr:o.dadr + 3]
            ang = rot @ d.qvel[o.dadr + 3:o.dadr + 6]
            prot = protrusion_mm(pos, rot, b.size, b.target)
            dist, dyaw = pose_errors(pos, rot, b.target)
            tr = self.boards[b.name]
            carry = {"pos": _rl(tr.carry_pos), "rot": _rows(tr.carry_rot)} if tr.carry_pos else None
            boards[b.name] = {
                "pos": _rl(pos), "quat": _rl(d.xquat[o.body]), "rot": _rows(rot), "size": list(b.size),
                "lin_vel": _rl(lin), "ang_vel": _rl(ang), "corners": [_rl(c) for c in box_corners(pos, rot, b.size)],
                "touching": sorted(touching[b.name]), "touching_robot": bool(robot_touch[b.name]),
                "held_by": sorted(h for (h, n), v in holds.items() if n == b.name and v["held"]),
                "lifted": tr.lifted, "lost": tr.lost, "last_carry": carry,
                "moved_since_carry_mm": None if carry is None else _r(carry_shift_mm(pos, rot, b.size, carry), 3),
                "target": {"pose": list(b.target), "worst_protrusion_mm": _r(prot, 3), "centre_error_mm": _r(dist, 3),
                           "yaw_error_deg": _r(dyaw, 3)},
            }
        drills = {}
        for k in range(self.spec.drills):
            o = self.object_by_name[f"drill{k}"]
            rot = d.xmat[o.body].reshape(3, 3)
            drills[o.name] = {"pos": _rl(d.xpos[o.body]), "quat": _rl(d.xquat[o.body]), "rot": _rows(rot),
                              "tip": _rl(d.site_xpos[self.drill_tip_site[k]]), "axis": _rl(rot[:, 0]),
                              "lin_vel": _rl(d.qvel[o.dadr:o.dadr + 3]),
                              "held_by": sorted(h for (h, n), v in holds.items() if n == o.name and v["held"]),
                              "touching": sorted(touching[o.name]),
                              "engaged_screw": None if self.drills[k].screw is None else f"screw{self.drills[k].screw}",
                              "driving": self.drills[k].screw is not None and self.drills[k].driving}
        screws = {}
        for k in range(self.spec.screws):
            o = self.object_by_name[f"screw{k}"]
            st = self.screws[k]
            rot = d.xmat[o.body].reshape(3, 3)
            screws[o.name] = {"pos": _rl(d.xpos[o.body]), "quat": _rl(d.xquat[o.body]), "rot": _rows(rot),
                              "head_top": _rl(d.site_xpos[self.screw_top_site[k]]),
                              "tip": _rl(d.site_xpos[self.screw_tip_site[k]]), "axis": _rl(-rot[:, 2]),
                              "lin_vel": _rl(d.qvel[o.dadr:o.dadr + 3]),
                              "held_by": sorted(h for (h, n), v in holds.items() if n == o.name and v["held"]),
                              "touching": sorted(touching[o.name]),
                              "hole": None if st.state == "free" else
                              {"axis": _rl(self._seat_axis(k)[0]), "head_top": _rl(self._seat_axis(k)[1])},
                              "state": st.state, "depth_mm": _r(st.depth * 1000, 4),
                              "to_go_mm": _r(max(0.0, st.max_depth - st.depth) * 1000, 4) if st.state != "free" else None,
                              "top": st.top, "bottom": st.bottom,
                              "anchor_top": st.anchor_top, "anchor_bottom": st.anchor_bottom,
                              "joint_active": bool(d.eq_active[self.joint_eq[k]]), "camouts": st.camouts,
                              "stripped_how": st.stripped_how or None}
        all_holds = [{"hand": h, "object": n} for (h, n), v in sorted(holds.items()) if v["held"]]
        state = {"time": _r(self.time, 9), "step": self.step_count, "arms": arms, "boards": boards, "drills": drills,
                 "screws": screws, "holds": all_holds}
        state["joints"] = {j.name: {"top": j.top, "bottom": j.bottom, **joint_status(state, j.top, j.bottom)}
                           for j in self.spec.joints}
        return state

    def observe_now(self) -> dict[str, Any]:
        """observe() after recomputing everything derived for the current state (positions, contacts,
        forces). The solver's warm start is put back afterwards, so looking never changes what the
        next step computes."""
        warm = self.data.qacc_warmstart.copy()
        mujoco.mj_forward(self.model, self.data)
        self._forwards += 1
        out = self.observe()
        self.data.qacc_warmstart[:] = warm
        return out

    def settle(self, seconds: float) -> None:
        """Step with every servo target held (no commanded motion)."""
        zero = np.zeros(self.model.nu)
        for _ in range(int(round(seconds * HZ))):
            self._step(zero)
