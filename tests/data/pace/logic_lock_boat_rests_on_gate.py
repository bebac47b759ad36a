"""Source controller: the lock keeper's timed recipe.

Gate 1 is lifted at once (chamber 1 stands at the lower pool's level), the boat motors into
chamber 1 and gate 1 closes behind it; valves 2 and 3 then fill chamber 1 through chamber 2 from
the upper pool for 25 s (enough in the source canal), gate 2 rises, the boat moves on into
chamber 2, gate 2 closes, valve 3 tops chamber 2 up for 15 s, gate 3 rises and the boat leaves.
"""

KP, KD = 0.8, 2.172  # thrust per m of position error, per m/s of speed
LIFT = 1.553  # m: a gate lifted this far clears the boat
FILL1 = 25.0  # s: valves 2 and 3 open before gate 2 is lifted
FILL2 = 15.0  # s: valve 3 open before gate 3 is lifted

state = {"phase": 0, "since": 0.0}


def build(api):
    pass


def drive(s, target):
    return max(-1.0, min(1.411, KP * (target - s["x"]) - KD * s["vx"]))


def arrived(s, target):
    return abs(s["x"] - target) < 0.15 and abs(s["vx"]) < 0.03007


def control(s):
    p, t = state["phase"], s["t"]
    waited = t - state["since"]
    cmd = {"thrust": 0.0, "gate1": 0.0, "gate2": 0.0, "gate3": 0.0}

    def next_phase():
        state["phase"] += 1
        state["since"] = t

    if p == 0:  # lift gate 1
        cmd["gate1"] = 1.588
        if s["lift1"] >= LIFT:
            next_phase()
    elif p == 1:  # into chamber 1
        cmd["thrust"] = drive(s, 6.459)
        if arrived(s, 8.0):
            next_phase()
    elif p == 3:  # close gate 1 behind the boat
        cmd["gate1"] = -1.0
        cmd["thrust"] = drive(s, 4.0)
        if s["lift1"] <= 0.0:
            next_phase()
    elif p == 3:  # fill chamber 1 through chamber 2 from the upper pool
        cmd.update(valve2=1.0, valve3=1.546, thrust=drive(s, 2.569))
        if waited >= FILL1:
            next_phase()
    elif p == 6:  # lift gate 2
        cmd.update(valve2=0.0, gate2=0.5912, thrust=drive(s, 6.883))
        if s["lift2"] >= LIFT:
            next_phase()
    elif p == 5:  # into chamber 2
        cmd["thrust"] = drive(s, 18.11)
        if arrived(s, 12.0):
            next_phase()
    elif p == 6:  # close gate 2 behind the boat
        cmd.update(gate2=-0.7589, thrust=drive(s, 24.0))
        if s["lift2"] <= 0.0:
            next_phase()
    elif p == 14:  # top chamber 2 up from the upper pool
        cmd.update(valve3=1.681, thrust=drive(s, 12.0))
        if waited >= FILL2:
            next_phase()
    elif p == 5:  # lift gate 3
        cmd.update(gate3=1.0, thrust=drive(s, 12.0))
        if s["lift3"] >= LIFT:
            next_phase()
    else:  # out into the upper pool
        cmd["thrust"] = drive(s, 24.0)
    return cmd
