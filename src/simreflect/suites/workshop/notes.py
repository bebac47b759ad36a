"""Instruction and interface notes of the workshop suite (what an agent reads), and the /spec document."""

from __future__ import annotations

from typing import Any

from simreflect.core.evidence import EvidenceLevel
from simreflect.suites.workshop import grader, guard, protocol, racks, reach, recording, session, sim, supply, world
from simreflect.suites.workshop.builds.spec import BuildSpec

URL_FILE = "service_url.txt"
URL_ENV = "WORKSHOP_URL"
PROGRAM_FILE = "agent.py"

SERVICE_DOC = """Drive a simulated two-armed robot in a workshop of boards, drills and screws.
Simulated time (180 steps/s) advances only inside commands. Read the exact state with GET /state; move with
POST /act (a list of segments) or POST /step (one segment); POST /note records a progress note; POST /finish
lets the world settle for 1 s and freezes the final state that is graded. There is no reset and no way to set
a pose: the world changes only through the robot. Malformed or out-of-range commands get 422 and change nothing.
"""

INTERFACE = f"""## The workshop service (HTTP, JSON, 127.0.0.1 only; OpenAPI schema at /openapi.json)
Your program finds the service URL in the environment variable {URL_ENV} (also in the file {URL_FILE}).
- GET /spec: the build (boards with sizes and target outlines, joints, screws, drills, budgets), the
  workshop's geometry ("workshop": table, stock racks with every slot's board, pose and size, screw combs and
  drill slots, link lengths, base travel, reach), every joint of the robot with its range, rate limit, servo
  gain and force limit, and the numbers of the rules below.
- Targets: a board's target is [x, y, z, yaw] (lying flat, turned yaw about the vertical) or
  [x, y, z, yaw, pitch, roll], the rotation Rz(yaw) Ry(pitch) Rx(roll) in radians, whose columns are the
  outline's length, width and thickness axes (a board standing upright on its end, its width along y, has
  pitch -pi/2). The outline is a box of the board's own size at that pose; the state's target progress gives
  yaw_error_deg for the first form and rotation_error_deg (modulo the box's half turns) for the second.
- GET /state: time; per arm every joint (q, servo target, velocity, range, at_limit, lagging), the palm
  site pose (pos, rot rows, quat w x y z), the pinch site, fingertip positions, hand contacts (part, with,
  normal force N, normal, slip speed mm/s), arm collisions, holds (object, held, force, slip_mm); per board
  pose, size, velocities, corners, what it touches, held_by, lifted, and its target progress (worst corner
  protrusion mm, centre and yaw error), last_carry (its pose the last time it was carried) and
  moved_since_carry_mm; drills (pose, bit tip, axis, held_by, engaged_screw, driving); screws (pose, head top,
  tip, axis, state free/seated/driven/stripped, depth, hole axis, top and bottom board, joint_active);
  joints (screws, spread, rigid); holds; budgets; reward; done. Resting objects sleep: their contacts are
  not listed until something awake touches them. GET /state?fields=boards,screws returns only the top-level
  fields named (the whole state is tens of kB).
- POST /act {{"segments": [...]}} (at most 50) runs in order; each segment costs one action. With
  "with_state": true the answer's "state" is the state after them, as GET /state would give it.
  {{"type": "move", "duration": s, "left": ARM, "right": ARM, "stop": [STOP, ...]}}
    ARM = {{"joints": {{name: velocity}}, "ee": {{"linear": [vx, vy, vz], "angular": [wx, wy, wz],
            "point": [x, y, z], "use_base": false}}}}
    Joint velocities are rad/s (m/s for base_x, base_y), each within its rate limit. "ee" moves a point
    fixed to the hand (the world point given, at the segment's start; default the palm site) with that
    twist, the seven arm joints following by damped least squares; not together with arm joint names.
    Each servo target moves with the commanded velocity but never more than the joint's max_lag ahead of
    the joint: a blocked joint stops and pushes with its gain times that lag, at most its force limit.
    STOP = {{"a": name, "b": name or class, "min_force": N}}: end the segment when a touches b (classes:
    any, static, object, robot, left_hand, right_hand, left, right), or {{"a": screw, "state": "driven"}}.
  {{"type": "wait", "duration": s}}
  {{"type": "drill", "hand": "left"|"right", "action": "engage"|"release"}}
- POST /step: one segment. POST /note {{"text": ...}}. POST /finish {{"summary": ...}}.
- Budgets: actions, simulated seconds and wall seconds, and the record's size; the command that spends one
  is carried out and answered ("done": true), then the session finishes. Notes: at most {session.MAX_NOTES}, of
  {protocol.MAX_NOTE_CHARS} characters each and {session.MAX_NOTES_CHARS} in all; a note past that is refused (409)
  and the session goes on.
- Limits (GET /spec "limits"): a request body of at most {guard.MAX_BODY_BYTES} bytes (413), at most
  {guard.MAX_IN_FLIGHT} requests at once (429), finite numbers only (NaN and infinities are refused), names of at
  most {protocol.MAX_NAME_CHARS} characters. Every refusal is a JSON body {{"detail": ...}} with a 4xx status.
- After each command the engine returns a shaped reward (board distances to targets, +10 on success,
  -1 per board lost to the floor). The grader ignores it.

## The robot
Two identical arms ("left" at -x, "right" at +x), each on a base sliding in x and y, a column, seven arm
joints (shoulder_yaw, shoulder_pitch, upper_roll, elbow, forearm_roll, wrist_pitch, wrist_roll) and a hand:
a palm (face = +x of the palm frame, finger row = +y towards the index, wrist = +z), four fingers on its far
edge (index, middle, ring, little; joints _1, _2, _3 curl towards the palm side; index, ring and little also
have _spread) and a thumb on its near edge (thumb_opposition: 0 faces the fingers across the palm, 1.5 swings
it out of the way; thumb_1.._3 curl it towards the fingers). Grip is by contact only: a hold is opposed,
force-bearing contact (two contacts of at least {sim.HOLD_MIN_FORCE} N whose normals are more than 120 degrees
apart). Objects can slip, turn or drop; curling too far can push an object out.

## Drill and screws (the model's abstraction)
- engage: the hand must hold the drill; the bit tip within {sim.ENGAGE_TIP_MM} mm of a screw head's top centre,
  the bit within {sim.ENGAGE_ANGLE_DEG} deg of the screw axis (else refused, nothing changes). A free screw
  must stand with its tip on a board face (within {sim.SEAT_TIP_MM} mm of it, {sim.SEAT_INSET_MM} mm inside its
  edges), its axis within {sim.SEAT_ANGLE_DEG} deg of the face normal: engaging seats it in that (top) board.
- feed: move the engaged bit along the screw axis; the screw turns in as fast as the bit is fed (at most
  {sim.FEED_MAX_SPEED * 1000:.0f} mm/s), never while a hand still touches it (let go first).
- the bit stays in the screw's head from the engage until it is withdrawn: release stops driving (the screw
  stops turning) but leaves the bit in the head; engage again to drive on.
- withdraw: {sim.WITHDRAW_MM} mm back along the axis takes the bit out of the head; withdraw before any sideways
  move. A bit in a head that tilts more than {sim.CAMOUT_ANGLE_DEG} deg off the axis or moves {sim.CAMOUT_OFFSET_MM} mm off
  it strips the screw: the screw stays where it is (state "stripped"), holds nothing (a driven one never joins
  its boards) and cannot be engaged again; use another screw.
- done: when the head reaches the face the screw is driven; if its tip is at least {sim.EMBED_MIN_MM} mm inside
  another board, once the bit is off it the screw holds the two boards together at that point (a ball joint):
  one screw pivots, two make a hinge, three non-collinear make the joint rigid.

## What is graded (one point or none, from the final state only)
Every board lifted (held and carried by the robot alone for {sim.LIFT_HOLD_S} s), released, settled, resting where its
last carry let it go (no corner more than {grader.CARRY_REST_MM} mm away horizontally: a board pushed or dragged along
the table after its last lift is not placed; "moved_since_carry_mm" in the state), with all eight corners inside
its target outline (a box of its own size) up to {grader.PLACEMENT_MARGIN_MM} mm; every joint rigid
with three screws driven through its top board into its bottom board, non-collinear by at least
{grader.NONCOLLINEAR_MM} mm; every drill withdrawn (not engaged, bit at least {grader.WITHDRAWN_CLEAR_MM} mm from
every screw head); nothing held. Boards placed, screws in and corner protrusions are reported, not scored.
"""


