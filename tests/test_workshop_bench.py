"""The bench-shaped spec (builds/bench.py), the stock racks and screw combs it needs (racks.py,
supply.py), their reach (reach.py), and the world it builds."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from simreflect.suites.workshop import racks, reach, supply, world
from simreflect.suites.workshop.builds import BUILD_NAMES, get_build
from simreflect.suites.workshop.builds.pose import target_rotation
from simreflect.suites.workshop.builds.spec import TABLE_TOP, BoardSpec, BuildSpec
from simreflect.suites.workshop.notes import describe
from simreflect.suites.workshop.sim import Engine

SEEDS = (0, 1, 2)


def test_the_bench_has_eleven_boards_fourteen_joints_and_screws_for_them():
    spec = get_build("bench").spec(0)
    assert len(spec.boards) == 11 and len(spec.joints) == 14 and spec.screws >= 3 * 14 and spec.drills == 2
    names = {b.name for b in spec.boards}
    assert all(j.top in names and j.bottom in names for j in spec.joints)
    legs = [b for b in spec.boards if b.name.startswith("L")]
    assert len(legs) == 4
    for leg in legs:  # upright: the length vertical, standing on the table
        rot = target_rotation(leg.target)
        assert abs(rot[2, 0]) == pytest.approx(1.0, abs=1e-9)
        assert leg.target[2] - leg.size[0] / 2 == pytest.approx(TABLE_TOP, abs=1e-6)
    assert {racks.rack_of(b.stock_slot) for b in spec.boards} == {"left", "right"}
    assert len({b.stock_slot for b in spec.boards}) == 11
    assert len({b.size for b in spec.boards}) == 4  # runners, legs, supports, slats
    assert "bench" not in BUILD_NAMES  # no reference controller yet: not in the suite's task list
    # every outline rests on the table or on another board: nothing stands below the table top
    for b in spec.boards:
        corners = b.target[:3] + (np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
                                  * np.asarray(b.size) / 2) @ target_rotation(b.target).T
        assert corners[:, 2].min() >= TABLE_TOP - 1e-6
        assert np.all(np.abs(corners[:, 0]) < world.TABLE_HALF[0]) and np.all(np.abs(corners[:, 1]) < world.TABLE_HALF[1])


@pytest.mark.parametrize("build", [*BUILD_NAMES, "bench"])
def test_every_stock_slot_is_within_its_arms_reach(build):
    worst = math.inf
    for seed in SEEDS:
        for name, r in reach.slot_reach(get_build(build).spec(seed)).items():
            assert r.margin > 0.005, (seed, name, r)
            worst = min(worst, r.margin)
    print(f"{build}: worst slot reach margin {worst * 1000:.1f} mm")


def test_the_slot_past_the_old_racks_end_is_out_of_reach():
    """The measure tells: a sixth 90 mm board on the left rack (the first builds' slot 5) is out."""
    boards = tuple(BoardSpec(f"B{i}", (0.45, 0.09, 0.04), i, (0.0, 0.0, 0.74, 0.0)) for i in range(6))
    got = reach.slot_reach(BuildSpec(name="x", title="x", seed=0, boards=boards))
    assert got["B4"].margin > 0 > got["B5"].margin


@pytest.mark.parametrize("screws", [14, supply.COMB_CELLS, supply.MAX_SCREWS])
def test_every_screw_cell_is_on_the_table_and_within_its_arms_reach(screws):
    spec = get_build("bench").spec(0)
    worst = math.inf
    for k in range(screws):
        c = supply.cell(k, screws)
        # the cell and its comb or stand (half a pitch around it) on the table
        half = supply.STAND_DY / 2 if supply.uses_stands(screws) else world.COMB_PITCH / 2
        assert abs(c.x) + 0.04 < world.TABLE_HALF[0] and abs(c.y) + half <= world.TABLE_HALF[1] + 1e-9
        r = reach.wrist_reach(c.side, reach.pinch_wrist(world.screw_start(k, screws)), spec)
        assert r.margin > 0.05, (k, r)
        worst = min(worst, r.margin)
    print(f"{screws} screws: worst screw cell reach margin {worst * 1000:.1f} mm")
    with pytest.raises(ValueError):
        supply.check_counts(supply.MAX_SCREWS + 1, 1)


def _farthest_cell(side: str, screws: int) -> int:
    hx, hy = world.BASE_HOME[side]
    shoulder = np.array([hx, hy + world.SHOULDER_OFFSET[1], world.SHOULDER_OFFSET[2]])
    mine = [k for k in range(screws) if supply.cell(k, screws).side == side]
    return max(mine, key=lambda k: float(np.linalg.norm(world.screw_start(k, screws) - shoulder)))


@pytest.mark.parametrize("side", world.SIDES)
def test_the_farthest_screw_of_a_full_supply_is_picked_alone(side):
    """The reference's scissor pick (reference/common.py) of the screw farthest from the arm, with
    every other screw of the bench's 44 in place: it is held, nothing else moved."""
    from simreflect.suites.workshop.client import LocalTransport, WorkshopClient
    from simreflect.suites.workshop.reference.common import Workshop
    from simreflect.suites.workshop.session import Session

    spec = get_build("bench").spec(0)
    assert spec.screws == 44
    k = _farthest_cell(side, spec.screws)
    assert supply.cell(k, spec.screws).row >= 4  # a back row
    w = Workshop(WorkshopClient(LocalTransport(Session.for_build("bench", 0))))
    w.hold_still(0.5)  # the screws settle into their sockets
    before = w.state(fresh=True)["screws"]
    w.pick_screw(side, f"screw{k}")
    assert w.held(side, f"screw{k}")
    after = w.state(fresh=True)["screws"]
    moved = {n: float(np.linalg.norm(np.subtract(after[n]["pos"], before[n]["pos"]))) for n in before}
    assert moved[f"screw{k}"] > 0.03
    assert max(v for n, v in moved.items() if n != f"screw{k}") < 0.0005, moved


def test_a_board_that_fits_no_slot_or_shares_one_is_refused():
    ok = BoardSpec("A", (0.45, 0.09, 0.04), 0, (0.0, 0.0, 0.74, 0.0))
    for boards in ((ok, BoardSpec("B", (0.45, 0.09, 0.04), 0, (0.0, 0.0, 0.74, 0.0))),
                   (BoardSpec("B", (0.80, 0.09, 0.04), 1, (0.0, 0.0, 0.74, 0.0)),),
                   (BoardSpec("B", (0.45, 0.09, 0.04), racks.N_SLOTS, (0.0, 0.0, 0.74, 0.0)),)):
        with pytest.raises(ValueError):
            world.model_xml(BuildSpec(name="x", title="x", seed=0, boards=boards))


def test_the_racks_keep_the_first_builds_slots_and_pack_narrow_boards_closer():
    sites = racks.slot_sites(get_build("frame").spec(0))
    assert [round(sites[k].y, 9) for k in range(5)] == [-0.16, 0.01, 0.18, 0.35, 0.52]
    bench = get_build("bench").spec(0)
    right = [s for s in racks.slot_sites(bench).values() if s.rack == "right"]
    assert np.allclose(np.diff([s.y for s in right]), 0.06 + racks.RACK_GAP)
    assert all(s.x == racks.RACK_X["right"] > world.TABLE_HALF[0] for s in right)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_bench_world_builds_and_every_board_rests_in_its_rack(seed):
    spec = get_build("bench").spec(seed)
    xml = world.model_xml(spec)
    mujoco.MjModel.from_xml_string(xml)  # compiles
    engine = Engine(spec)
    start = {b.name: world.stock_pose(b, spec) for b in spec.boards}
    engine.settle(1.0)
    for b in spec.boards:
        pos, rot = engine.board_pose(b.name)
        p0, r0 = start[b.name]
        assert np.linalg.norm(pos - p0) < 0.002, (b.name, pos - p0)  # settled onto its supports, no further
        assert np.allclose(rot, r0, atol=0.003), b.name
        v = engine.data.qvel[engine.object_by_name[b.name].dadr:engine.object_by_name[b.name].dadr + 6]
        assert np.linalg.norm(v) < 0.01
    for k in range(spec.screws):  # every screw stands in its cell on the table
        head = engine.data.xpos[engine.object_by_name[f"screw{k}"].body]
        c = supply.cell(k, spec.screws)
        assert np.allclose(head, world.screw_start(k, spec.screws), atol=0.002) and c.floor_z >= TABLE_TOP
    for k in range(spec.drills):
        assert engine.data.xpos[engine.object_by_name[f"drill{k}"].body][2] > TABLE_TOP


def test_the_spec_document_gives_the_geometry_to_plan_with():
    spec = get_build("bench").spec(0)
    doc = describe(spec)["workshop"]
    assert doc["table"]["top_z"] == TABLE_TOP and doc["table"]["half_size"] == list(world.TABLE_HALF)
    assert {s["board"] for s in doc["racks"]["slots"]} == {b.name for b in spec.boards}
    slot = next(s for s in doc["racks"]["slots"] if s["board"] == "LLF")
    assert slot["rack"] == "right" and slot["size"] == [0.40, 0.06, 0.03]
    assert np.allclose(slot["pos"], world.stock_pose(spec.board("LLF"), spec)[0], atol=1e-6)
    assert len(doc["supply"]["screw_cells"]) == spec.screws and len(doc["supply"]["drill_slots"]) == 2
    assert doc["arm"]["upper_arm"] == world.UPPER_ARM and doc["arm"]["reach_max"] == pytest.approx(reach.REACH_MAX)
    assert doc["arm"]["base_travel"]["left"]["x"] == pytest.approx([-1.27, 0.63])
    assert "targets" in doc and "pitch" in doc["targets"]


def _overlap(a: BoardSpec, b: BoardSpec) -> float:
    """How far (m) two target outlines interpenetrate along their axis of least overlap (separating
    axis test; negative: that far apart, 0: face on face)."""
    pa, ra, ha = np.asarray(a.target[:3]), target_rotation(a.target), np.asarray(a.size) / 2
    pb, rb, hb = np.asarray(b.target[:3]), target_rotation(b.target), np.asarray(b.size) / 2
    axes = [ra[:, i] for i in range(3)] + [rb[:, i] for i in range(3)] + \
           [np.cross(ra[:, i], rb[:, j]) for i in range(3) for j in range(3)]
    least = math.inf
    for ax in axes:
        if np.linalg.norm(ax) < 1e-9:
            continue
        ax = ax / np.linalg.norm(ax)
        reach_ = sum(ha[i] * abs(ra[:, i] @ ax) for i in range(3)) + sum(hb[i] * abs(rb[:, i] @ ax) for i in range(3))
        least = min(least, reach_ - abs((pb - pa) @ ax))
    return least


@pytest.mark.parametrize("seed", SEEDS)
def test_the_bench_outlines_touch_at_every_joint_and_overlap_nowhere(seed):
    spec = get_build("bench").spec(seed)
    for i, a in enumerate(spec.boards):
        for b in spec.boards[i + 1:]:
            assert _overlap(a, b) < 1e-6, (a.name, b.name)
    for j in spec.joints:
        assert _overlap(spec.board(j.top), spec.board(j.bottom)) > -1e-6, j.name  # face on face
