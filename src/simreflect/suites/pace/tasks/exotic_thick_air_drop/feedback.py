"""The supply drop's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    left, right = t["strip"]
    lines = [f"released at x = {t['release_x']:.2f} m; parts strapped to the package: "
             + (", ".join(t["strapped"]) if t["strapped"] else "none")]
    if t["steady"] is not None:
        step, alt, rate, drift = t["steady"]
        lines.append(f"steady descent from step {step} (altitude {alt:.1f} m): falling {rate:.2f} m/s, drifting "
                     f"{drift:+.2f} m/s")
    if t["half_x"] is not None:
        lines.append(f"at half the drop height the package was at x = {t['half_x']:.2f} m")
    if t["touch"] is None:
        lines.append(f"no touchdown; the package is at x = {t['x']:.2f} m, altitude {t['y']:.2f} m")
    else:
        speed, vx, vy, tilt = t["touch"]
        lines.append(f"touchdown at step {t['touch_step']} at x = {t['x']:.2f} m (strip {left:g} to {right:g} m), "
                     f"{speed:.2f} m/s (vertical {vy:.2f}, horizontal {vx:+.2f}), tilt {tilt:.0f} deg")
    lines.append(f"largest tilt of the package before touchdown {t['max_tilt']:.1f} deg")
    return lines
