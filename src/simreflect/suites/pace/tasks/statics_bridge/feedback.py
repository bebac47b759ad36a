"""The cart bridge's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    return [
        f"cart centre at x = {t['cart_x']:.2f} m, y = {t['cart_y']:.2f} m, tilt {t['cart_tilt_deg']:.1f} deg, "
        f"speed {t['cart_speed']:.2f} m/s",
        f"furthest point reached x = {t['best_x']:.2f} m of the goal x = {t['goal_x']:g} m "
        f"(the ravine spans 0 to {visible['gap_width']:g} m)",
        f"lowest cart centre y = {t['lowest_y']:.2f} m (road level 0 m); broken joints: {t['broken_joints']}",
    ]
