"""The pivot balance's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    a = t["angle_deg"]
    side = "level" if abs(a) < 0.005 else ("left end down" if a > 0 else "right end down")
    beam = f"part {t['beam']} rests on the fulcrum" if t["beam"] else "no part rests on the fulcrum"
    early = "" if t["early_angle_deg"] is None else f"; 1 s after the release it was {t['early_angle_deg']:+.3f} deg"
    return [
        f"beam tilt now {a:+.3f} deg ({side}, counter-clockwise positive){early}; {beam}",
        f"largest tilt in the judged window {t['peak_angle_deg']:.3f} deg at step {t['peak_angle_step']} (allowed "
        f"{visible['max_angle_deg']:g} deg); level for {t['held_s']:.2f} s of {t['window_s']:g} s",
        f"peak load on the fulcrum bearing {t['peak_load']:.0f} N at step {t['peak_load_step']} (rated "
        f"{visible['fulcrum_capacity']:g} N); broken joints: {t['broken_joints']}",
    ]
