"""Stage-1 reference: lift each gate when the gauges say the levels have met, not after a set time.

The culverts are partly silted, so the source's 25 s of filling leave chamber 1 a quarter of a
metre below chamber 2 and the water rushes under gate 2 as it rises. Waiting until the two
gauges agree within 0.1 m (the flow under a gate lifted at 1 m/s against 0.1 m stays below the
limit) costs time but stays within it; the valves stay open while the gate rises.
"""

KP, KD = 0.8, 1.5  # thrust per m of position error, per m/s of speed
LIFT = 2.6  # m: gate lift that clears the boat
TOL = 0.1  # m: level difference accepted before lifting a gate
HOLD_VALVES = True  # keep the culverts open while a gate rises
PREFILL = False  # top chamber 2 up from the upper pool from the start
CRACK = 1.0  # m/s: how fast a gate is first lifted (in full-force pulses)
CRACK_LIFT = 0.0  # m: ... up to this lift, then at full speed

CAL = False  # measure the chamber gauges' offset at the start
ARRIVE = 0.15  # m: how close to its mark the boat counts as arrived
state = {"phase": 0, "since": 0.0, "bias": None}


def build(api):
    pass


def drive(s, target):
    return max(-1.0, min(1.0, KP * (target - s["x"]) - KD * s["vx"]))


def arrived(s, target):
    return abs(s["x"] - target) < ARRIVE and abs(s["vx"]) < 0.05


def control(s):
    p, t = state["phase"], s["t"]
    if state["bias"] is None:
        state["bias"] = (s["level1"] - s["level0"]) if CAL else 0.0
    s = dict(s)
    s["level1"] -= state["bias"]
    s["level2"] -= state["bias"]
    cmd = {"thrust": 0.0, "gate1": 0.0, "gate2": 0.0, "gate3": 0.0}
    if p <= 2 and PREFILL:
        cmd["valve3"] = 1.0  # fill chamber 2 from the upper pool meanwhile
    def step():
        state["phase"] += 1
        state["since"] = t
    waited = t - state["since"]
    if p == 0:  # open gate 1 (chamber 1 already stands at the lower pool's level)
        cmd["gate1"] = 1.0
        if s["lift1"] >= LIFT:
            step()
    elif p == 1:  # into chamber 1
        cmd["thrust"] = drive(s, 4.0)
        if arrived(s, 4.0):
            step()
    elif p == 2:  # close gate 1 behind
        cmd["gate1"] = -1.0
        cmd["thrust"] = drive(s, 4.0)
        if s["lift1"] <= 0.0:
            step()
            cmd.update(valve2=1.0, valve3=1.0)
    elif p == 3:  # fill chamber 1 (and chamber 2) from above
        cmd.update(valve2=1.0, valve3=1.0)
        cmd["thrust"] = drive(s, 4.0)
        ok = abs(s["level2"] - s["level1"]) < TOL
        if ok:
            step()
    elif p == 4:  # open gate 2
        cmd["gate2"] = 1.0 if s["lift2"] > CRACK_LIFT or s["lift2"] < CRACK * waited else 0.0
        cmd["thrust"] = drive(s, 4.0)
        if not HOLD_VALVES:
            cmd.update(valve2=0.0)
        if s["lift2"] >= LIFT:
            step()
    elif p == 5:  # into chamber 2
        cmd["thrust"] = drive(s, 12.0)
        if arrived(s, 12.0):
            step()
    elif p == 6:  # close gate 2 behind
        cmd["gate2"] = -1.0
        cmd["thrust"] = drive(s, 12.0)
        if s["lift2"] <= 0.0:
            step()
            cmd.update(valve2=0.0, valve3=1.0)
    elif p == 7:  # fill chamber 2 from the upper pool
        cmd.update(valve2=0.0, valve3=1.0)
        cmd["thrust"] = drive(s, 12.0)
        ok = abs(s["level3"] - s["level2"]) < TOL
        if ok:
            step()
    elif p == 8:  # open gate 3
        cmd["gate3"] = 1.0 if s["lift3"] > CRACK_LIFT or s["lift3"] < CRACK * waited else 0.0
        cmd["thrust"] = drive(s, 12.0)
        if s["lift3"] >= LIFT:
            step()
    else:  # out into the upper pool
        cmd["thrust"] = drive(s, 24.0)
    return cmd
