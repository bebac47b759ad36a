"""The cart-pole's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    settle = ("the pole never came within the hold band" if t["first_settle"] is None else
              f"first within the hold band at step {t['first_settle']}; longest hold {t['best_hold']:.2f} s")
    return [
        f"cart at x = {t['x']:.2f} m moving {t['v']:.2f} m/s; pole at {t['tilt_deg']:.1f} deg from vertical "
        f"(counter-clockwise positive), turning at {t['spin']:.2f} rad/s",
        f"largest tilt {t['max_tilt']:.1f} deg; farthest from the middle {t['max_x']:.2f} m (the stops are reached "
        f"at {t['reach']:.2f} m); {settle}",
        f"the force command was at its limit in {100 * t['saturated']:.0f}% of the control steps",
    ]
