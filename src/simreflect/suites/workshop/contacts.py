"""The current contacts, read from MuJoCo as owner codes (layout.Owner) and normal forces, and what
commands ask of them: stop conditions and the arm collisions a move reports."""

from __future__ import annotations

from typing import Any, NamedTuple, Optional

import mujoco
import numpy as np

from simreflect.suites.workshop.layout import (
    ARMS,
    HANDS,
    LEFT_ARM,
    LEFT_HAND,
    RIGHT_ARM,
    RIGHT_HAND,
    ROBOT,
    Layout,
    Owner,
    arm_code,
    hand_code,
    object_code,
)
from simreflect.suites.workshop.protocol import StopWhen
from simreflect.suites.workshop.world import SIDES

SCREW_ORDER = ("free", "seated", "driven")
_FLOOR = int(Owner.FLOOR)  # the lowest owner code: the stop tables' index 0


class ContactArrays(NamedTuple):
    geoms: np.ndarray  # (n, 2) geom ids
    o1: np.ndarray  # owner code of each contact's first geom
    o2: np.ndarray
    force: np.ndarray  # normal force, N


def contact_arrays(d: mujoco.MjData, layout: Layout) -> Optional[ContactArrays]:
    """The active contacts as arrays, or None when there are none."""
    n = d.ncon
    if n == 0:
        return None
    con = d.contact
    geoms = con.geom[:n]
    o1 = layout.geom_owner[geoms[:, 0]]
    o2 = layout.geom_owner[geoms[:, 1]]
    addr = con.efc_address[:n]
    f = np.where(addr >= 0, d.efc_force[np.maximum(addr, 0)], 0.0)
    return ContactArrays(geoms, o1, o2, f)


def contact_list(d: mujoco.MjData, layout: Layout) -> list[dict[str, Any]]:
    """Active contacts: geoms, owners, world point, normal (from geom1 to geom2), normal force."""
    n = d.ncon
    if n == 0:
        return []
    con = d.contact
    geoms = con.geom[:n]
    forces = np.zeros(n)
    addr = con.efc_address[:n]
    ok = addr >= 0
    forces[ok] = d.efc_force[addr[ok]]
    out = []
    for i in range(n):
        g1, g2 = int(geoms[i, 0]), int(geoms[i, 1])
        out.append({"g1": g1, "g2": g2, "o1": int(layout.geom_owner[g1]), "o2": int(layout.geom_owner[g2]),
                    "pos": con.pos[i].copy(), "normal": con.frame[i, :3].copy(), "force": float(forces[i])})
    return out


# ----- stop conditions --------------------------------------------------------------------------------

def owner_set(layout: Layout, spec: str) -> Optional[set[int]]:
    """Owner codes a stop-condition name stands for ('any' -> None means everything)."""
    if spec == "any":
        return None
    if spec == "static":
        return {Owner.STATIC}
    if spec == "object":
        return {object_code(i) for i in range(len(layout.objects))}
    if spec == "robot":
        return set(ROBOT)
    if spec in ("left_hand", "right_hand"):
        return {hand_code(SIDES.index(spec.split("_")[0]))}
    if spec in SIDES:
        si = SIDES.index(spec)
        return {arm_code(si), hand_code(si)}
    if spec in layout.object_by_name:
        return {layout.code_of(spec)}
    raise KeyError(spec)


def validate_stop(layout: Layout, stop: StopWhen) -> None:
    if stop.state is not None:
        if stop.a not in layout.object_by_name or layout.object_by_name[stop.a].kind != "screw":
            raise ValueError(f"stop.a must name a screw when a state is given, not {stop.a!r}")
        return
    for which, name in (("a", stop.a), ("b", stop.b)):
        try:
            got = owner_set(layout, name)
        except KeyError:
            raise ValueError(f"stop.{which}: unknown name {name!r}") from None
        if which == "a" and got is None:
            raise ValueError("stop.a must name an object or a hand, not 'any'")


class StateStop(NamedTuple):
    """A stop when screw `screw` (its index) has reached `state` (free < seated < driven)."""

    screw: int
    state: str


class ContactStop(NamedTuple):
    """A stop on a contact of owner set a with owner set b (None: anything not in a), at least
    `min_force` N. The sets are lookup tables over owner codes (index: code - Owner.FLOOR)."""

    a: np.ndarray
    b: Optional[np.ndarray]
    min_force: float


def _owner_table(layout: Layout, codes: set[int]) -> np.ndarray:
    table = np.zeros(Owner.FIRST_OBJECT + len(layout.objects) - Owner.FLOOR, bool)
    table[[c - Owner.FLOOR for c in codes]] = True
    return table


def compile_stops(layout: Layout, stops: list[StopWhen]) -> list[StateStop | ContactStop]:
    """The stop conditions of a move, compiled once for the checks of every step."""
    out: list[StateStop | ContactStop] = []
    for s in stops:
        if s.state is not None:
            out.append(StateStop(layout.object_by_name[s.a].index, s.state))
        else:
            b = owner_set(layout, s.b)
            out.append(ContactStop(_owner_table(layout, owner_set(layout, s.a)),
                                   None if b is None else _owner_table(layout, b), s.min_force))
    return out


def stop_met(stops: list[StateStop | ContactStop], arrays: Optional[ContactArrays], screw_states: list[str]) -> int:
    """The index of the first compiled stop condition that holds now, or -1 (the screw states are
    looked at first, then the contacts)."""
    for k, st in enumerate(stops):
        if isinstance(st, StateStop):
            state = screw_states[st.screw]
            if state in SCREW_ORDER and SCREW_ORDER.index(state) >= SCREW_ORDER.index(st.state):
                return k
    if arrays is None:
        return -1
    _, o1, o2, f = arrays
    i1, i2 = o1 - _FLOOR, o2 - _FLOOR
    for k, st in enumerate(stops):
        if isinstance(st, StateStop):
            continue
        ina1, ina2 = st.a[i1], st.a[i2]
        if st.b is None:
            hit = ina1 != ina2
        else:
            hit = (ina1 & st.b[i2]) | (ina2 & st.b[i1])
        if np.any(hit & (f >= st.min_force)):
            return k
    return -1


# ----- collisions a move reports ----------------------------------------------------------------------

def _is_arm_collision(x: int, y: int) -> bool:
    """Contact of owner x with y counts as an arm collision: an arm link against anything, or one
    hand against the other arm or hand."""
    return x in ARMS or (x in HANDS and y in ROBOT and (x % 2) != (y % 2))


def collect_collisions(m: mujoco.MjModel, layout: Layout, arrays: Optional[ContactArrays], acc: dict) -> None:
    """Arm-link (not hand) contacts, and any contact between the two arms: the largest force per
    (arm geom, what it touched) into `acc`."""
    if arrays is None:
        return
    geoms, o1, o2, f = arrays
    arm = ((o1 <= RIGHT_ARM) & (o1 >= LEFT_ARM) | (o2 <= RIGHT_ARM) & (o2 >= LEFT_ARM)
           | ((o1 >= LEFT_HAND) & (o1 <= RIGHT_HAND) & (o2 >= LEFT_HAND) & (o2 <= RIGHT_HAND)))
    for i in np.nonzero(arm)[0]:
        a, b = int(o1[i]), int(o2[i])
        for x, y, gx, gy in ((a, b, geoms[i, 0], geoms[i, 1]), (b, a, geoms[i, 1], geoms[i, 0])):
            if _is_arm_collision(x, y):
                what = layout.owner_name(m, y, gy)
                key = (m.geom(int(gx)).name, what)
                acc[key] = max(acc.get(key, 0.0), float(f[i]))
