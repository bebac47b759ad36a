"""The launcher's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    left, right = t["basket"]
    launched = ("never left the launch zone" if t["launched_step"] is None else
                f"left the launch zone at step {t['launched_step']} at {t['launch_speed']:.2f} m/s")
    return [
        f"ball at x = {t['ball_x']:.2f} m, y = {t['ball_y']:.2f} m, speed {t['ball_speed']:.2f} m/s; "
        f"the basket spans x = {left:.2f} to {right:.2f} m",
        f"the ball {launched}; highest point y = {t['apex']:.2f} m",
    ]
