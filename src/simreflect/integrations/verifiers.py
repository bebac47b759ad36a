"""Any simreflect suite as a `verifiers` multi-turn environment (PrimeIntellect's verifiers, 0.3.x).

    import verifiers as vf
    env = vf.load_environment("simreflect.integrations.verifiers", suite="pace", tasks="statics_*")
    # or: from simreflect.integrations.verifiers import load_environment; env = load_environment(...)

One rollout is one episode of the suite's round protocol, played by core.env.RepairEnv (whose step
is core.rounds.play_round, the repair loop's own): the dataset's prompt is the episode's first chat
(the system prompt, then round 1's report); each model answer is read as the loop reads it
(agents.parse: a {"diagnosis", "script"} JSON object or a fenced code block), its program runs in
the suite's sandbox on the episode's workspace, and the next user message is the round's feedback,
as the loop sends it. An answer that holds no program (empty, too long, not text, malformed JSON,
no code block) is a failed round with its reason, never an exception. The rollout ends when the
artefact passes or the budget of rounds is spent; its reward is the suite's episode return
(core.returns.ReturnRule: the discounted best attempt, a crash earning the suite's crash reward),
each turn's own reward the change of that return (`trajectory[i]["reward"]`).

Why 0.3.x: verifiers 0.4 dropped this API (`MultiTurnEnv`, `load_environment(env_id)`) for its
v1 stack, whose rollout runs every agent as a separate chat program bootstrapped with `uv` at
rollout time and streams every model call (docs/architecture.md, integrations/).

Rounds run one at a time per environment by default (`concurrency`): a round is a sandboxed
program run that blocks a thread, and the machine, not the event loop, is the limit.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

try:
    import verifiers as vf
    from datasets import Dataset
except ImportError as e:  # the optional extra is not installed
    raise ImportError("simreflect.integrations.verifiers needs the verifiers package: "
                      "pip install 'simreflect[verifiers]'") from e

from simreflect.agents.parse import MAX_ANSWER_CHARS, parse_answer
from simreflect.core.attempt import NOT_THE_INPUT
from simreflect.core.env import RepairEnv
from simreflect.core.evidence import EvidenceLevel
from simreflect.core.registry import get_suite

#: RepairEnv's own options that load_environment passes through; the others go to verifiers.
REPAIR_OPTIONS = ("bench", "bench_seed", "timeout_s", "discount")


@dataclass(frozen=True)
class EpisodeSpec:
    """What every rollout's episode is built from (one RepairEnv a rollout, the task its row names)."""

    suite: str
    level: str
    budget: int | None = None
    tasks: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)

    def make(self, tasks: Sequence[str] | None = None) -> RepairEnv:
        return RepairEnv(self.suite, level=self.level, budget=self.budget,
                         tasks=list(self.tasks if tasks is None else tasks), **dict(self.options))


@dataclass
class EpisodeSummary:
    """What a rollout's episode came to so far, kept in `state["simreflect"]` (plain data, so that
    verifiers can save it with the rollout); the reward function reads `episode_return`."""

    task: str
    budget: int
    floor: float  # the suite's crash reward: the return of an episode with no attempt played
    rounds: int = 0
    passed: bool = False
    attempt_rewards: list[float] = field(default_factory=list)
    episode_return: float = 0.0
    last_error: str = ""  # why the latest answer gave no program ("" when it gave one)

    def __post_init__(self) -> None:
        if not self.attempt_rewards:
            self.episode_return = self.floor


def answer_text(message: Any) -> str:
    """The text of an assistant message (a dict or a verifiers message model; content a string or
    a list of text parts), at most one character past MAX_ANSWER_CHARS (so an overlong answer is
    still seen as one). Anything else is no text."""
    content = message.get("content") if isinstance(message, Mapping) else getattr(message, "content", None)
    if isinstance(content, str):
        return content[:MAX_ANSWER_CHARS + 1]
    if not isinstance(content, (list, tuple)):
        return ""
    out, size = [], 0
    for part in content[:10_000]:
        text = part.get("text") if isinstance(part, Mapping) else getattr(part, "text", None)
        if isinstance(text, str):
            out.append(text[:MAX_ANSWER_CHARS + 1 - size])
            size += len(out[-1])
            if size > MAX_ANSWER_CHARS:
                break
    return "".join(out)


def _role(message: Any) -> str | None:
    return message.get("role") if isinstance(message, Mapping) else getattr(message, "role", None)


