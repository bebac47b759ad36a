"""Suites as Gymnasium environments: the environment's own contract on the toy suite, then each suite."""

from __future__ import annotations

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import simreflect
from simreflect.core.env import RepairEnv
from simreflect.testing.toy import ToySuite, toy_suite_registered, write_task_list


@pytest.fixture
def toy_bench(tmp_path):
    """The toy suite registered, and a three-task benchmark of it: the core's own subject."""
    with toy_suite_registered():
        yield write_task_list(tmp_path / "toy", 3)


def test_env_checker_passes(toy_bench):
    env = RepairEnv("toy", bench=toy_bench, level="L2", timeout_s=20)
    check_env(env, skip_render_check=True)
    env.close()


def test_oracle_episode_is_rewarded(toy_bench):
    env = RepairEnv("toy", bench=toy_bench, level="L1")
    obs, info = env.reset(seed=3)
    assert "Your program is Python" in obs and "RESULT: FAIL" in obs and info["errors"]
    task = next(t for t in env.tasks if t.id == info["task"])
    obs, reward, terminated, truncated, info = env.step(ToySuite().oracle(task))
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["passed"] and "RESULT: PASS" in obs
    env.close()


def test_budget_truncates_and_bad_programs_cost_a_round(toy_bench):
    env = RepairEnv("toy", bench=toy_bench, level="L2", budget=2)
    env.reset(options={"task": "toy-02"})
    obs, reward, terminated, truncated, info = env.step("this is not python")
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert "failed" in obs and info["program"]["status"] == "error"
    obs, reward, terminated, truncated, info = env.step("pass")
    assert (reward, terminated, truncated) == (0.0, False, True)
    env.close()


def test_an_answer_without_a_program_is_a_failed_round_with_its_reason(toy_bench):
    env = RepairEnv("toy", bench=toy_bench, level="L1", budget=2)
    obs, _ = env.reset(options={"task": "toy-01"})
    system, user = env.opening_chat
    assert obs == system["content"] + "\n\n" + user["content"] and "Round 1 of 2." in user["content"]
    obs, reward, terminated, truncated, info = env.step(None, error="no fenced code block")
    assert (terminated, truncated, info["round"]) == (False, False, 1)
    assert info["attempt_reward"] == float(env.suite.crash_reward) and info["program"] is None
    assert obs.startswith("Your previous answer was not used: no fenced code block.") and "Round 2 of 2." in obs
    assert env.records[0].error == "no fenced code block" and env.records[0].script is None
    task = next(t for t in env.tasks if t.id == "toy-01")
    obs, reward, terminated, truncated, info = env.step(ToySuite().oracle(task))
    assert terminated and info["passed"] and info["episode_return"] < 1.0  # a later solve earns less
    env.close()


def test_registered_ids(small_bench):
    env = gym.make("simreflect.envs:simreflect/gait-v0", bench=str(small_bench), level="L3")
    obs, info = env.reset(seed=0)
    assert "Repair strategies" in obs  # L3 carries the strategies in the system prompt
    env.close()
    env = simreflect.make("gait", bench=str(small_bench))
    assert env.reset(seed=1)[1]["level"] == "L2"
    env.close()


def test_every_suite_passes_the_env_checker(small_bench):
    from simreflect.core.registry import get_suite, suite_names

    from simreflect.suites.pacebench.checkout import available

    for name in suite_names():
        if name == "pacebench" and available():
            continue  # no PACE-Bench checkout here (tests/test_pacebench.py says so and skips)
        bench = small_bench if name == "gait" else get_suite(name).default_root()  # gait: a small benchmark
        env = RepairEnv(name, bench=bench, level="L2", timeout_s=30)
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


# ----- rewards that cannot be farmed (core/returns.py): each attempt earns its own verdict ----------

def play(env, programs):
    """Step through `programs`; the step rewards, each attempt's own reward and the final info."""
    steps, own, info = [], [], {}
    for program in programs:
        _, reward, terminated, truncated, info = env.step(program)
        steps.append(reward)
        own.append(info["attempt_reward"])
        if terminated or truncated:
            break
    return steps, own, info


