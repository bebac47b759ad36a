"""Reading a script's SUMMARY_JSON (as data) and matching its metric names to a card."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from simreflect.core.untrusted import JsonLimits, Refusal, finite_float, load_json
from simreflect.suites.audit.cards import Card, normalise_name

MARKER = "SUMMARY_JSON"
MAX_SUMMARY_CHARS = 200_000
#: How the SUMMARY_JSON line is read (core.untrusted). NaN and Infinity tokens are read, and every
#: field judges them: a metric that is not a finite number is reported as such (see `number`), a
#: positive control or verdict must have its own type. A lone surrogate (not text) becomes U+FFFD,
#: so that names the script chose can be shown in the report.
SUMMARY_LIMITS = JsonLimits(max_bytes=MAX_SUMMARY_CHARS, max_depth=16, max_items=20_000, max_string_chars=10_000,
                            nonfinite="allow", surrogates="replace")
VERDICTS = ("supported", "falsified", "inconclusive")


@dataclass
class Summary:
    data: dict[str, Any] | None
    error: str = ""
    line: str = ""


def find_summary(output: str) -> Summary:
    """The last line starting with SUMMARY_JSON, followed by one JSON object."""
    lines = [ln.strip() for ln in (output or "").splitlines() if ln.strip().startswith(MARKER)]
    if not lines:
        return Summary(None, f"no line starting with {MARKER} in the output")
    line = lines[-1]
    rest = line[len(MARKER):].lstrip().lstrip(":=").strip()
    if len(rest) > MAX_SUMMARY_CHARS:
        return Summary(None, f"the {MARKER} line is longer than {MAX_SUMMARY_CHARS} characters", line[:200])
    try:
        data = load_json(rest, SUMMARY_LIMITS, f"the {MARKER} line")
    except Refusal as e:
        return Summary(None, str(e), line[:200])
    if not isinstance(data, dict):
        return Summary(None, f"{MARKER} must be a JSON object, got {type(data).__name__}", line[:200])
    return Summary(data, "", line[:200])


def number(value: Any) -> float | None:
    """A finite float from a JSON number (or {"value": number}); None otherwise."""
    if isinstance(value, dict) and "value" in value:
        value = value["value"]
    return finite_float(value)


@dataclass
class MetricReport:
    values: dict[str, float] = field(default_factory=dict)  # canonical name -> value
    reported_as: dict[str, str] = field(default_factory=dict)  # canonical name -> name used by the script
    unknown: list[str] = field(default_factory=list)  # names that are neither a metric nor an alias
    problems: dict[str, str] = field(default_factory=dict)  # canonical name -> why its value was not read


def read_metrics(card: Card, metrics: Any) -> MetricReport:
    out = MetricReport()
    if not isinstance(metrics, dict):
        return out
    lookup = card.lookup()
    for raw_name, value in metrics.items():
        canonical = lookup.get(normalise_name(raw_name))
        if canonical is None:
            out.unknown.append(str(raw_name))
            continue
        if canonical in out.values:
            out.problems[canonical] = f"reported twice (as {out.reported_as[canonical]!r} and {raw_name!r})"
            continue
        v = number(value)
        if v is None:
            out.problems[canonical] = f"{raw_name!r} is not a finite number: {json.dumps(value)[:80]}"
            continue
        out.values[canonical] = v
        out.reported_as[canonical] = str(raw_name)
    return out


def verdict_of(data: dict[str, Any]) -> str | None:
    v = data.get("verdict")
    if isinstance(v, str) and v.strip().lower() in VERDICTS:
        return v.strip().lower()
    return None