class SimreflectEnv(vf.MultiTurnEnv):
    """A verifiers MultiTurnEnv over one suite; build it with `load_environment`."""

    def __init__(self, spec: EpisodeSpec, budget: int, concurrency: int = 1, **kwargs: Any):
        self.spec = spec
        self.budget = budget
        self._live: dict[str, RepairEnv] = {}
        self._gate = threading.BoundedSemaphore(max(1, int(concurrency)))
        rubric = vf.Rubric(funcs=[self.episode_return], weights=[1.0])
        rubric.add_metric(self.solved)
        rubric.add_metric(self.rounds_played)
        # the episode ends through env_response (final_env_response) once the last answer is played;
        # max_turns is one more than the budget, a guard that the loop never reaches
        super().__init__(dataset=lambda: episode_dataset(spec), rubric=rubric, max_turns=budget + 1, **kwargs)

    # ----- the rubric ----------------------------------------------------------------------------
    @staticmethod
    def episode_return(state: vf.State, **_: Any) -> float:
        """The suite's episode return (core.returns.ReturnRule); the crash reward when no attempt
        was played (a rollout that failed before its first answer earns no more than a crash)."""
        summary = state.get("simreflect") or {}
        return float(summary.get("episode_return", summary.get("floor", 0.0)))

    @staticmethod
    def solved(state: vf.State, **_: Any) -> float:
        return float(bool((state.get("simreflect") or {}).get("passed")))

    @staticmethod
    def rounds_played(state: vf.State, **_: Any) -> float:
        return float((state.get("simreflect") or {}).get("rounds", 0))

    # ----- the rollout ---------------------------------------------------------------------------
    async def setup_state(self, state: vf.State, **kwargs: Any) -> vf.State:
        task = str((state.get("info") or {}).get("task_id", ""))
        env = await self._blocking(self._open, task)
        self._live[state["trajectory_id"]] = env
        state["simreflect"] = asdict(EpisodeSummary(task=task, budget=env.budget, floor=env.returns.floor))
        return await super().setup_state(state, **kwargs)

    def _open(self, task: str) -> RepairEnv:
        env = self.spec.make(tasks=[task])
        try:
            env.reset(options={"task": task})
        except BaseException:
            env.close()
            raise
        return env

    async def env_response(self, messages: vf.Messages, state: vf.State, **kwargs: Any) -> vf.Messages:
        """Play the model's latest answer as the episode's next round; the reply is that round's
        feedback (the final one when the artefact passed or the budget is spent)."""
        env = self._live[state["trajectory_id"]]
        answer = next((m for m in reversed(messages) if _role(m) == "assistant"), None)
        parsed = parse_answer(answer_text(answer) if answer is not None else "")
        try:
            obs, reward, terminated, truncated, info = await self._blocking(env.step, parsed.program, parsed.error)
        except NOT_THE_INPUT as e:  # the machine failed, not the answer: verifiers' infrastructure error
            raise vf.InfraError(f"simreflect could not judge the answer: {type(e).__name__}: {str(e)[:500]}") from e
        if state["trajectory"]:
            state["trajectory"][-1]["reward"] = float(reward)
        summary = state["simreflect"]
        summary.update(rounds=info["round"], passed=bool(info["passed"]), episode_return=info["episode_return"],
                       attempt_rewards=[*summary["attempt_rewards"], info["attempt_reward"]],
                       last_error=parsed.error)
        reply: vf.Messages = [vf.UserMessage(content=obs)]
        if terminated or truncated:
            state["final_env_response"] = reply
        return reply

    @vf.cleanup
    async def close_episode(self, state: vf.State) -> None:
        env = self._live.pop(state.get("trajectory_id", ""), None)
        if env is not None:
            env.close()

    async def _blocking(self, fn, *args):
        """Run a blocking call (a sandboxed program, a verification) off the event loop, at most
        `concurrency` at once."""
        def gated():
            with self._gate:
                return fn(*args)
        return await asyncio.to_thread(gated)


def episode_dataset(spec: EpisodeSpec) -> Dataset:
    """One row per task: prompt = the episode's first chat, answer = the task id, info = the suite,
    task id and evidence level."""
    env = spec.make()
    try:
        rows = []
        for task in env.tasks:
            env.reset(options={"task": task.id})
            rows.append({"prompt": [dict(m) for m in env.opening_chat], "answer": task.id,
                         "info": {"suite": spec.suite, "task_id": task.id, "level": spec.level}})
    finally:
        env.close()
    if not rows:
        raise ValueError(f"no {spec.suite} task matches {list(spec.tasks)!r}")
    return Dataset.from_list(rows)


def load_environment(suite: str = "pace", tasks: str | Sequence[str] | None = None, level: int | str = 1,
                     max_rounds: int | None = None, **options: Any) -> SimreflectEnv:
    """A verifiers environment over `suite`'s tasks (`tasks`: ids or glob patterns, a list or one
    comma-separated string; default all), its reports at evidence `level` (1-3 or "L1"-"L3"), at
    most `max_rounds` rounds an episode (default: the suite's budget). `options`: RepairEnv's
    (bench, bench_seed, timeout_s, discount), `concurrency` (rounds played at once, default 1), and
    any other keyword a verifiers MultiTurnEnv takes (e.g. sampling_args)."""
    level_name = f"L{int(EvidenceLevel.parse(level))}"
    if max_rounds is not None and int(max_rounds) < 1:
        raise ValueError(f"max_rounds is at least one round, got {max_rounds!r}")
    patterns = tuple(p.strip() for p in tasks.split(",")) if isinstance(tasks, str) else tuple(tasks or ())
    repair = {k: options.pop(k) for k in REPAIR_OPTIONS if k in options}
    spec = EpisodeSpec(suite=suite, level=level_name, budget=None if max_rounds is None else int(max_rounds),
                       tasks=tuple(p for p in patterns if p), options=repair)
    budget = int(max_rounds) if max_rounds is not None else get_suite(suite).protocol.budget
    spec.make().close()  # an unknown suite, task pattern or option fails here, not at the first rollout
    concurrency = int(options.pop("concurrency", 1))
    return SimreflectEnv(spec, budget=budget, concurrency=concurrency,
                         env_args={"suite": suite, "tasks": list(spec.tasks), "level": level_name,
                                   "max_rounds": max_rounds}, **options)
