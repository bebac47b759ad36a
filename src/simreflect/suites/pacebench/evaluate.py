"""One evaluation of a design program on one PACE-Bench environment, as PACE-Bench verifies it.

    program text -> sandbox session (runner.py: the program's build_agent(sandbox proxy))
                 -> PACE-Bench's CodeVerifier in this process: its environment (seeded as it seeds
                    it), its evaluator, its own simulation loop (_run_simulation), which calls the
                    program's agent_action every step through the session
                 -> (success, score, metrics) and PACE-Bench's feedback text

The steps are those of PACE-Bench's `CodeVerifier.verify_code`, except that the program never runs
here: its static check and in-process exec are replaced by the sandbox and the proxy's Policy. A
refused operation ends the evaluation with score 0.0 (what PACE-Bench gives a prohibited one).
"""

from __future__ import annotations

import math
import random
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from simreflect.core.program import ProgramResult
from simreflect.core.sandbox import SANDBOX_WORKDIR, Limits, SessionError, open_session, write_workspace_file
from simreflect.core.untrusted import JsonLimits
from simreflect.suites.pacebench import checkout
from simreflect.suites.pacebench.bridge import Bridge, ProgramFailed, Refused
from simreflect.suites.pacebench.policy import Policy, policy_for

PROGRAM_FILE = "agent.py"
PROGRAM_MODULES = ("simreflect.suites.pacebench.runner",)
DEFAULT_TIMEOUT_S = 3600.0
STEP_TIMEOUT_S = 5.0
MAX_MESSAGE_BYTES = 4 << 20
#: How the program's messages are read (core.untrusted, by the session): a call or a returned
#: value is a few levels deep; NaN and infinities travel tagged ({"$f": "nan"}), never bare.
MESSAGE_LIMITS = JsonLimits(max_bytes=MAX_MESSAGE_BYTES, max_depth=40, max_items=100_000,
                            max_string_chars=10_000, surrogates="replace")


@dataclass
class Result:
    """What PACE-Bench's verifier returns for one program on one environment, plus the proxy's word."""

    task: str
    environment: str
    success: bool
    score: float
    metrics: dict[str, Any]
    feedback: str
    error: str | None
    refused: str = ""
    program: ProgramResult | None = None
    proxy_calls: int = 0
    notes: list[str] = field(default_factory=list)


def jsonable(v: Any, depth: int = 0) -> Any:
    """PACE-Bench's metrics as plain JSON (non-finite floats as strings, unknown objects as repr)."""
    if depth > 20:
        return "..."
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else repr(v)
    if isinstance(v, dict):
        return {str(k): jsonable(x, depth + 1) for k, x in v.items()}
    if isinstance(v, (list, tuple, set, frozenset)):
        return [jsonable(x, depth + 1) for x in v]
    if hasattr(v, "__float__"):
        try:
            return jsonable(float(v), depth)
        except (TypeError, ValueError):
            pass
    return repr(v)[:200]


def _failure(kind: str, stage: str, message: str, error: str) -> tuple[bool, float, dict, str]:
    return False, 0.0, {"error_type": kind, "error_stage": stage, "error_message": message}, error


class _Session:
    def __init__(self, workdir: Path, program: str, timeout_s: float) -> None:
        write_workspace_file(workdir, PROGRAM_FILE, program)
        limits = Limits(wall_s=timeout_s, cpu_s=timeout_s, memory_mb=1024, processes=16, file_mb=16,
                        output_kb=64, disk_mb=64)
        self.session = open_session([sys.executable, "-P", "-m", "simreflect.suites.pacebench.runner",
                                     f"{SANDBOX_WORKDIR}/{PROGRAM_FILE}"], workdir, limits,
                                    package_modules=PROGRAM_MODULES, max_message_bytes=MAX_MESSAGE_BYTES,
                                    reply_limits=MESSAGE_LIMITS)


