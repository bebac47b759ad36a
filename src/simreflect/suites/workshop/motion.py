"""Servos and motion: rate-limited position-servo targets, end-effector IK, and a move segment run step
by step until its duration, a stop condition or the time budget (see sim.py for the servo model)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import mujoco
import numpy as np

from simreflect.suites.workshop import world
from simreflect.suites.workshop.contacts import ContactStop, StateStop, collect_collisions, compile_stops, stop_met
from simreflect.suites.workshop.frames import _r
from simreflect.suites.workshop.layout import Layout
from simreflect.suites.workshop.protocol import Move
from simreflect.suites.workshop.world import HZ, SIDES

if TYPE_CHECKING:
    from simreflect.suites.workshop.sim import Engine

DT = 1.0 / HZ
TRACK_EVERY = 9  # steps between hold / lift / collision tracking updates (20 Hz)
IK_EVERY = 4  # steps between end-effector IK solutions (45 Hz); the joint velocities are held in between
IK_DAMPING = 2.5e-3  # lambda^2 of the damped least-squares IK
LIMIT_MARGIN = 0.005  # rad (m): a joint this close to its range's end is at its limit
BLOCKED_LAG = 0.9  # a joint whose target leads it by this share of its lag limit is blocked
_IK_DAMPING_EYE = IK_DAMPING * np.eye(6)


class _ServoBuffers:
    """Scratch arrays of Servos.command, allocated once."""

    def __init__(self, nu: int):
        self.q, self.lo, self.hi, self.ff = (np.empty(nu) for _ in range(4))


class Servos:
    """The servo targets of every actuator and how commanded joint velocities move them."""

    def __init__(self, m: mujoco.MjModel, d: mujoco.MjData, layout: Layout):
        self.model, self.data, self.layout = m, d, layout
        self.target = np.zeros(m.nu)
        self._buf = _ServoBuffers(m.nu)
        self._ik_cache: dict[tuple[str, bool], tuple[np.ndarray, np.ndarray]] = {}
        self._jacp = np.zeros((3, m.nv))
        self._jacr = np.zeros((3, m.nv))

    def home(self) -> None:
        """Every joint at its home position, the targets on it."""
        m, d, lay = self.model, self.data, self.layout
        for i, n in enumerate(lay.act_name):
            side, short = n.split("/", 1)
            d.qpos[lay.act_qadr[i]] = world.home_qpos(side, short)
        mujoco.mj_forward(m, d)
        self.target = d.qpos[lay.act_qadr].copy()
        d.ctrl[:] = self.target

    def command(self, qdot: np.ndarray) -> None:
        """Move the targets by one step of `qdot`, within the lag and range limits, and set the controls."""
        lay, d, buf = self.layout, self.data, self._buf
        # np.clip(x, lo, hi) is minimum(maximum(x, lo), hi): the same two ufuncs, into buffers allocated once
        np.take(d.qpos, lay.act_qadr, out=buf.q)
        target = np.multiply(qdot, DT)
        np.add(self.target, target, out=target)
        np.maximum(target, np.subtract(buf.q, lay.act_lag, out=buf.lo), out=target)
        np.minimum(target, np.add(buf.q, lay.act_lag, out=buf.hi), out=target)
        np.maximum(target, lay.act_lo, out=target)
        np.minimum(target, lay.act_hi, out=target)
        self.target = target
        # velocity feed-forward: kp (target + kv/kp v - q) - kv qdot = kp (target - q) + kv (v - qdot)
        np.add(target, np.multiply(lay.act_ff, qdot, out=buf.ff), out=d.ctrl)

    def ee_velocities(self, side: str, ee, point_local: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(actuators, joint velocities): arm joints, then base x, y if used, for an end-effector twist."""
        m, d, lay = self.model, self.data, self.layout
        hb = lay.hand_body[side]
        p = d.xpos[hb] + d.xmat[hb].reshape(3, 3) @ point_local
        mujoco.mj_jac(m, d, self._jacp, self._jacr, p, hb)
        acts, dofs = self._ik_joints(side, ee.use_base)
        J = np.vstack([self._jacp[:, dofs], self._jacr[:, dofs]])
        twist = np.concatenate([ee.linear, ee.angular])
        qd = J.T @ np.linalg.solve(J @ J.T + _IK_DAMPING_EYE, twist)
        ratio = np.max(np.abs(qd) / lay.act_vmax[acts])
        if ratio > 1.0:
            qd /= ratio
        return acts, qd

    def _ik_joints(self, side: str, use_base: bool) -> tuple[np.ndarray, np.ndarray]:
        """(actuators, their dofs) the IK of a side moves: arm joints, then base x, y if used (cached)."""
        key = (side, use_base)
        if key not in self._ik_cache:
            lay = self.layout
            acts = lay.arm_act[side]
            if use_base:
                acts = np.concatenate([acts, lay.base_act[side]])
            self._ik_cache[key] = (acts, lay.act_dadr[acts])
        return self._ik_cache[key]

    def at_limit(self, q: np.ndarray) -> np.ndarray:
        lay = self.layout
        return (q <= lay.act_lo + LIMIT_MARGIN) | (q >= lay.act_hi - LIMIT_MARGIN)

    def lagging(self, q: np.ndarray) -> np.ndarray:
        return np.abs(self.target - q) >= BLOCKED_LAG * self.layout.act_lag


