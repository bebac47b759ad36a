"""The amphibian's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    return [
        f"at t = {t['time']:.2f} s the vehicle's centre of mass is at x = {t['x']:.2f} m, y = {t['y']:.2f} m "
        f"(water surface y = -0.3 m); chassis ({t['chassis'] or '-'}) speed {t['speed']:.2f} m/s",
        f"furthest x = {t['best_x']:.2f} m (goal x = {t['goal_x']:.2f} m); largest tilt {t['max_tilt']:.1f} deg; "
        f"largest share of the chassis under water {t['max_sub_pct']:.1f}%",
        f"at the end buoyancy carries {t['buoyancy_pct']:.0f}% of the weight of the vehicle and its load; "
        f"{t['wheels_grounded']} of {t['wheels']} wheels touch the ground",
    ]
