"""simreflect's suites as Inspect AI tasks (`inspect eval simreflect/pace --model ...`).

Inspect finds these through the `inspect_ai` entry point this package declares (pyproject.toml), so
`simreflect/gait`, `simreflect/pace`, `simreflect/audit`, `simreflect/workshop` and
`simreflect/suite` (any registered suite: `-T suite=NAME`) are Inspect task names. Each task is:

- a dataset of the suite's tasks (one Sample per task; `-T tasks=GLOB,...` picks some, as
  `simreflect run --tasks` does);
- the solver `play_rounds`: the suite's round protocol, the same rounds as `simreflect run` and the
  Gymnasium environment (core.env.RepairEnv.step): the model's answer is read with the run loop's
  own parser (a malformed answer is a spent round that says why, never an exception), its program
  runs in the sandbox and is verified, and the report is the next user message, until a pass or the
  attempt budget;
- the scorer `verdict`: the simulator's verdict, never the model's word: `solved` (1 or 0), the
  episode's `reward` (core.returns.ReturnRule, the discounted best attempt, as the environment
  returns it) and the final `score`, with the rounds in the score's metadata.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser
from inspect_ai.scorer import Score, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, TaskState, solver

from simreflect.agents.parse import parse_answer
from simreflect.core.env import RepairEnv
from simreflect.core.evidence import EvidenceLevel
from simreflect.core.registry import get_suite
from simreflect.core.selection import select_ids

STORE_KEY = "simreflect"
#: What a score's explanation quotes of the final report (the full report is in the transcript).
EXPLANATION_CHARS = 4000


def _patterns(tasks: str | list[str] | tuple[str, ...]) -> list[str]:
    items = tasks.split(",") if isinstance(tasks, str) else list(tasks)
    return [p.strip() for p in items if p and p.strip()]


def suite_dataset(suite: str, bench: str | Path | None = None, tasks: str | list[str] = "",
                  level: str = "L2") -> MemoryDataset:
    """One Sample per task of the suite's benchmark (`tasks`: ids or glob patterns). A sample's input
    is a placeholder: the solver opens the episode and sets the real prompt, so that the task's
    workspace is prepared once, by the same code as every other way of running it."""
    the_suite = get_suite(suite)
    root = Path(bench) if bench else the_suite.default_root(0)
    every = the_suite.load_tasks(root)
    keep = set(select_ids([t.id for t in every], _patterns(tasks)))
    lvl = f"L{int(EvidenceLevel.parse(level))}"
    samples = [Sample(id=f"{t.id}-{lvl}", input=f"simreflect {suite} task {t.id} at {lvl}",
                      metadata={"suite": suite, "task": t.id, "level": lvl, "bench": str(root)})
               for t in every if t.id in keep]
    return MemoryDataset(samples, name=f"simreflect-{suite}")


@solver
def play_rounds(budget: int | None = None, timeout_s: float | None = None):
    """The suite's rounds against the model Inspect is evaluating (see the module docstring)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        meta = state.metadata
        with tempfile.TemporaryDirectory(prefix="simreflect-inspect-") as tmp:
            env = await asyncio.to_thread(_open_env, meta, budget, timeout_s, Path(tmp))
            try:
                system, first = env.opening_chat
                state.messages = [ChatMessageSystem(content=system["content"]),
                                  ChatMessageUser(content=first["content"])]
                rounds: list[dict[str, Any]] = []
                info: dict[str, Any] = {}
                while True:
                    state = await generate(state)
                    parsed = parse_answer(state.output.completion)
                    observation, _, terminated, truncated, info = await asyncio.to_thread(
                        env.step, parsed.program, parsed.error)
                    record = env.records[-1]
                    rounds.append({"round": record.round, "passed": bool(record.passed), "score": record.score,
                                   "errors": list(record.errors_after), "error": record.error or "",
                                   "attempt_reward": info["attempt_reward"]})
                    if terminated or truncated:
                        break
                    state.messages.append(ChatMessageUser(content=observation))
                state.store.set(STORE_KEY, {"task": meta["task"], "level": meta["level"], "passed": bool(info["passed"]),
                                            "score": info["score"], "episode_return": info["episode_return"],
                                            "errors": list(info["errors"]), "rounds": rounds,
                                            "report": env.report})
            finally:
                env.close()
        return state

    return solve


def _open_env(meta: dict[str, Any], budget: int | None, timeout_s: float | None, tmp: Path) -> RepairEnv:
    env = RepairEnv(meta["suite"], bench=meta["bench"], level=meta["level"], budget=budget, timeout_s=timeout_s,
                    tasks=[meta["task"]])
    env.reset(options={"task": meta["task"]})
    return env


@scorer(metrics={"solved": [mean(), stderr()], "reward": [mean()], "score": [mean()]})
def verdict():
    """The verdict the solver's last round left (a sample whose solver never finished scores 0)."""

    async def score(state: TaskState, target: Target) -> Score:
        result = state.store.get(STORE_KEY)
        if not isinstance(result, dict):
            return Score(value={"solved": 0.0, "reward": 0.0, "score": 0.0},
                         explanation="no episode was played (the solver did not finish)")
        passed = bool(result["passed"])
        return Score(value={"solved": 1.0 if passed else 0.0, "reward": float(result["episode_return"]),
                            "score": float(result["score"])},
                     answer="passed" if passed else "not passed",
                     explanation=str(result["report"])[:EXPLANATION_CHARS],
                     metadata={"task": result["task"], "level": result["level"], "errors": result["errors"],
                               "rounds": result["rounds"]})

    return score


def suite_task(suite: str, tasks: str = "", level: str = "L2", bench: str = "", budget: int = 0,
               timeout_s: float = 0.0) -> Task:
    """The Inspect task of a suite (0 or "": the suite's own default)."""
    return Task(dataset=suite_dataset(suite, bench or None, tasks, level),
                solver=play_rounds(budget=budget or None, timeout_s=timeout_s or None),
                scorer=verdict())


@task
def suite(suite: str, tasks: str = "", level: str = "L2", bench: str = "", budget: int = 0,
          timeout_s: float = 0.0) -> Task:
    """Any registered simreflect suite: `inspect eval simreflect/suite -T suite=NAME`."""
    return suite_task(suite, tasks, level, bench, budget, timeout_s)


@task
def gait(tasks: str = "", level: str = "L2", bench: str = "", budget: int = 0, timeout_s: float = 0.0) -> Task:
    """Repair the walk cycles of rigged humanoid robots."""
    return suite_task("gait", tasks, level, bench, budget, timeout_s)


@task
def pace(tasks: str = "", level: str = "L2", bench: str = "", budget: int = 0, timeout_s: float = 0.0) -> Task:
    """Adapt 2D physical design programs to a mutated environment."""
    return suite_task("pace", tasks, level, bench, budget, timeout_s)


@task
def audit(tasks: str = "", level: str = "L2", bench: str = "", budget: int = 0, timeout_s: float = 0.0) -> Task:
    """Write the experiment that tests a scientific claim."""
    return suite_task("audit", tasks, level, bench, budget, timeout_s)


@task
def workshop(tasks: str = "", level: str = "L2", bench: str = "", budget: int = 0, timeout_s: float = 0.0) -> Task:
    """Drive a two-armed robot through its HTTP service to build wooden assemblies."""
    return suite_task("workshop", tasks, level, bench, budget, timeout_s)
