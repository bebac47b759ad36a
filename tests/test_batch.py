"""The batch API (core/batch.py): a GRPO group of pace programs from one state, on real sandboxes."""

from __future__ import annotations

from dataclasses import replace

import pytest

import simreflect
from simreflect.core.batch import MAX_GROUP, MAX_WORKERS, check_group
from simreflect.core.env import RepairEnv
from simreflect.rl import evaluate_group

TASK = "statics_bridge.stage1"
CRASH = "def build(api):\n    raise RuntimeError('crash at build')\n"
LOOP = "def build(api):\n    while True:\n        pass\n"
FLOOD = "import sys\n\ndef build(api):\n    for _ in range(200):\n        sys.stdout.write('x' * 100_000)\n"


def _stable(record):
    """A round record without its wall times (the program's seconds, the verification's)."""
    program = None if record.program is None else {k: v for k, v in record.program.items() if k != "seconds"}
    return replace(record, program=program, verify_seconds=None)


def _env() -> RepairEnv:
    env = RepairEnv("pace", level="L2", tasks=TASK, timeout_s=5)
    env.reset(options={"task": TASK})
    return env


def _sequential(env: RepairEnv, programs):
    out = []
    for p in programs:
        env.reset(options={"task": TASK})
        obs, reward, terminated, truncated, info = env.step(p)
        out.append((obs, reward, info["attempt_reward"], info["passed"], _stable(env.records[-1])))
    return out


def test_a_group_equals_the_sequential_steps_whatever_the_worker_count():
    env = _env()
    try:
        oracle = env.suite.oracle(env._task)
        broken = env.suite.source_program(env._task)
        programs = [oracle, broken, CRASH, None, broken]
        expected = _sequential(env, programs)
        env.reset(options={"task": TASK})
        for workers in (1, 2):
            members = env.evaluate_batch(programs, workers=workers)
            got = [(m.observation, m.reward, m.attempt_reward, m.passed, _stable(m.record)) for m in members]
            assert [m.index for m in members] == list(range(len(programs)))
            assert got == expected, workers
        assert [e[3] for e in expected] == [True, False, False, False, False]
        assert expected[2][2] == -1.0 and expected[3][2] == -1.0 and -1.0 < expected[1][2] < 1.0
        # the episode did not advance: the next step is round 1
        _, _, _, _, info = env.step(oracle)
        assert info["round"] == 1 and info["passed"]
    finally:
        env.close()


def test_hostile_programs_in_a_group_fail_alone():
    env = RepairEnv("pace", level="L2", tasks=TASK, timeout_s=3)
    try:
        env.reset(options={"task": TASK})
        oracle = env.suite.oracle(env._task)
        members = env.evaluate_batch([LOOP, oracle, FLOOD, CRASH, oracle], workers=2)
    finally:
        env.close()
    assert [m.passed for m in members] == [False, True, False, False, True]
    rewards = [m.attempt_reward for m in members]
    assert rewards[:2] == [-1.0, 1.0] and rewards[3:] == [-1.0, 1.0] and rewards[2] < 0  # the flood built nothing
    loop, _, flood, crash, _ = (m.record for m in members)
    assert loop.program["status"] == "timeout", loop.program
    assert "output" in flood.program["limits_hit"] and len(flood.program["output_tail"]) < 100_000  # 20 MB cut
    assert crash.program["status"] == "error"
    assert all(m.harness_error is None for m in members)


def test_evaluate_group_plays_the_first_round_of_the_task():
    suite = simreflect.make("pace").unwrapped.suite
    task = next(t for t in suite.load_tasks() if t.id == TASK)
    members = evaluate_group("pace", TASK, [suite.oracle(task), CRASH], workers=2, level="L2", tasks=TASK)
    assert [m.passed for m in members] == [True, False]
    assert [m.reward for m in members] == [1.0, -1.0]  # the first step's reward is the return itself
    assert all(m.record.round == 1 for m in members)


def test_groups_and_workers_are_bounded():
    with pytest.raises(ValueError, match="at least one"):
        check_group([], 1)
    with pytest.raises(ValueError, match="MAX_GROUP"):
        check_group(["pass"] * (MAX_GROUP + 1), 1)
    with pytest.raises(ValueError, match="not one text"):
        check_group("def build(api): pass", 1)
    with pytest.raises(ValueError, match="not text"):
        check_group([b"bytes"], 1)
    for bad in (0, MAX_WORKERS + 1, True, 2.0):
        with pytest.raises(ValueError, match="workers"):
            check_group(["pass"], bad)
    assert check_group(["a", "b"], 8) == (["a", "b"], 2)


def test_a_worker_killed_under_a_group_costs_only_a_replay():
    """A worker process that dies (here: SIGKILL while it runs a looping program) breaks the pool;
    the members it did not return are played again, each in a worker of its own, and come to what
    they would have come to."""
    import os
    import signal
    import threading
    import time

    from simreflect.core.batch import BatchEvaluator

    env = RepairEnv("pace", level="L2", tasks=TASK, timeout_s=3)
    try:
        env.reset(options={"task": TASK})
        oracle = env.suite.oracle(env._task)
        state = env.round_state()
        with BatchEvaluator(workers=2) as evaluator:
            def kill_one_worker() -> None:
                for _ in range(200):
                    pool = evaluator._pool
                    if pool is not None and pool._processes:
                        time.sleep(1.0)  # both workers are inside their looping programs
                        os.kill(next(iter(pool._processes)), signal.SIGKILL)
                        return
                    time.sleep(0.05)

            killer = threading.Thread(target=kill_one_worker)
            killer.start()
            members = evaluator.play(state, [LOOP, LOOP, oracle])
            killer.join()
            assert evaluator.replayed >= 1
    finally:
        env.close()
    assert [m.index for m in members] == [0, 1, 2]
    assert [m.record.program["status"] for m in members[:2]] == ["timeout", "timeout"]
    assert members[2].passed and members[2].attempt_reward == 1.0
    assert all(m.harness_error is None for m in members)
