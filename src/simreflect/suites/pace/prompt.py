"""What the agent reads: the task card of one environment, and the program interface.

`instruction(spec, stage)` renders a task card for one environment: goal, success criteria, hard
constraints (with this environment's visible thresholds), the visible variables (a target's
changes as "X (originally Y in the source environment)"), the names of the invisible variables
(the same list for every stage of a task; never their values) and the primitive API.
`design_limits(rules)` states every numeric bound the design is checked against (the same
numbers `design.check_design` uses). `interface_notes()` is the same for every task: how a design
program is written and run.
"""

from __future__ import annotations

import math

from simreflect.suites.pace.bounds import MAX_ANGLE, zone_extent
from simreflect.suites.pace.design import MATERIALS, TOLERANCE, DesignRules
from simreflect.suites.pace.task import TaskSpec, format_value, parse_stage, stage_label

GENERIC_CONSTRAINT_TEXT = {
    "execution": "the program answers every request (build, and control for controller tasks) and the simulation "
                 "stays numerically healthy",
    "build_zone": "every part is declared inside the build zone; ground anchors only where the task allows them",
    "mass_budget": "the total mass of the design is within the budget",
    "design_rules": "only the primitives, materials, counts, sizes, motor/spring ranges and physical bounds the task "
                    "allows (the design limits below)",
}


def _label(name: str) -> str:
    return name.replace("_", " ")


def instruction(spec: TaskSpec, stage: str, start: str = "source", disclose: bool = False) -> str:
    """The task card. `start="scratch"` asks for a design from nothing (no source program shown);
    `disclose=True` is the intervention that reveals the exact values of every changed variable."""
    stage = parse_stage(stage)
    vis = spec.visible(stage)
    src = spec.visible("source")
    lines = [f"# {spec.title} (PACE task {spec.id}, {spec.domain}; {stage_label(stage)})", ""]
    if stage == "source" or start == "scratch":
        lines += ["Write a design program that reaches the goal in this environment.", ""]
    else:
        lines += ["The program in program.py is a design that reached this goal in the task's source environment. "
                  "The environment has changed (the goal and the program interface have not), and the design now "
                  "fails. Adapt the program so that it succeeds here. Each attempt is run in the simulator and you "
                  "get its diagnostic report.", ""]
    hold = spec.hold_rule(spec.environment(stage))
    lines += ["## Goal", spec.fill(str(spec.card["goal"]), stage), "",
              "## Success criteria", spec.fill(str(spec.card["success"]), stage),
              f"(No success is decided on one instant: {hold.describe()}.)", "",
              "## Hard constraints"]
    rules = spec.rules(spec.environment(stage))
    budget = rules.mass_budget
    for name, text in GENERIC_CONSTRAINT_TEXT.items():
        if name == "mass_budget":
            text += f" ({format_value(budget, 'kg')})" if math.isfinite(budget) else " (no budget in this task)"
        lines.append(f"- {name}: {text}")
    for name, text in spec.constraint_text(stage):
        lines.append(f"- {name}: {text}")
    lines += ["", "## Environment", "Visible variables:"]
    for name, value in vis.items():
        var = spec.variables[name]
        text = f"- {_label(name)}: {format_value(value, var.unit)}"
        if stage != "source" and value != src[name]:
            text += f" (originally {format_value(src[name], var.unit)} in the source environment)"
        lines.append(text + f" - {var.description}")
    hidden = spec.invisible_names()
    if hidden and disclose:
        env, src_env = spec.environment(stage), spec.environment("source")
        lines.append("Other variables (disclosed for this run):")
        for name in hidden:
            var = spec.variables[name]
            text = f"- {_label(name)}: {format_value(env[name], var.unit)}"
            if env[name] != src_env[name]:
                text += f" (originally {format_value(src_env[name], var.unit)} in the source environment)"
            lines.append(text + f" - {var.description}")
    elif hidden:
        lines.append("Variables that may have changed (their values are not disclosed): "
                     + ", ".join(_label(n) for n in hidden) + ".")
    lines += ["", "## Primitive API", spec.fill(spec.api_doc, stage), "", "## Design limits", *design_limits(rules), ""]
    if stage != "source" and start == "source":
        lines += ["## The source design (program.py)", "```python", spec.program("source").rstrip(), "```", ""]
    return "\n".join(lines)


