"""The mechanism of a run: what a design is built from and what it touched.

A design that passes can do so the way its stage's reference does, or by another mechanism
(legitimate, or a loophole in the rules). `Mechanism` is a signature of one run, made of
features:

* the design as declared: the part kinds (`part:wheel`), joint kinds (`joint:pivot`), `motor`,
  `limits`, `spring`, `spring:preloaded` (a spring whose rest length differs from its anchors'
  distance by more than a quarter of that distance plus 5 cm: it stores energy at the start),
  `anchor:ground` (a joint or spring to the ground) and the task objects it places;
* what touched what during the run (`touch:design:wheel|terrain[0.80,1.30]x[0.00,8.00]`): the
  contacts between a design part or a task-owned body and anything else that last (seen in at
  least a fifth of the observed frames: a part resting on the floor for a moment before it
  climbs is not how the design works), task bodies by their role and name (also those a task
  creates during the run), the ground's fixtures by their bounding box (the same world gives the
  same names in every run) and any other moving body by its size;
* for controller tasks, the family of the control law (`controller:resonant`).

`compare(candidate, reference)` says whether two runs share a mechanism: the same core features
(how it is driven: motors, a controller's family; the energy it stores: springs and their
preload; what holds it: ground anchors, placements; and the set of things it lastingly touches)
and, as a figure, the Jaccard similarity of all features (part and joint kinds, limits and who
touched what included). `ContactLog` is the trusted observer that collects the touches while `evaluate`
runs (its `observe` callback); it reads the simulator, never changes it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from Box2D import b2_staticBody

from simreflect.suites.pace.design import GROUND, Design

#: A spring is pre-loaded when |rest length - anchor distance| exceeds this share of the distance ...
PRELOAD_SHARE = 0.25
#: ... plus this many metres.
PRELOAD_SLACK = 0.05
#: Task bodies of these roles are too many to watch (grains); they still count when touched.
UNWATCHED_ROLES = ("particle",)
#: A contact counts when seen in at least this share of the observed frames.
LASTING = 0.2
#: Feature prefixes that decide whether two runs share a mechanism (part and joint kinds and
#: limits do not: a beam for a block, a welded extra part, an arm's stop are the same mechanism).
CORE_PREFIXES = ("motor", "spring", "anchor:", "place:", "controller:", "touched:")


def spring_stroke(s: Any) -> float:
    """How far a spring starts from its rest length (m; positive: compressed, it pushes)."""
    return s.rest_length - math.dist((s.ax, s.ay), (s.bx, s.by))


def spring_energy(s: Any) -> float:
    """The energy a spring stores at the start (J): k x^2 / 2, x its stroke."""
    return 0.5 * s.stiffness * spring_stroke(s) ** 2


def is_preloaded(s: Any) -> bool:
    dist = math.dist((s.ax, s.ay), (s.bx, s.by))
    return abs(s.rest_length - dist) > PRELOAD_SHARE * dist + PRELOAD_SLACK


def design_features(design: Design) -> set[str]:
    """The features of a design as declared (see the module docstring)."""
    out = {f"part:{p.kind}" for p in design.parts}
    for j in design.joints:
        out.add(f"joint:{j.kind}")
        if j.motor_speed is not None:
            out.add("motor")
        if j.limits is not None:
            out.add("limits")
        if GROUND in (j.a, j.b):
            out.add("anchor:ground")
    for s in design.springs:
        out.add("spring")
        if is_preloaded(s):
            out.add("spring:preloaded")
        if GROUND in (s.a, s.b):
            out.add("anchor:ground")
    out |= {f"place:{name}" for name, _, _ in design.placements}
    return out


@dataclass(frozen=True)
class Mechanism:
    """The signature of one run (see the module docstring)."""

    features: frozenset[str]
    touches: frozenset[tuple[str, str]] = frozenset()  # lasting contacts
    brief: frozenset[tuple[str, str]] = frozenset()  # the other contacts (for the record only)
    max_spring_energy: float = 0.0  # J, the largest energy a spring stores at the start

    @property
    def all_features(self) -> frozenset[str]:
        touched = {f"touched:{x}" for pair in self.touches for x in pair if not x.startswith("design:")}
        return self.features | {f"touch:{a}|{b}" for a, b in self.touches} | touched

    @property
    def core(self) -> frozenset[str]:
        return frozenset(f for f in self.all_features if f.startswith(CORE_PREFIXES))

    def to_dict(self) -> dict[str, Any]:
        return {"features": sorted(self.features), "touches": [list(t) for t in sorted(self.touches)],
                "brief_touches": [list(t) for t in sorted(self.brief)],
                "max_spring_energy": round(self.max_spring_energy, 3)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Mechanism:
        def pairs(key: str) -> frozenset[tuple[str, str]]:
            return frozenset((str(a), str(b)) for a, b in data.get(key, []))

        return cls(frozenset(str(f) for f in data["features"]), pairs("touches"), pairs("brief_touches"),
                   float(data.get("max_spring_energy", 0.0)))


@dataclass(frozen=True)
class Comparison:
    shares: bool  # the same core features as the reference
    similarity: float  # Jaccard similarity of all features
    added: tuple[str, ...]  # core features the candidate has and the reference has not
    removed: tuple[str, ...]  # core features of the reference the candidate lacks

    def describe(self) -> str:
        if self.shares:
            return f"shares the reference's mechanism (feature similarity {self.similarity:.2f})"
        diff = [f"+{f}" for f in self.added] + [f"-{f}" for f in self.removed]
        return f"differs from the reference: {', '.join(diff)} (feature similarity {self.similarity:.2f})"

    def to_dict(self) -> dict[str, Any]:
        return {"shares": self.shares, "similarity": round(self.similarity, 4), "added": list(self.added),
                "removed": list(self.removed)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Comparison:
        return cls(bool(data["shares"]), float(data["similarity"]), tuple(data["added"]), tuple(data["removed"]))


def compare(candidate: Mechanism, reference: Mechanism) -> Comparison:
    a, b = candidate.all_features, reference.all_features
    union = a | b
    jaccard = len(a & b) / len(union) if union else 1.0
    ca, cb = candidate.core, reference.core
    return Comparison(ca == cb, jaccard, tuple(sorted(ca - cb)), tuple(sorted(cb - ca)))


def _fixture_label(fixture: Any) -> str:
    """A static fixture named by its bounding box in world coordinates (cm resolution)."""
    shape, xf = fixture.shape, fixture.body.transform
    if hasattr(shape, "vertices"):
        pts = [tuple(xf * v) for v in shape.vertices]
    else:  # a circle
        c, r = xf * shape.pos, shape.radius
        pts = [(c[0] - r, c[1] - r), (c[0] + r, c[1] + r)]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]

    def f(v: float) -> str:
        return f"{round(v, 2) + 0.0:.2f}"  # + 0.0: no "-0.00"

    if fixture.body.type == b2_staticBody:
        return f"terrain[{f(min(xs))},{f(max(xs))}]x[{f(min(ys))},{f(max(ys))}]"
    # a moving body the task did not tag: named by its size (where it was would differ every run)
    return f"body[{f(max(xs) - min(xs))}x{f(max(ys) - min(ys))}]"


@dataclass
class ContactLog:
    """The observer `evaluate(..., observe=log)` calls every few steps: collects touches. A task
    with several runs calls it with each run's simulator in turn: the touches of all runs add up,
    and the bodies watched are always the current simulator's (a body of an earlier run's world
    is freed memory in Box2D: touching it crashes the process)."""

    counts: dict[tuple[str, str], int] = field(default_factory=dict)  # frames each pair was seen in
    frames: int = 0
    design: Design | None = None
    _sim: Any = None
    _watched: list[tuple[Any, str]] | None = None
    _labels: dict[Any, str] = field(default_factory=dict)  # bodies and ground fixtures (keyed by the object)
    _tags_seen: int = 0

    def _prepare(self, sim: Any) -> None:
        self._sim = sim
        self._labels = {}
        self._tags_seen = 0
        self.design = sim.design
        kinds = {p.id: p.kind for p in (sim.design.parts if sim.design is not None else ())}
        self._watched = []
        for pid, body in sim.parts.items():
            label = f"design:{kinds.get(pid, 'part')}"
            self._labels[body] = label
            self._watched.append((body, label))

    def _tag_new_bodies(self, sim: Any) -> None:
        """Task bodies registered since the last frame (a task may create them during the run)."""
        for tag in sim.tagged[self._tags_seen:]:
            if tag.role == "design" or tag.body == sim.ground:
                continue
            label = f"{tag.role}:{tag.name}"
            self._labels[tag.body] = label
            if tag.role not in UNWATCHED_ROLES:
                self._watched.append((tag.body, label))
        self._tags_seen = len(sim.tagged)

    def __call__(self, sim: Any) -> None:
        if sim is not self._sim:
            self._prepare(sim)
        if len(sim.tagged) != self._tags_seen:
            self._tag_new_bodies(sim)
        labels = self._labels
        self.frames += 1
        seen: set[tuple[str, str]] = set()
        for body, label in self._watched:
            for edge in body.contacts:
                contact = edge.contact
                if not contact.touching:
                    continue
                other = edge.other
                name = labels.get(other)
                if name is None:  # the ground (or an untagged body): name the fixture touched
                    fa = contact.fixtureA
                    fixture = fa if fa.body == other else contact.fixtureB
                    name = labels.get(fixture)
                    if name is None:
                        name = labels[fixture] = _fixture_label(fixture)
                seen.add((label, name) if label <= name else (name, label))
        for pair in seen:
            self.counts[pair] = self.counts.get(pair, 0) + 1

    @property
    def touches(self) -> frozenset[tuple[str, str]]:
        """The lasting contacts (see the module docstring)."""
        need = max(1, math.ceil(LASTING * self.frames))
        return frozenset(p for p, n in self.counts.items() if n >= need)

    def mechanism(self, design: Design | None = None, extra: tuple[str, ...] = ()) -> Mechanism:
        """The run's signature (`extra`: features the caller knows, e.g. the controller family)."""
        design = design if design is not None else self.design
        feats = design_features(design) if design is not None else set()
        energy = max((spring_energy(s) for s in design.springs), default=0.0) if design is not None else 0.0
        lasting = self.touches
        return Mechanism(frozenset(feats | set(extra)), lasting, frozenset(self.counts) - lasting, energy)