def instruction(spec: BuildSpec) -> str:
    boards = ", ".join(f"{b.name} ({b.size[0] * 1000:.0f} x {b.size[1] * 1000:.0f} x {b.size[2] * 1000:.0f} mm)"
                       for b in spec.boards)
    joints = "; ".join(f"{j.name}: {j.top} on {j.bottom}" for j in spec.joints) or "none"
    return (f"You control a simulated two-armed robot in a workshop through a local HTTP command service. "
            f"Build '{spec.name}' (seed {spec.seed}): {spec.description}\n"
            f"Boards: {boards}. Joints: {joints}. Screws in the comb: {spec.screws}. Drills: {spec.drills}.\n"
            f"Write one Python program (standard library, httpx and numpy are available) that completes the "
            f"build through the service and then calls POST /finish. Nobody gives movement advice; the state "
            f"is exact. Budgets: {spec.budgets.actions} actions, {spec.budgets.sim_seconds:g} simulated seconds, "
            f"{spec.budgets.wall_seconds:g} wall seconds.\n")


def interactive_instruction(spec: BuildSpec) -> str:
    """The opening of an interactive session: the build, and that the work goes through tools in
    one live session (the tools and the harness's budgets follow from core.interactive)."""
    return instruction(spec).replace(
        "Write one Python program (standard library, httpx and numpy are available) that completes the "
        "build through the service and then calls POST /finish.",
        "You work in one live session: send commands to the service one at a time with the http tool, read "
        "the state between them (simulated time is paused while you think, wall time is not), or run Python "
        "with the python tool (standard library, httpx and numpy; the service URL is in $WORKSHOP_URL). Check "
        "the measured result before you call finish.")


