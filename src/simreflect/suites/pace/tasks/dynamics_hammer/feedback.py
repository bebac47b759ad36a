"""The hammer's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    lo, hi = t["zone"]
    rest = "has not come to rest" if t["rest_x"] is None else f"came to rest at x = {t['rest_x']:.2f} m"
    if t["first_hit"] is None:
        blow = "the hammer never touched the crate"
    else:
        blow = (f"first blow at step {t['first_hit']} with the hammer's fastest part at {t['hit_speed']:.2f} m/s; "
                f"{t['contacts']} separate contact(s), {t['contact_time']:.3f} s of contact in all")
    return [
        f"crate at x = {t['crate_x']:.2f} m (started at {t['crate_start_x']:.2f} m), speed {t['crate_speed']:.2f} m/s; "
        f"it {rest}; the zone spans x = {lo:g} to {hi:g} m",
        blow,
        f"fastest crate speed {t['peak_crate_speed']:.2f} m/s (step {t['peak_speed_step']}); largest tilt "
        f"{t['max_tilt']:.1f} degrees",
    ]
