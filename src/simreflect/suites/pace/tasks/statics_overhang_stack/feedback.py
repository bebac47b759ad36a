"""The overhang stack's terminal-state lines."""


def _m(v) -> str:
    return "-" if v is None else f"{v:.3f} m"


def terminal_lines(t: dict, visible: dict) -> list[str]:
    return [
        f"the right-most point of the blocks still on the table is at x = {t['reach']:.3f} m (table edge x = 0, target "
        f"{visible['target_overhang']:g} m); as built {_m(t['reach_built'])}, when settled {_m(t['reach_settled'])}, "
        f"least during the hold {_m(t['min_reach'])}",
        f"{t['fallen']} of {t['blocks']} blocks fell off; the largest shift of a block after settling "
        f"{t['max_shift']:.3f} m ({t['shift_block'] or '-'})",
    ]
