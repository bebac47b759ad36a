"""The workshop engine: stepping, rate-limited servo targets, IK, contacts, holds, slip, screw driving.

The Engine composes the parts, each a module of its own: layout (where everything is in the model,
geom owners as `Owner`), contacts (contact arrays, stop conditions, arm collisions), grip (holds,
slip, board lift / carry / lost tracking), screws (engage, seat, feed, strip, screw joints), motion
(servo targets, IK, a move segment) and observe (the structured state).

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
- any axis: nothing above assumes the screw is vertical or enters a top face. The face is any face
  of any board the tip stands on, "along" and "across" are the screw's (the hole's) axis, and the
  board below is whichever board the tip ends in behind the first (for a horizontal screw through an
  upright board, the board beside it). A horizontal screw cannot stand on a face by itself: the hand
  holds it there until the engage seats it (let go before, it falls).
"""

from __future__ import annotations

import base64
import zlib
from typing import Any, Callable, Optional

import mujoco
import numpy as np

from simreflect.suites.workshop import world
from simreflect.suites.workshop.builds.spec import BuildSpec
from simreflect.suites.workshop.contacts import ContactArrays, contact_arrays, contact_list, validate_stop
from simreflect.suites.workshop.frames import _r, _rl, _rows, box_corners, mat_to_quat, quat_to_mat, yaw_of
from simreflect.suites.workshop.grip import (
    HOLD_MIN_FORCE,
    HOLD_OPPOSED_COS,
    LIFT_HOLD_S,
    LOST_Z,
    BoardTrack,
    Grip,
    Holds,
    holds,
)
from simreflect.suites.workshop.layout import Layout, ObjectInfo, Owner
from simreflect.suites.workshop.motion import DT, IK_EVERY, TRACK_EVERY, Servos, run_move
from simreflect.suites.workshop.observe import observe
from simreflect.suites.workshop.protocol import Act, DrillAction, Move, StopWhen
from simreflect.suites.workshop.screws import (
    CAMOUT_ANGLE_DEG,
    CAMOUT_OFFSET_MM,
    EMBED_MIN_MM,
    ENGAGE_ANGLE_DEG,
    ENGAGE_TIP_MM,
    FEED_LEAD,
    FEED_MAX_SPEED,
    JOINT_RELAX_STEPS,
    SEAT_ANGLE_DEG,
    SEAT_INSET_MM,
    SEAT_TIP_MM,
    WITHDRAW_MM,
    DrillState,
    Screwdriver,
    ScrewState,
)
from simreflect.suites.workshop.world import HZ

__all__ = ["CAMOUT_ANGLE_DEG", "CAMOUT_OFFSET_MM", "DT", "EMBED_MIN_MM", "ENGAGE_ANGLE_DEG", "ENGAGE_TIP_MM",
           "FEED_LEAD", "FEED_MAX_SPEED", "HOLD_MIN_FORCE", "HOLD_OPPOSED_COS", "IK_EVERY", "JOINT_RELAX_STEPS",
           "LIFT_HOLD_S", "LOST_Z", "SEAT_ANGLE_DEG", "SEAT_INSET_MM", "SEAT_TIP_MM", "SETTLE_S", "SETTLED_SPEED",
           "SETTLED_SPIN", "TRACK_EVERY", "WITHDRAW_MM", "BoardTrack", "CommandRejected", "DrillState", "Engine",
           "ObjectInfo", "Owner", "ScrewState", "box_corners", "mat_to_quat", "quat_to_mat", "yaw_of", "_r", "_rl",
           "_rows"]

SETTLE_S = 1.0  # the finish command lets the world settle this long before the final state
SETTLED_SPEED = 0.002  # m/s
SETTLED_SPIN = 0.02  # rad/s

STATE_SPEC = mujoco.mjtState.mjSTATE_INTEGRATION


class CommandRejected(Exception):
    """A well-formed command the session cannot take now (finished, budget spent): HTTP 409."""


