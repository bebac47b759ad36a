"""The parameters of the variant runs, drawn at grading time from the card's stated ranges.

A script only ever sees params.json, so it cannot know the variant parameters before it runs with
them: no table can anticipate values drawn from a continuous range. The draws are stratified (a
Latin hypercube): each parameter's range is cut into as many equal parts as there are draws (equal
in the logarithm for `log_uniform`) and every part gets one draw, so the draws always spread over
the range instead of landing together by chance. They are a pure function
of the task, the script's text and `DRAW_SALT`, so grading the same script again (rescore) draws
the same parameters, while another script gets others. The uniform numbers come from SHA-256 in
counter mode, not from a numpy generator, so they do not depend on the numpy version.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

from simreflect.suites.audit import expr
from simreflect.suites.audit.cards import Card, DrawSpec

DRAW_SALT = "simreflect-audit-variant-draws-1"
SEED_RANGE = (1, 2**31 - 1)


class _Uniforms:
    """Deterministic uniform numbers in [0, 1) from a digest (SHA-256 in counter mode)."""

    def __init__(self, key: bytes) -> None:
        self.key, self.counter = key, 0

    def next(self) -> float:
        block = hashlib.sha256(self.key + self.counter.to_bytes(8, "big")).digest()
        self.counter += 1
        return int.from_bytes(block[:8], "big") / 2.0**64


def draw_key(card_id: str, script: str) -> bytes:
    return hashlib.sha256(f"{DRAW_SALT}\0{card_id}\0".encode() + script.encode("utf-8", "surrogatepass")).digest()


def _bound(value: float | str | None, params: dict[str, Any]) -> float:
    if isinstance(value, str):
        return expr.as_number(expr.evaluate(value, _numeric(params)))
    return float(value)


def _numeric(params: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in params.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def _round4(x: float) -> float:
    return float(f"{x:.4g}")


def _draw_one(spec: DrawSpec, x: float, params: dict[str, Any]) -> Any:
    """The value of one parameter at the point `x` in [0, 1) of its range."""
    if spec.kind == "choice":
        return spec.choices[min(int(x * len(spec.choices)), len(spec.choices) - 1)]
    if spec.kind == "expr":
        value = expr.as_number(expr.evaluate(spec.expr, _numeric(params)))
        return int(round(value)) if isinstance(params[spec.name], int) else _round4(value)
    low, high = _bound(spec.low, params), _bound(spec.high, params)
    if spec.kind == "int":
        lo = math.ceil(low)
        k = max(0, math.floor(high - lo) // spec.step)
        return lo + spec.step * min(int(x * (k + 1)), k)
    if spec.kind == "log_uniform":
        return _round4(math.exp(math.log(low) + x * (math.log(high) - math.log(low))))
    return _round4(low + x * (high - low))


def _strata(u: _Uniforms, count: int) -> list[int]:
    """A permutation of range(count) (Fisher-Yates on the digest stream)."""
    order = list(range(count))
    for i in range(count - 1, 0, -1):
        j = min(int(u.next() * (i + 1)), i)
        order[i], order[j] = order[j], order[i]
    return order


def draw_params(card: Card, script: str, count: int) -> list[dict[str, Any]]:
    """`count` parameter sets for the variant runs of `script` on `card`: the base parameters with
    every drawn parameter (in card order) and the seed replaced; parameter by parameter, draw i
    falls in its own part of the range (a Latin hypercube)."""
    u = _Uniforms(draw_key(card.id, script))
    strata = {name: _strata(u, count) for name in card.draws}
    out = []
    for i in range(count):
        params = dict(card.params)
        for spec in card.draws.values():
            params[spec.name] = _draw_one(spec, (strata[spec.name][i] + u.next()) / count, params)
        params["seed"] = SEED_RANGE[0] + int(u.next() * (SEED_RANGE[1] - SEED_RANGE[0]))
        out.append(params)
    return out


def changed(card: Card, params: dict[str, Any]) -> dict[str, Any]:
    """The parameters of a draw that differ from the base ones (the seed included)."""
    return {k: v for k, v in params.items() if card.params.get(k) != v}
