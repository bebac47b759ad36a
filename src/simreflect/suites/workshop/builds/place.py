"""Build 1, place: one board from the stock rack into its outline on the table. No screws, no drill."""

from __future__ import annotations

from simreflect.suites.workshop.builds.spec import TABLE_TOP, BoardSpec, Budgets, BuildTemplate

SIZE = (0.45, 0.09, 0.04)

BUILD = BuildTemplate(
    name="place",
    title="Place one board",
    boards=(BoardSpec("A", SIZE, stock_slot=0, target=(0.0, -0.02, TABLE_TOP + SIZE[2] / 2, 0.0)),),
    budgets=Budgets(actions=600, sim_seconds=240.0, wall_seconds=1200.0),
    description="Take board A from the stock rack (it lies tilted on its slot) and leave it, released and "
                "settled, with all eight corners inside its outline on the table.",
)
