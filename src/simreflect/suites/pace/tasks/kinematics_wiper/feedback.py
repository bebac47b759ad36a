"""The wiper's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    if t["left_min"] is None:
        where = "none is left in the trough"
    else:
        where = f"{t['n'] - t['done']} still in the trough, between x = {t['left_min']:.2f} and {t['left_max']:.2f} m"
    last = "" if t["last_step"] is None else f"; the last piece went over the lip at step {t['last_step']}"
    stall = ("the wiper kept moving" if t.get("stall_step") is None
             else f"the wiper stood still from step {t['stall_step']} on")
    return [f"{t['done']} of {t['n']} pieces of debris swept into the bin; {where}{last}",
            f"{stall}; broken joints: {t['broken']}"]
