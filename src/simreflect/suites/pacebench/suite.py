"""PaceBenchSuite: PACE-Bench's own 36 tasks x 4 target stages behind the core Suite interface.

A Task is one (PACE-Bench task, target stage) pair, as `pace-bench evaluate --env Stage-N` runs
it: the workspace's agent.py starts as the task's source reference (its Initial environment's
solution) and must be adapted to the target. Every evaluation is evaluate.py: the program in the
sandbox behind the proxy, PACE-Bench's environment, evaluator and loop here. The checkout comes
from $SIMREFLECT_PACEBENCH or the option checkout=PATH; without one, loading tasks raises
PaceBenchMissing with what to set.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

from simreflect.core.contract import RunProtocol, ScoreScale
from simreflect.core.evidence import EvidenceLevel
from simreflect.core.program import ProgramResult, ProgramRun, refuse_program
from simreflect.core.sandbox import UnsafeWorkspaceFile, read_workspace_file, write_workspace_file
from simreflect.core.suite import Suite
from simreflect.core.task import Task
from simreflect.core.verdict import Check, Verdict
from simreflect.suites.pacebench import checkout
from simreflect.suites.pacebench.evaluate import DEFAULT_TIMEOUT_S, PROGRAM_FILE, Result, evaluate

MAX_PROGRAM_BYTES = 1 << 20
SAVED_TASK = "pacebench_task.json"
TARGETS = ("Stage-1", "Stage-2", "Stage-3", "Stage-4")
SOURCE = "Initial"
#: PACE-Bench's six domains by the first letter of a task's name (S_01 ...), named as the pace suite names them.
DOMAINS = {"S": "statics", "K": "kinematics", "D": "dynamics", "F": "granular", "C": "control", "E": "exotic"}


def domain_of(task_name: str) -> str:
    """The domain of a PACE-Bench task name (S_01: statics); 'other' for a name outside the six."""
    return DOMAINS.get(task_name[:1], "other")


def verdict_of(result: Result) -> Verdict:
    """PACE-Bench's outcome as a verdict: one check (its success), its score, its feedback text."""
    diagnostics = {"feedback": {"3": result.feedback}, "metrics": result.metrics, "error": result.error,
                   "refused": result.refused,
                   "program_status": None if result.program is None else result.program.status}
    # PACE-Bench scores a program that crashed or was refused 0.0, above a design that ran and failed
    # (its penalty makes that negative): the score stays PACE-Bench's, the reward of a program that
    # did not run to the end is the floor, so no policy learns to crash out of a penalty.
    reward = -1.0 if result.error else max(-1.0, min(1.0, result.score / 100.0))
    if result.refused:
        return Verdict(checks=(), score=result.score, reward=reward, invalid=f"refused: {result.refused}",
                       diagnostics=diagnostics)
    check = Check("success", result.success, value=result.score, limit="PACE-Bench success", unit="score",
                  message=str(result.metrics.get("failure_reason") or result.error or ""))
    return Verdict(checks=(check,), score=result.score, reward=reward, diagnostics=diagnostics)


