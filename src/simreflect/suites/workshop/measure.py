"""Physics measurements behind the suite's claims (used by tests and the benchmark, never by a session).

- slip: a board held in the hook grasp, the arm still, how far it moves in the palm's frame over 4 s,
  with and without MuJoCo's noslip iterations.
- rigidity: two crossing boards (the lap joint) joined by 1, 2 or 3 screw constraints at the usual
  screw points, loaded with opposite torques on the two boards (about the vertical and about the
  line through the first two screws); the largest relative rotation over the load.
- upright scenes: boards set at any pose (`place_pose`), e.g. `ell_upright` (two boards standing on
  their edges, B's end against A's face) for driving screws horizontally; `torque_rotation_deg`
  loads two boards with opposite torques and gives the largest relative rotation.
All set up their scene directly (qpos, screw constraints) as a test harness: the HTTP service has no
such shortcut.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import mujoco
import numpy as np

from simreflect.suites.workshop.builds import get_build
from simreflect.suites.workshop.builds.spec import TABLE_TOP, BoardSpec, BuildSpec
from simreflect.suites.workshop.sim import Engine, ScrewState, mat_to_quat

SCREW_POINTS = ((-0.025, -0.025), (0.025, -0.025), (0.0, 0.025))  # in the overlap: along A, along B


def _place(engine: Engine, name: str, pos, yaw: float) -> None:
    o = engine.object_by_name[name]
    c, s = math.cos(yaw), math.sin(yaw)
    engine.data.qpos[o.qadr:o.qadr + 3] = pos
    engine.data.qpos[o.qadr + 3:o.qadr + 7] = mat_to_quat(np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]]))
    engine.data.qvel[o.dadr:o.dadr + 6] = 0


def place_pose(engine: Engine, name: str, pos, rot) -> None:
    """Set a free body (board, screw, drill) at a world position and rotation matrix, at rest."""
    o = engine.object_by_name[name]
    engine.data.qpos[o.qadr:o.qadr + 3] = pos
    engine.data.qpos[o.qadr + 3:o.qadr + 7] = mat_to_quat(np.asarray(rot, float))
    engine.data.qvel[o.dadr:o.dadr + 6] = 0


#: The upright ell: A standing on its long edge along x (its faces towards -y and +y), B standing
#: on its long edge along y behind A, its end against A's +y face. A screw along +y through A's -y
#: face goes through A's thickness into B's end.
ELL_A_ROT = np.column_stack([[1.0, 0, 0], [0, 0, 1.0], [0, -1.0, 0]])
ELL_B_ROT = np.column_stack([[0, 1.0, 0], [0, 0, 1.0], [1.0, 0, 0]])
ELL_AXIS = (0.0, 1.0, 0.0)


def ell_upright(engine: Engine, x: float = 0.1, y: float = -0.15) -> list[np.ndarray]:
    """Stand the lap boards (0.45 x 0.09 x 0.04 m) A and B as the upright ell at A's centre (x, y),
    settle 1 s, and return three non-collinear screw points on A's -y face inside B's end."""
    size_a = np.asarray(engine.spec.board("A").size)
    size_b = np.asarray(engine.spec.board("B").size)
    z = TABLE_TOP + size_a[1] / 2 + 0.0005
    place_pose(engine, "A", [x, y, z], ELL_A_ROT)
    place_pose(engine, "B", [x, y + size_a[2] / 2 + size_b[0] / 2 + 0.0005, TABLE_TOP + size_b[1] / 2 + 0.0005],
               ELL_B_ROT)
    mujoco.mj_forward(engine.model, engine.data)
    engine.settle(1.0)
    pa, _ = engine.board_pose("A")
    face_y = pa[1] - size_a[2] / 2
    return [np.array([pa[0] + dx, face_y, TABLE_TOP + h]) for dx, h in ((-0.01, 0.05), (0.01, 0.05), (0.0, 0.078))]


#: The jig of the braced ell: a spacer board the robot lays on the table under the runner B, so B
#: rests level with its end against upright A's face (on the table alone it would lie 40 mm lower).
JIG_SIZE = (0.40, 0.09, 0.04)


def jig_ell_spec(seed: int = 0) -> BuildSpec:
    """The lap build's boards A and B plus the jig J (stock slot 2) and generous budgets: a test
    scene for bracing (A is stood upright by the harness, J and B are placed by the robot)."""
    lap = get_build("lap").spec(seed)
    jig = BoardSpec("J", JIG_SIZE, stock_slot=2, target=(0.1, 0.12, TABLE_TOP + JIG_SIZE[2] / 2, math.pi / 2))
    return replace(lap, boards=(*lap.boards, jig),
                   budgets=replace(lap.budgets, actions=20000, sim_seconds=6000.0, wall_seconds=6000.0))


@dataclass(frozen=True)
class JigEll:
    """Where the robot puts the jig and the runner (x, y, z, yaw targets for place_board) and the
    three screw points on A's -y face that reach into B's end."""

    jig: tuple[float, float, float, float]
    runner: tuple[float, float, float, float]
    points: tuple[np.ndarray, ...]


def jig_ell(engine: Engine, x: float = 0.1, y: float = -0.15) -> JigEll:
    """Stand A upright along x at (x, y) (ELL_A_ROT), settle, and give the jig's and the runner's
    targets: J flat along y on the table behind A, B flat along y on J, its end 2 mm off A's face."""
    size_a = engine.spec.board("A").size
    size_b = engine.spec.board("B").size
    place_pose(engine, "A", [x, y, TABLE_TOP + size_a[1] / 2 + 0.0005], ELL_A_ROT)
    mujoco.mj_forward(engine.model, engine.data)
    engine.settle(1.0)
    back = y + size_a[2] / 2  # A's +y face
    jig = (x, back + 0.05 + JIG_SIZE[0] / 2, TABLE_TOP + JIG_SIZE[2] / 2, math.pi / 2)
    runner_z = TABLE_TOP + JIG_SIZE[2] + size_b[2] / 2
    runner = (x, back + 0.002 + size_b[0] / 2, runner_z, math.pi / 2)
    face = y - size_a[2] / 2
    points = tuple(np.array([x + dx, face, runner_z + dz]) for dx, dz in ((-0.015, -0.012), (0.015, -0.012), (0.0, 0.012)))
    return JigEll(jig, runner, points)


