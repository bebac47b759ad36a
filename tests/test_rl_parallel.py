"""group_rollouts with several rollouts at once (threads, an environment each), on real gait episodes."""

from __future__ import annotations

import json
import threading

import pytest

from simreflect.rl import group_rollouts
from simreflect.suites.gait.suite import GaitSuite


def test_parallel_rollouts_equal_the_sequential_ones(small_bench):
    task = GaitSuite().load_tasks(small_bench)[1]
    good = json.dumps({"diagnosis": "restore", "script": task.hidden["oracle_fix"]})
    bad = json.dumps({"diagnosis": "nothing", "script": "pass"})
    threads: set[int] = set()
    lock = threading.Lock()

    def policy(messages):
        """Wrong on its first answer of a rollout, right on its second, whatever thread asks."""
        with lock:
            threads.add(threading.get_ident())
        return bad if len(messages) == 1 else good

    sequential = group_rollouts("gait", task=task.id, chat=policy, group_size=2, bench=small_bench, level="L2")
    threads.clear()
    group = group_rollouts("gait", task=task.id, chat=policy, group_size=4, workers=2, bench=small_bench,
                           level="L2")
    assert [t.attempt_rewards for t in sequential.trajectories] == [[0.0, 1.0]] * 2
    assert [t.attempt_rewards for t in group.trajectories] == [[0.0, 1.0]] * 4
    assert [t.ret for t in group.trajectories] == [sequential.trajectories[0].ret] * 4
    assert all(t.messages == sequential.trajectories[0].messages for t in group.trajectories)
    assert group.advantages == [0.0] * 4 and len(threads) == 2


def test_group_size_and_workers_are_bounded():
    with pytest.raises(ValueError, match="workers"):
        group_rollouts("gait", task="x", chat=lambda m: "", group_size=2, workers=0)
    with pytest.raises(ValueError, match="at least one"):
        group_rollouts("gait", task="x", chat=lambda m: "", group_size=0)
