"""The galloping mast's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    if t["held_window"]:
        late = (f"in the last {t['hold_s']:g} s it swayed up to {t['late_sway']:.3f} m from the vertical, about a "
                f"mean offset of {t['late_mean']:+.3f} m")
    else:
        late = f"the test ended before its last {t['hold_s']:g} s"
    a, b, c = t["thirds"]
    lines = [
        f"top of the mast at x = {t['top_x']:.3f} m; {late}",
        f"largest sway {t['peak_sway']:.3f} m (step {t['peak_sway_step']}); largest in each third of the test: "
        f"{a:.3f}, {b:.3f}, {c:.3f} m; largest lean {t['max_tilt']:.2f} deg",
    ]
    if t["peak_guy_id"]:
        lines.append(f"most loaded guy {t['peak_guy_id']}: {t['peak_guy']:.0f} N at step {t['peak_guy_step']}")
    return lines