def torque_rotation_deg(e: Engine, axis, torque: float = 1.0, seconds: float = 1.0) -> float:
    """Largest rotation of B relative to A (deg) while opposite torques `torque` N m about `axis`
    act on them (B +, A -) for `seconds`."""
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    _, ra = e.board_pose("A")
    _, rb = e.board_pose("B")
    r0 = ra.T @ rb
    a, b = e.object_by_name["A"].body, e.object_by_name["B"].body
    worst = 0.0
    for _ in range(int(seconds * 180)):
        e.data.xfrc_applied[b, 3:] = torque * axis
        e.data.xfrc_applied[a, 3:] = -torque * axis
        e._step(np.zeros(e.model.nu))
        worst = max(worst, relative_rotation_deg(e, r0))
    e.data.xfrc_applied[a, 3:] = 0.0
    e.data.xfrc_applied[b, 3:] = 0.0
    return worst


def lap_on_table(n_screws: int, seed: int = 0) -> Engine:
    """A and B at their lap targets, settled, joined by the first `n_screws` screw constraints."""
    spec = get_build("lap").spec(seed)
    e = Engine(spec)
    for b in spec.boards:
        _place(e, b.name, b.target[:3], b.target[3])
    mujoco.mj_forward(e.model, e.data)
    e.settle(1.0)
    pa, ra = e.board_pose("A")
    pb, rb = e.board_pose("B")
    for k in range(n_screws):
        u, v = SCREW_POINTS[k]
        point = pa + ra[:, 0] * u + rb[:, 0] * v
        point[2] = pa[2] + spec.board("A").size[2] / 2  # the interface between the boards
        top, bottom = e.object_by_name["B"].body, e.object_by_name["A"].body
        st = ScrewState(state="driven", top="B", bottom="A", depth=0.0, max_depth=0.0,
                        entry=list(rb.T @ (point + [0, 0, 0.04] - pb)), axis=list(rb.T @ np.array([0, 0, -1.0])))
        st.embed = 0.0
        e.screws[k] = st
        # anchor: the point itself (tip - axis * embed with the tip placed at the point)
        eq = e.joint_eq[k]
        e.model.eq_obj1id[eq], e.model.eq_obj2id[eq] = top, bottom
        data = np.zeros(e.model.eq_data.shape[1])
        data[0:3] = rb.T @ (point - pb)
        data[3:6] = ra.T @ (point - pa)
        data[10] = 1.0
        e.model.eq_data[eq] = data
        e.data.eq_active[eq] = 1
        st.anchor_top, st.anchor_bottom = list(data[0:3]), list(data[3:6])
    e.settle(0.5)
    return e


