"""The pendulum clock's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    if not t["pinned"]:
        return ["no part is pinned to the clock's pivot"]
    if not t["periods"]:
        return ["the pendulum completed no full swing"]
    lines = [f"{t['periods']} full periods measured (turning point to turning point on the same side): mean "
             f"{t['mean']:.4f} s, first {t['first']:.4f} s, last {t['last']:.4f} s",
             f"swing amplitude {t['amp_start']:.2f} degrees at the start, {t['amp_end']:.2f} degrees at the end"]
    if t["centre"] is not None:
        lines.append(f"the pendulum swings about the angle {t['centre']:+.2f} degrees from the pose it was declared "
                     "in (counter-clockwise positive)")
    return lines
