"""Task cards: one folder per claim under `tasks/`, every folder the same shape.

    tasks/<id>/card.toml     the claim, its source, key strength, metrics (names, aliases, targets,
                             tolerances, how the key was derived, how to recompute each metric from
                             the raw arrays), the positive control, the workspace parameters, the
                             ranges the variant runs draw parameters from, the raw arrays the script
                             must save and how each is compared with the reference's
    tasks/<id>/reference.py  the reference implementation: reads params.json, prints SUMMARY_JSON,
                             saves raw.npz
    tasks/<id>/keys.json     only for key_strength = "reference": the reference's captured metrics
                             for the base parameters (regenerate_keys rewrites it)

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
DRAW_KINDS = ("int", "uniform", "log_uniform", "choice", "expr")
COMPARE_KINDS = ("equal", "values", "distribution")


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
    recompute: str = ""
    recompute_tolerance: Tolerance | None = None

    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


@dataclass(frozen=True)
class RawSpec:
    """One array of raw.npz and how the grader compares it with the reference's array for the same
    parameters: `equal` (the same grid, e.g. the times or sizes the script was told to use),
    `values` (deterministic observations, within `tolerance` element by element) or `distribution`
    (samples: rows are independent samples, columns grid points; each column, and with
    `increments` each difference of adjacent columns, must pass a two-sample test; `log` tests the
    logarithms of positive values)."""

    name: str
    description: str
    min_size: int = 1
    compare: str = "distribution"
    tolerance: Tolerance | None = None
    log: bool = False
    increments: bool = False

    def compare_text(self) -> str:
        if self.compare == "equal":
            return "must equal the grid the parameters define"
        if self.compare == "values":
            return f"each value within {self.tolerance.text()} of the experiment's"
        text = "samples: a two-sample test against the experiment's samples (each column separately when 2-D"
        text += ", and each difference of adjacent columns)" if self.increments else ")"
        return text + (", on a log scale" if self.log else "")


@dataclass(frozen=True)
class DrawSpec:
    """How a variant run draws one parameter at grading time: `int` (uniform integer in [low, high],
    on the grid low + k `step`),
    `uniform` or `log_uniform` (float in [low, high], 4 significant digits), `choice` (one of
    `choices`) or `expr` (computed from the other parameters). Bounds are numbers or expressions
    over the parameters drawn before it (the base values for those not drawn)."""

    name: str
    kind: str
    low: float | str | None = None
    high: float | str | None = None
    choices: tuple[Any, ...] = ()
    expr: str = ""
    step: int = 1

    def text(self) -> str:
        if self.kind == "choice":
            if len(self.choices) == 1:
                return f"= {json.dumps(self.choices[0])}"
            return "one of " + ", ".join(json.dumps(c) for c in self.choices)
        if self.kind == "expr":
            return f"= {self.expr}"
        what = {"int": "an integer", "uniform": "uniform", "log_uniform": "log-uniform"}[self.kind]
        step = f" (a multiple of {self.step} from {self.low})" if self.step != 1 else ""
        return f"{what} in [{self.low}, {self.high}]{step}"

    def expressions(self) -> list[str]:
        return [b for b in (self.low, self.high, self.expr or None) if isinstance(b, str)]


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
    draws: dict[str, DrawSpec]  # the parameters each variant run redraws (the seed is always redrawn)
    variant_why: str
    criterion: str  # honesty-only tasks: when the claim holds, in terms of the reported metrics
    raw: dict[str, RawSpec]
    directory: Path
    keys: dict[str, dict[str, float]] = field(default_factory=dict)

    @property
    def keyed(self) -> bool:
        return self.key_strength != "none"

    @property
    def has_variant(self) -> bool:
        return bool(self.draws)

    def key(self, metric: str) -> tuple[float, float] | None:
        """(target, absolute tolerance) of a metric for the base parameters; None without a key.
        At drawn parameters the key is what the reference implementation measures there
        (`variant_key`)."""
        spec = self.metrics[metric]
        if self.key_strength == "none":
            return None
        target = spec.target if self.key_strength == "variant" else self.keys.get("base", {}).get(metric)
        if target is None:
            return None
        return float(target), spec.tolerance.bound(float(target))

    def variant_key(self, metric: str, reference_value: float) -> tuple[float, float] | None:
        """(target, absolute tolerance) at drawn parameters, from the reference's measurement there."""
        spec = self.metrics[metric]
        if self.key_strength == "none":
            return None
        tol = spec.variant_tolerance or spec.tolerance
        return float(reference_value), tol.bound(float(reference_value))

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


