"""The gait suite as a Gymnasium environment."""

from __future__ import annotations

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import simreflect
from simreflect.core.env import RepairEnv


def test_env_checker_passes(small_bench):
    env = RepairEnv("gait", bench=small_bench, level="L2", timeout_s=20)
    check_env(env, skip_render_check=True)
    env.close()


def test_oracle_episode_is_rewarded(small_bench):
    env = RepairEnv("gait", bench=small_bench, level="L1")
    obs, info = env.reset(seed=3)
    assert "fix-script interface" in obs and "RESULT: FAIL" in obs and info["errors"]
    task = next(t for t in env.tasks if t.id == info["task"])
    obs, reward, terminated, truncated, info = env.step(task.hidden["oracle_fix"])
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["passed"] and "RESULT: PASS" in obs
    env.close()


def test_budget_truncates_and_bad_programs_cost_a_round(small_bench):
    env = RepairEnv("gait", bench=small_bench, level="L2", budget=2)
    env.reset(options={"task": "ep02"})
    obs, reward, terminated, truncated, info = env.step("this is not python")
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert "failed" in obs and info["program"]["status"] == "error"
    obs, reward, terminated, truncated, info = env.step("pass")
    assert (reward, terminated, truncated) == (0.0, False, True)
    env.close()


def test_registered_ids(small_bench):
    env = gym.make("simreflect.envs:simreflect/gait-v0", bench=str(small_bench), level="L3")
    obs, info = env.reset(seed=0)
    assert "Repair strategies" in obs  # L3 carries the strategies in the system prompt
    env.close()
    env = simreflect.make("gait", bench=str(small_bench))
    assert env.reset(seed=1)[1]["level"] == "L2"
    env.close()


def test_every_suite_passes_the_env_checker():
    from simreflect.core.registry import get_suite, suite_names

    for name in suite_names():
        if name == "gait":
            continue  # above, on a small benchmark
        env = RepairEnv(name, bench=get_suite(name).default_root(), level="L2", timeout_s=30)
        check_env(env, skip_render_check=True)
        env.close()


def test_a_training_split_samples_only_its_tasks():
    from simreflect.core.registry import get_suite

    bench = get_suite("pace").default_root()
    env = simreflect.make("pace", bench=str(bench), tasks="statics_*.stage1, control_lander.*", timeout_s=30)
    ids = {t.id for t in env.unwrapped.tasks}
    assert ids == {f"statics_{n}.stage1" for n in ("bridge", "cantilever", "debris_shelter", "overhang_stack",
                                                   "pivot_balance", "seismic_tower")} | \
        {f"control_lander.stage{k}" for k in range(1, 5)}
    seen = {env.reset(seed=s)[1]["task"] for s in range(40)}
    assert seen <= ids and len(seen) > 3
    with pytest.raises(ValueError, match="among this environment's 10 task"):
        env.reset(options={"task": "granular_dam.stage1"})  # held out
    env.close()
    with pytest.raises(ValueError, match="no task matches 'nope\\*'"):
        RepairEnv("pace", bench=bench, tasks=["statics_*", "nope*"])
