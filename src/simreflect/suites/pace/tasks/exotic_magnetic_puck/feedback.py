"""The magnetic puck's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    lines = [f"puck at x = {t['x']:.2f} m, y = {t['y']:.2f} m, speed {t['speed']:.2f} m/s, {t['distance']:.2f} m from "
             f"the target's centre (closest pass {t['closest']:.2f} m)"]
    if t["launched_step"] is None:
        lines.append("the puck never left the launch zone")
        return lines
    lines.append(f"it left the launch zone at step {t['launched_step']} at {t['launch_speed']:.2f} m/s, heading "
                 f"{t['launch_dir']:.0f} degrees")
    if t["entry"] is not None:
        step, y, v, h = t["entry"]
        bend = ("" if t["entry_radius"] is None else
                f"; its path there curved {t['entry_turn']} with a radius of {t['entry_radius']:.2f} m")
        lines.append(f"it entered the field (x > 0) at step {step} at y = {y:.2f} m, {v:.2f} m/s, heading {h:.0f} "
                     f"degrees{bend}")
    lines.append("it did not come to rest" if t["stop_step"] is None else f"it came to rest at step {t['stop_step']}")
    return lines
