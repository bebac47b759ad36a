"""The filter's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    s, l = t["small"], t["large"]
    first = ("no large grain reached the fines bin" if t["first_large_step"] is None
             else f"the first large grain reached the fines bin at step {t['first_large_step']}")
    return [
        f"small grains ({t['n_small']}): {s['fines']} in the fines bin, {s['held']} on or above the screen, "
        f"{s['reject']} in the reject bin, {s['other']} elsewhere",
        f"large grains ({t['n_large']}): {l['fines']} in the fines bin, {l['held']} on or above the screen, "
        f"{l['reject']} in the reject bin, {l['other']} elsewhere; {first}",
    ]
