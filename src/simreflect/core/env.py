"""Every suite as a Gymnasium environment, for RL.

reset(seed) picks a task (or `options={"task": id}`) and returns the first observation: the same
text the repair loop shows an agent (system prompt, then the verifier report at the evidence level).
step(program) runs the program on the current workspace in its own process, verifies, and returns
(observation, reward, terminated, truncated, info): terminated when the artefact passes, truncated
when the budget of rounds is spent. Actions and observations are text; the character set admits
any program.

Rewards (core/returns.py, docs/rl.md): an attempt earns its own verdict's reward, `info["attempt_reward"]`
(a program that did not run earns the suite's crash reward, a rejected artefact its invalid verdict's
reward; so does an answer that held no program: `step(None, error=why)`, a failed round with its reason); the episode return is the discounted best of those, `info["episode_return"]`; the reward
step() returns is the change of that return, so the sum of step rewards is the episode return and
no sequence of attempts sums to more than a solve on the first attempt.

evaluate_batch(programs) plays a GRPO group from the current state, each program on its own copy
of the workspace, in parallel worker processes (core/batch.py); the episode does not advance.
A task's opening workspace and its verdict are made once per environment and copied on reset.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import gymnasium as gym
from gymnasium import spaces

from simreflect.core.batch import BatchEvaluator, GroupMember, RoundState
from simreflect.core.evidence import EvidenceLevel
from simreflect.core.records import RoundRecord
from simreflect.core.registry import get_suite
from simreflect.core.returns import ReturnRule, budget_discount
from simreflect.core.rounds import play_round, round_feedback, system_prompt
from simreflect.core.selection import select_ids
from simreflect.core.verdict import Verdict
from simreflect.core.workspace import copy_workspace

MAX_TEXT = 400_000
#: Tasks whose opening (prepared workspace and its verdict) one environment keeps for its next resets.
MAX_OPENINGS = 64
#: Every Unicode character of the Basic Multilingual Plane except surrogates: any program fits.
CHARSET = "".join(chr(c) for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF)


class ProgramText(spaces.Text):
    """gymnasium's Text space over CHARSET, whose own repr prints all 63,488 characters."""

    def __repr__(self) -> str:
        return (f"Text({self.min_length}, {self.max_length}, charset=<{len(self.character_set):,} characters: "
                "the Basic Multilingual Plane without surrogates>)")


