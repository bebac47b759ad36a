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
    late = group.trajectories[0].return_rule.of([0.0, 1.0])
    assert returns == [1.0, 0.0, late, 0.0] and 0.0 < late < 1.0  # a solve in round 2 is worth less
    assert [t.attempt_rewards for t in group.trajectories] == [[1.0], [0.0] * 3, [0.0, 1.0], [0.0] * 3]
    assert [sum(t.rewards) for t in group.trajectories] == pytest.approx(returns)
    assert [t.solved for t in group.trajectories] == [True, False, True, False]
    # each attempt is the one attempt type, read from the environment's round records
    assert [[a.index for a in t.attempts] for t in group.trajectories] == [[1], [1, 2, 3], [1, 2], [1, 2, 3]]
    assert [[a.passed for a in t.attempts] for t in group.trajectories] == [[True], [False] * 3, [False, True],
                                                                            [False] * 3]
    assert group.trajectories[0].attempts[0].program == task.hidden["oracle_fix"]
    adv = group.advantages
    assert adv == pytest.approx(group_advantages(returns)) and adv[0] > adv[2] > adv[1] == adv[3]
    assert group.trajectories[2].messages[0]["content"].startswith(group.trajectories[0].messages[0]["content"][:200])


def test_advantages_of_a_uniform_group_are_zero():
    assert group_advantages([1.0, 1.0, 1.0]) == [0.0, 0.0, 0.0]


def test_a_group_cannot_farm_audit_by_crashing_after_a_capped_attempt():
    """The found farm as a GRPO group: control dropped then two crashes (the old return 1.5) against
    the reference on the first attempt (1.0): the farm now returns 0.5 and gets the lower advantage."""
    from simreflect.suites.audit.cards import REFERENCE_FILE, tasks_dir

    reference = (tasks_dir() / "ca-grokking-c1" / REFERENCE_FILE).read_text()
    dropped = reference.replace('"positive_control":', '"control_dropped":')
    answers = [dropped, "raise SystemExit(1)\n", "import no_such_module\n", reference]
    replies = [{"content": json.dumps({"diagnosis": "-", "script": a})} for a in answers]
    with ScriptedLLMServer(replies) as server:
        policy = LLMAgent(LLMConfig(model="policy", base_url=server.base_url, structured=False))
        group = group_rollouts("audit", task="ca-grokking-c1", chat=lambda m: policy.complete(m)[0], group_size=2,
                               level="L2")
    farm, solve = group.trajectories
    assert farm.attempt_rewards == [0.5, 0.0, 0.0] and farm.ret == 0.5
    assert [a.valid for a in farm.attempts] == [True, False, False]  # the crashes left nothing scored
    assert all(a.invalid_reason for a in farm.attempts[1:]) and farm.attempts[0].program == dropped
    assert solve.attempt_rewards == [1.0] and solve.ret == 1.0 and solve.solved
    assert group.advantages[1] > group.advantages[0]
