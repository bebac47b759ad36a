"""Reference audit: Kepler's third law T^2 proportional to a^3 from direct orbit integration.

Orbits of eccentricity e around a mass GM (attraction -GM r / (|r|^2 + softening^2)^(3/2),
softening 0: a point mass) start at periapsis r_p = a (1 - e) with the vis-viva speed; they are
integrated with velocity Verlet (all semi-major axes at once, each with its own step,
h = 0.002 periapsis dynamical times sqrt(r_p^3 / GM)). Starting on the x axis at periapsis, the
period is the time of the first return through the periapsis direction (y from negative to
positive with x > 0), linearly interpolated. The exponent is the least-squares slope
of log T against log a; the constant is the mean of T^2 / a^3. Positive control: a circular orbit
of radius 1 around GM = 1 through the same integrator and period detector, exactly 2 pi.
"""
import json

import numpy as np

P = json.load(open("params.json"))
GM, e, soft = float(P["GM"]), float(P["eccentricity"]), float(P["softening"])
a = np.array([float(v) for v in P["semi_major_axes"]])


def accel(pos, GM, soft):
    return -GM * pos / (np.sum(pos**2, axis=1, keepdims=True) + soft**2) ** 1.5


def periods(a, e, GM, soft, h=0.002):
    rp = a * (1 - e)
    v = np.sqrt(GM * (2 / rp - 1 / a))
    pos = np.stack([rp, np.zeros_like(rp)], 1)
    vel = np.stack([np.zeros_like(rp), v], 1)
    dt = np.sqrt(rp**3 / GM) * h
    t = np.zeros_like(rp)
    period = np.zeros_like(rp)
    acc = accel(pos, GM, soft)
    done = np.zeros(len(rp), dtype=bool)
    while not done.all():
        vel_half = vel + 0.5 * dt[:, None] * acc
        new = pos + dt[:, None] * vel_half
        acc = accel(new, GM, soft)
        vel = vel_half + 0.5 * dt[:, None] * acc
        up = (pos[:, 1] < 0) & (new[:, 1] >= 0) & (new[:, 0] > 0)
        hit = up & ~done
        frac = -pos[hit, 1] / (new[hit, 1] - pos[hit, 1])
        period[hit] = t[hit] + frac * dt[hit]
        done |= hit
        pos = new
        t = t + dt
    return period


T = periods(a, e, GM, soft)
exponent = float(np.polyfit(np.log(a), np.log(T), 1)[0])
constant = float(np.mean(T**2 / a**3))
control = float(periods(np.array([1.0]), 0.0, 1.0, 0.0)[0])

np.savez("raw.npz", a=a, T=T)
ok = abs(exponent - 1.5) < 0.01 and abs(constant / (4 * np.pi**2 / GM) - 1) < 0.01
print("SUMMARY_JSON " + json.dumps({
    "metrics": {"exponent": exponent, "kepler_constant": constant},
    "positive_control": {"name": "circular orbit r=1, GM=1", "expected": 2 * np.pi, "measured": control,
                         "passed": bool(abs(control - 2 * np.pi) < 1e-3)},
    "verdict": ("supported" if ok else "falsified") if soft == 0 else "inconclusive",  # the law is for a point mass
    "claim_quantity_computed": True,
}))
