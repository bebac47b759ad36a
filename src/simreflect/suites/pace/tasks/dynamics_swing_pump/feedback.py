"""The swing's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    out = [f"the seat rose at most {t['best_height']:.2f} m above its lowest point (at t = {t['best_time']:.2f} s; "
           f"target {t['target']:g} m); largest swing {t['max_angle']:.1f} degrees from the vertical, now "
           f"{t['angle']:.1f} degrees"]
    if t["period_first"] is None:
        out.append("the swing never completed a full oscillation")
    else:
        out.append(f"the swing's period (between successive passes through the vertical moving the same way): "
                   f"{t['period_first']:.2f} s in the first cycle, {t['period_last']:.2f} s in the last of "
                   f"{t['cycles']} cycles")
    for jid, w in zip(t["motor_ids"], t["motor_mean_speed"]):
        out.append(f"motor {jid} turned at {w:.2f} rad/s on average relative to its base")
    return out
