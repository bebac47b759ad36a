"""What a build is: the boards (size, stock slot, target outline), the joints, screws, drills, budgets.

A build file (one per build in this package) gives a `BuildTemplate`; `template.spec(seed)` returns the
concrete `BuildSpec` of one seed: the whole target layout is moved by a small seeded rigid transform
on the table and every stock board gets a seeded shift along its rack and a seeded tilt. Nothing
else depends on the seed, so the reference controllers work for every seed by reading the state.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from simreflect.suites.workshop.builds.pose import validate_target

#: Pine, kg/m^3.
WOOD_DENSITY = 500.0
TABLE_TOP = 0.72


@dataclass(frozen=True)
class BoardSpec:
    name: str
    size: tuple[float, float, float]  # length (local x), width (local y), thickness (local z), metres
    stock_slot: int  # rack slot it starts in
    target: tuple[float, ...]  # outline centre x, y, z, yaw[, pitch, roll] (rad): see builds/pose.py
    stock_shift: float = 0.0  # metres along the rack (seeded)
    stock_tilt: float = math.radians(15.0)  # tilt of the rack slot about the board's long axis

    def __post_init__(self) -> None:
        object.__setattr__(self, "target", validate_target(self.target))
        if len(self.size) != 3 or not all(math.isfinite(v) and v > 0 for v in self.size):
            raise ValueError(f"board {self.name}: a size is three positive lengths, not {self.size!r}")
        if isinstance(self.stock_slot, bool) or not isinstance(self.stock_slot, int) or self.stock_slot < 0:
            raise ValueError(f"board {self.name}: a stock slot is a non-negative integer, not {self.stock_slot!r}")

    @property
    def mass(self) -> float:
        return WOOD_DENSITY * self.size[0] * self.size[1] * self.size[2]


@dataclass(frozen=True)
class JointSpec:
    """Two boards crossing: `top` lies on `bottom`; three screws through `top` into `bottom` fix it."""

    name: str
    top: str
    bottom: str


@dataclass(frozen=True)
class Budgets:
    actions: int  # motion and drill actions (each segment or drill action counts one)
    sim_seconds: float  # simulated time
    wall_seconds: float  # wall time of the session, from its start


@dataclass(frozen=True)
class BuildSpec:
    name: str
    title: str
    seed: int
    boards: tuple[BoardSpec, ...]
    joints: tuple[JointSpec, ...] = ()
    screws: int = 0  # screws in the comb (the joints need 3 each; the rest are spares)
    drills: int = 0
    budgets: Budgets = Budgets(300, 240.0, 1200.0)
    description: str = ""
    layout: dict[str, Any] = field(default_factory=dict)  # the seeded transform, for the record

    def board(self, name: str) -> BoardSpec:
        for b in self.boards:
            if b.name == name:
                return b
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["boards"] = [dict(asdict(b), mass=b.mass) for b in self.boards]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> BuildSpec:
        boards = tuple(BoardSpec(name=b["name"], size=tuple(b["size"]), stock_slot=int(b["stock_slot"]),
                                 target=tuple(b["target"]), stock_shift=float(b.get("stock_shift", 0.0)),
                                 stock_tilt=float(b.get("stock_tilt", math.radians(15.0)))) for b in d["boards"])
        joints = tuple(JointSpec(**j) for j in d.get("joints", []))
        return cls(name=d["name"], title=d["title"], seed=int(d["seed"]), boards=boards, joints=joints,
                   screws=int(d.get("screws", 0)), drills=int(d.get("drills", 0)),
                   budgets=Budgets(**d["budgets"]), description=d.get("description", ""),
                   layout=dict(d.get("layout", {})))


@dataclass(frozen=True)
class BuildTemplate:
    """A build before seeding: targets given relative to the layout origin; the seeded layout
    transform (a shift on the table and a turn about the vertical) composes with each target's full
    rotation by adding to its yaw (builds/pose.py)."""

    name: str
    title: str
    boards: tuple[BoardSpec, ...]
    joints: tuple[JointSpec, ...] = ()
    screws: int = 0
    drills: int = 0
    budgets: Budgets = Budgets(300, 240.0, 1200.0)
    description: str = ""
    origin: tuple[float, float] = (0.1, 0.0)  # where the layout sits on the table
    shift_xy: float = 0.02  # seeded layout shift, +- metres
    shift_yaw: float = math.radians(4.0)  # seeded layout rotation, +- rad
    stock_shift: float = 0.02  # seeded shift of stock boards along the rack, +- metres
    stock_tilt: tuple[float, float] = (math.radians(12.0), math.radians(18.0))

    def spec(self, seed: int) -> BuildSpec:
        rng = np.random.default_rng(np.random.SeedSequence([int(seed), 7301]))
        dx, dy = rng.uniform(-self.shift_xy, self.shift_xy, 2)
        dyaw = rng.uniform(-self.shift_yaw, self.shift_yaw)
        ox, oy = self.origin[0] + dx, self.origin[1] + dy
        c, s = math.cos(dyaw), math.sin(dyaw)
        boards = []
        for b in self.boards:
            x, y, z, yaw = b.target[:4]
            tx, ty = ox + c * x - s * y, oy + s * x + c * y
            tilt = tuple(_r(a) for a in b.target[4:])  # pitch and roll as they are: the turn about z adds to yaw
            boards.append(BoardSpec(name=b.name, size=b.size, stock_slot=b.stock_slot,
                                    target=(_r(tx), _r(ty), _r(z), _r(_wrap(yaw + dyaw)), *tilt),
                                    stock_shift=_r(rng.uniform(-self.stock_shift, self.stock_shift)),
                                    stock_tilt=_r(rng.uniform(*self.stock_tilt))))
        return BuildSpec(name=self.name, title=self.title, seed=int(seed), boards=tuple(boards), joints=self.joints,
                         screws=self.screws, drills=self.drills, budgets=self.budgets, description=self.description,
                         layout={"origin": [_r(ox), _r(oy)], "yaw": _r(dyaw)})


def _r(x: float) -> float:
    """Round to 0.1 micrometre / microradian so specs print and compare cleanly."""
    return round(float(x), 7)


def _wrap(a: float) -> float:
    return (a + math.pi) % (2 * math.pi) - math.pi