def relative_rotation_deg(e: Engine, r0: np.ndarray) -> float:
    _, ra = e.board_pose("A")
    _, rb = e.board_pose("B")
    rel = ra.T @ rb
    d = rel @ r0.T
    return math.degrees(math.acos(max(-1.0, min(1.0, (np.trace(d) - 1) / 2))))


def rigidity(n_screws: int, torque: float = 1.0, seconds: float = 1.0, seed: int = 0) -> dict[str, float]:
    """Largest rotation of B relative to A (deg) under `torque` N m about the vertical and about the
    line through the first two screw points (opposite torques on A and B)."""
    out = {}
    for axis_name in ("vertical", "hinge"):
        e = lap_on_table(n_screws, seed)
        pa, ra = e.board_pose("A")
        _, rb = e.board_pose("B")
        if axis_name == "vertical":
            axis = np.array([0, 0, 1.0])
        else:
            p0 = ra[:, 0] * SCREW_POINTS[0][0] + rb[:, 0] * SCREW_POINTS[0][1]
            p1 = ra[:, 0] * SCREW_POINTS[1][0] + rb[:, 0] * SCREW_POINTS[1][1]
            axis = (p1 - p0) / np.linalg.norm(p1 - p0)
        r0 = ra.T @ rb
        a, b = e.object_by_name["A"].body, e.object_by_name["B"].body
        worst = 0.0
        for _ in range(int(seconds * 180)):
            e.data.xfrc_applied[b, 3:] = torque * axis
            e.data.xfrc_applied[a, 3:] = -torque * axis
            e._step(np.zeros(e.model.nu))
            worst = max(worst, relative_rotation_deg(e, r0))
        out[axis_name] = worst
    return out


def slip(noslip_iterations: int, seconds: float = 4.0, seed: int = 0) -> float:
    """mm a board held in the hook grasp (left hand, arm still) moves in the palm frame in `seconds`."""
    from simreflect.suites.workshop.client import LocalTransport, WorkshopClient
    from simreflect.suites.workshop.reference.common import Workshop
    from simreflect.suites.workshop.session import Session

    session = Session.for_build("place", seed)
    w = Workshop(WorkshopClient(LocalTransport(session)))
    w.hook_grasp("left", "A", (0.0, 1.0, 0.0))
    pp, pr = w.palm("left")
    w.move_to("left", pp + np.array([0, 0, 0.1]), pr, vmax=0.1, tol=0.003, rtol=0.02)
    e = session.engine
    e.model.opt.noslip_iterations = noslip_iterations
    e.settle(0.5)
    before = e._in_palm("left", "A")
    e.settle(seconds)
    return float(np.linalg.norm(e._in_palm("left", "A") - before) * 1000.0)