def _range(lo: float, hi: float, unit: str) -> str:
    return f"{lo:g}-{hi:g} {unit}"


def design_limits(rules: DesignRules) -> list[str]:
    """Every bound the declared design is checked against, one line each (design_rules and
    build_zone break when one is exceeded; the design is still simulated, motors clamped)."""
    prims = set(rules.primitives)
    if rules.max_parts == 0 or not prims & {"beam", "block", "wheel"}:
        return ["- this task's design declares no parts (the program's controller does the work)"]
    out = [f"- at most {rules.max_parts} parts, {rules.max_joints} joints and {rules.max_springs} springs; primitives: "
           + ", ".join(rules.primitives),
           "- materials (2D densities): " + ", ".join(f"{m} {MATERIALS[m].density:g} kg/m^2" for m in rules.materials
                                                       if m in MATERIALS)]
    sizes = []
    if "beam" in prims:
        sizes.append(f"beams {_range(*rules.beam_length, 'm')} long and {_range(*rules.beam_thickness, 'm')} thick")
    if "block" in prims:
        sizes.append(f"blocks {_range(*rules.block_size, 'm')} a side, turned at most +-{MAX_ANGLE:.4g} rad")
    if "wheel" in prims:
        sizes.append(f"wheels of radius {_range(*rules.wheel_radius, 'm')}")
    out.append("- sizes: " + "; ".join(sizes))
    out.append(f"- positions: every part inside the build zone and every joint or spring anchor on its parts (within "
               f"{TOLERANCE:g} m); ground anchors only in the task's anchor zones; no part declared more than "
               f"{TOLERANCE:g} m inside the terrain or one of the task's bodies")
    if math.isfinite(rules.mass_budget):
        out.append(f"- mass: at most {rules.mass_budget:g} kg in all")
    if "motor" in prims:
        out.append(f"- motors: |motor_speed| at most {rules.max_motor_speed:g} rad/s, max_torque 0-"
                   f"{rules.max_motor_torque:g} N m (a motor drives its pivot at that speed with at most that torque)")
    if "limits" in prims:
        out.append(f"- pivot limits: lower <= 0 <= upper within +-{MAX_ANGLE:.4g} rad (0 is the declared pose)")
    if "spring" in prims and rules.max_springs > 0:
        extent = zone_extent((rules.build_zone, rules.anchor_zones))
        out.append(f"- springs: stiffness {_range(*rules.spring_stiffness, 'N/m')}, damping "
                   f"{_range(*rules.spring_damping, 'N s/m')}; rest length within the declared anchor distance d x "
                   f"(1 +- {rules.spring_preload:g}) and at most {extent:.3g} m (the zone's extent); all springs "
                   f"together hold at most {rules.spring_energy:g} J at declaration (k (rest_length - d)^2 / 2 summed)")
    return out


def interface_notes() -> str:
    return """\
## Design programs
A design program is one Python file (program.py) defining:
- build(api): declares the design with the task's primitives (api.beam, api.block, api.wheel, api.rigid,
  api.pivot, api.spring, api.place ... as the task's API allows). api.env holds the visible variables of the
  environment (the values shown above). build only declares; it returns nothing.
- control(sensors) -> dict (only for tasks with a controller): called every few physics steps with the task's
  sensor readings; returns actuator commands. Keep state in module globals.
The program runs in an isolated sandbox (no network, no files but its own work directory, time and memory
limits). It never receives a simulator object: the trusted simulator validates the declared design against
the build zone, budget and rules, builds it in a Box2D world at 60 steps per second and runs it. Printing is
allowed (it appears in the output); the result comes only from the simulation.

## Score and report
A goal is met only when its success condition holds for the time the task states (or through the end of the
run): touching it for an instant is not success. Score 100 when the goal is met with every hard constraint
satisfied; -100 x (violated / all) when hard constraints are violated; otherwise the partial progress towards
the goal (0-99). The report gives the status
and failure reason with step and time, the terminal state, a chronology of events, the constraint profile
(PASS/FAIL with margins), peak joint loads as a percentage of their limits and the numerical health.

## Answer
Return the complete new program.py.
"""
