"""The rocket sled's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    lines = [f"sled at x = {t['x']:.2f} m moving at {t['v']:.2f} m/s (dock mark {visible['dock_x']:g} m); top speed "
             f"{t['v_peak']:.2f} m/s",
             f"mass now {t['mass']:.1f} kg: fuel left {t['fuel']:.1f} kg (burned {t['burned']:.1f} kg), dust swept up "
             f"{t['dust']:.1f} kg",
             f"largest acceleration along the rail {t['peak_a']:.2f} m/s^2 (step {t['peak_a_step']})"]
    if t["fuel_out_step"] is not None:
        lines.append(f"the fuel ran out at step {t['fuel_out_step']}")
    return lines
