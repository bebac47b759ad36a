"""What the agent reads: the task card of one environment, and the program interface.

`instruction(spec, stage)` renders a task card for one environment: goal, success criteria, hard
constraints (with this environment's visible thresholds), the visible variables (a target's
changes as "X (originally Y in the source environment)"), the names of the invisible variables
(the same list for every stage of a task; never their values) and the primitive API.
`interface_notes()` is the same for every task: how a design program is written and run.
"""

from __future__ import annotations

import math

from simreflect.suites.pace.task import TaskSpec, format_value, parse_stage, stage_label

GENERIC_CONSTRAINT_TEXT = {
    "execution": "the program answers every request (build, and control for controller tasks) and the simulation "
                 "stays numerically healthy",
    "build_zone": "every part is declared inside the build zone; ground anchors only where the task allows them",
    "mass_budget": "the total mass of the design is within the budget",
    "design_rules": "only the primitives, materials, counts, sizes and motor/spring ranges the task allows",
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
    lines += ["## Goal", spec.fill(str(spec.card["goal"]), stage), "",
              "## Success criteria", spec.fill(str(spec.card["success"]), stage), "",
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
    lines += ["", "## Primitive API", spec.fill(spec.api_doc, stage), ""]
    if stage != "source" and start == "source":
        lines += ["## The source design (program.py)", "```python", spec.program("source").rstrip(), "```", ""]
    return "\n".join(lines)


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
Score 100 when the goal is met with every hard constraint satisfied; -100 x (violated / all) when hard
constraints are violated; otherwise the partial progress towards the goal (0-99). The report gives the status
and failure reason with step and time, the terminal state, a chronology of events, the constraint profile
(PASS/FAIL with margins), peak joint loads as a percentage of their limits and the numerical health.

## Answer
Return the complete new program.py.
"""
