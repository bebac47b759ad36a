"""The gates' terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    out = []
    if t["track_step"] is None:
        out.append(f"the ball never left the ramp zone (x = {t['ball_x']:.2f} m)")
    else:
        out.append(f"the ball left the ramp zone at t = {t['track_step'] / 60:.2f} s at {t['track_speed']:.2f} m/s; "
                   f"now at x = {t['ball_x']:.2f} m moving at {t['ball_speed']:.2f} m/s")
    period, open_time = visible["gate_period"], visible["open_time"]
    for i, (x, ph) in enumerate(t["gates"]):
        if i < len(t["pass_times"]):
            when = f"passed at t = {t['pass_times'][i]:.2f} s"
        elif t["hit_gate"] == i + 1:
            when = f"struck at t = {t['hit_time']:.2f} s"
        else:
            when = "not reached"
        out.append(f"gate {i + 1} at x = {x:g} m (starts opening at t = {ph:g} s + n x {period:g} s, fully open "
                   f"{open_time:g} s): {when}")
    out.append("finish line not crossed" if t["finish_time"] is None else
               f"finish line x = {t['finish_x']:g} m crossed at t = {t['finish_time']:.2f} s")
    return out