def _run(verifier: Any, bridge_of: Any, task_name: str) -> tuple[bool, float, dict, str | None]:
    """PACE-Bench's verify_code, the program's part played by the sandboxed session."""
    physics = verifier.env_overrides.get("physics_config", {})
    terrain = verifier.env_overrides.get("terrain_config", {})
    random.seed(int(physics.get("random_seed", terrain.get("target_rng_seed", 123))))
    environment = verifier._init_environment()
    if hasattr(environment, "remove_initial_template"):
        environment.remove_initial_template()
    bridge: Bridge = bridge_of(environment)
    try:
        built = bridge.turn({"op": "build"}, "built")
    except ProgramFailed as e:
        if e.where == "missing":
            return _failure("missing_function", "code_parsing", str(e), "Code missing build_agent function")
        if e.where == "load" and e.kind == "SyntaxError":
            return _failure("syntax_error", "code_compilation", str(e), f"Code syntax error: {e}")
        if e.where == "load":
            return _failure("execution_error", "verification", str(e), f"Verification process error: {e}")
        return _failure("agent_building_error", "agent_construction", str(e), f"Error building agent: {e}")
    from simreflect.suites.pacebench.bridge import decode

    components = decode(built.get("value"), bridge.handles)
    if "K_05" in task_name and hasattr(environment, "enforce_object_at_ground"):
        environment.enforce_object_at_ground()
    evaluator = verifier._init_evaluator(environment)
    code_module = SimpleNamespace()
    if built.get("action") is True:
        def agent_action(_environment: Any, _components: Any, step_count: int) -> None:
            bridge.turn({"op": "act", "step": int(step_count)}, "acted")

        code_module.agent_action = agent_action
    success, score, metrics = verifier._run_simulation(environment, components, evaluator, code_module, True,
                                                       None, "outcome-based")
    return bool(success), float(score), dict(metrics or {}), None


def evaluate(task_name: str, environment_id: str, program: str, *, root: str | None = None,
             workdir: Path | None = None, timeout_s: float = DEFAULT_TIMEOUT_S) -> Result:
    """Verify `program` on one environment (Initial or Stage-1..4) of a PACE-Bench task (e.g. S_01)."""
    checkout.load(root)
    from pace_bench.evaluation.verification.diagnostics import format_feedback
    from pace_bench.evaluation.verification.verifier import _NATIVE_VERIFICATION_LOCK, CodeVerifier
    from pace_bench.tasks.registry import get_registry, max_steps_for_task

    registry = get_registry()
    task = registry.resolve(task_name)
    env = {str(e.environment_id): e for e in registry.environments(task)}[environment_id]
    policy: Policy = policy_for(task, registry)
    own_dir = workdir is None
    tmp = tempfile.TemporaryDirectory(prefix="simreflect-pacebench-") if own_dir else None
    work = Path(tmp.name) if tmp is not None else Path(workdir)
    session: _Session | None = None
    bridge: Bridge | None = None
    refused = ""

    def bridge_of(environment: Any) -> Bridge:
        nonlocal session, bridge
        session = _Session(work, program, timeout_s)
        bridge = Bridge(session.session.request, environment, policy, STEP_TIMEOUT_S)
        return bridge

    try:
        with _NATIVE_VERIFICATION_LOCK:
            verifier = CodeVerifier(task.full_name, max_steps=max_steps_for_task(task),
                                    env_overrides=env.overrides, registry=registry)
            try:
                success, score, metrics, error = _run(verifier, bridge_of, task.full_name)
            except Refused as e:
                refused = str(e)
                success, score, metrics, error = _failure("refused_operation", "sandbox_proxy", refused,
                                                          f"Refused operation: {refused}")
            except SessionError as e:
                success, score, metrics, error = _failure("execution_error", "verification", str(e),
                                                          f"Verification process error: {e}")
            except ProgramFailed as e:
                success, score, metrics, error = _failure("execution_error", "verification", str(e),
                                                          f"Verification process error: {e}")
            finally:
                verifier.cleanup()
                closed = session.session.close() if session is not None else None
        metrics = jsonable(metrics)
        feedback = format_feedback(metrics, float(score), bool(success), bool(metrics.get("failed", not success)),
                                   metrics.get("failure_reason"), iteration=0, error=error,
                                   task_name=task.full_name, include_suggestions=False)
        return Result(task.name, environment_id, bool(success), float(score), metrics, feedback, error, refused,
                      closed, bridge.calls if bridge is not None else 0)
    finally:
        if tmp is not None:
            tmp.cleanup()
