"""The catcher's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    cart = ("no cart" if t["cart_x"] is None else
            f"the cart's centre of mass is at x = {t['cart_x']:.2f} m, its first part moving at {t['cart_speed']:.2f} m/s")
    caught = ", ".join(f"ball {k} at t = {v:.2f} s" for k, v in t["catch_times"].items()) or "none"
    out = [f"{t['held']} of {t['balls']} balls held ({t['released']} released); {cart}",
           f"first contact with the cart: {caught}"]
    if t["floored"]:
        out.append("balls that touched the floor: " + ", ".join(str(i) for i in t["floored"]))
    out.append("ball positions x: " + ", ".join(f"{x:.2f}" for x in t["ball_x"]) + " m")
    return out
