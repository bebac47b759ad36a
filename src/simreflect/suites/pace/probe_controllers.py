"""Controllers for the probe: bang-bang, resonant and mutated reference laws, as runnable programs.

A controller task's program declares no parts; its `control(sensors)` is the whole design. The
probe tries control laws that know nothing of the task beyond its actuators (their ranges) and
the names of its sensor readings (both in the card), and laws made from the task's own programs:

* `constant`: every actuator held at its lower bound, its upper bound or the middle;
* `timed`: bang-bang in time, each actuator switching between its bounds with a period and duty;
* `switching`: bang-bang on a linear switching function of one to three sensor readings;
* `resonant`: each actuator a sine around its middle, at one of several frequencies;
* `saturated`: the source's or reference's own law, its output pushed to the nearer bound;
* `dithered`: the source's or reference's own law plus a sine on one actuator;
* `literals`: the source's or reference's program with its numeric literals rescaled (the
  literal machinery of `agents.param_search`, with wider factors).

A `Law` is the typed description; `law_program` renders it as a complete program and `mutate_law`
moves its numbers. The control period is the task's (`control_every` steps at 60 Hz); a law keeps
time by counting its own calls.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from simreflect.agents.param_search import find_literals, rewrite, values_for

#: Frequencies (Hz) a resonant law is first tried at.
FREQUENCIES = (0.1, 0.2, 0.5, 1.0, 2.0)
#: A rescaled literal stays within 1/8..8 of the program's value.
LITERAL_RANGE = math.log(8.0)
FAMILIES = ("constant", "timed", "switching", "resonant", "saturated", "dithered", "literals")
#: The families built on one of the task's own programs (`Law.base` names which).
BASED = ("saturated", "dithered", "literals")


@dataclass(frozen=True)
class ControlSpace:
    """A controller task's actuators (name -> bounds), sensor readings and control period."""

    commands: tuple[tuple[str, float, float], ...]
    sensors: tuple[tuple[str, float], ...]  # name, value at the start (the scale of a reading)
    period: float  # s between control() calls
    programs: tuple[tuple[str, str], ...]  # the task's own programs for this stage: (name, text)

    def program(self, name: str) -> str:
        return dict(self.programs)[name]


@dataclass(frozen=True)
class Law:
    """One control law: its family and numbers (see the module docstring)."""

    family: str
    params: tuple[tuple[str, tuple[float, ...]], ...] = ()  # per actuator (or per sensor weight)
    base: str = ""  # the task program a based law is made from ("source", "stage1", ...)
    z: tuple[float, ...] = ()  # literals: log factor of each literal of the base program

    @property
    def label(self) -> str:
        return f"{self.family}({self.base})" if self.base else self.family


def _sensor_scale(value: float) -> float:
    return max(1.0, abs(value))


def random_law(space: ControlSpace, family: str, rng: np.random.Generator) -> Law:
    """A law of `family` with random numbers."""
    acts = space.commands
    if family == "constant":
        return Law(family, tuple((n, (float(rng.choice([lo, hi, 0.5 * (lo + hi)])),)) for n, lo, hi in acts))
    if family == "timed":
        return Law(family, tuple((n, (float(math.exp(rng.uniform(math.log(0.2), math.log(10.0)))),
                                      float(rng.uniform(0.1, 0.9)), float(rng.uniform(0, 1)),
                                      float(rng.choice([0.0, 1.0])))) for n, _, _ in acts))
    if family == "switching":
        params = []
        for n, _, _ in acts:
            k = int(rng.integers(1, min(3, len(space.sensors)) + 1)) if space.sensors else 0
            chosen = rng.choice(len(space.sensors), size=k, replace=False) if k else []
            weights = []
            for i in chosen:
                name, v0 = space.sensors[int(i)]
                weights.append((float(i), float(rng.choice([-1.0, 1.0]) / _sensor_scale(v0))))
            bias = float(rng.normal(0.0, 0.5))
            params.append((n, (bias, *[x for w in weights for x in w])))
        return Law(family, tuple(params))
    if family == "resonant":
        return Law(family, tuple((n, (float(rng.choice(FREQUENCIES)) * float(math.exp(rng.normal(0, 0.1))),
                                      float(rng.uniform(0.5, 1.0)), float(rng.uniform(0, 2 * math.pi))))
                                 for n, _, _ in acts))
    base = str(rng.choice([name for name, _ in space.programs]))
    if family == "saturated":
        return Law(family, (("deadband", (float(rng.uniform(0.0, 0.3)),)),), base=base)
    if family == "dithered":
        n = acts[int(rng.integers(len(acts)))][0]
        return Law(family, ((n, (float(rng.choice(FREQUENCIES)), float(rng.uniform(0.1, 0.5)),
                                 float(rng.uniform(0, 2 * math.pi)))),), base=base)
    if family == "literals":
        n = len(find_literals(space.program(base)))
        z = np.zeros(n)
        if n:
            idx = rng.choice(n, size=min(n, int(rng.integers(1, 4))), replace=False)
            z[idx] = rng.uniform(-LITERAL_RANGE, LITERAL_RANGE, size=len(idx))
        return Law(family, base=base, z=tuple(float(v) for v in z))
    raise ValueError(f"unknown control-law family {family!r}")


