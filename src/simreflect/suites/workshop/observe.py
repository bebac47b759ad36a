"""The observation: the exact structured state of a workshop engine (positions m, velocities m/s and
rad/s, forces N, angles rad, quaternions w x y z, rotation matrices row by row), part by part."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import mujoco
import numpy as np

from simreflect.suites.workshop.frames import _r, _rl, _rows, box_corners, mat_to_quat
from simreflect.suites.workshop.grip import Holds, holders
from simreflect.suites.workshop.layout import HANDS, ROBOT, arm_code, is_object, side_of
from simreflect.suites.workshop.motion import BLOCKED_LAG, LIMIT_MARGIN
from simreflect.suites.workshop.world import SIDE_JOINTS, SIDES

if TYPE_CHECKING:
    from simreflect.suites.workshop.sim import Engine


def _both_ways(c: dict[str, Any]):
    """A contact from each side: (owner, other owner, geom, other geom, sign of the normal)."""
    return ((c["o1"], c["o2"], c["g1"], c["g2"], 1.0), (c["o2"], c["o1"], c["g2"], c["g1"], -1.0))


def _point_velocity(engine: Engine, body: int, p: np.ndarray) -> np.ndarray:
    res = np.zeros(6)
    mujoco.mj_objectVelocity(engine.model, engine.data, mujoco.mjtObj.mjOBJ_BODY, body, res, 0)
    w0, w1, w2 = res[:3].tolist()
    r0, r1, r2 = (p - engine.data.xpos[body]).tolist()
    # w x r, the products and differences np.cross forms, without its per-call overhead
    return res[3:] + np.array([w1 * r2 - w2 * r1, w2 * r0 - w0 * r2, w0 * r1 - w1 * r0])


def _hand_contact(engine: Engine, c: dict[str, Any], other: int, geom: int, other_geom: int, sign: float) -> dict:
    lay = engine.layout
    entry = {"part": lay.geom_part.get(geom, "?"), "with": lay.owner_name(engine.model, other, other_geom),
             "force": _r(c["force"], 4), "normal": _rl(sign * c["normal"], 5), "pos": _rl(c["pos"], 5)}
    if is_object(other):
        body_o = lay.object_of(other).body
        body_h = int(engine.model.geom_bodyid[geom])
        rel = _point_velocity(engine, body_o, c["pos"]) - _point_velocity(engine, body_h, c["pos"])
        n = c["normal"]
        slip = rel - np.dot(rel, n) * n
        entry["slip_speed_mm_s"] = _r(np.linalg.norm(slip) * 1000.0, 3)
    return entry


def _touches(engine: Engine, con: list[dict]) -> tuple[dict[str, set[str]], dict[str, set[str]], dict[str, list]]:
    """What each object touches, which robot sides touch it, and each hand's contacts."""
    lay = engine.layout
    touching: dict[str, set[str]] = {o.name: set() for o in lay.objects}
    robot_touch: dict[str, set[str]] = {o.name: set() for o in lay.objects}
    hand_contacts: dict[str, list] = {s: [] for s in SIDES}
    for c in con:
        for a, b, ga, gb, sgn in _both_ways(c):
            if is_object(a):
                name = lay.object_of(a).name
                touching[name].add(lay.owner_name(engine.model, b, gb))
                if b in ROBOT:
                    robot_touch[name].add(side_of(b))
            if a in HANDS:
                hand_contacts[side_of(a)].append(_hand_contact(engine, c, b, ga, gb, sgn))
    return touching, robot_touch, hand_contacts


def _joints(engine: Engine, side: str) -> dict[str, Any]:
    lay, d = engine.layout, engine.data
    # Python floats of every actuator at once (tolist: the same values as float() of each element)
    qs, vs = d.qpos[lay.act_qadr].tolist(), d.qvel[lay.act_dadr].tolist()
    targets, lo, hi, lag = engine.servos.target.tolist(), lay.act_lo.tolist(), lay.act_hi.tolist(), lay.act_lag.tolist()
    joints = {}
    for short in SIDE_JOINTS:
        i = lay.act_index[f"{side}/{short}"]
        q, target = qs[i], targets[i]
        joints[short] = {"q": round(q, 7), "target": round(target, 7), "velocity": round(vs[i], 7),
                         "range": [lo[i], hi[i]],
                         "at_limit": q <= lo[i] + LIMIT_MARGIN or q >= hi[i] - LIMIT_MARGIN,
                         "lagging": abs(target - q) >= BLOCKED_LAG * lag[i]}
    return joints


def _arm(engine: Engine, side: str, con: list[dict], hold_map: Holds, hand_contacts: list) -> dict[str, Any]:
    lay, d = engine.layout, engine.data
    ps = lay.palm_site[side]
    rot = d.site_xmat[ps].reshape(3, 3)
    arm, arm_hits = arm_code(SIDES.index(side)), []
    for c in con:
        for a, b, ga, gb, _ in _both_ways(c):
            if a == arm:
                arm_hits.append({"part": lay.geom_part.get(ga, "?"), "with": lay.owner_name(engine.model, b, gb),
                                 "force": _r(c["force"], 4)})
    arm_holds = []
    for (h, obj), v in sorted(hold_map.items()):
        if h != side:
            continue
        arm_holds.append({"object": obj, "held": v["held"], "force": _r(v["force"], 4), "parts": v["parts"],
                          "slip_mm": _r(engine.grip.hold_slip.get((h, obj), 0.0) * 1000.0, 4)})
    return {
        "joints": _joints(engine, side),
        "palm": {"pos": _rl(d.site_xpos[ps]), "rot": _rows(rot), "quat": _rl(mat_to_quat(rot))},
        "pinch": _rl(d.site_xpos[lay.pinch_site[side]]),
        "tips": {f: _rl(d.site_xpos[s]) for f, s in lay.tip_sites[side].items()},
        "hand_contacts": hand_contacts,
        "arm_collisions": arm_hits,
        "holds": arm_holds,
    }


