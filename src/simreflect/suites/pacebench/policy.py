"""What a design may do through the proxy, task by task (bridge.py enforces it).

On the environment object (`sandbox.NAME`): the names PACE-Bench documents for the task in its
primitives_api.json (found there as `sandbox.NAME`, the way PACE-Bench's own static check finds
them) plus the `sandbox.NAME` its own reference solutions of the task use. Never a name that starts
with `_`, never an assignment.

On the handles the environment returns (bodies, joints, the world): reading a few kinematic
readouts (BASE_READS) and whatever the task's reference solutions read; calling a method the
task's documented API or its references call; assigning only those of WRITABLE (velocities, motor
speeds) the task's references assign (README.md lists them), so never a position, an angle, a
material or a mass. Everything else is refused, and the refusal is the verdict.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

#: Readouts of any handle every task allows (the kinematic state PACE-Bench's prompts describe).
BASE_READS = frozenset({"position", "x", "y", "angle", "linearVelocity", "angularVelocity", "worldCenter"})
#: What a reference's assignment can open up on a handle: a body's velocities, a joint's motor
#: (PACE-Bench's static check lets a design assign them; its references do). Assignments of other
#: names in a reference are to the program's own objects, never to the environment's.
WRITABLE = frozenset({"linearVelocity", "angularVelocity", "motorSpeed", "motorEnabled", "maxMotorTorque",
                      "maxMotorForce"})
_SANDBOX_NAME = re.compile(r"sandbox\.([a-zA-Z0-9_]+)")
_METHOD_NAME = re.compile(r"\.([A-Za-z][A-Za-z0-9_]*)\(")
ENVIRONMENTS = ("Initial", "Stage-1", "Stage-2", "Stage-3", "Stage-4")


@dataclass(frozen=True)
class Policy:
    task: str
    sandbox_names: frozenset[str]
    reads: frozenset[str]
    calls: frozenset[str]
    writes: frozenset[str]

    def refusal(self, on_sandbox: bool, kind: str, name: str) -> str:
        """'' when allowed, else the reason the operation is refused."""
        if name.startswith("_"):
            return f"'{name}' is private: only the documented primitive API of {self.task} is reachable"
        if on_sandbox:
            if kind == "set":
                return f"assigning sandbox.{name} is refused: the environment is changed only through its primitives"
            if name not in self.sandbox_names:
                return f"sandbox.{name} is not in the documented primitive API of {self.task}"
            return ""
        if kind == "get" and name not in self.reads and name not in self.calls:
            return f"reading .{name} of an environment object is not allowed in {self.task}"
        if kind == "invoke" and name not in self.calls:
            return f"calling .{name}() of an environment object is not allowed in {self.task}"
        if kind == "set" and name not in self.writes:
            return f"assigning .{name} of an environment object is not allowed in {self.task}"
        return ""


def _reference_uses(code: str) -> tuple[set[str], set[str], set[str], set[str]]:
    """(sandbox names, other reads, other calls, other assignments) of a reference solution."""
    sandbox, reads, calls, writes = set(), set(), set(), set()
    tree = ast.parse(code)
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or node.attr.startswith("_"):
            continue
        if isinstance(node.value, ast.Name) and node.value.id == "sandbox":
            sandbox.add(node.attr)
        elif isinstance(node.ctx, ast.Store):
            writes.add(node.attr)
        elif id(node) in called:
            calls.add(node.attr)
        else:
            reads.add(node.attr)
    return sandbox, reads, calls, writes


def documented_names(api_doc: dict[str, Any], task_name: str) -> tuple[set[str], set[str]]:
    """(sandbox names, methods) that primitives_api.json documents for one task."""
    entries = api_doc.get(task_name) or {}
    text = "\n".join(str(v) for v in entries.values())
    return set(_SANDBOX_NAME.findall(text)), set(_METHOD_NAME.findall(text))


def policy_for(task: Any, registry: Any) -> Policy:
    """The policy of one PACE-Bench task (its TaskSpec), from its checkout's files."""
    from pace_bench.tasks.registry import get_reference_solution

    api_doc = json.loads((registry.categories_root / "primitives_api.json").read_text(encoding="utf-8"))
    sandbox, methods = documented_names(api_doc, task.name)
    reads, calls, writes = set(BASE_READS), set(methods), set()
    for env in ENVIRONMENTS:
        s, r, c, w = _reference_uses(get_reference_solution(task, env))
        sandbox |= s
        reads |= r
        calls |= c
        writes |= w
    sandbox = {n for n in sandbox if not n.startswith("_")}
    return Policy(task.name, frozenset(sandbox), frozenset(reads),
                  frozenset(c for c in calls if not c.startswith("_")), frozenset(writes & WRITABLE))
