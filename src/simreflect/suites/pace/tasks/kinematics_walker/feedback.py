"""The walker's terminal-state lines."""

from .world import GOAL_X, STEP_X, TRENCH_X


def terminal_lines(t: dict, visible: dict) -> list[str]:
    return [
        f"walker centre of mass at x = {t['x']:.2f} m, y = {t['y']:.2f} m; body ({t['body']}) tilt "
        f"{t['tilt_deg']:.1f} deg, speed {t['speed']:.2f} m/s",
        f"furthest x = {t['best_x']:.2f} m (ledge at x = {STEP_X:g} m, trench from x = {TRENCH_X:g} m, "
        f"goal x = {GOAL_X:g} m); largest tilt {t['max_tilt']:.1f} deg; time with parts other than feet on the "
        f"ground {t['drag_s']:.2f} s; broken joints: {t['broken']}",
    ]