class RepairEnv(gym.Env):
    metadata = {"render_modes": []}

    def __init__(self, suite: str = "gait", bench: str | Path | None = None, level: str = "L2",
                 budget: int | None = None, timeout_s: float | None = None, bench_seed: int = 0,
                 tasks: str | list[str] | tuple[str, ...] = (), discount: float | None = None):
        """`tasks`: ids or glob patterns (a list, or one comma-separated string) of the tasks
        reset() samples from, e.g. a training split "statics_*,dynamics_*" (default: all).
        `discount`: gamma of the episode return (default: from the budget, `budget_discount`).
        `timeout_s`: seconds a program may run per attempt (default: the suite's protocol.timeout_s)."""
        self.suite = get_suite(suite)
        self.bench = Path(bench) if bench is not None else default_bench(suite, bench_seed)
        every = self.suite.load_tasks(self.bench)
        patterns = tasks.split(",") if isinstance(tasks, str) else list(tasks)
        keep = set(select_ids([t.id for t in every], [p.strip() for p in patterns]))
        self.tasks = [t for t in every if t.id in keep]
        self.level = EvidenceLevel.parse(level)
        self.budget = budget or self.suite.protocol.budget
        self.timeout_s = timeout_s or self.suite.protocol.timeout_s
        self.returns = ReturnRule(floor=float(self.suite.crash_reward),
                                  discount=budget_discount(self.budget) if discount is None else float(discount))
        self.observation_space = ProgramText(max_length=MAX_TEXT, min_length=0, charset=CHARSET)
        self.action_space = ProgramText(max_length=MAX_TEXT, min_length=0, charset=CHARSET)
        self._tmp: tempfile.TemporaryDirectory | None = None
        self._task = None
        self._state: Path | None = None
        self._report = ""
        self._system = self._opening = ""
        self._round = 0
        self._attempt_rewards: list[float] = []
        self._records: list[RoundRecord] = []
        self._batch: BatchEvaluator | None = None
        # a task's opening workspace and verdict, prepared and verified once: the verifier is
        # deterministic (rescore holds every suite to it), and verifying the start costs a whole
        # evaluation (pace: a sandboxed run of the source design), as much as a step
        self._openings_dir: tempfile.TemporaryDirectory | None = None
        self._openings: dict[str, tuple[Path, Verdict]] = {}
        self._opened = 0

    @property
    def records(self) -> tuple[RoundRecord, ...]:
        """The rounds of the current episode as the loop records them (core.records.RoundRecord;
        the environment plays no agent, so chat, answer and usage are empty)."""
        return tuple(self._records)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        options = options or {}
        if "task" in options:
            matches = [t for t in self.tasks if t.id == options["task"]]
            if not matches:
                raise ValueError(f"no task {options['task']!r} among this environment's {len(self.tasks)} "
                                 f"task(s) ({self.bench})")
            self._task = matches[0]
        else:
            self._task = self.tasks[int(self.np_random.integers(len(self.tasks)))]
        self._cleanup()
        self._tmp = tempfile.TemporaryDirectory(prefix="simreflect-env-")
        self._state = Path(self._tmp.name) / "round0"
        self._verdict = self._open(self._task, self._state)
        self._round = 0
        self._attempt_rewards = []
        self._records = []
        self._system = system_prompt(self.suite, self._task, self.level)
        self._report = self.suite.observe(self._task, self._verdict, self.level)
        self._opening = round_feedback(1, self.budget, None, self._report)
        obs = self._system + "\n\n" + self._opening
        return obs, self._info(None)

    def _open(self, task, workdir: Path) -> Verdict:
        """Prepare `task`'s workspace in `workdir` and return its verdict: the first time by the
        suite (prepare_workspace, verify), then as a copy of what that left."""
        kept = self._openings.get(task.id)
        if kept is not None:
            copy_workspace(kept[0], workdir)
            return kept[1]
        self.suite.prepare_workspace(task, workdir)
        verdict = self.suite.verify(task, workdir)
        if self._openings_dir is None:
            self._openings_dir = tempfile.TemporaryDirectory(prefix="simreflect-env-openings-")
        if len(self._openings) >= MAX_OPENINGS:  # the oldest goes
            oldest, (path, _) = next(iter(self._openings.items()))
            del self._openings[oldest]
            shutil.rmtree(path, ignore_errors=True)
        self._opened += 1
        kept_dir = Path(self._openings_dir.name) / f"opening{self._opened}"
        copy_workspace(workdir, kept_dir)
        self._openings[task.id] = (kept_dir, verdict)
        return verdict

    @property
    def report(self) -> str:
        """The verifier report of the workspace as the last accepted round left it."""
        return self._report

    @property
    def opening_chat(self) -> tuple[dict[str, str], dict[str, str]]:
        """The episode's first chat as the repair loop sends it (run/episode.py): the system prompt,
        then round 1's user message; reset()'s observation is the two joined."""
        if self._task is None:
            raise RuntimeError("call reset() before opening_chat")
        return {"role": "system", "content": self._system}, {"role": "user", "content": self._opening}

    def step(self, action: str | None, error: str = ""):
        """Play `action` (a program) as the next round. `action=None` is an answer that held no
        program (`error`: why); the round is spent and earns the crash reward, as in the loop."""
        if self._task is None or self._state is None:
            raise RuntimeError("call reset() before step()")
        if self._round >= self.budget or self._verdict.passed:
            raise RuntimeError("the episode is over; call reset()")
        self._round += 1
        # the loop's own round (core.rounds): whatever the suite raises on this program or what it
        # left is the attempt's failure, never the trainer's, and the feedback reads alike
        played = play_round(self.suite, self._task, self._state.parent / f"round{self._round}", self._state,
                            self._verdict, self._report, None if action is None else str(action), self._round,
                            self.timeout_s, self.level, error=error)
        outcome = played.outcome
        attempt_reward = float(self.suite.crash_reward)
        if outcome is not None and outcome.verdict is not None:
            attempt_reward = float(outcome.verdict.reward)
        self._state, self._verdict, self._report = played.state, played.verdict, played.report
        self._records.append(played.record)
        before = self.returns.of(self._attempt_rewards)
        self._attempt_rewards.append(attempt_reward)
        reward = self.returns.of(self._attempt_rewards) - before
        terminated = self._verdict.passed
        truncated = not terminated and self._round >= self.budget
        obs = round_feedback(self._round + 1, self.budget, played.record, self._report)
        info = self._info(None if outcome is None else outcome.program)
        info["harness_error"] = played.record.harness_error  # the harness failed on this input (None: it did not)
        return obs, reward, terminated, truncated, info

    def round_state(self) -> RoundState:
        """The state the next round starts from (core.batch.RoundState): the accepted workspace, its
        verdict and report, the round number and the episode's earlier attempt rewards."""
        if self._task is None or self._state is None:
            raise RuntimeError("call reset() before round_state()")
        if self._round >= self.budget or self._verdict.passed:
            raise RuntimeError("the episode is over; call reset()")
        return RoundState(self.suite, self._task, self._state, self._verdict, self._report, self._round + 1,
                          self.budget, self.timeout_s, self.level, self.returns, tuple(self._attempt_rewards))

    def evaluate_batch(self, programs: list[str | None], workers: int | None = None) -> list[GroupMember]:
        """A GRPO group: every program played as the next round from the current state, each on its
        own copy of the workspace, in parallel across `workers` processes (default: the cores this
        process may use; 1: here, one after the other); the episode does not advance. Member i is
        what `step(programs[i])` would return from this state: its record, attempt reward, step
        reward, pass and observation (core.batch). The worker pool is kept until close()."""
        state = self.round_state()
        if self._batch is None or (workers is not None and workers != self._batch.workers):
            if self._batch is not None:
                self._batch.close()
            self._batch = BatchEvaluator(workers)
        return self._batch.play(state, programs)

    def _info(self, result) -> dict[str, Any]:
        """`errors`, `passed` and `score` describe the workspace as the last accepted round left it;
        `attempt_reward` is the latest attempt's own reward (None before the first)."""
        return {"task": self._task.id, "round": self._round, "budget": self.budget, "level": f"L{int(self.level)}",
                "errors": self._verdict.errors, "passed": self._verdict.passed, "score": self._verdict.score,
                "attempt_reward": self._attempt_rewards[-1] if self._attempt_rewards else None,
                "episode_return": self.returns.of(self._attempt_rewards),
                # wall time is left out so that the same seed and action give the same info
                "program": None if result is None else {k: v for k, v in result.to_dict().items() if k != "seconds"}}

    def _cleanup(self) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def close(self) -> None:
        self._cleanup()
        self._openings.clear()
        if self._openings_dir is not None:
            self._openings_dir.cleanup()
            self._openings_dir = None
        if self._batch is not None:
            self._batch.close()
            self._batch = None


def default_bench(suite: str, seed: int = 0) -> Path:
    """The suite's default benchmark (gait builds one into the user's cache; audit ships its tasks)."""
    return get_suite(suite).default_root(seed)
