"""The host's work in pace's water is bounded deterministically (water.py: `work`, `max_work`).

The attack (found by the hardening pass): a design of many large blocks in the boat's waves, each
cut into 0.25 m strips every step, kept the host busy for 99 s (0.4 s of it Box2D); the engine
takes up to 400 parts of 10 m, and a design breaking the task's rules is still simulated. Now the
water counts the pieces it cuts and ends the run past the card's budget, with the reason in the
execution constraint. No wall time is asserted: the counter and the verdict are.
"""

from __future__ import annotations

import re
import sys

import pytest
from Box2D import b2PolygonShape, b2World

from simreflect.suites.pace.engine import StopSimulation
from simreflect.suites.pace.evaluate import evaluate
from simreflect.suites.pace.task import load_spec
from simreflect.suites.pace.water import STRIP, Water

BOAT = load_spec("granular_boat")
AMPHIBIAN = load_spec("granular_amphibian")


def blocks(n: int, size: float) -> str:
    rows = [f"    api.block((0.0, {-1.5 + 0.01 * i:.2f}), {size}, 0.5, material='foam')" for i in range(n)]
    return "def build(api):\n" + "\n".join(rows) + "\n"


def world_module(spec):
    return sys.modules[spec.world_class.__module__]


def test_the_water_counts_its_pieces_and_stops_past_its_budget():
    world = b2World(gravity=(0, -9.81))
    body = world.CreateDynamicBody(position=(0.0, 0.0))
    body.CreateFixture(shape=b2PolygonShape(box=(2.0, 0.25)), density=100.0)  # 4 m wide: 16 strips
    waves = Water(rho=1000.0, g=9.81, x_range=(-50.0, 50.0), wave_height=0.4, wave_length=6.0, max_work=40)
    waves.act(body)
    assert waves.work == 16 == round(4.0 / STRIP)
    waves.act(body)
    assert waves.work == 32
    with pytest.raises(StopSimulation) as stop:
        waves.act(body)
    assert stop.value.kind == "work" and "more than 40 pieces" in str(stop.value)
    calm = Water(rho=1000.0, g=9.81, x_range=(-50.0, 50.0), max_work=2)
    calm.act(body)
    calm.act(body)
    assert calm.work == 2  # calm water: one piece per fixture
    with pytest.raises(StopSimulation):
        calm.act(body)


def test_many_large_blocks_in_waves_end_by_the_counter(monkeypatch):
    """The attack, with the boat's budget scaled down 100x (the same code path; the full budget
    runs in the slow test): the run ends at the step the budget runs out, with the reason."""
    monkeypatch.setattr(world_module(BOAT), "WATER_WORK", 3_000)
    ev = evaluate(BOAT, "stage1", blocks(40, 8.0), trusted_inprocess=True)  # our own program
    execution = next(c for c in ev.constraints if c.name == "execution")
    assert not execution.passed
    assert "the design made the water model cut more than 3,000 pieces" in execution.detail
    assert ev.steps < 10 and not ev.passed  # 40 blocks of 8 m: 1,280 strips a step
    assert any(e.kind == "failure" and "water model" in e.text for e in ev.events)


@pytest.mark.parametrize("spec, stated", [(BOAT, "300,000"), (AMPHIBIAN, "240,000")])
def test_each_water_card_states_its_budget(spec, stated):
    assert f"{world_module(spec).WATER_WORK:,}" == stated
    assert re.search(rf"at most {stated} pieces", " ".join(spec.api_doc.split()))


@pytest.mark.slow
@pytest.mark.parametrize("n, size", [(40, 8.0), (400, 10.0)])
def test_the_worst_designs_we_built_end_by_the_real_budget(n, size):
    ev = evaluate(BOAT, "stage1", blocks(n, size))  # sandboxed, as pace verify runs it
    execution = next(c for c in ev.constraints if c.name == "execution")
    assert not execution.passed and "cut more than 300,000 pieces" in execution.detail
    assert ev.steps * n * round(size / STRIP) <= 300_000 < (ev.steps + 2) * n * round(size / STRIP) * 2
