"""The boat's terminal-state lines."""

from .world import GOAL_X


def terminal_lines(t: dict, visible: dict) -> list[str]:
    return [
        f"at t = {t['time']:.2f} s the cargo is at x = {t['cargo_x']:.2f} m, y = {t['cargo_y']:.2f} m, moving at "
        f"{t['cargo_speed']:.2f} m/s; furthest x = {t['best_x']:.2f} m (landing at x = {GOAL_X:g} m)",
        f"largest share of the cargo under water {t['max_wet_pct']:.1f}%; largest pitch of the hull "
        f"({t['hull'] or '-'}) {t['max_tilt']:.1f} deg, of the cargo {t['max_cargo_tilt']:.1f} deg; hull now at "
        f"y = {t['hull_y']:.2f} m, pitched {t['hull_tilt']:.1f} deg",
    ]
