"""View and overlays of the maze."""

from .world import CELL, COLS, ROWS


def view(env):
    return (-0.5, -0.5, COLS * CELL + 1.5, ROWS * CELL + 0.5)


def overlays(env):
    x = COLS * CELL
    return [{"kind": "line", "points": [(x + 0.4, (ROWS - 1) * CELL), (x + 0.4, ROWS * CELL)], "colour": "goal"}]
