"""The seismic tower's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    carrier = f"the tank is pinned to part {t['carrier']}" if t["carrier"] else "no part carries the tank"
    pull = (f"largest uplift on a ground anchor {t['peak_pull']:.0f} N ({t['peak_pull_joint']}, step "
            f"{t['peak_pull_step']}); a footing holds {visible['anchor_pull']:g} N"
            if t["anchors"] else "the design has no ground anchors")
    return [
        f"tank centre now at x = {t['tank_x']:.3f} m, y = {t['tank_y']:.3f} m (mounted at 0, {visible['height']:g} m); "
        f"{carrier}",
        f"largest drift of the tank {t['peak_drift']:.3f} m at step {t['peak_drift_step']} (allowed "
        f"{visible['max_drift']:g} m); steady for {t['ok_s']:.2f} s of {t['run_s']:g} s",
        f"{pull}; anchors pulled out: {t['anchors_pulled']}; broken joints: {t['broken_joints']}",
    ]
