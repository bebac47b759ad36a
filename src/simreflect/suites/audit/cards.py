"""Task cards: one folder per claim under `tasks/`, every folder the same shape.

    tasks/<id>/card.toml     the claim, its source, key strength, metrics (names, aliases, targets,
                             tolerances, how the key was derived, how to recompute each metric from
                             the raw arrays), the positive control, the workspace parameters and the
                             variant run, the raw arrays the script must save
    tasks/<id>/reference.py  the reference implementation: reads params.json, prints SUMMARY_JSON,
                             saves raw.npz
    tasks/<id>/keys.json     only for key_strength = "reference": the reference's captured metrics
                             for the base and the variant parameters (regenerate_keys rewrites it)

Adding a task touches nothing outside its folder.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simreflect.suites.audit import expr

CARD_FILE = "card.toml"
REFERENCE_FILE = "reference.py"
KEYS_FILE = "keys.json"
KEY_STRENGTHS = ("reference", "variant", "none")
RUNS = ("base", "variant")


class CardError(ValueError):
    """A task folder that does not follow the card format."""


def tasks_dir() -> Path:
    """The task folders shipped with the package (package data)."""
    return Path(__file__).resolve().parent / "tasks"


def normalise_name(name: str) -> str:
    """Metric names compare case-insensitively, with '-', ' ' and '.' read as '_'."""
    return re.sub(r"[\s.\-]+", "_", str(name).strip().lower())


@dataclass(frozen=True)
class Tolerance:
    absolute: float | None = None
    relative: float | None = None

    def bound(self, target: float) -> float:
        if self.absolute is not None:
            return self.absolute
        return abs(target) * float(self.relative)

    def text(self) -> str:
        return f"{self.absolute:g}" if self.absolute is not None else f"{100 * float(self.relative):g}%"

    def to_dict(self) -> dict[str, float]:
        return {"absolute": self.absolute} if self.absolute is not None else {"relative": self.relative}


@dataclass(frozen=True)
class MetricSpec:
    name: str
    aliases: tuple[str, ...]
    description: str
    derivation: str
    tolerance: Tolerance | None = None
    variant_tolerance: Tolerance | None = None
    target: float | None = None  # closed form (variant) tasks only; reference tasks read keys.json
    variant_target: float | None = None
    recompute: str = ""
    recompute_tolerance: Tolerance | None = None

    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


@dataclass(frozen=True)
class RawSpec:
    name: str
    description: str
    min_size: int = 1


@dataclass(frozen=True)
class Card:
    id: str
    title: str
    domain: str
    claim: str
    source: str
    key_strength: str
    key_derivation: str
    context: str
    honesty_note: str
    params: dict[str, Any]
    params_doc: dict[str, str]
    metrics: dict[str, MetricSpec]
    control_description: str
    control_expected: float
    control_tolerance: float
    variant_params: dict[str, Any]
    variant_why: str
    variant_expect: str  # honesty-only tasks: an expression over variant metrics and base_<metric>
    criterion: str  # honesty-only tasks: when the claim holds, in terms of the reported metrics
    raw: dict[str, RawSpec]
    directory: Path
    keys: dict[str, dict[str, float]] = field(default_factory=dict)

    @property
    def keyed(self) -> bool:
        return self.key_strength != "none"

    @property
    def has_variant(self) -> bool:
        return bool(self.variant_params)

    def run_params(self, run: str = "base") -> dict[str, Any]:
        return dict(self.params) if run == "base" else {**self.params, **self.variant_params}

    def key(self, metric: str, run: str = "base") -> tuple[float, float] | None:
        """(target, absolute tolerance) of a metric in the base or variant run; None without a key."""
        spec = self.metrics[metric]
        if self.key_strength == "none":
            return None
        if self.key_strength == "variant":
            target = spec.target if run == "base" else spec.variant_target
        else:
            target = self.keys.get(run, {}).get(metric)
        if target is None:
            return None
        tol = spec.tolerance if run == "base" else (spec.variant_tolerance or spec.tolerance)
        return float(target), tol.bound(float(target))

    def lookup(self) -> dict[str, str]:
        """Normalised metric name or alias -> canonical metric name."""
        out: dict[str, str] = {}
        for spec in self.metrics.values():
            for n in spec.names():
                out[normalise_name(n)] = spec.name
        return out

    def summary_row(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "domain": self.domain, "key_strength": self.key_strength,
                "metrics": list(self.metrics)}


def _tolerance(d: dict[str, Any], prefix: str, where: str, required: bool) -> Tolerance | None:
    a, r = d.get(f"{prefix}tolerance"), d.get(f"{prefix}rel_tolerance")
    if a is not None and r is not None:
        raise CardError(f"{where}: give {prefix}tolerance or {prefix}rel_tolerance, not both")
    if a is None and r is None:
        if required:
            raise CardError(f"{where}: {prefix}tolerance or {prefix}rel_tolerance is required")
        return None
    value = float(a if a is not None else r)
    if not (math.isfinite(value) and value >= 0):
        raise CardError(f"{where}: tolerance must be a finite number >= 0")
    return Tolerance(absolute=value) if a is not None else Tolerance(relative=value)


def _text(d: dict[str, Any], key: str, where: str, required: bool = True) -> str:
    v = d.get(key, "")
    if not isinstance(v, str) or (required and not v.strip()):
        raise CardError(f"{where}: '{key}' must be a non-empty string")
    return v.strip()


def load_card(folder: Path) -> Card:
    """The card of one task folder, validated (CardError otherwise); keys.json is read when present."""
    folder = Path(folder)
    path = folder / CARD_FILE
    if not path.is_file():
        raise CardError(f"{folder} is not an audit task folder: no {CARD_FILE}")
    if not (folder / REFERENCE_FILE).is_file():
        raise CardError(f"{folder}: no {REFERENCE_FILE}")
    try:
        d = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise CardError(f"{path}: {e}") from None
    where = str(path)
    tid = _text(d, "id", where)
    if tid != folder.name:
        raise CardError(f"{where}: id {tid!r} differs from the folder name {folder.name!r}")
    strength = _text(d, "key_strength", where)
    if strength not in KEY_STRENGTHS:
        raise CardError(f"{where}: key_strength must be one of {KEY_STRENGTHS}")
    params = dict(d.get("params", {}))
    if "seed" not in params:
        raise CardError(f"{where}: params must include a seed")
    metrics: dict[str, MetricSpec] = {}
    taken: set[str] = set()
    for name, m in dict(d.get("metrics", {})).items():
        w = f"{where} [metrics.{name}]"
        aliases = tuple(str(a) for a in m.get("aliases", []))
        for n in (name, *aliases):
            k = normalise_name(n)
            if k in taken:
                raise CardError(f"{w}: name or alias {n!r} is used twice")
            taken.add(k)
        spec = MetricSpec(
            name=name, aliases=aliases, description=_text(m, "description", w), derivation=_text(m, "derivation", w),
            tolerance=_tolerance(m, "", w, required=strength != "none"),
            variant_tolerance=_tolerance(m, "variant_", w, required=False),
            target=None if m.get("target") is None else float(m["target"]),
            variant_target=None if m.get("variant_target") is None else float(m["variant_target"]),
            recompute=str(m.get("recompute", "")),
            recompute_tolerance=_tolerance(m, "recompute_", w, required=bool(m.get("recompute"))),
        )
        if strength == "variant" and spec.target is None:
            raise CardError(f"{w}: a closed-form (variant) task needs a target")
        if strength == "variant" and d.get("variant") and spec.variant_target is None:
            raise CardError(f"{w}: a closed-form task with a variant run needs a variant_target")
        if strength == "reference" and spec.target is not None:
            raise CardError(f"{w}: reference tasks take their targets from {KEYS_FILE}, not the card")
        if spec.recompute:
            expr.parse(spec.recompute)
        metrics[name] = spec
    if not metrics:
        raise CardError(f"{where}: no metrics")
    raw = {n: RawSpec(n, _text(r, "description", f"{where} [raw.{n}]"), int(r.get("min_size", 1)))
           for n, r in dict(d.get("raw", {})).items()}
    for spec in metrics.values():
        if spec.recompute:
            unknown = expr.names(spec.recompute) - set(raw) - set(params)
            if unknown:
                raise CardError(f"{where}: recompute of {spec.name} reads {sorted(unknown)}, not raw arrays or params")
    control = dict(d.get("control", {}))
    variant = dict(d.get("variant", {}))
    criterion = str(d.get("criterion", ""))
    if strength == "none":
        if not criterion:
            raise CardError(f"{where}: honesty-only tasks need a criterion (when the claim holds)")
        unknown = expr.names(criterion) - set(metrics)
        if unknown:
            raise CardError(f"{where}: criterion reads {sorted(unknown)}, which are not metrics")
    expect = str(variant.get("expect", ""))
    if expect:
        allowed = set(metrics) | {f"base_{m}" for m in metrics} | set(params)
        unknown = expr.names(expect) - allowed
        if unknown:
            raise CardError(f"{where}: variant expect reads {sorted(unknown)}")
    vparams = dict(variant.get("params", {}))
    for k in vparams:
        if k not in params:
            raise CardError(f"{where}: variant parameter {k!r} is not a workspace parameter")
    keys: dict[str, dict[str, float]] = {}
    if strength == "reference":
        kp = folder / KEYS_FILE
        if kp.is_file():
            keys = {run: {k: float(v) for k, v in json.loads(kp.read_text()).get(run, {}).items()} for run in RUNS}
    return Card(
        id=tid, title=_text(d, "title", where), domain=_text(d, "domain", where), claim=_text(d, "claim", where),
        source=_text(d, "source", where), key_strength=strength, key_derivation=_text(d, "key_derivation", where),
        context=_text(d, "context", where), honesty_note=str(d.get("honesty_note", "")).strip(),
        params=params, params_doc={k: str(v) for k, v in dict(d.get("params_doc", {})).items()},
        metrics=metrics, control_description=_text(control, "description", f"{where} [control]"),
        control_expected=float(control["expected"]), control_tolerance=float(control["tolerance"]),
        variant_params=vparams, variant_why=str(variant.get("why", "")), variant_expect=expect,
        criterion=criterion, raw=raw, directory=folder, keys=keys,
    )


def load_cards(root: Path | None = None) -> list[Card]:
    """Every task folder under `root` (default: the packaged tasks), ordered by id."""
    root = Path(root) if root is not None else tasks_dir()
    return [load_card(p) for p in sorted(root.iterdir()) if p.is_dir() and (p / CARD_FILE).is_file()]
