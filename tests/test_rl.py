"""The GRPO-style group rollout of docs/rl.md, against a real local OpenAI-compatible server."""

from __future__ import annotations

import json

import pytest

from simreflect.agents.llm import LLMAgent, LLMConfig
from simreflect.rl import group_advantages, group_rollouts
from simreflect.suites.gait.suite import GaitSuite
from simreflect.testing.scripted_llm import ScriptedLLMServer


def test_group_rollout_gives_group_relative_advantages(small_bench):
    task = GaitSuite().load_tasks(small_bench)[1]
    good = json.dumps({"diagnosis": "restore", "script": task.hidden["oracle_fix"]})
    bad = json.dumps({"diagnosis": "nothing", "script": "pass"})
    # four attempts: solved at once, never (3 rounds), solved in round 2, never
    replies = [{"content": c} for c in [good, bad, bad, bad, bad, good, bad, bad, bad]]
    with ScriptedLLMServer(replies) as server:
        policy = LLMAgent(LLMConfig(model="policy", base_url=server.base_url, structured=False))
        group = group_rollouts("gait", task=task.id, chat=lambda m: policy.complete(m)[0], group_size=4,
                               bench=small_bench, level="L2")
    returns = [t.ret for t in group.trajectories]
    assert returns == [1.0, 0.0, 1.0, 0.0]
    assert [len(t.rewards) for t in group.trajectories] == [1, 3, 2, 3]
    assert [t.solved for t in group.trajectories] == [True, False, True, False]
    assert group.advantages == pytest.approx([1.0, -1.0, 1.0, -1.0], abs=1e-5)
    assert group.trajectories[2].messages[0]["content"].startswith(group.trajectories[0].messages[0]["content"][:200])


def test_advantages_of_a_uniform_group_are_zero():
    assert group_advantages([1.0, 1.0, 1.0]) == [0.0, 0.0, 0.0]
