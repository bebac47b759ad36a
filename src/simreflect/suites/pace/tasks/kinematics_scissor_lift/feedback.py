"""The scissor lift's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    reached = ("never reached the target height" if t["reach_step"] is None
               else f"first reached the target height at step {t['reach_step']}")
    return [
        f"crate's underside at {t['height']:.2f} m (it started at {t['start']:.2f} m, highest {t['best']:.2f} m), "
        f"crate centre at x = {t['crate_x']:.2f} m, moving at {t['speed']:.2f} m/s; it {reached}",
        f"largest tilt: crate {t['crate_tilt']:.1f} deg, platform {t['platform_tilt']:.1f} deg; broken joints: "
        f"{t['broken']}",
    ]