class PaceBenchSuite(Suite):
    name = "pacebench"
    summary = "PACE-Bench's own 144 adaptation pairs (needs a checkout: SIMREFLECT_PACEBENCH)"
    protocol = RunProtocol(budget=20, runs=2, history="previous+best", invalid_streak=3, invalid_retries=2, levels=("L3",),
                           timeout_s=DEFAULT_TIMEOUT_S)
    scale = ScoreScale(-100.0, 100.0, -1.0, 1.0, "PACE-Bench's score: 100 on success, else its penalty-shaped "
                       "score in [-100, 100]")
    program_filename = PROGRAM_FILE
    #: The target stages a trajectory carries (core.contract.AttemptBudget: Pass@k and Score@k in the report).
    stages = (1, 2, 3, 4)
    options_help = {"checkout": "the PACE-Bench checkout (default: $SIMREFLECT_PACEBENCH)"}

    def __init__(self, checkout_path: str | None = None) -> None:
        self.checkout_path = checkout_path

    def with_options(self, **options) -> PaceBenchSuite:
        if not options:
            return self
        super().with_options(**{k: v for k, v in options.items() if k not in self.options_help})
        return PaceBenchSuite(str(options.get("checkout", self.checkout_path)))

    def _registry(self):
        checkout.load(self.checkout_path)
        from pace_bench.tasks.registry import get_registry

        return get_registry()

    # --- tasks

    def default_root(self, seed: int = 0) -> Path:
        return checkout.checkout_root(self.checkout_path)

    def load_tasks(self, root: Path | None = None) -> list[Task]:
        """Every (task, target stage) pair of the checkout, in PACE-Bench's order."""
        if root is not None:
            self.checkout_path = str(root)
        registry = self._registry()
        out = []
        for spec in registry.benchmark_tasks:
            for stage in TARGETS:
                out.append(Task(id=f"{spec.name}.{stage}", suite=self.name, seed=len(out),
                                params={"task": spec.name, "stage": stage, "category": spec.category_name},
                                hidden={"task": spec.name, "environment": stage,
                                        "checkout": str(checkout.checkout_root(self.checkout_path))},
                                budget=self.protocol.budget))
        return out

    def save_task(self, task: Task, dest: Path) -> None:
        dest = Path(dest)
        dest.mkdir(parents=True, exist_ok=True)
        (dest / SAVED_TASK).write_text(json.dumps(task.to_dict(), indent=2, sort_keys=True) + "\n")

    def load_task(self, path: Path) -> Task:
        path = Path(path)
        return Task.from_dict(json.loads((path / SAVED_TASK if path.is_dir() else path).read_text()))

    def _spec(self, task: Task):
        return self._registry().resolve(task.hidden["task"])

    def reference(self, task: Task, environment: str) -> str:
        """PACE-Bench's reference solution of one environment of the task (get_reference_solution)."""
        from pace_bench.tasks.registry import get_reference_solution

        return get_reference_solution(self._spec(task), environment)

    # --- programs and verdicts

    def evaluation(self, task: Task, program: str, environment: str | None = None,
                   workdir: Path | None = None, timeout_s: float = DEFAULT_TIMEOUT_S) -> Result:
        return evaluate(task.hidden["task"], environment or task.hidden["environment"], program,
                        root=self.checkout_path, workdir=workdir, timeout_s=timeout_s)

    def prepare_workspace(self, task: Task, workdir: Path) -> None:
        Path(workdir).mkdir(parents=True, exist_ok=True)
        write_workspace_file(Path(workdir), PROGRAM_FILE, self.source_program(task))

    def run_program(self, task: Task, program: str, workdir: Path, timeout_s: float = DEFAULT_TIMEOUT_S) -> ProgramRun:
        refused = refuse_program(program)
        if refused is not None:
            return ProgramRun(refused)
        workdir = Path(workdir)
        with tempfile.TemporaryDirectory(prefix="simreflect-pacebench-run-") as tmp:
            result = self.evaluation(task, program, workdir=Path(tmp), timeout_s=timeout_s)
        write_workspace_file(workdir, PROGRAM_FILE, program)
        ran = result.program if result.program is not None else ProgramResult("error", None, "", 0.0, "not run")
        return ProgramRun(ran, result)

    def refuse(self, reason: str) -> Verdict:
        return Verdict.invalid_artefact(reason, score=0.0, reward=0.0)

    def verify(self, task: Task, workdir: Path, run: ProgramRun | None = None) -> Verdict:
        if run is not None and isinstance(run.artefact, Result):
            return verdict_of(run.artefact)
        try:
            program = read_workspace_file(Path(workdir), PROGRAM_FILE, MAX_PROGRAM_BYTES).decode("utf-8")
        except FileNotFoundError:
            return self.refuse(f"no {PROGRAM_FILE} in the work directory")
        except (UnsafeWorkspaceFile, OSError, UnicodeDecodeError) as e:
            return self.refuse(f"cannot read {PROGRAM_FILE}: {e}")
        with tempfile.TemporaryDirectory(prefix="simreflect-pacebench-verify-") as tmp:
            return verdict_of(self.evaluation(task, program, workdir=Path(tmp)))

    def source_program(self, task: Task) -> str:
        return self.reference(task, SOURCE)

    def oracle(self, task: Task) -> str:
        return self.reference(task, task.hidden["environment"])

    # --- text

    def observe(self, task: Task, verdict: Verdict, level: EvidenceLevel) -> str:
        levels = verdict.diagnostics.get("feedback")
        if isinstance(levels, dict) and levels.get("3"):
            return str(levels["3"])
        return f"PACE-Bench report for {task.id}: " + (verdict.invalid or ("success" if verdict.passed else "failed"))

    def instruction(self, task: Task) -> str:
        """PACE-Bench's own prompt for the target: its task context (description and success
        criteria updated for the visible changes, the primitives API, the uniform suffix) in its
        initial-prompt template. The source design is the workspace's agent.py."""
        from pace_bench.evaluation.prompts import PromptBuilder

        registry = self._registry()
        spec = self._spec(task)
        target = {str(e.environment_id): e for e in registry.environments(spec)}[task.hidden["environment"]]
        builder = PromptBuilder(registry)
        return builder.initial(builder.load_task_context(spec, target))

    def interface_notes(self, level: EvidenceLevel) -> str:
        return ("agent.py defines build_agent(sandbox) and optionally agent_action(sandbox, agent_body, step_count), "
                "as PACE-Bench's prompt says. It runs in a sandbox: `sandbox` is a proxy to the environment, and only "
                "the task's documented primitives are reachable; any other operation ends the attempt with a refusal.")

    def subsets(self, task: Task) -> list[str]:
        return [f"category: {task.params['category']}", f"stage {task.params['stage'][-1]}"]

    def trajectory_fields(self, task: Task) -> dict:
        return {"domain": domain_of(task.params["task"]), "stage": int(task.params["stage"][-1])}

    def attempt_flags(self, verdict: dict) -> dict[str, bool]:
        """From PACE-Bench's recorded metrics: a violated design constraint (its failure reason says so), a
        structure that broke (structure_broken or a joint failure event), a simulation that went non-finite."""
        diagnostics = verdict.get("diagnostics") if isinstance(verdict, dict) else None
        metrics = diagnostics.get("metrics") if isinstance(diagnostics, dict) else None
        metrics = metrics if isinstance(metrics, dict) else {}
        reason = str(metrics.get("failure_reason") or "")[:10_000].lower()
        events = metrics.get("joint_failure_events")
        return {
            "constraint_violation": "constraint violated" in reason,
            "structural_failure": metrics.get("structure_broken") is True or (isinstance(events, list) and bool(events))
                                  or "integrity lost" in reason,
            "numerical_instability": bool(re.search(r"\bnan\b|non-finite|numerical", reason)),
        }


__all__ = ["PaceBenchSuite", "verdict_of"]
