"""The chimney climber's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    return [
        f"climber's centre of mass at x = {t['x']:.2f} m, y = {t['y']:.2f} m (it started at {t['start']:.2f} m, "
        f"highest {t['best']:.2f} m); its heaviest part moves up at {t['vy']:.2f} m/s",
        f"broken joints: {t['broken']}",
    ]
