"""Group rollouts for RL fine-tuning (GRPO-style): several attempts at one task, advantages within the group.

    from simreflect.rl import group_rollouts
    group = group_rollouts("gait", task="ep07", chat=my_chat, group_size=8, level="L2")
    # group.trajectories[i].messages / .rewards / .attempts, group.advantages -> your trainer's loss

A GRPO group of programs for one task, each graded alone from the task's first state, in
parallel across the cores (core/batch.py; docs/rl.md):

    from simreflect.rl import evaluate_group
    members = evaluate_group("pace", "statics_bridge.stage1", programs, workers=None)
    rewards = [m.attempt_reward for m in members]   # in the programs' order

`chat(messages) -> str` is any function that asks the policy: an OpenAI-compatible endpoint
(e.g. vLLM serving the policy being trained) through `simreflect.agents.llm.LLMAgent.complete`,
or a local model's generate.

A trajectory's return is the discounted best of its attempts' own rewards (core/returns.py), never
their sum: no trajectory returns more than a solve on the first attempt, so within a group none
gets a higher advantage than a first-attempt solve.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from simreflect.agents.parse import parse_answer
from simreflect.core.batch import GroupMember, check_group
from simreflect.core.env import RepairEnv
from simreflect.core.records import Attempt
from simreflect.core.returns import ReturnRule

Chat = Callable[[list[dict[str, str]]], str]


@dataclass
class Rollout:
    """One multi-turn episode for training: the chat the policy saw and wrote, each attempt
    (core.records.Attempt, the one attempt type, built from the environment's round records) with
    its own reward, and the environment's step rewards."""

    task: str
    return_rule: ReturnRule  # how the attempts' rewards make the return (the environment's rule)
    messages: list[dict[str, str]] = field(default_factory=list)  # the whole multi-turn chat
    attempts: list[Attempt] = field(default_factory=list)  # what each attempt came to, in order
    attempt_rewards: list[float] = field(default_factory=list)  # each attempt's own reward
    rewards: list[float] = field(default_factory=list)  # the environment's step rewards: they sum to `ret`
    solved: bool = False

    @property
    def ret(self) -> float:
        """The episode return: the discounted best attempt."""
        return self.return_rule.of(self.attempt_rewards)


@dataclass
class Group:
    trajectories: list[Rollout]
    advantages: list[float]


def rollout(env: RepairEnv, chat: Chat, task: str | None = None, seed: int | None = None) -> Rollout:
    """One multi-turn episode: the policy answers, its program is run and verified, until done."""
    obs, info = env.reset(seed=seed, options={"task": task} if task else None)
    traj = Rollout(task=info["task"], return_rule=env.returns, messages=[{"role": "user", "content": obs}])
    while True:
        answer = chat(traj.messages)
        traj.messages.append({"role": "assistant", "content": answer})
        parsed = parse_answer(answer)
        program = parsed.program if parsed.program is not None else "raise SystemExit('no program in the answer')\n"
        obs, reward, terminated, truncated, info = env.step(program)
        traj.rewards.append(reward)
        traj.attempt_rewards.append(info["attempt_reward"])
        traj.attempts.append(Attempt.of_round(env.records[-1]))
        if terminated or truncated:
            traj.solved = bool(info["passed"])
            return traj
        traj.messages.append({"role": "user", "content": obs})


def group_advantages(returns: list[float], eps: float = 1e-6) -> list[float]:
    """GRPO's group-relative advantages: (return - group mean) / (group std + eps).

    Increasing in the return, so the ordering of the returns is kept: with returns from
    `Rollout.ret`, no trajectory gets a higher advantage than a first-attempt solve."""
    r = np.asarray(returns, dtype=float)
    return ((r - r.mean()) / (r.std() + eps)).tolist()


def group_rollouts(suite: str, task: str, chat: Chat, group_size: int = 8, workers: int = 1,
                   **env_kwargs) -> Group:
    """`group_size` multi-turn rollouts of `task` and their group-relative advantages. With
    `workers` > 1 that many rollouts run at once, in threads, each with an environment of its own
    (the sandboxes and the waits for `chat` overlap; `chat` must then be safe to call from several
    threads, as an HTTP client of a batching server such as vLLM is). The trajectories are in the
    order they were started."""
    check_group([None] * group_size, workers)
    if workers == 1:
        env = RepairEnv(suite, **env_kwargs)
        try:
            trajectories = [rollout(env, chat, task=task) for _ in range(group_size)]
        finally:
            env.close()
    else:
        trajectories = _parallel_rollouts(suite, task, chat, group_size, workers, env_kwargs)
    return Group(trajectories, group_advantages([t.ret for t in trajectories]))


def _parallel_rollouts(suite: str, task: str, chat: Chat, group_size: int, workers: int,
                       env_kwargs: dict) -> list[Rollout]:
    local = threading.local()
    envs: list[RepairEnv] = []
    lock = threading.Lock()

    def one(_: int) -> Rollout:
        env = getattr(local, "env", None)
        if env is None:
            env = local.env = RepairEnv(suite, **env_kwargs)
            with lock:
                envs.append(env)
        return rollout(env, chat, task=task)

    try:
        with ThreadPoolExecutor(max_workers=min(workers, group_size), thread_name_prefix="rollout") as pool:
            return list(pool.map(one, range(group_size)))
    finally:
        for env in envs:
            env.close()


def evaluate_group(suite: str, task: str, programs: list[str | None], workers: int | None = None,
                   **env_kwargs) -> list[GroupMember]:
    """Every program of a GRPO group played as the first round of `task`, each on its own copy of
    the task's workspace, in parallel across `workers` processes (default: the cores this process
    may use); member i is what `RepairEnv.step(programs[i])` returns after `reset` to the task
    (core.batch.GroupMember: record, attempt_reward, reward, passed, observation). `env_kwargs` are
    RepairEnv's (level, budget, timeout_s, bench, ...). Many groups: keep one environment and call
    `env.evaluate_batch` after each `reset`, so the worker pool is started once."""
    env = RepairEnv(suite, **env_kwargs)
    try:
        env.reset(options={"task": task})
        return env.evaluate_batch(programs, workers=workers)
    finally:
        env.close()
