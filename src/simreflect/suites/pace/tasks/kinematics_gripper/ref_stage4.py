"""Stage-4 reference: a 3 m rubber arm whose parallel beams are 0.5 m apart.

The ball now lies at x = 0.8 m (3 m from the wall pins), there are 7 s, and joints take at most
4300 N. The parallel beams carry the moment of the load as a pair of opposite forces, F = M / gap,
and the pins feel it most when the boom stops at its limit: 0.35 or 0.4 m apart, the 3 m arm
breaks a wall pin; 0.5 m apart (the most the 1.5 m plate and the ball's top allow) the largest pin
load is about 92% of the limit. Swinging 50 degrees at 0.4 rad/s lifts the ball's centre to about
2.7 m in 4 s, leaving time for the 2 s hold; the fingers cradle the ball as before.
"""

import math


def gripper(api, reach=2.2, pin_x=-2.2, y_low=0.9, gap=0.4, lift=math.radians(30), lift_speed=0.4,
            lift_torque=2000.0, jaw_x=0.4, palm_y=0.75, jaw_len=0.5, jaw_speed=2.0, jaw_torque=150.0,
            finger=0.0, both=False, wrist_motors=False, coupled=False, tail=0.15, jaw_mat="wood", th=0.06,
            mat="wood", counter=0.0, counter_len=0.0, cmat="steel"):
    """A parallelogram boom (two parallel beams from the wall plate to a vertical wrist, so the wrist
    stays upright as the boom swings up by `lift` radians), a palm across the bottom of the wrist and
    two jaws pinned to the palm, turned inward by motors. Options: `both` drives the upper beam too,
    `wrist_motors` drives the two wrist pivots, `coupled` ties the jaws by a crossed link (equal and
    opposite turns), `finger` adds an inward beam at each jaw tip, `counter` a counterweight."""
    wx = pin_x + reach
    low = api.beam((pin_x, y_low), (wx, y_low), thickness=th, material=mat)
    high = api.beam((pin_x, y_low + gap), (wx, y_low + gap), thickness=th, material=mat)
    wrist = api.beam((wx, y_low + gap), (wx, palm_y), thickness=th, material=mat)
    api.pivot(api.GROUND, low, (pin_x, y_low), motor_speed=lift_speed, max_torque=lift_torque, limits=(-0.05, lift))
    if both:  # the upper beam driven too: two motors share the lifting torque
        api.pivot(api.GROUND, high, (pin_x, y_low + gap), motor_speed=lift_speed, max_torque=lift_torque,
                  limits=(-0.05, lift))
    else:
        api.pivot(api.GROUND, high, (pin_x, y_low + gap))
    if wrist_motors:  # the wrist turns by -alpha relative to the boom beams: motors there lift too
        api.pivot(wrist, low, (wx, y_low), motor_speed=lift_speed, max_torque=lift_torque, limits=(-0.05, lift))
        api.pivot(wrist, high, (wx, y_low + gap), motor_speed=lift_speed, max_torque=lift_torque,
                  limits=(-0.05, lift))
    else:
        api.pivot(low, wrist, (wx, y_low))
        api.pivot(high, wrist, (wx, y_low + gap))
    if counter > 0:  # a counterweight block on a tail behind the lower beam's wall pin
        tail = api.beam((pin_x, y_low), (pin_x - counter_len, y_low), thickness=th, material=mat)
        api.rigid(low, tail, (pin_x, y_low))
        w = api.block((pin_x - counter_len, y_low), counter, counter, material=cmat)
        api.rigid(tail, w, (pin_x - counter_len, y_low))
    palm = api.beam((wx - jaw_x - 0.05, palm_y), (wx + jaw_x + 0.05, palm_y), thickness=th, material=mat)
    api.rigid(wrist, palm, (wx, palm_y))
    jaws = []
    for side in (-1, 1):
        x = wx + side * jaw_x
        top = palm_y + (tail if coupled else 0.0)
        jaw = api.beam((x, top), (x, palm_y - jaw_len), thickness=0.08, material=jaw_mat)
        jaws.append(jaw)
        api.pivot(palm, jaw, (x, palm_y), motor_speed=-side * jaw_speed, max_torque=jaw_torque)
        if finger > 0:
            tip = palm_y - jaw_len
            f = api.beam((x, tip), (x - side * finger, tip), thickness=0.08, material=mat)
            api.rigid(jaw, f, (x, tip))
    if coupled:  # a crossed link: the jaws turn by equal and opposite angles
        left, right = jaws
        tail_pt = (wx - jaw_x, palm_y + tail)
        low_pt = (wx + jaw_x, palm_y - tail)
        link = api.beam(tail_pt, low_pt, thickness=0.05, material=mat)
        api.pivot(left, link, tail_pt)
        api.pivot(right, link, low_pt)


def build(api):
    gripper(api, reach=3.0, y_low=1.0, gap=0.5, lift=math.radians(50), lift_speed=0.4, lift_torque=800.0,
            jaw_x=0.55, palm_y=0.95, jaw_len=0.8, finger=0.15, jaw_speed=2.0, jaw_torque=800.0, both=True,
            wrist_motors=True, coupled=True, th=0.04, mat="rubber", jaw_mat="rubber")
