"""The grader: a pure function of the recorded final state and the build spec. One point or none.

It passes only if
- every board was lifted (held with opposed force-bearing contact and supported by the robot alone
  for LIFT_HOLD_S) and released into its final rest: its corners lie at most CARRY_REST_MM
  (horizontally) from where they were the last time it was carried, so a board pushed or dragged
  along the table after its last lift does not count; it is released (no contact with either arm),
  has settled (slower than SETTLED_SPEED and SETTLED_SPIN) and has all eight corners inside its
  target outline, a box of the board's own size at the target pose, up to PLACEMENT_MARGIN_MM
  (contact penetration and solver tolerance, nothing more);
- every joint of the build is rigid: at least three screws driven through its top board into its
  bottom board (a stripped screw, one whose bit was moved sideways before it was withdrawn, holds
  nothing) whose connect constraints are active and hold (the anchor seen from either board
  agrees to ANCHOR_AGREE_MM), with three of them non-collinear (a triangle whose smallest height is
  at least NONCOLLINEAR_MM);
- every drill is withdrawn (not engaged, bit tip at least WITHDRAWN_CLEAR_MM from every screw head);
- nothing is held by either hand.
Diagnostics (boards placed, screws in, the worst corner protrusion per board, ...) are reported and
never scored. The engine's shaped reward is not looked at.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from simreflect.core.verdict import Check, Detail, Verdict
from simreflect.suites.workshop.builds.pose import box_rotation_error_deg, is_flat, target_rotation
from simreflect.suites.workshop.builds.spec import BuildSpec

PLACEMENT_MARGIN_MM = 2.0
CARRY_REST_MM = PLACEMENT_MARGIN_MM  # where a board rests may differ this much from where its carry let it go
NONCOLLINEAR_MM = 15.0
ANCHOR_AGREE_MM = 1.0
SETTLED_SPEED = 0.002
SETTLED_SPIN = 0.02
WITHDRAWN_CLEAR_MM = 10.0


_SIGNS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float)


def corners(pos, rot, size) -> np.ndarray:
    half = np.asarray(size, float) / 2
    return np.asarray(pos, float) + (_SIGNS * half) @ np.asarray(rot, float).reshape(3, 3).T


def protrusion_mm(pos, rot, size, target) -> float:
    """Worst distance (mm) by which a corner of the board lies outside the target box of its own
    size, measured along the target's axes (0 when every corner is inside). The target's rotation is
    the full one (builds/pose.py): an upright outline takes an upright board."""
    x, y, z = target[:3]
    rt = target_rotation(target)
    local = (corners(pos, rot, size) - np.array([x, y, z])) @ rt  # rows: corners in target frame
    excess = np.abs(local) - np.asarray(size, float) / 2
    return float(max(0.0, excess.max()) * 1000.0)


def carry_shift_mm(pos, rot, size, carry: dict[str, Any]) -> float:
    """Largest horizontal distance (mm) a corner of the board moved since its last carry (`carry`:
    the pose then, {"pos", "rot"})."""
    now = corners(pos, rot, size)
    then = corners(carry["pos"], carry["rot"], size)
    return float(np.max(np.linalg.norm((now - then)[:, :2], axis=1)) * 1000.0)


def pose_errors(pos, rot, target) -> tuple[float, float]:
    """Centre distance (mm) and the angle error (deg): for a yaw-only target the yaw error modulo
    the board's 180-degree symmetry, as it always was; for a target with a full rotation the
    smallest rotation onto it modulo the box's symmetries (see `angle_error_key`)."""
    x, y, z = target[:3]
    dist = float(np.linalg.norm(np.asarray(pos) - np.array([x, y, z])) * 1000.0)
    r = np.asarray(rot, float).reshape(3, 3)
    if not is_flat(target):
        return dist, box_rotation_error_deg(r, target_rotation(target))
    yaw = target[3]
    byaw = math.atan2(r[1, 0], r[0, 0])
    dyaw = (byaw - yaw + math.pi / 2) % math.pi - math.pi / 2
    return dist, math.degrees(abs(dyaw))


