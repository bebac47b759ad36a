"""Screws and drills: engaging a bit, seating a screw in a board face, feeding it in, stripping,
and the constraint a driven screw turns on between two boards (the model's abstraction of screw
driving; see sim.py for the rules in full).

Every rule is along the screw's own axis, whatever its direction: the entry face is whichever face
of whichever board the tip stands on (any of the six, the axis within SEAT_ANGLE_DEG of its inward
normal), the feed, the withdraw and the cam-out limits are measured along and across the hole's
axis, and the second board is whichever board the tip ends in behind the first. `top` and `bottom`
(ScrewState, the state, the grader) are the historical names of the entry board and the board
behind it: for a horizontal screw through an upright board they are side by side."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import mujoco
import numpy as np

from simreflect.suites.workshop import world
from simreflect.suites.workshop.builds.spec import BuildSpec
from simreflect.suites.workshop.contacts import ContactArrays
from simreflect.suites.workshop.frames import _r, _rl, mat_to_quat
from simreflect.suites.workshop import grip
from simreflect.suites.workshop.grip import Holds
from simreflect.suites.workshop.layout import HANDS, Layout
from simreflect.suites.workshop.world import HZ, SIDES

DT = 1.0 / HZ

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
JOINT_RELAX_STEPS = 18  # 0.1 s


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


class Screwdriver:
    """The screws' and drills' states and the rules that change them. `arrays` gives the current
    contacts (cached per step by the engine); `events` collects what happened for the command's result."""

    def __init__(self, m: mujoco.MjModel, d: mujoco.MjData, spec: BuildSpec, layout: Layout,
                 arrays: Callable[[], Optional[ContactArrays]]):
        self.model, self.data, self.spec, self.layout = m, d, spec, layout
        self._arrays = arrays
        self.screws = [ScrewState() for _ in range(spec.screws)]
        self.drills = [DrillState() for _ in range(spec.drills)]
        self.events: list[str] = []

    def snapshot(self) -> dict[str, Any]:
        return {"screws": [s.to_dict() for s in self.screws], "drills": [dd.to_dict() for dd in self.drills]}

    def restore(self, snap: dict[str, Any]) -> None:
        self.screws = [ScrewState.from_dict(s) for s in snap["screws"]]
        self.drills = [DrillState(**dd) for dd in snap["drills"]]

    def holds(self) -> Holds:
        return grip.holds(self.data, self.layout, self._arrays())

    def _screw_axis(self, k: int) -> np.ndarray:
        b = self.layout.object_by_name[f"screw{k}"].body
        return -self.data.xmat[b].reshape(3, 3)[:, 2]

    def _drill_axis(self, k: int) -> np.ndarray:
        b = self.layout.object_by_name[f"drill{k}"].body
        return self.data.xmat[b].reshape(3, 3)[:, 0]

    def _screw_touched_by_hand(self, k: int, arrays) -> bool:
        if arrays is None:
            return False
        _, o1, o2, f = arrays
        code = self.layout.code_of(f"screw{k}")
        left, right = HANDS
        sel = ((o1 == code) & ((o2 == left) | (o2 == right))) | ((o2 == code) & ((o1 == left) | (o1 == right)))
        return bool(np.any(sel & (f > 0.05)))

    def seat_axis(self, sk: int) -> tuple[np.ndarray, np.ndarray]:
        """Axis and head-top point of a screw. A seated screw is guided by its hole: its axis and
        head are where the hole in the top board puts them (the weld's target), not where the light
        screw body momentarily is while the weld pulls it there."""
        st = self.screws[sk]
        d = self.data
        if st.state == "free":
            return self._screw_axis(sk), d.site_xpos[self.layout.screw_top_site[sk]].copy()
        top = self.layout.object_by_name[st.top].body
        rt = d.xmat[top].reshape(3, 3)
        axis = rt @ np.asarray(st.axis)
        origin = d.xpos[top] + rt @ (np.asarray(st.entry) + st.depth * np.asarray(st.axis))
        return axis, origin - axis * world.SCREW_HEAD_HALF[2]

    def _bit_geometry(self, dk: int, sk: int) -> tuple[float, float, float]:
        """(angle deg between bit and screw axes, lateral offset mm of the tip from the screw axis,
        axial position mm of the tip relative to the head top, positive = pushed past it)."""
        d = self.data
        tip = d.site_xpos[self.layout.drill_tip_site[dk]]
        a_s, top = self.seat_axis(sk)
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
        for o in self.layout.objects:
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

    def engage(self, hand: str) -> dict[str, Any]:
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
        tip = d.site_xpos[self.layout.drill_tip_site[dk]]
        dists = [float(np.linalg.norm(tip - d.site_xpos[s])) for s in self.layout.screw_top_site]
        sk = int(np.argmin(dists))
        ang, lateral, axial = self._bit_geometry(dk, sk)
        if lateral > ENGAGE_TIP_MM or abs(axial) > ENGAGE_TIP_MM:
            return {"ok": False, "reason": f"the bit tip is not on a screw head: nearest is screw{sk}, tip {lateral:.1f} mm "
                                           f"off its axis and {-axial:.1f} mm short of its head along it (limit {ENGAGE_TIP_MM} mm)"}
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
            tipp = d.site_xpos[self.layout.screw_tip_site[sk]].copy()
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
        sb = self.layout.object_by_name[f"screw{sk}"].body
        bb = self.layout.object_by_name[board].body
        rb = d.xmat[bb].reshape(3, 3)
        rs = d.xmat[sb].reshape(3, 3)
        entry = rb.T @ (d.xpos[sb] - d.xpos[bb])
        axis = rb.T @ self._screw_axis(sk)
        e = self.layout.seat_eq[sk]
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
        g = self.layout.screw_shaft[sk]
        m.geom_contype[g] = 0
        m.geom_conaffinity[g] = 0
        h = self.layout.screw_head[sk]
        m.geom_contype[h], m.geom_conaffinity[h] = world.SEATED_HEAD
        # height > 0: the tip stands that far above the face, so the head meets the face after L + height
        self.screws[sk] = ScrewState(state="seated", top=board, depth=0.0,
                                     max_depth=float(world.SCREW_LENGTH + height),
                                     entry=[float(x) for x in entry], axis=[float(x) for x in axis])
        self.events.append(f"screw{sk} seated in {board}")

    @property
    def active(self) -> bool:
        """A drill is engaged, or a driven screw waits for its joint (checked every step: cheap)."""
        for ds in self.drills:
            if ds.screw is not None:
                return True
        for st in self.screws:
            if st.state == "driven" and st.bottom is not None and not st.anchor_top:
                return True
        return False

    def step(self) -> None:
        arrays = self._arrays()
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

    def release(self, hand: str) -> dict[str, Any]:
        """Stop driving; the bit stays in the head until it is withdrawn."""
        released = []
        for dk, ds in enumerate(self.drills):
            if ds.screw is not None and ds.hand == hand and ds.driving:
                released.append(f"drill{dk}")
                ds.driving = False
        return {"ok": True, "released": released}

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
        e = self.layout.seat_eq[sk]
        self.model.eq_data[e, 0:3] = np.asarray(st.entry) + st.depth * np.asarray(st.axis)

    def _finish_screw(self, sk: int) -> None:
        d = self.data
        st = self.screws[sk]
        st.state = "driven"
        # the tip where the weld will hold it (the weld is soft for a step or two; use the target)
        top = self.layout.object_by_name[st.top].body
        rt = d.xmat[top].reshape(3, 3)
        axis_w = rt @ np.asarray(st.axis)
        origin = d.xpos[top] + rt @ (np.asarray(st.entry) + st.depth * np.asarray(st.axis))
        tip = origin + axis_w * (world.SCREW_HEAD_HALF[2] + world.SCREW_LENGTH)
        best = None
        for o in self.layout.objects:
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
        top = self.layout.object_by_name[st.top].body
        bottom = self.layout.object_by_name[st.bottom].body
        rt = d.xmat[top].reshape(3, 3)
        rbt = d.xmat[bottom].reshape(3, 3)
        axis_w = rt @ np.asarray(st.axis)
        origin = d.xpos[top] + rt @ (np.asarray(st.entry) + st.depth * np.asarray(st.axis))
        tip = origin + axis_w * (world.SCREW_HEAD_HALF[2] + world.SCREW_LENGTH)
        anchor = tip - axis_w * st.embed
        e = self.layout.joint_eq[sk]
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
