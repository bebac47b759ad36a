"""The workshop engine's parts: geom owners as the Owner enum, and the snapshot the recordings carry
keeps its keys and order after the engine was split into its parts."""

from __future__ import annotations

from simreflect.suites.workshop.builds import get_build
from simreflect.suites.workshop.layout import ARMS, HANDS, Owner, object_code, side_of
from simreflect.suites.workshop.sim import Engine

SNAPSHOT_KEYS = ["step", "actions_used", "physics", "target", "tree_asleep", "eq", "collide", "screws", "drills",
                 "boards", "hold_refs", "hold_slip", "potential", "finished"]


def test_every_geom_has_an_owner_that_names_what_it_is():
    e = Engine(get_build("lap").spec(0))
    m, lay = e.model, e.layout
    owners = [int(x) for x in lay.geom_owner]
    assert owners[m.geom("floor").id] == Owner.FLOOR
    for i, o in enumerate(lay.objects):
        assert {owners[g] for g in o.geoms} == {object_code(i)} and lay.object_of(object_code(i)) is o
    robot = [g for g, c in enumerate(owners) if c in ARMS + HANDS]
    assert robot and all(m.geom(g).name.startswith(side_of(owners[g]) + "/") for g in robot)
    assert {owners[g] for g in robot} == set(ARMS + HANDS) and all(g in lay.geom_part for g in robot)
    assert set(owners) <= {*map(int, Owner), *(object_code(i) for i in range(len(lay.objects)))}
    assert lay.owner_name(m, Owner.FLOOR, 0) == "floor" and lay.owner_name(m, object_code(0), 0) == lay.objects[0].name


def test_the_snapshot_keeps_its_keys_and_restores():
    e = Engine(get_build("lap").spec(0))
    e.settle(0.1)
    snap = e.snapshot()
    assert list(snap) == SNAPSHOT_KEYS and len(snap["screws"]) == e.spec.screws
    again = Engine(get_build("lap").spec(0))
    again.restore(snap)
    assert again.snapshot()["target"] == snap["target"] and again.step_count == e.step_count