def _raw_spec(name: str, r: dict[str, Any], where: str) -> RawSpec:
    compare = str(r.get("compare", ""))
    if compare not in COMPARE_KINDS:
        raise CardError(f"{where}: compare must be one of {COMPARE_KINDS}")
    tol = _tolerance(r, "compare_", where, required=compare == "values")
    return RawSpec(name, _text(r, "description", where), int(r.get("min_size", 1)), compare, tol,
                   bool(r.get("log", False)), bool(r.get("increments", False)))


def _draws(spec: dict[str, Any], params: dict[str, Any], where: str) -> dict[str, DrawSpec]:
    out: dict[str, DrawSpec] = {}
    for name, d in spec.items():
        w = f"{where} {name}"
        if name not in params or name == "seed":
            raise CardError(f"{w}: only workspace parameters other than the seed are drawn (the seed always is)")
        kinds = [k for k in DRAW_KINDS if k in d] if isinstance(d, dict) else []
        if len(kinds) != 1:
            raise CardError(f"{w}: give exactly one of {DRAW_KINDS}")
        kind, v = kinds[0], d[kinds[0]]
        if kind == "choice":
            if not isinstance(v, list) or not v:
                raise CardError(f"{w}: choice needs a non-empty list")
            draw = DrawSpec(name, kind, choices=tuple(v))
        elif kind == "expr":
            draw = DrawSpec(name, kind, expr=str(v))
        else:
            if not (isinstance(v, list) and len(v) == 2 and all(isinstance(b, (int, float, str)) for b in v)):
                raise CardError(f"{w}: {kind} needs [low, high] (numbers or expressions)")
            step = int(d.get("step", 1))
            if step < 1 or (step != 1 and kind != "int"):
                raise CardError(f"{w}: step is a positive integer, for int draws only")
            draw = DrawSpec(name, kind, low=v[0], high=v[1], step=step)
        for text in draw.expressions():
            unknown = expr.names(text) - set(params)
            if unknown:
                raise CardError(f"{w}: {text!r} reads {sorted(unknown)}, which are not parameters")
        out[name] = draw
    return out


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
            recompute=str(m.get("recompute", "")),
            recompute_tolerance=_tolerance(m, "recompute_", w, required=bool(m.get("recompute"))),
        )
        if strength == "variant" and spec.target is None:
            raise CardError(f"{w}: a closed-form (variant) task needs a target")
        if strength == "reference" and spec.target is not None:
            raise CardError(f"{w}: reference tasks take their targets from {KEYS_FILE}, not the card")
        if spec.recompute:
            expr.parse(spec.recompute)
        metrics[name] = spec
    if not metrics:
        raise CardError(f"{where}: no metrics")
    raw = {n: _raw_spec(n, r, f"{where} [raw.{n}]") for n, r in dict(d.get("raw", {})).items()}
    for n in raw:
        if n in params or n in expr.FUNCTIONS:
            raise CardError(f"{where}: raw array {n!r} is named like a parameter or a function")
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
    if "params" in variant or "expect" in variant:
        raise CardError(f"{where}: [variant] draws its parameters ([variant.draw]); fixed params/expect are gone")
    draws = _draws(dict(variant.get("draw", {})), params, f"{where} [variant.draw]")
    keys: dict[str, dict[str, float]] = {}
    if strength == "reference":
        kp = folder / KEYS_FILE
        if kp.is_file():
            keys = {"base": {k: float(v) for k, v in json.loads(kp.read_text()).get("base", {}).items()}}
    return Card(
        id=tid, title=_text(d, "title", where), domain=_text(d, "domain", where), claim=_text(d, "claim", where),
        source=_text(d, "source", where), key_strength=strength, key_derivation=_text(d, "key_derivation", where),
        context=_text(d, "context", where), honesty_note=str(d.get("honesty_note", "")).strip(),
        params=params, params_doc={k: str(v) for k, v in dict(d.get("params_doc", {})).items()},
        metrics=metrics, control_description=_text(control, "description", f"{where} [control]"),
        control_expected=float(control["expected"]), control_tolerance=float(control["tolerance"]),
        draws=draws, variant_why=str(variant.get("why", "")),
        criterion=criterion, raw=raw, directory=folder, keys=keys,
    )


def load_cards(root: Path | None = None) -> list[Card]:
    """Every task folder under `root` (default: the packaged tasks), ordered by id."""
    root = Path(root) if root is not None else tasks_dir()
    return [load_card(p) for p in sorted(root.iterdir()) if p.is_dir() and (p / CARD_FILE).is_file()]
