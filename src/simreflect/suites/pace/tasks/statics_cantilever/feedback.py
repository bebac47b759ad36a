"""The cantilever's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    carrier = f"the load hangs from part {t['carrier']}" if t["carrier"] else "no part carries the hook"
    return [
        f"hook point now at x = {t['hook_x']:.3f} m, y = {t['hook_y']:.3f} m (built at x = {visible['reach']:g} m, "
        f"y = 0); {carrier}",
        f"largest sag of the hook {t['peak_sag']:.3f} m at step {t['peak_sag_step']} (allowed "
        f"{visible['max_sag']:g} m); held {t['held_s']:.2f} s of {t['hold_s']:g} s; broken joints: {t['broken_joints']}",
    ]
