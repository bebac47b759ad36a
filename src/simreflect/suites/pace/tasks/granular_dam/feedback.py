"""The dam's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    first = "no grain got past" if t["first_leak_step"] is None else f"first grain past the dam at step {t['first_leak_step']}"
    front = ("the grain front never reached the dam site" if t["front_step"] is None
             else f"the grain front reached the dam site at step {t['front_step']}")
    return [
        f"{t['leaked']} of {t['grains']} grains past x = 1 m ({100 * t['leak_fraction']:.1f}%); {first}",
        f"{front}; largest displacement of a dam part {t['max_move']:.2f} m ({t['moved_part'] or '-'})",
    ]
