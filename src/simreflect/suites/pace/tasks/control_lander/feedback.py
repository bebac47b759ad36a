"""The lander's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    left, right = t["pad"]
    td = ("no touchdown" if t["touch_step"] is None else
          f"first touchdown at step {t['touch_step']} at {t['touch_speed']:.2f} m/s")
    return [
        f"lander at x = {t['x']:.2f} m, altitude {t['altitude']:.2f} m, velocity ({t['vx']:.2f}, {t['vy']:.2f}) m/s, "
        f"tilt {t['tilt_deg']:.1f} deg; the pad spans x = {left:g} to {right:g} m",
        f"{td}; fuel left {t['fuel']:.1f} kg (used {t['fuel_used']:.1f} kg)",
    ]