def _boards(engine: Engine, hold_map: Holds, touching, robot_touch) -> dict[str, Any]:
    from simreflect.suites.workshop.grader import angle_error_key, carry_shift_mm, pose_errors, protrusion_mm

    lay, d = engine.layout, engine.data
    boards = {}
    for b in engine.spec.boards:
        o = lay.object_by_name[b.name]
        pos = d.xpos[o.body]
        rot = d.xmat[o.body].reshape(3, 3)
        lin = d.qvel[o.dadr:o.dadr + 3]
        ang = rot @ d.qvel[o.dadr + 3:o.dadr + 6]
        prot = protrusion_mm(pos, rot, b.size, b.target)
        dist, dyaw = pose_errors(pos, rot, b.target)
        tr = engine.grip.boards[b.name]
        carry = {"pos": _rl(tr.carry_pos), "rot": _rows(tr.carry_rot)} if tr.carry_pos else None
        boards[b.name] = {
            "pos": _rl(pos), "quat": _rl(d.xquat[o.body]), "rot": _rows(rot), "size": list(b.size),
            "lin_vel": _rl(lin), "ang_vel": _rl(ang), "corners": [_rl(c) for c in box_corners(pos, rot, b.size)],
            "touching": sorted(touching[b.name]), "touching_robot": bool(robot_touch[b.name]),
            "held_by": holders(hold_map, b.name),
            "lifted": tr.lifted, "lost": tr.lost, "last_carry": carry,
            "moved_since_carry_mm": None if carry is None else _r(carry_shift_mm(pos, rot, b.size, carry), 3),
            "target": {"pose": list(b.target), "worst_protrusion_mm": _r(prot, 3), "centre_error_mm": _r(dist, 3),
                       angle_error_key(b.target): _r(dyaw, 3)},
        }
    return boards


def _drills(engine: Engine, hold_map: Holds, touching) -> dict[str, Any]:
    lay, d, states = engine.layout, engine.data, engine.driver.drills
    drills = {}
    for k in range(engine.spec.drills):
        o = lay.object_by_name[f"drill{k}"]
        rot = d.xmat[o.body].reshape(3, 3)
        drills[o.name] = {"pos": _rl(d.xpos[o.body]), "quat": _rl(d.xquat[o.body]), "rot": _rows(rot),
                          "tip": _rl(d.site_xpos[lay.drill_tip_site[k]]), "axis": _rl(rot[:, 0]),
                          "lin_vel": _rl(d.qvel[o.dadr:o.dadr + 3]),
                          "held_by": holders(hold_map, o.name),
                          "touching": sorted(touching[o.name]),
                          "engaged_screw": None if states[k].screw is None else f"screw{states[k].screw}",
                          "driving": states[k].screw is not None and states[k].driving}
    return drills


def _screws(engine: Engine, hold_map: Holds, touching) -> dict[str, Any]:
    lay, d, driver = engine.layout, engine.data, engine.driver
    screws = {}
    for k in range(engine.spec.screws):
        o = lay.object_by_name[f"screw{k}"]
        st = driver.screws[k]
        hole = None if st.state == "free" else driver.seat_axis(k)
        rot = d.xmat[o.body].reshape(3, 3)
        screws[o.name] = {"pos": _rl(d.xpos[o.body]), "quat": _rl(d.xquat[o.body]), "rot": _rows(rot),
                          "head_top": _rl(d.site_xpos[lay.screw_top_site[k]]),
                          "tip": _rl(d.site_xpos[lay.screw_tip_site[k]]), "axis": _rl(-rot[:, 2]),
                          "lin_vel": _rl(d.qvel[o.dadr:o.dadr + 3]),
                          "held_by": holders(hold_map, o.name),
                          "touching": sorted(touching[o.name]),
                          "hole": None if hole is None else {"axis": _rl(hole[0]), "head_top": _rl(hole[1])},
                          "state": st.state, "depth_mm": _r(st.depth * 1000, 4),
                          "to_go_mm": _r(max(0.0, st.max_depth - st.depth) * 1000, 4) if st.state != "free" else None,
                          "top": st.top, "bottom": st.bottom,
                          "anchor_top": st.anchor_top, "anchor_bottom": st.anchor_bottom,
                          "joint_active": bool(d.eq_active[lay.joint_eq[k]]), "camouts": st.camouts,
                          "stripped_how": st.stripped_how or None}
    return screws


def observe(engine: Engine) -> dict[str, Any]:
    """The state as the service's GET /state returns it (from the engine's current derived quantities)."""
    from simreflect.suites.workshop.grader import joint_status

    hold_map = engine.holds()
    con = engine.contacts()
    touching, robot_touch, hand_contacts = _touches(engine, con)
    arms = {side: _arm(engine, side, con, hold_map, hand_contacts[side]) for side in SIDES}
    all_holds = [{"hand": h, "object": n} for (h, n), v in sorted(hold_map.items()) if v["held"]]
    state = {"time": _r(engine.time, 9), "step": engine.step_count, "arms": arms,
             "boards": _boards(engine, hold_map, touching, robot_touch), "drills": _drills(engine, hold_map, touching),
             "screws": _screws(engine, hold_map, touching), "holds": all_holds}
    state["joints"] = {j.name: {"top": j.top, "bottom": j.bottom, **joint_status(state, j.top, j.bottom)}
                       for j in engine.spec.joints}
    return state