def angle_error_key(target) -> str:
    """The name the diagnostics and the state give pose_errors' angle: "yaw_error_deg" for a
    yaw-only target (as older records have it), "rotation_error_deg" for a full rotation."""
    return "yaw_error_deg" if is_flat(target) else "rotation_error_deg"


def triangle_min_height_mm(points: list[np.ndarray]) -> float:
    """Over all triples, the largest smallest-height of the triangle (mm): 0 for collinear points."""
    best = 0.0
    for a, b, c in itertools.combinations(points, 3):
        area2 = float(np.linalg.norm(np.cross(b - a, c - a)))
        longest = max(np.linalg.norm(b - a), np.linalg.norm(c - a), np.linalg.norm(c - b))
        if longest > 0:
            best = max(best, area2 / longest * 1000.0)
    return best


def joint_status(state: dict[str, Any], top: str, bottom: str) -> dict[str, Any]:
    """Screws joining `top` onto `bottom` in a state, and whether they make the joint rigid."""
    boards = state["boards"]
    pts, bad = [], []
    names = []
    for name, s in state.get("screws", {}).items():
        if s.get("state") != "driven" or s.get("top") != top or s.get("bottom") != bottom or not s.get("joint_active"):
            continue
        pt = np.asarray(boards[top]["pos"]) + np.asarray(boards[top]["rot"]).reshape(3, 3) @ np.asarray(s["anchor_top"])
        pb = np.asarray(boards[bottom]["pos"]) + np.asarray(boards[bottom]["rot"]).reshape(3, 3) @ np.asarray(s["anchor_bottom"])
        gap = float(np.linalg.norm(pt - pb) * 1000.0)
        if gap > ANCHOR_AGREE_MM:
            bad.append((name, gap))
            continue
        pts.append((pt + pb) / 2)
        names.append(name)
    spread = triangle_min_height_mm(pts) if len(pts) >= 3 else 0.0
    return {"screws": names, "count": len(names), "spread_mm": round(float(spread), 3),
            "rigid": bool(len(pts) >= 3 and spread >= NONCOLLINEAR_MM), "broken": [[n, round(g, 3)] for n, g in bad]}


