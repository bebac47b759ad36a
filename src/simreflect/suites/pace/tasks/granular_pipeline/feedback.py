"""The pipeline's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    first = ("no grain reached the bin" if t["first_in_step"] is None
             else f"the first grain reached the bin at step {t['first_in_step']}")
    return [
        f"at t = {t['time']:.2f} s: {t['delivered']} of {t['grains']} grains in the bin (required {t['required']}); "
        f"{t['hopper']} not yet out of the outlet; {first}",
        f"{t['on_chute']} grains at rest on the structure above the ground, {t['moving']} still in motion; "
        f"{t['short']} fell to the ground short of the bin, {t['over']} beyond it",
    ]