class Engine:
    """One workshop session's physics: build it from a spec, then `execute` commands."""

    def __init__(self, spec: BuildSpec, noslip_iterations: int = world.NOSLIP_ITERATIONS):
        self.spec = spec
        self.xml = world.model_xml(spec, noslip_iterations=noslip_iterations)
        self.model = mujoco.MjModel.from_xml_string(self.xml)
        self.data = mujoco.MjData(self.model)
        self.step_count = 0
        self.actions_used = 0
        self.finished = False
        self.listeners: list[Callable[[Engine], None]] = []  # called every step (the recorder samples)
        self.layout = Layout(self.model, spec)
        self.servos = Servos(self.model, self.data, self.layout)
        self.servos.home()
        self.driver = Screwdriver(self.model, self.data, spec, self.layout, self.contact_arrays)
        self.grip = Grip(self.data, self.layout, [b.name for b in spec.boards])
        self._arrays_at = (-1, -1)
        self._arrays: Optional[ContactArrays] = None
        self._forwards = 0  # bumped by every out-of-step mj_forward (contacts may change)
        self._version = 0  # bumped by every step, segment and restore (the trackers may change)
        self._observed: Optional[tuple[tuple, dict[str, Any]]] = None  # observe_now's last (inputs, state)
        self._potential = self.potential()

    # ----- the parts' state, as the session, the recorder and the measurements read it ---------------

    @property
    def object_by_name(self) -> dict[str, ObjectInfo]:
        return self.layout.object_by_name

    @property
    def objects(self) -> list[ObjectInfo]:
        return self.layout.objects

    @property
    def joint_eq(self) -> list[int]:
        return self.layout.joint_eq

    @property
    def target(self) -> np.ndarray:
        return self.servos.target

    @property
    def screws(self) -> list[ScrewState]:
        return self.driver.screws

    @property
    def drills(self) -> list[DrillState]:
        return self.driver.drills

    @property
    def boards(self) -> dict[str, BoardTrack]:
        return self.grip.boards

    @property
    def events(self) -> list[str]:
        return self.driver.events

    @events.setter
    def events(self, value: list[str]) -> None:
        self.driver.events = value

    def _in_palm(self, side: str, obj: str) -> np.ndarray:
        return self.grip.in_palm(side, obj)

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
        m, lay = self.model, self.layout
        eq = []
        for k in range(self.spec.screws):
            for e in (lay.seat_eq[k], lay.joint_eq[k]):
                eq.append({"id": int(e), "obj1": int(m.eq_obj1id[e]), "obj2": int(m.eq_obj2id[e]),
                           "data": [float(x) for x in m.eq_data[e]]})
        return {
            "step": self.step_count,
            "actions_used": self.actions_used,
            "physics": base64.b64encode(zlib.compress(self.physics_state().astype("<f8").tobytes(), 6)).decode(),
            "target": [float(x) for x in self.servos.target],
            "tree_asleep": [int(x) for x in self.data.tree_asleep],
            "eq": eq,
            "collide": [[int(g), int(m.geom_contype[g]), int(m.geom_conaffinity[g])]
                        for g in lay.screw_shaft + lay.screw_head],
            **self.driver.snapshot(),
            **self.grip.snapshot(),
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
        self.servos.target = np.asarray(snap["target"], float)
        self._version += 1
        # Sleep bookkeeping is not part of mjSTATE and cannot be put back through the API (MuJoCo
        # wakes a tree whose state was set from outside): after a restore every tree is awake, and
        # resting objects fall asleep again within mjMINAWAKE steps. A restart from a mid-episode
        # snapshot therefore matches the original run closely but not bit for bit; a replay from the
        # initial state with the recorded commands does (see recording.replay).
        warm = d.qacc_warmstart.copy()
        mujoco.mj_forward(m, d)
        self._forwards += 1
        d.qacc_warmstart[:] = warm
        self.driver.restore(snap)
        self.grip.restore(snap)
        self._potential = float(snap["potential"])
        self.finished = bool(snap["finished"])

    # ----- contacts --------------------------------------------------------------------------------

    def contacts(self) -> list[dict[str, Any]]:
        """Active contacts: geoms, owners, world point, normal (from geom1 to geom2), normal force."""
        return contact_list(self.data, self.layout)

    def contact_arrays(self) -> Optional[ContactArrays]:
        """The current contacts as arrays (contacts.ContactArrays); cached per step."""
        if self._arrays_at == (self.step_count, self._forwards):
            return self._arrays
        self._arrays_at = (self.step_count, self._forwards)
        self._arrays = contact_arrays(self.data, self.layout)
        return self._arrays

    def holds(self, arrays: Optional[ContactArrays] = None) -> Holds:
        """Opposed, force-bearing finger/palm contacts of each hand on each object."""
        return holds(self.data, self.layout, self.contact_arrays() if arrays is None else arrays)

    def validate_stop(self, stop: StopWhen) -> None:
        validate_stop(self.layout, stop)

    # ----- one physics step ------------------------------------------------------------------------

    def step(self, qdot: np.ndarray) -> None:
        """One physics step with the servo targets moved by `qdot`, then the screw drive, the
        trackers (every TRACK_EVERY steps) and the listeners."""
        self.servos.command(qdot)
        mujoco.mj_step(self.model, self.data)
        self.step_count += 1
        self._version += 1
        if self.driver.active:
            self.driver.step()
        if self.step_count % TRACK_EVERY == 0:
            arrays = self.contact_arrays()
            self.grip.track(arrays, self.holds(arrays), TRACK_EVERY * DT)
        for fn in self.listeners:
            fn(self)

    _step = step

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
            self._version += 1
            self.events = []
            if isinstance(seg, DrillAction):
                if seg.action == "engage":
                    res = self.driver.engage(seg.hand)
                else:
                    res = self.driver.release(seg.hand)
                res = {"type": "drill", "action": seg.action, "hand": seg.hand, **res, "events": self.events}
            else:
                res = run_move(self, seg, budget_steps)
            results.append(res)
        return results

    # ----- progress and reward ---------------------------------------------------------------------

    def board_pose(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        b = self.layout.object_by_name[name].body
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

    def observe(self) -> dict[str, Any]:
        """The exact structured state (observe.observe)."""
        return observe(self)

    def observe_now(self) -> dict[str, Any]:
        """observe() after recomputing everything derived for the current state (positions, contacts,
        forces). The solver's warm start is put back afterwards, so looking never changes what the
        next step computes. Looking twice at an unchanged world (the session grades every command,
        then the client reads the state) computes it once: the second look is a shallow copy of the
        first, given that every input of mj_forward and the engine's own trackers are unchanged
        (the copy is shallow: what it holds is shared with the cache, for reading)."""
        key = self._observe_inputs()
        if self._observed is not None and self._observed[0] == key:
            return dict(self._observed[1])
        warm = self.data.qacc_warmstart.copy()
        mujoco.mj_forward(self.model, self.data)
        self._forwards += 1
        out = self.observe()
        self.data.qacc_warmstart[:] = warm
        self._observed = (key, out)
        return dict(out)

    def _observe_inputs(self) -> tuple:
        """What observe_now's result is a function of: the engine's tracker version and the inputs
        of mj_forward (state, controls, applied forces, warm start, sleep, the runtime model edits)."""
        m, d = self.model, self.data
        return (self._version, self.step_count, d.time, d.qpos.tobytes(), d.qvel.tobytes(), d.act.tobytes(),
                d.ctrl.tobytes(), d.qacc_warmstart.tobytes(), d.qfrc_applied.tobytes(), d.xfrc_applied.tobytes(),
                d.mocap_pos.tobytes(), d.mocap_quat.tobytes(), d.eq_active.tobytes(), d.tree_asleep.tobytes(),
                m.eq_data.tobytes(), m.eq_obj1id.tobytes(), m.eq_obj2id.tobytes(), m.geom_contype.tobytes(),
                m.geom_conaffinity.tobytes(), self.servos.target.tobytes())

    def settle(self, seconds: float) -> None:
        """Step with every servo target held (no commanded motion)."""
        zero = np.zeros(self.model.nu)
        for _ in range(int(round(seconds * HZ))):
            self.step(zero)
