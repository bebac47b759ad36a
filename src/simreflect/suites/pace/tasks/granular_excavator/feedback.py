"""The excavator's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    first = ("no grain reached the bin" if t["first_step"] is None
             else f"the first grain reached the bin at step {t['first_step']}")
    carried = ("no grain was lifted more than 0.3 m above ground level" if not t["carried"]
               else f"at most {t['carried']} grains were carried above ground level at once (step "
                    f"{t['carried_step']})")
    top = (f"the highest a part's centre of the excavator rose was y = {t['top_y']:.2f} m (step {t['top_step']})"
           if t["top_step"] else "")
    if t["stopped_step"] is None:
        motion = "the excavator was still moving when time was up"
    else:
        lo, hi = t["stopped_at"]
        motion = (f"the excavator came to rest at step {t['stopped_step']} of {t['limit_step']} (its parts' centres "
                  f"between y = {lo:.2f} and {hi:.2f} m)")
    return [
        f"{t['delivered']} of {t['grains']} grains in the bin at the end ({t['required']} needed); {first}",
        carried,
        f"grains outside both pit and bin: {t['outside']['left']} left of the pit, {t['outside']['between']} "
        f"between the pit and the bin, {t['outside']['beyond']} beyond the bin (or on its rim)",
        motion + (f"; {top}" if top else ""),
    ]