def test_audit_control_dropped_then_two_crashes_returns_its_best_attempt():
    """The found farm: 0.5 (control dropped), then two crashes paid 0.5 each, summed to 1.5."""
    from simreflect.suites.audit.cards import REFERENCE_FILE, tasks_dir

    reference = (tasks_dir() / "ca-grokking-c1" / REFERENCE_FILE).read_text()
    dropped = reference.replace('"positive_control":', '"control_dropped":')
    env = RepairEnv("audit", level="L2")
    env.reset(options={"task": "ca-grokking-c1"})
    steps, own, info = play(env, [dropped, "raise SystemExit(1)\n", "import no_such_module\n"])
    assert own == [0.5, 0.0, 0.0]  # a crash earns audit's crash reward, not the last accepted verdict's
    assert steps == [0.5, 0.0, 0.0] and info["episode_return"] == 0.5
    assert info["score"] == 0.5 and not info["passed"]  # the workspace keeps the accepted attempt
    env.reset(options={"task": "ca-grokking-c1"})
    first = play(env, [reference])
    assert first[0] == [1.0] and first[2]["episode_return"] == 1.0 > sum(steps)
    env.close()


def test_gait_crash_and_rejected_artefact_earn_nothing_and_a_late_solve_less(small_bench):
    env = RepairEnv("gait", bench=small_bench, level="L2")
    env.reset(options={"task": "ep02"})
    task = next(t for t in env.tasks if t.id == "ep02")
    steps, own, info = play(env, ["raise RuntimeError('crash')\n", "rig.bones = []\n", task.hidden["oracle_fix"]])
    assert own == [0.0, 0.0, 1.0] and info["passed"]
    assert sum(steps) == pytest.approx(info["episode_return"]) == pytest.approx(env.returns.of([0.0, 0.0, 1.0]))
    assert 0.0 < info["episode_return"] < 1.0  # solved in round 3: less than a solve in round 1 (1.0)
    env.close()


def test_pace_resubmitting_partial_progress_then_crashing_earns_the_best_attempt_once():
    from simreflect.core.registry import get_suite

    bench = get_suite("pace").default_root()
    env = RepairEnv("pace", bench=bench, level="L2", tasks="kinematics_rover.stage1", timeout_s=30)
    env.reset(options={"task": "kinematics_rover.stage1"})
    source = (env._state / "program.py").read_text()
    steps, own, info = play(env, [source, source, "raise SystemExit(1)\n", "def build(api:\n"])
    partial = own[0]
    assert 0.0 < partial < 1.0 and own == [partial, partial, -1.0, -1.0]  # a crash earns pace's -1
    assert steps == [partial, 0.0, 0.0, 0.0] and info["episode_return"] == partial
    env.reset(options={"task": "kinematics_rover.stage1"})
    first = play(env, [env.suite.oracle(env.tasks[0])])
    assert first[0] == [1.0] and first[2]["episode_return"] == 1.0
    env.close()


def test_hostile_programs_are_the_attempts_failure_not_the_trainers(small_bench):
    """A lone surrogate (the program cannot even be written) and a rig nested past the recursion
    limit: each step returns, earns nothing, says why, and the episode goes on to a solve."""
    env = RepairEnv("gait", bench=small_bench, level="L1", budget=3)
    env.reset(options={"task": "ep02"})
    obs, reward, terminated, truncated, info = env.step("print('\ud800')\n")
    assert info["harness_error"] is None and info["program"]["reason"].startswith("invalid program")
    assert info["attempt_reward"] == env.suite.crash_reward and reward == 0.0 and not terminated
    assert "failed" in obs
    nested = "import os\nopen('rig.json', 'w').write('[' * 100000 + ']' * 100000)\nos._exit(0)\n"
    obs, reward, terminated, truncated, info = env.step(nested)
    assert not info["passed"] and reward == 0.0 and "could not accept" in obs
    task = next(t for t in env.tasks if t.id == "ep02")
    obs, reward, terminated, truncated, info = env.step(task.hidden["oracle_fix"])
    assert terminated and info["passed"] and info["harness_error"] is None
    env.close()


def test_the_spaces_have_a_short_repr(toy_bench):
    from gymnasium import spaces

    env = RepairEnv("toy", bench=toy_bench)
    for space in (env.observation_space, env.action_space):
        assert isinstance(space, spaces.Text) and len(repr(space)) < 120, repr(space)[:200]
        assert repr(space) == ("Text(0, 400000, charset=<63,488 characters: the Basic Multilingual Plane without "
                               "surrogates>)")
        assert space.contains("print('hi')\n") and not space.contains("\ud800")
    env.close()