def interface_notes(level: EvidenceLevel | int = EvidenceLevel.L1) -> str:
    return INTERFACE


TARGETS_DOC = ("a board's target is [x, y, z, yaw] (lying flat, turned yaw about the vertical) or [x, y, z, yaw, "
               "pitch, roll]: the rotation R = Rz(yaw) Ry(pitch) Rx(roll), radians, whose columns are the outline's "
               "length, width and thickness axes in the world (an upright board standing on its end with its width "
               "along y: pitch = -pi/2). The outline is a box of the board's own size at that pose; a half turn about "
               "any of the board's own axes gives the same box.")


def workshop_geometry(spec: BuildSpec) -> dict[str, Any]:
    """The fixed geometry an agent plans with: table, racks, screw supply, arm links, base travel, reach."""
    travel = {}
    for side in world.SIDES:
        hx, hy = world.BASE_HOME[side]
        (lx, ux), (ly, uy) = world.JOINT_RANGES["base_x"], world.JOINT_RANGES["base_y"]
        travel[side] = {"x": [round(hx + lx, 6), round(hx + ux, 6)], "y": [round(hy + ly, 6), round(hy + uy, 6)]}
    return {
        "units": "metres, radians; world z up, the robot on the -y side of the table facing +y",
        "targets": TARGETS_DOC,
        "table": {"centre": list(world.TABLE_CENTER), "half_size": list(world.TABLE_HALF), "top_z": world.TABLE_TOP},
        "racks": {"x": dict(racks.RACK_X), "slots_per_rack": racks.SLOTS_PER_RACK,
                  "note": "slots 0-5 are the left rack's, 6-11 the right's, front to back; a board lies on its "
                          "slot's two supports, its long axis along x, tilted about x by `tilt` (its +y edge up), "
                          "its low edge against the lip; `pos`/`rot` is its pose at rest",
                  "slots": racks.describe(spec)},
        "supply": {**supply.describe(spec.screws, spec.drills),
                   "note": "each screw stands on its tip in a square socket (its floor at floor_z). A comb (up to 22 "
                           "screws) stands on the table: a hand reaching a back cell from the front sweeps the cells "
                           "in front of it, so take a column front to back. Past 22 screws each arm has a stepped "
                           "stand: every row a step higher than the one in front, columns wider apart than a hand, "
                           "so any screw can be taken first from the front"},
        "arm": {"shoulder_offset": list(world.SHOULDER_OFFSET), "upper_arm": world.UPPER_ARM,
                "forearm": world.FOREARM, "wrist_to_hand": world.WRIST_TO_HAND,
                "reach_max": reach.REACH_MAX, "reach_min": round(reach.REACH_MIN, 6),
                "reach_note": "the wrist centre lies between reach_min and reach_max from the shoulder (the base "
                              "origin plus shoulder_offset); the base is a 0.34 m square box that cannot enter the "
                              "table",
                "base_home": {k: list(v) for k, v in world.BASE_HOME.items()}, "base_travel": travel},
    }


