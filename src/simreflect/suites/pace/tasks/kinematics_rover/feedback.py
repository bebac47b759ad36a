"""The rover's terminal-state lines."""

from .world import CURB_X, DITCH_X, GOAL_X


def terminal_lines(t: dict, visible: dict) -> list[str]:
    return [
        f"rover centre of mass at x = {t['x']:.2f} m, y = {t['y']:.2f} m; chassis ({t['chassis']}) tilt "
        f"{t['tilt_deg']:.1f} deg, speed {t['speed']:.2f} m/s",
        f"furthest x = {t['best_x']:.2f} m (curb at x = {CURB_X:g} m, ditch from x = {DITCH_X:g} m, "
        f"goal x = {GOAL_X:g} m); largest tilt {t['max_tilt']:.1f} deg; broken pivots: {t['broken']}",
    ]