def _commands(engine: Engine, seg) -> tuple[np.ndarray, list[tuple]]:
    """A move's fixed joint velocities and its end-effector commands (side, ee, point in the hand frame)."""
    lay, d = engine.layout, engine.data
    qdot_fixed = np.zeros(engine.model.nu)
    ee_cmds = []
    for side in SIDES:
        cmd = getattr(seg, side)
        if cmd is None:
            continue
        for short, v in cmd.joints.items():
            qdot_fixed[lay.act_index[f"{side}/{short}"]] = v
        if cmd.ee is not None:
            hb = lay.hand_body[side]
            p = d.site_xpos[lay.palm_site[side]] if cmd.ee.point is None else np.asarray(cmd.ee.point, float)
            local = d.xmat[hb].reshape(3, 3).T @ (p - d.xpos[hb])
            ee_cmds.append((side, cmd.ee, local))
    return qdot_fixed, ee_cmds


def run_move(engine: Engine, seg, budget_steps: Optional[int]) -> dict[str, Any]:
    """Run one move (or wait) segment on `engine`; its result."""
    steps = seg.steps
    if budget_steps is not None:
        steps = min(steps, budget_steps - engine.step_count)
    nu = engine.model.nu
    if isinstance(seg, Move):
        qdot_fixed, ee_cmds = _commands(engine, seg)
        stops = compile_stops(engine.layout, seg.stop)
    else:
        qdot_fixed, ee_cmds, stops = np.zeros(nu), [], []
    contact_stops = any(isinstance(s, ContactStop) for s in stops)
    state_stops = any(isinstance(s, StateStop) for s in stops)
    servos, lay = engine.servos, engine.layout
    commanded = qdot_fixed != 0
    stopped = "duration"
    start_step = engine.step_count
    blocked_any = np.zeros(nu, bool)
    limit_any = np.zeros(nu, bool)
    collisions: dict[tuple[str, str], float] = {}
    events: list[str] = []
    qdot = qdot_fixed.copy()
    for n in range(steps):
        if ee_cmds and n % IK_EVERY == 0:
            for side, ee, local in ee_cmds:
                acts, qd = servos.ee_velocities(side, ee, local)
                qdot[acts] = qd
                commanded[acts] |= np.abs(qd) > 1e-6
        engine.step(qdot)
        if engine.events:
            events += engine.events
            engine.events = []
        if n % IK_EVERY == 0 or n == steps - 1:
            q = engine.data.qpos[lay.act_qadr]
            blocked_any |= commanded & servos.lagging(q)
            limit_any |= commanded & servos.at_limit(q)
        if n % TRACK_EVERY == 0:
            collect_collisions(engine.model, lay, engine.contact_arrays(), collisions)
        if stops:
            arrays = engine.contact_arrays() if contact_stops else None
            k = stop_met(stops, arrays, [s.state for s in engine.screws] if state_stops else [])
            if k >= 0:
                s = seg.stop[k]
                stopped = f"stop[{k}]: {s.a} " + (f"is {s.state}" if s.state else f"touched {s.b}")
                break
    if engine.step_count - start_step < seg.steps and stopped == "duration":
        stopped = "simulated-time budget spent"
    return {
        "type": seg.type,
        "steps": engine.step_count - start_step,
        "stopped": stopped,
        "blocked": [lay.act_name[i] for i in np.nonzero(blocked_any)[0]],
        "at_limit": [lay.act_name[i] for i in np.nonzero(limit_any)[0]],
        "collisions": [{"arm": a, "with": b, "max_force": _r(f, 3)} for (a, b), f in sorted(collisions.items())],
        "events": events,
    }