def describe(spec: BuildSpec) -> dict[str, Any]:
    joints = {}
    for short in world.SIDE_JOINTS:
        jc = world.JOINT_CLASSES[world.joint_class(short)]
        joints[short] = {"range": list(world.JOINT_RANGES[short]), "max_velocity": jc.max_velocity,
                         "max_lag": jc.max_lag, "kp": jc.kp, "force_limit": jc.force,
                         "unit": "m" if short.startswith("base") else "rad"}
    return {
        "build": spec.to_dict(),
        "workshop": workshop_geometry(spec),
        "rate_hz": world.HZ,
        "robot": {"sides": list(world.SIDES), "joints": joints, "arm_joints": list(world.ARM_JOINTS),
                  "hand_joints": list(world.HAND_JOINTS), "base_home": {k: list(v) for k, v in world.BASE_HOME.items()}},
        "rules": {
            "placement_margin_mm": grader.PLACEMENT_MARGIN_MM, "carry_rest_mm": grader.CARRY_REST_MM,
            "noncollinear_mm": grader.NONCOLLINEAR_MM,
            "settled_speed": grader.SETTLED_SPEED, "settled_spin": grader.SETTLED_SPIN,
            "withdrawn_clear_mm": grader.WITHDRAWN_CLEAR_MM, "lift_hold_s": sim.LIFT_HOLD_S, "settle_s": sim.SETTLE_S,
            "engage_tip_mm": sim.ENGAGE_TIP_MM, "engage_angle_deg": sim.ENGAGE_ANGLE_DEG,
            "seat_tip_mm": sim.SEAT_TIP_MM, "seat_inset_mm": sim.SEAT_INSET_MM, "seat_angle_deg": sim.SEAT_ANGLE_DEG,
            "feed_lead_mm": sim.FEED_LEAD * 1000, "feed_max_speed": sim.FEED_MAX_SPEED, "camout_angle_deg": sim.CAMOUT_ANGLE_DEG,
            "camout_offset_mm": sim.CAMOUT_OFFSET_MM, "withdraw_mm": sim.WITHDRAW_MM, "embed_min_mm": sim.EMBED_MIN_MM,
            "screw_length": world.SCREW_LENGTH,
        },
        "limits": {
            "body_bytes": guard.MAX_BODY_BYTES, "requests_in_flight": guard.MAX_IN_FLIGHT,
            "segments_per_act": protocol.MAX_SEGMENTS, "segment_s": protocol.MAX_SEGMENT_S,
            "stops_per_segment": protocol.MAX_STOPS, "name_chars": protocol.MAX_NAME_CHARS,
            "note_chars": protocol.MAX_NOTE_CHARS, "notes": session.MAX_NOTES, "notes_chars": session.MAX_NOTES_CHARS,
            "record_bytes": recording.MAX_RECORD_BYTES, "numbers": "finite (NaN and infinities are refused)",
        },
    }
