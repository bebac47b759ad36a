"""The slot jumper's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    lo, hi = t["strip"]
    out = []
    if t["launch"] is None:
        out.append(f"the sled never left the launch zone (it is at x = {t['sled_x']:.2f} m, y = {t['sled_y']:.2f} m)")
    else:
        v, ang, y = t["launch"]
        out.append(f"the sled left the launch zone at {v:.2f} m/s, {ang:.0f} degrees from horizontal, at y = {y:.2f} m; "
                   f"highest point in flight y = {t['apex']:.2f} m" if t["apex"] is not None else "")
    for i, (x, a, b) in enumerate(t["windows"]):
        if i < len(t["crossings"]):
            y, ok = t["crossings"][i]
            out.append(f"wall {i + 1} at x = {x:g} m: window {a:.2f} to {b:.2f} m; the sled's centre crossed at "
                       f"y = {y:.2f} m ({'clear' if ok else 'not clear: the sled is 0.15 m in radius'})")
        else:
            out.append(f"wall {i + 1} at x = {x:g} m: window {a:.2f} to {b:.2f} m; the sled never crossed it")
    td = "no touchdown" if t["touch_x"] is None else f"touchdown at x = {t['touch_x']:.2f} m"
    out.append(f"{td}; the landing strip spans x = {lo:g} to {hi:g} m")
    return out
