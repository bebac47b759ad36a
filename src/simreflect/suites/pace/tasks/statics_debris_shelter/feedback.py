"""The debris shelter's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    hit = "none reached the keep-clear space" if not t["hits"] else (
        f"{t['hits']} reached the keep-clear space (the first: rock {t['first_hit']})")
    return [
        f"{t['released']} of {t['rocks']} rocks released; {hit}",
        f"deepest reach of the shelter into the keep-clear space {t['deepest']:.3f} m "
        f"({t['deepest_part'] or '-'}); broken joints: {t['broken_joints']}",
    ]
