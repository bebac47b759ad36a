"""The gripper's terminal-state lines."""


def terminal_lines(t: dict, visible: dict) -> list[str]:
    def when(step, what):
        return f"{what} at step {step}" if step is not None else f"never {what}"

    return [
        f"ball centre at x = {t['x']:.2f} m, y = {t['y']:.2f} m (highest {t['best']:.2f} m), moving at "
        f"{t['speed']:.2f} m/s",
        f"{when(t['grasp_step'], 'first touched')}; {when(t['lift_step'], 'off the floor')}; "
        f"{when(t['reach_step'], 'at the target height')}; broken joints: {t['broken']}",
    ]