def mutate_law(space: ControlSpace, law: Law, rng: np.random.Generator) -> Law:
    """The same family with its numbers moved (one actuator's, or a few literals)."""
    if law.family == "literals":
        z = np.array(law.z, dtype=float)
        if len(z):
            idx = rng.choice(len(z), size=min(len(z), int(rng.integers(1, 3))), replace=False)
            z[idx] = np.clip(z[idx] + rng.normal(0.0, 0.6, size=len(idx)), -LITERAL_RANGE, LITERAL_RANGE)
        return replace(law, z=tuple(float(v) for v in z))
    if not law.params:
        return law
    i = int(rng.integers(len(law.params)))
    name, values = law.params[i]
    v = list(values)
    if law.family == "constant":
        lo, hi = _bounds(space, name)
        v[0] = float(rng.choice([lo, hi, float(np.clip(v[0] + rng.normal(0, 0.25 * (hi - lo)), lo, hi))]))
    elif law.family == "switching":
        if len(v) > 1 and rng.random() < 0.6:
            j = 2 + 2 * int(rng.integers((len(v) - 1) // 2))
            v[j] *= float(math.exp(rng.normal(0, 0.5))) * (-1.0 if rng.random() < 0.15 else 1.0)
        else:
            v[0] += float(rng.normal(0, 0.3))
    elif law.family == "saturated":
        v[0] = float(np.clip(v[0] + rng.normal(0, 0.1), 0.0, 0.9))
    else:  # timed, resonant, dithered: a period/frequency first, then the other numbers
        j = 0 if rng.random() < 0.5 else int(rng.integers(len(v)))
        v[j] = v[j] * float(math.exp(rng.normal(0, 0.3))) if j == 0 else v[j] + float(rng.normal(0, 0.15))
        if law.family == "timed":
            v[1] = float(np.clip(v[1], 0.05, 0.95))
            v[3] = float(round(np.clip(v[3], 0.0, 1.0)))
        else:
            v[1] = float(np.clip(v[1], 0.0, 1.0))
    params = law.params[:i] + ((name, tuple(v)),) + law.params[i + 1:]
    return replace(law, params=params)


def _bounds(space: ControlSpace, name: str) -> tuple[float, float]:
    for n, lo, hi in space.commands:
        if n == name:
            return lo, hi
    raise KeyError(name)


def _lit(v: float) -> str:
    return repr(round(float(v), 6) + 0.0)


def _table(space: ControlSpace, law: Law) -> str:
    rows = []
    actuators = {n for n, _, _ in space.commands}
    for name, values in law.params:
        if name in actuators:
            lo, hi = _bounds(space, name)
            rows.append(f"    {name!r}: ({_lit(lo)}, {_lit(hi)}, {', '.join(_lit(x) for x in values)}),")
    return "{\n" + "\n".join(rows) + "\n}"


# names a task program is unlikely to use (a wrapper shares its module)
_CLOCK = '''_PROBE_PERIOD = {period}  # s between control() calls
_probe_clock = {{"calls": 0}}


def _probe_time():
    t = _probe_clock["calls"] * _PROBE_PERIOD
    _probe_clock["calls"] += 1
    return t
'''


def _clock(space: ControlSpace) -> str:
    return _CLOCK.format(period=_lit(space.period))


def _generic(space: ControlSpace, law: Law) -> str:
    """The code of a law that needs none of the task's programs."""
    table = _table(space, law)
    if law.family == "constant":
        return (f"# actuator: (low, high, value)\nVALUES = {table}\n\n\ndef control(sensors):\n"
                "    return {name: v for name, (lo, hi, v) in VALUES.items()}\n")
    if law.family == "timed":
        return (_clock(space) + "\n\n# actuator: (low, high, period s, duty, phase, starts high)\n"
                f"SWITCH = {table}\n\n\n"
                "def control(sensors):\n    t = _probe_time()\n    out = {}\n"
                "    for name, (lo, hi, period, duty, phase, first) in SWITCH.items():\n"
                "        on = ((t / period + phase) % 1.0) < duty\n"
                "        out[name] = hi if on == (first > 0.5) else lo\n    return out\n")
    if law.family == "resonant":
        return ("import math\n\n" + _clock(space) + f"\n\n# actuator: (low, high, Hz, amplitude share, phase)\n"
                f"WAVES = {table}\n\n\ndef control(sensors):\n    t = _probe_time()\n    out = {{}}\n"
                "    for name, (lo, hi, hz, amp, phase) in WAVES.items():\n"
                "        mid, half = (lo + hi) / 2, (hi - lo) / 2\n"
                "        out[name] = mid + amp * half * math.sin(2 * math.pi * hz * t + phase)\n    return out\n")
    if law.family == "switching":
        names = [n for n, _ in space.sensors]
        rows = []
        for name, values in law.params:
            lo, hi = _bounds(space, name)
            bias, rest = values[0], values[1:]
            terms = ", ".join(f"({names[int(rest[k])]!r}, {_lit(rest[k + 1])})" for k in range(0, len(rest), 2))
            rows.append(f"    {name!r}: ({_lit(lo)}, {_lit(hi)}, {_lit(bias)}, [{terms}]),")
        return ("# actuator: (low, high, bias, [(reading, weight), ...]): high when bias + sum(w x reading) > 0\n"
                "RULES = {\n" + "\n".join(rows) + "\n}\n\n\ndef _reading(sensors, key):\n"
                "    v = sensors.get(key, 0.0)\n    return float(v) if isinstance(v, (int, float)) else 0.0\n\n\n"
                "def control(sensors):\n    out = {}\n    for name, (lo, hi, bias, terms) in RULES.items():\n"
                "        s = bias + sum(w * _reading(sensors, key) for key, w in terms)\n"
                "        out[name] = hi if s > 0 else lo\n    return out\n")
    raise ValueError(law.family)


def _based(space: ControlSpace, law: Law) -> str:
    """The code wrapped around a task program's own control()."""
    bounds = "{" + ", ".join(f"{n!r}: ({_lit(lo)}, {_lit(hi)})" for n, lo, hi in space.commands) + "}"
    if law.family == "saturated":
        band = _lit(law.params[0][1][0])
        return (f"_probe_own_control = control\n_PROBE_BOUNDS = {bounds}\n"
                f"_PROBE_DEADBAND = {band}  # share of the half range\n\n\n"
                "def control(sensors):\n    cmd = _probe_own_control(sensors)\n    out = dict(cmd)\n"
                "    for name, v in cmd.items():\n"
                "        if name not in _PROBE_BOUNDS or not isinstance(v, (int, float)):\n"
                "            continue\n        lo, hi = _PROBE_BOUNDS[name]\n"
                "        mid, half = (lo + hi) / 2, (hi - lo) / 2\n        band = _PROBE_DEADBAND * half\n"
                "        out[name] = hi if v > mid + band else lo if v < mid - band else mid\n"
                "    return out\n")
    if law.family == "dithered":
        (name, (hz, amp, phase)), = law.params
        return ("import math as _probe_math\n\n" + _clock(space) + f"\n_probe_own_control = control\n"
                f"_PROBE_BOUNDS = {bounds}\n"
                f"_PROBE_DITHER = ({name!r}, {_lit(hz)}, {_lit(amp)}, {_lit(phase)})  # actuator, Hz, share, phase\n"
                "\n\ndef control(sensors):\n    t = _probe_time()\n    out = dict(_probe_own_control(sensors))\n"
                "    name, hz, amp, phase = _PROBE_DITHER\n    lo, hi = _PROBE_BOUNDS[name]\n"
                "    v = out.get(name, (lo + hi) / 2)\n    v = v if isinstance(v, (int, float)) else (lo + hi) / 2\n"
                "    v += amp * (hi - lo) / 2 * _probe_math.sin(2 * _probe_math.pi * hz * t + phase)\n"
                "    out[name] = max(lo, min(hi, v))\n    return out\n")
    raise ValueError(law.family)


def law_program(space: ControlSpace, law: Law, docstring: str) -> str:
    """A complete program for a controller task running `law`."""
    doc = docstring.strip().replace('"""', "'''")
    header = "".join(f"# {line}".rstrip() + "\n" for line in doc.splitlines())
    if law.family == "literals":
        text = space.program(law.base)
        literals = find_literals(text)
        body = rewrite(text, literals, values_for(literals, law.z)) if literals else text
        return f"{header}# (the task's {law.base} program with rescaled literals)\n{body}"
    if law.family in BASED:
        own = space.program(law.base).rstrip()
        return (f"{header}# (the task's {law.base} program, its control() wrapped below)\n"
                f"{own}\n\n\n# ----- the probe's wrapper\n{_based(space, law)}")
    return f'"""{doc}\n"""\n\n\ndef build(api):\n    pass\n\n\n{_generic(space, law)}'


def control_space(commands: dict[str, tuple[float, float]], sensors: dict[str, Any], control_every: int,
                  programs: dict[str, str]) -> ControlSpace:
    readings = tuple((k, float(v)) for k, v in sorted(sensors.items())
                     if isinstance(v, (int, float)) and math.isfinite(float(v)))
    return ControlSpace(tuple((n, float(lo), float(hi)) for n, (lo, hi) in sorted(commands.items())), readings,
                        max(1, control_every) / 60.0, tuple(sorted(programs.items())))