def grade(state: dict[str, Any] | None, spec: BuildSpec) -> Verdict:
    """The verdict on a final state (None or unreadable: the missing final state scores 0)."""
    if not state or "boards" not in state:
        return Verdict.invalid_artefact("no final state recorded")
    checks = []
    diag: dict[str, Any] = {"boards": {}, "joints": {}, "screws_in": 0, "boards_placed": 0}
    ok_boards = True
    details = []
    for b in spec.boards:
        s = state["boards"].get(b.name)
        if s is None:
            return Verdict.invalid_artefact(f"board {b.name} missing from the final state")
        prot = protrusion_mm(s["pos"], s["rot"], b.size, b.target)
        dist, dyaw = pose_errors(s["pos"], s["rot"], b.target)
        speed = float(np.linalg.norm(s["lin_vel"]))
        spin = float(np.linalg.norm(s["ang_vel"]))
        inside = bool(prot <= PLACEMENT_MARGIN_MM)
        released = not s.get("touching_robot", False)
        settled = bool(speed <= SETTLED_SPEED and spin <= SETTLED_SPIN)
        carry = s.get("last_carry")
        lifted = bool(s.get("lifted", False)) and isinstance(carry, dict)
        shift = carry_shift_mm(s["pos"], s["rot"], b.size, carry) if lifted else None
        carried_to_rest = lifted and shift <= CARRY_REST_MM
        placed = inside and released and settled and carried_to_rest
        ok_boards = ok_boards and placed
        diag["boards_placed"] += int(placed)
        diag["boards"][b.name] = {"worst_protrusion_mm": round(prot, 3), "inside": inside, "lifted": lifted,
                                  "moved_since_carry_mm": None if shift is None else round(shift, 3),
                                  "released": released, "settled": settled, "centre_error_mm": round(dist, 3),
                                  angle_error_key(b.target): round(dyaw, 3)}
        if not placed:
            moved = (f"moved {shift:.1f} mm along the table after its last carry (it must be lifted, carried and "
                     f"released into its rest: at most {CARRY_REST_MM} mm)") if lifted else ""
            why = [w for w, bad in (("not lifted", not lifted), (moved, lifted and not carried_to_rest),
                                    ("still touched by the robot", not released),
                                    ("not settled", not settled),
                                    (f"a corner {prot:.1f} mm outside its outline", not inside)) if bad]
            details.append(f"{b.name}: " + ", ".join(why))
    checks.append(Check("boards_placed", ok_boards, value=float(diag["boards_placed"]), limit=f"{len(spec.boards)}",
                        unit="boards", message="every board lifted, released, settled and inside its outline",
                        details=(Detail(1, "\n".join(details)),) if details else ()))
    if spec.joints:
        ok_joints = True
        jd = []
        for j in spec.joints:
            st = joint_status(state, j.top, j.bottom)
            diag["joints"][j.name] = st
            ok_joints = ok_joints and st["rigid"]
            if not st["rigid"]:
                jd.append(f"{j.name}: {st['count']} screw(s) through {j.top} into {j.bottom}, spread {st['spread_mm']:.1f} mm "
                          f"(need 3, non-collinear by {NONCOLLINEAR_MM} mm)")
        stripped = sorted(n for n, sc in state.get("screws", {}).items() if sc.get("state") == "stripped")
        if stripped:
            diag["screws_stripped"] = stripped
            jd.append("stripped (their bit was moved sideways before it was withdrawn; they hold nothing): "
                      + ", ".join(f"{n} ({state['screws'][n].get('top')} into {state['screws'][n].get('bottom')})"
                                  for n in stripped))
        checks.append(Check("joints_rigid", ok_joints, value=float(sum(diag["joints"][j.name]["rigid"] for j in spec.joints)),
                            limit=f"{len(spec.joints)}", unit="joints", message="every joint fixed by three non-collinear screws",
                            details=(Detail(1, "\n".join(jd)),) if jd else ()))
    diag["screws_in"] = sum(1 for s in state.get("screws", {}).values() if s.get("state") == "driven")
    # drills withdrawn
    heads = [np.asarray(s["head_top"]) for s in state.get("screws", {}).values()]
    bad_drills = []
    for name, dr in state.get("drills", {}).items():
        clear = min((float(np.linalg.norm(np.asarray(dr["tip"]) - h)) * 1000 for h in heads), default=math.inf)
        if dr.get("engaged_screw") is not None or clear < WITHDRAWN_CLEAR_MM:
            bad_drills.append(f"{name}: " + ("engaged" if dr.get("engaged_screw") is not None else f"bit {clear:.1f} mm from a screw head"))
    if state.get("drills"):
        checks.append(Check("drills_withdrawn", not bad_drills, value=float(len(bad_drills)), limit="0",
                            unit="drills not withdrawn", details=(Detail(1, "\n".join(bad_drills)),) if bad_drills else ()))
    held = [f"{h['hand']} hand holds {h['object']}" for h in state.get("holds", [])]
    checks.append(Check("nothing_held", not held, value=float(len(held)), limit="0", unit="holds",
                        details=(Detail(1, "\n".join(held)),) if held else ()))
    verdict_ok = all(c.passed for c in checks)
    return Verdict(checks=tuple(checks), score=1.0 if verdict_ok else 0.0, reward=1.0 if verdict_ok else 0.0,
                   diagnostics=diag)


def passes(state: dict[str, Any] | None, spec: BuildSpec) -> bool:
    """grade(state, spec).passed, without grading a state that holds anything: a hold fails the
    nothing_held check, so such a state never passes (the session asks after every command, and
    for most of a build a hand holds the drill or a board)."""
    if state and "boards" in state and state.get("holds"):
        return False
    return grade(state, spec).passed
