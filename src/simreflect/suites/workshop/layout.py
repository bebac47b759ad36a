"""Where everything is in a compiled workshop model: the actuators and their servo limits, the sites,
the objects, and who owns each geom (`Owner`, the codes the contact arrays carry)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import mujoco
import numpy as np

from simreflect.suites.workshop import world
from simreflect.suites.workshop.builds.spec import BuildSpec
from simreflect.suites.workshop.world import ARM_JOINTS, BASE_JOINTS, JOINT_CLASSES, JOINT_RANGES, SIDES, joint_class


class Owner(IntEnum):
    """Who a geom belongs to. An object's code is FIRST_OBJECT plus its index in `Layout.objects`;
    an arm's and a hand's are LEFT_ARM / LEFT_HAND plus the side's index in SIDES."""

    FLOOR = -2
    STATIC = -1
    LEFT_ARM = 0
    RIGHT_ARM = 1
    LEFT_HAND = 2
    RIGHT_HAND = 3
    FIRST_OBJECT = 10


ARMS = (Owner.LEFT_ARM, Owner.RIGHT_ARM)
HANDS = (Owner.LEFT_HAND, Owner.RIGHT_HAND)
ROBOT = ARMS + HANDS
# the codes as plain ints, for the checks that run every few steps (an IntEnum member lookup is slow)
LEFT_ARM, RIGHT_ARM, LEFT_HAND, RIGHT_HAND = (int(c) for c in ROBOT)
FIRST_OBJECT = int(Owner.FIRST_OBJECT)


def arm_code(side_index: int) -> int:
    return LEFT_ARM + side_index


def hand_code(side_index: int) -> int:
    return LEFT_HAND + side_index


def object_code(index: int) -> int:
    return FIRST_OBJECT + index


def is_object(code: int) -> bool:
    return code >= FIRST_OBJECT


def side_of(code: int) -> str:
    """The side of an arm or hand code."""
    return SIDES[code % 2]


@dataclass
class ObjectInfo:
    name: str
    kind: str  # board, drill, screw
    body: int
    geoms: list[int]
    qadr: int
    dadr: int
    index: int  # index within its kind


def _hand_bodies(m: mujoco.MjModel) -> dict[str, set[int]]:
    """Every body below each hand (fingers included)."""
    out: dict[str, set[int]] = {s: set() for s in SIDES}
    for s in SIDES:
        root = m.body(f"{s}/hand").id
        for b in range(m.nbody):
            k = b
            while k != 0:
                if k == root:
                    out[s].add(b)
                    break
                k = int(m.body_parentid[k])
    return out


class Layout:
    """Indices into one compiled model (read once; nothing here changes while a session runs)."""

    def __init__(self, m: mujoco.MjModel, spec: BuildSpec):
        self._actuators(m)
        self.hand_body = {s: m.body(f"{s}/hand").id for s in SIDES}
        self.palm_site = {s: m.site(f"{s}/palm").id for s in SIDES}
        self.pinch_site = {s: m.site(f"{s}/pinch").id for s in SIDES}
        self.tip_sites = {s: {f: m.site(f"{s}/{f}_tip").id for f in world.FINGERS + ("thumb",)} for s in SIDES}
        self._objects(m, spec)
        self._owners(m)
        self.screw_shaft = [m.geom(f"screw{k}/shaft").id for k in range(spec.screws)]
        self.screw_head = [m.geom(f"screw{k}/head").id for k in range(spec.screws)]
        self.screw_top_site = [m.site(f"screw{k}/top").id for k in range(spec.screws)]
        self.screw_tip_site = [m.site(f"screw{k}/tip").id for k in range(spec.screws)]
        self.drill_tip_site = [m.site(f"drill{k}/tip").id for k in range(spec.drills)]
        self.drill_bit_geom = [m.geom(f"drill{k}/bit").id for k in range(spec.drills)]
        self.seat_eq = [m.equality(f"screw{k}/seat").id for k in range(spec.screws)]
        self.joint_eq = [m.equality(f"screw{k}/joint").id for k in range(spec.screws)]

    def _actuators(self, m: mujoco.MjModel) -> None:
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

    def _objects(self, m: mujoco.MjModel, spec: BuildSpec) -> None:
        self.objects: list[ObjectInfo] = []
        self.object_by_name: dict[str, ObjectInfo] = {}
        board_names = {b.name for b in spec.boards}
        names = [b.name for b in spec.boards] + [f"drill{k}" for k in range(spec.drills)] + \
                [f"screw{k}" for k in range(spec.screws)]
        for n in names:
            body = m.body(n).id
            kind = "board" if n in board_names else ("drill" if n.startswith("drill") else "screw")
            j = int(m.body_jntadr[body])
            idx = sum(1 for o in self.objects if o.kind == kind)
            info = ObjectInfo(n, kind, body, [g for g in range(m.ngeom) if m.geom_bodyid[g] == body],
                              int(m.jnt_qposadr[j]), int(m.jnt_dofadr[j]), idx)
            self.objects.append(info)
            self.object_by_name[n] = info
        self.code_by_name = {o.name: object_code(i) for i, o in enumerate(self.objects)}

    def _owners(self, m: mujoco.MjModel) -> None:
        owner = np.full(m.ngeom, int(Owner.STATIC), dtype=np.int64)
        self.geom_part: dict[int, str] = {}
        hand_bodies = _hand_bodies(m)
        body_obj = {o.body: object_code(i) for i, o in enumerate(self.objects)}
        for g in range(m.ngeom):
            b = int(m.geom_bodyid[g])
            name = m.geom(g).name
            if name == "floor":
                owner[g] = Owner.FLOOR
            elif b in body_obj:
                owner[g] = body_obj[b]
            else:
                for si, s in enumerate(SIDES):
                    if b in hand_bodies[s]:
                        owner[g] = hand_code(si)
                        self.geom_part[g] = name.split("/", 1)[1]
                        break
                    if name.startswith(f"{s}/"):
                        owner[g] = arm_code(si)
                        self.geom_part[g] = name.split("/", 1)[1]
                        break
        self.geom_owner = owner

    def code_of(self, name: str) -> int:
        """The owner code of a named object."""
        return self.code_by_name[name]

    def object_of(self, code: int) -> ObjectInfo:
        return self.objects[code - FIRST_OBJECT]

    def owner_name(self, m: mujoco.MjModel, code: int, geom: int) -> str:
        """What a contact touched, as the observation and move results name it."""
        if code == Owner.STATIC:
            return m.geom(int(geom)).name or "static"
        if code == Owner.FLOOR:
            return "floor"
        if code in ROBOT:
            return m.geom(int(geom)).name
        return self.object_of(code).name
