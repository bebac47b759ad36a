"""The egg cradle's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    caught = ("the egg was never caught" if t["caught_step"] is None else
              f"the egg landed at step {t['caught_step']} at {t['impact_speed']:.2f} m/s")
    return [
        f"egg at x = {t['x']:.2f} m, y = {t['y']:.2f} m, speed {t['speed']:.2f} m/s; fastest in the last second "
        f"{t['late_speed']:.2f} m/s",
        f"{caught}; the hardest it was decelerated: {t['peak_g']:.1f} g at step {t['peak_step']}",
    ]
