"""The lock flight's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    lv, z, v = t["levels"], t["lifts"], t["valves"]
    stalls = [str(k + 1) for k, s in enumerate(t["stalled"]) if s]
    return [
        f"boat at x = {t['x']:.2f} m moving {t['vx']:.2f} m/s; least keel clearance {t['min_clear']:.2f} m",
        f"water levels: lower pool {lv[0]:.2f} m, chamber 1 {lv[1]:.2f} m, chamber 2 {lv[2]:.2f} m, upper pool "
        f"{lv[3]:.2f} m",
        f"gate lifts {z[0]:.2f}, {z[1]:.2f}, {z[2]:.2f} m; valve openings {v[0]:.2f}, {v[1]:.2f}, {v[2]:.2f}",
        f"largest flow under a gate {t['peak_flow']:.2f} m^3/s; hardest strike {t['peak_strike']:.2f} m/s; "
        + (f"gate motor(s) {', '.join(stalls)} stalled at some point" if stalls else "no gate motor stalled"),
    ]
