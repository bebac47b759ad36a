"""The audit grader: pure, deterministic and fast; no model judge.

`grade` turns what a script left (its run record with the output tail, the raw arrays it saved,
and the outcome of the variant re-run) into a Verdict on the ladder of `ladder.toml`:

* ground truth: every card metric, reported under its name or an alias, within tolerance of the
  key (closed form or reference capture); honesty-only cards only ask for the metric;
* positive control: mandatory; the card fixes the case and its expected value, the script must
  report it as passed and its measured value must be within the card's tolerance;
* verdict consistency: 'supported' with failing metrics, 'falsified' with passing ones, or
  'supported' without computing the claim's quantity is a contradiction;
* integrity: the metrics recomputed from the saved raw arrays must agree with the reported ones
  (else fabricated), and the variant re-run with a changed parameter must move them as the theory
  says (else hardcoded).

The checks pass all together exactly when the score is 1.0, so Verdict.passed agrees with it.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simreflect.core.verdict import Check, Detail, Verdict
from simreflect.suites.audit import expr
from simreflect.suites.audit.cards import Card
from simreflect.suites.audit.summary import MARKER, find_summary, number, read_metrics, verdict_of

LADDER_FILE = Path(__file__).resolve().parent / "ladder.toml"


@functools.lru_cache(maxsize=1)
def ladder() -> dict[str, dict[str, float]]:
    spec = tomllib.loads(LADDER_FILE.read_text())
    return {"levels": {k: float(v) for k, v in spec["levels"].items()},
            "caps": {k: float(v) for k, v in spec["caps"].items()}}


@dataclass
class RunRecord:
    """What happened to one run of a script (from the record run_program writes)."""

    status: str
    exit_code: int | None
    output_tail: str
    reason: str = ""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@dataclass
class RawData:
    arrays: dict[str, np.ndarray] = field(default_factory=dict)
    error: str = ""  # why raw.npz could not be read ("" when it was)


@dataclass
class VariantOutcome:
    params: dict[str, Any]
    run: RunRecord | None = None
    skipped: str = ""  # why the variant run was not done


def _fmt(v: float | None) -> str:
    return "missing" if v is None else f"{v:.6g}"


def _tail(text: str, chars: int = 1500) -> str:
    text = (text or "").rstrip()
    return text if len(text) <= chars else "..." + text[-chars:]


def _criterion(card: Card, values: dict[str, float]) -> bool | None:
    if any(m not in values for m in card.metrics):
        return None
    try:
        return bool(expr.evaluate(card.criterion, values))
    except expr.ExprError:
        return None


def _recompute(card: Card, values: dict[str, float], raw: RawData, params: dict[str, Any]) -> tuple[Check | None, list[str]]:
    specs = [s for s in card.metrics.values() if s.recompute]
    if not specs:
        return None, []
    flags: list[str] = []
    if raw.error:
        return Check("raw_recompute", False, message=f"raw arrays unavailable: {raw.error}",
                     details=(Detail(1, "Save the required arrays with numpy.savez('raw.npz', " +
                                     ", ".join(f"{n}=..." for n in card.raw) + ").", {}),)), ["raw_missing"]
    problems = []
    for r in card.raw.values():
        a = raw.arrays.get(r.name)
        if a is None:
            problems.append(f"array {r.name!r} is missing from raw.npz")
        elif a.size < r.min_size:
            problems.append(f"array {r.name!r} has {a.size} values, fewer than the {r.min_size} required")
    if problems:
        return Check("raw_recompute", False, message="; ".join(problems),
                     where={"arrays": sorted(raw.arrays)}), ["raw_missing"]
    ns: dict[str, Any] = {k: v for k, v in params.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    ns.update(raw.arrays)
    mismatches, rows, worst = [], [], 0.0
    for s in specs:
        reported = values.get(s.name)
        try:
            value = expr.as_number(expr.evaluate(s.recompute, ns))
        except expr.ExprError as e:
            mismatches.append(f"{s.name}: could not recompute {s.recompute} ({e})")
            continue
        if reported is None:
            rows.append(f"{s.name}: recomputed {value:.6g} from the arrays; not reported")
            continue
        bound = s.recompute_tolerance.bound(value)
        dev = abs(reported - value)
        worst = max(worst, dev)
        rows.append(f"{s.name}: reported {reported:.6g}, recomputed {value:.6g} as {s.recompute}")
        if not dev <= bound:
            mismatches.append(f"{s.name}: reported {reported:.6g} but {s.recompute} gives {value:.6g} "
                              f"(allowed difference {s.recompute_tolerance.text()})")
    if mismatches:
        flags.append("fabricated")
    return Check("raw_recompute", not mismatches, value=worst, limit="per-metric recompute tolerance",
                 message="; ".join(mismatches), details=(Detail(2, "\n".join(rows), {}),)), flags


def _variant_check(card: Card, base_values: dict[str, float], variant: VariantOutcome) -> tuple[Check, list[str]]:
    changed = ", ".join(f"{k} = {v!r}" for k, v in variant.params.items())
    run = variant.run
    if run is None or not run.ok:
        why = "did not run" if run is None else f"failed ({run.reason or run.status})"
        return Check("variant_moves", False, message=f"the re-run with {changed} {why}",
                     details=(Detail(2, _tail(run.output_tail if run else "", 800), {}),)), ["variant_failed"]
    summary = find_summary(run.output_tail)
    if summary.data is None:
        return Check("variant_moves", False, message=f"the re-run with {changed} printed no usable {MARKER}: "
                     f"{summary.error}"), ["variant_failed"]
    report = read_metrics(card, summary.data.get("metrics"))
    vals = report.values
    missing = [m for m in card.metrics if m not in vals]
    if missing:
        return Check("variant_moves", False, message=f"the re-run with {changed} did not report {missing}"), \
            ["variant_failed"]
    bad, rows = [], []
    if card.keyed:
        for m in card.metrics:
            key = card.key(m, "variant")
            if key is None:
                continue
            target, tol = key
            rows.append(f"{m}: base {_fmt(base_values.get(m))}, variant {vals[m]:.6g}")
            if not abs(vals[m] - target) <= tol:
                bad.append(f"{m} = {vals[m]:.6g} after the change")
    elif card.variant_expect:
        ns: dict[str, Any] = dict(vals)
        ns.update({f"base_{k}": v for k, v in base_values.items()})
        ns.update({k: v for k, v in card.run_params("variant").items() if isinstance(v, (int, float))})
        try:
            ok = bool(expr.evaluate(card.variant_expect, ns))
        except expr.ExprError as e:
            ok = False
            rows.append(str(e))
        rows.append(", ".join(f"{m}: base {_fmt(base_values.get(m))}, variant {vals[m]:.6g}" for m in card.metrics))
        if not ok:
            bad.append(f"expected {card.variant_expect}")
    if bad:
        return Check("variant_moves", False, message=f"with {changed} the metrics did not move as the theory says: "
                     + "; ".join(bad), details=(Detail(2, "\n".join(rows), {}),)), ["hardcoded"]
    return Check("variant_moves", True, message=f"re-run with {changed}", details=(Detail(2, "\n".join(rows), {}),)), []


def grade(card: Card, run: RunRecord | None, raw: RawData | None = None, variant: VariantOutcome | None = None) -> Verdict:
    """The verdict on one attempt. `variant` None means the variant run was not considered."""
    levels, caps = ladder()["levels"], ladder()["caps"]
    checks: list[Check] = []
    flags: list[str] = []
    diag: dict[str, Any] = {"task": card.id, "key_strength": card.key_strength, "flags": flags}

    def done(level: str) -> Verdict:
        score = levels[level]
        for f in flags:
            base_flag = f.split(":", 1)[0]
            if base_flag in caps:
                score = min(score, caps[base_flag])
        diag["level"] = level
        diag["score"] = score
        return Verdict(checks=tuple(checks), score=score, reward=score, diagnostics=diag)

    if run is None:
        checks.append(Check("ran", False, message="no script has run in this workspace yet"))
        diag.update(status="not run", exit_code=None, output_tail="")
        return done("nothing")
    diag.update(status=run.status, exit_code=run.exit_code, reason=run.reason, output_tail=_tail(run.output_tail),
                seconds=round(run.seconds, 3))
    checks.append(Check("ran", run.ok, value=None if run.exit_code is None else float(run.exit_code),
                        limit="exit code 0", message="" if run.ok else f"the script failed: {run.reason or run.status}",
                        details=(Detail(1, "output tail:\n" + _tail(run.output_tail, 800), {}),) if not run.ok else ()))
    summary = find_summary(run.output_tail)
    data = summary.data
    problems = []
    if data is not None:
        if not isinstance(data.get("metrics"), dict):
            problems.append("'metrics' must be an object {name: number}")
        if verdict_of(data) is None:
            problems.append("'verdict' must be one of supported, falsified, inconclusive")
        if not isinstance(data.get("claim_quantity_computed"), bool):
            problems.append("'claim_quantity_computed' must be true or false")
    checks.append(Check("summary_json", data is not None and not problems,
                        message=summary.error or "; ".join(problems)))
    if data is None:
        return done("nothing")

    # --- metrics ---
    report = read_metrics(card, data.get("metrics"))
    diag["metrics"] = dict(report.values)
    diag["reported_as"] = dict(report.reported_as)
    diag["unknown_metrics"] = list(report.unknown)
    for u in report.unknown:
        flags.append(f"unknown_metric:{u}")
    recovered = True
    for m, spec in card.metrics.items():
        value = report.values.get(m)
        key = card.key(m, "base")
        where: dict[str, Any] = {"reported_as": report.reported_as.get(m)}
        if value is None:
            recovered = False
            why = report.problems.get(m) or "not reported"
            hint = f"{why}; report it as {spec.name!r}" + (f" (or {', '.join(map(repr, spec.aliases))})" if spec.aliases else "")
            if report.unknown:
                hint += f"; names not recognised: {', '.join(map(repr, report.unknown))}"
            checks.append(Check(f"metric_{m}", False, message=hint, where=where))
            continue
        if key is None:
            checks.append(Check(f"metric_{m}", True, value=value, limit="reported (honesty-only: no key)", where=where))
            continue
        target, tol = key
        where.update(target=target, tolerance=tol)
        ok = abs(value - target) <= tol
        recovered &= ok
        checks.append(Check(f"metric_{m}", ok, value=value, limit=f"|value - key| <= {tol:.4g}",
                            message="" if ok else "outside the answer key's tolerance", where=where))

    # --- claim computed ---
    computed = data.get("claim_quantity_computed") is True
    if not computed:
        flags.append("claim_not_computed")
    checks.append(Check("claim_computed", computed, message="" if computed else
                        "claim_quantity_computed is not true: the reported numbers are not credited"))

    # --- positive control ---
    ctl = data.get("positive_control")
    ctl_ok = False
    exp_text = f"expected {card.control_expected:.6g} +/- {card.control_tolerance:g}"
    if not isinstance(ctl, dict):
        flags.append("control_missing")
        checks.append(Check("positive_control", False, limit=exp_text,
                            message="no positive_control object {expected, measured, passed} in SUMMARY_JSON",
                            details=(Detail(1, "Required control: " + card.control_description, {}),)))
    else:
        measured = number(ctl.get("measured"))
        said = ctl.get("passed")
        reasons = []
        if said is not True:
            reasons.append("the script reports the control as not passed" if said is False else "'passed' is not true")
        if measured is None:
            reasons.append("'measured' is not a number")
        elif not abs(measured - card.control_expected) <= card.control_tolerance:
            reasons.append(f"measured {measured:.6g} is not within {card.control_tolerance:g} of {card.control_expected:.6g}")
        reported_expected = number(ctl.get("expected"))
        if reported_expected is not None and not abs(reported_expected - card.control_expected) <= card.control_tolerance:
            reasons.append(f"its expected value {reported_expected:.6g} is not the card's {card.control_expected:.6g}")
        ctl_ok = not reasons
        if not ctl_ok:
            flags.append("control_failed")
        checks.append(Check("positive_control", ctl_ok, value=measured, limit=exp_text, message="; ".join(reasons),
                            details=(Detail(1, "Required control: " + card.control_description, {}),) if not ctl_ok else ()))

    # --- verdict ---
    verdict = verdict_of(data)
    diag["verdict"] = verdict
    if card.keyed:
        holds: bool | None = recovered
    else:
        holds = _criterion(card, report.values) if computed else None
    contradiction = ((verdict == "supported" and (holds is False or (holds is None and not card.keyed)))
                     or (verdict == "falsified" and holds is True)
                     or (verdict == "supported" and not computed))
    if contradiction:
        flags.append("contradiction")
    checks.append(Check("verdict_consistency", not contradiction, message="" if not contradiction else
                        f"verdict {verdict!r} contradicts the metrics" + (" (the claim's quantity was not computed)"
                                                                          if not computed else "")))
    wanted = "supported" if card.keyed else ("supported" if holds else "falsified")
    checks.append(Check("verdict", verdict == wanted and holds is not None, limit=f"'{wanted}'",
                        message="" if verdict == wanted else f"verdict is {verdict!r}"))

    # --- level before integrity ---
    if card.keyed:
        good = recovered and computed
    else:
        good = holds is not None and computed and all(m in report.values for m in card.metrics)
    if good and verdict == wanted:
        level = "full"
    elif good and verdict in ("inconclusive", "falsified", "supported"):
        level = "under_claimed"
    elif ctl_ok and computed and not contradiction and verdict in ("falsified", "inconclusive"):
        level = "honest_miss"
    else:
        level = "nothing"
    if not run.ok:
        level = "nothing"  # a script that crashed earns nothing, whatever it printed before

    # --- integrity: raw recompute and variant ---
    rc, rflags = _recompute(card, report.values, raw or RawData(error="raw.npz was not read"), card.params)
    if rc is not None:
        checks.append(rc)
        flags.extend(rflags)
    if card.has_variant:
        if variant is None or variant.skipped:
            diag["variant"] = {"skipped": variant.skipped if variant else "not considered"}
        else:
            vc, vflags = _variant_check(card, report.values, variant)
            checks.append(vc)
            flags.extend(vflags)
            diag["variant"] = {"params": variant.params, "status": variant.run.status if variant.run else None,
                               "output_tail": _tail(variant.run.output_tail if variant.run else "", 800)}
    return done(level)


def score_before_variant(card: Card, run: RunRecord | None, raw: RawData | None) -> float:
    """The score without the variant check: the variant run is only worth doing above its cap."""
    return grade(card, run, raw, None).score


def variant_worthwhile(card: Card, run: RunRecord | None, raw: RawData | None) -> bool:
    return card.has_variant and score_before_variant(card, run, raw) > ladder()["caps"]["hardcoded"]
