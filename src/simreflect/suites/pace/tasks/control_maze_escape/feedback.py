"""The maze robot's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    route = " -> ".join(f"({c[0]},{c[1]})" for c in t["route"])
    return [
        f"robot at ({t['x']:.2f}, {t['y']:.2f}) m, heading {t['heading_deg']:.0f} deg, moving {t['speed']:.2f} m/s; "
        f"{t['moves_left']} cell moves from the way out",
        f"distance driven {t['odometer']:.1f} m; {t['cells_visited']} cell entries, the last ones: {route}",
        f"{t['bumps']} wall contacts, the hardest at {t['worst_bump']:.2f} m/s; {t['contact_time']:.2f} s in contact "
        f"with walls; the wheels slipped for {t['slip_time']:.2f} s",
    ]
