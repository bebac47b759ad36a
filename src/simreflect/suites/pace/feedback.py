"""The report an agent reads about one evaluation: one formatter for every task.

Built only from the evaluation's measurements and the current environment's visible thresholds:
status and failure reason with step and time, the score and how it came about, the goal's state,
the terminal state (the task's own lines, from its feedback.py), a chronology of events, the
constraint profile (PASS/FAIL with values, limits and margins), peak joint loads as a percentage
of their limits, numerical health and notes. It describes what happened; it never says what to
change. Invisible variables never appear: limits that are invisible are shown as percentages.

Sections are tagged with the evidence level from which they are shown (L1: status, score, goal,
constraint profile; L2: terminal state, chronology, joint loads, numerical health; L3: every
joint and the design summary).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from simreflect.suites.pace.engine import DT

if TYPE_CHECKING:
    from simreflect.suites.pace.evaluate import Evaluation
    from simreflect.suites.pace.task import TaskSpec

MAX_EVENTS = 14
MAX_JOINTS_L2 = 6


def _t(step: int | None) -> str:
    if step is None:
        return ""
    return f"step {step}, t = {step * DT:.2f} s"


def _num(v: float | None, unit: str = "") -> str:
    if v is None:
        return "n/a"
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    text = f"{v:.4g}"
    return f"{text} {unit}".rstrip()


def format_levels(ev: Evaluation, spec: TaskSpec) -> dict[str, str]:
    """The report at every evidence level, keyed "1", "2", "3"."""
    return {str(level): format_feedback(ev, spec, level) for level in (1, 2, 3)}


def format_feedback(ev: Evaluation, spec: TaskSpec, level: int = 3) -> str:
    from simreflect.suites.pace.task import stage_label

    lines = [f"PACE evaluation: {spec.title} ({spec.id}), {stage_label(ev.stage)}"]
    if ev.invalid:
        lines.append(f"Status: FAIL - not simulated: {ev.invalid}")
        lines.append("Score: -100 (nothing could be evaluated)")
        prog = ev.program
        if prog is not None and prog.output_tail.strip():
            tail = prog.output_tail.strip().splitlines()[-12:]
            lines.append("Program output (last lines):")
            lines += [f"  {ln}" for ln in tail]
        return "\n".join(lines) + "\n"

    hard = ev.constraints
    violated = [c for c in hard if not c.passed]
    if ev.passed:
        lines.append(f"Status: SUCCESS at {_t(ev.steps)}")
        lines.append("Score: 100 (goal met, every hard constraint satisfied)")
    else:
        where = f" (at {_t(ev.failure_step)})" if ev.failure_step is not None else ""
        lines.append(f"Status: FAIL - {ev.failure}{where}")
        if violated:
            lines.append(f"Score: {ev.score:g} ({len(violated)} of {len(hard)} hard constraints violated: "
                         f"{', '.join(c.name for c in violated)})")
        else:
            lines.append(f"Score: {ev.score:g} (no hard constraint violated; partial progress "
                         f"{100 * max(0.0, ev.progress):.0f}% towards the goal)")
    lines.append(f"Goal: {'met' if ev.goal_met else 'not met'} - {ev.goal}")

    if level >= 2:
        lines.append("")
        lines.append(f"Terminal state ({_t(ev.steps)}):")
        try:
            task_lines = spec.feedback_module.terminal_lines(ev.terminal, spec.visible(ev.stage))
        except Exception as e:  # noqa: BLE001 - a formatting bug must not hide the evaluation
            task_lines = [f"(terminal state not available: {type(e).__name__})"]
        lines += [f"  {ln}" for ln in task_lines]
        lines.append("")
        lines.append("Chronology:")
        events = ev.events
        first_joint = True
        shown = events if len(events) <= MAX_EVENTS else events[:MAX_EVENTS - 1]
        for e in shown:
            text = e.text
            if e.kind == "joint_failure" and first_joint:
                text = "first joint failure: " + text
                first_joint = False
            lines.append(f"  t = {e.step * DT:6.2f} s (step {e.step:5d})  {text}")
        if len(shown) < len(events):
            rest = events[len(shown):]
            kinds: dict[str, int] = {}
            for e in rest:
                kinds[e.kind] = kinds.get(e.kind, 0) + 1
            lines.append(f"  ... {len(rest)} more events until step {rest[-1].step} ("
                         + ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in sorted(kinds.items())) + ")")

    lines.append("")
    lines.append("Constraint profile:")
    for c in hard:
        lines.append("  " + _constraint_line(c))
        if not c.passed and c.detail:
            lines.append(f"      {c.detail}")

    if level >= 2:
        lines.append("")
        lines += _joint_lines(ev, spec, level)
        lines.append("")
        lines.append("Numerical health: " + _health_line(ev.health))
        if ev.notes:
            lines.append("Notes: " + "; ".join(ev.notes))
    if level >= 3 and ev.design:
        d = ev.design
        lines.append(f"Design: {d.get('parts', 0)} parts, {d.get('joints', 0)} joints, {d.get('springs', 0)} "
                     f"springs, mass {d.get('mass', 0):.1f} kg")
    return "\n".join(lines) + "\n"


def _constraint_line(c: Any) -> str:
    status = "PASS" if c.passed else "FAIL"
    if c.value is None:
        return f"[{status}] {c.name}: {c.description}"
    if c.limit is None:
        return f"[{status}] {c.name}: {_num(c.value, c.unit)} ({c.description})"
    margin = c.margin
    m = "" if margin is None else f", margin {100 * margin:+.1f}%"
    return f"[{status}] {c.name}: {_num(c.value, c.unit)} (limit {c.sense} {_num(c.limit, c.unit)}{m}) - {c.description}"


def _joint_lines(ev: Evaluation, spec: TaskSpec, level: int) -> list[str]:
    joints = ev.joints
    if not joints:
        return ["Joint loads: no breakable joints in the design."]
    strength = spec.strength(spec.environment(ev.stage))

    def worst(j: dict) -> float:
        return max(j.get("force_ratio") or 0.0, j.get("torque_ratio") or 0.0)

    ranked = sorted(joints, key=lambda j: (-worst(j), j["id"]))
    broken = [j for j in joints if j.get("broken_step") is not None]
    head = f"Peak joint loads (% of each joint's limit; {len(joints)} breakable joints, {len(broken)} broke"
    if level < 3 and len(ranked) > MAX_JOINTS_L2:
        head += f"; the {MAX_JOINTS_L2} most loaded shown"
        ranked = ranked[:MAX_JOINTS_L2]
    out = [head + "):"]
    for j in ranked:
        parts = []
        if j.get("force_ratio") is not None:
            absolute = f" = {j['peak_force'] / 1000:.3g} kN" if strength.visible else ""
            parts.append(f"force {100 * j['force_ratio']:.0f}%{absolute} (step {j['peak_force_step']})")
        if j.get("torque_ratio") is not None:
            absolute = f" = {j['peak_torque'] / 1000:.3g} kN m" if strength.visible else ""
            parts.append(f"torque {100 * j['torque_ratio']:.0f}%{absolute} (step {j['peak_torque_step']})")
        tail = f"; BROKE at step {j['broken_step']} ({j['broken_by']})" if j.get("broken_step") is not None else ""
        out.append(f"  {j['id']} {j['kind']} {j['a']}-{j['b']}: " + ", ".join(parts) + tail)
    return out


def _health_line(h: dict[str, Any]) -> str:
    if not h:
        return "not simulated"
    if h.get("status") != "ok":
        return f"FAILED at {_t(h.get('problem_step'))}: {h.get('problem')}"
    text = (f"OK - no NaN/Inf and no blow-up in {h.get('checks', 0)} checks; peak speed "
            f"{h.get('peak_speed', 0):.3g} m/s ({h.get('peak_speed_body') or '-'}, step {h.get('peak_speed_step', 0)})")
    if h.get("spin_cap_checks"):
        text += f"; a body spun at the solver's rotation cap in {h['spin_cap_checks']} checks"
    return text
