"""The seeker's terminal-state lines."""

import math


def terminal_lines(t: dict, visible: dict) -> list[str]:
    speed = math.hypot(t["vx"], t["vy"])
    cap = ("not captured" if t["capture_step"] is None else
           f"captured at step {t['capture_step']} at a relative speed of {t['capture_speed']:.2f} m/s")
    return [
        f"craft at ({t['x']:.2f}, {t['y']:.2f}) m, heading {t['heading_deg']:.0f} deg, moving {speed:.2f} m/s over "
        f"the ground (velocity ({t['vx']:.2f}, {t['vy']:.2f}) m/s)",
        f"beacon at ({t['beacon'][0]:.2f}, {t['beacon'][1]:.2f}) m: range {t['range']:.2f} m, bearing "
        f"{t['bearing_deg']:.0f} deg off the bow",
        f"closest approach {t['min_range']:.2f} m at step {t['min_step']}; {cap}",
    ]
