"""simreflect.integrations.verifiers: a suite as a verifiers multi-turn environment, driven through
verifiers' own API (load_environment, generate, evaluate) with an OpenAI client on a scripted server.
The pace suite, a few rounds an episode: every round is a real program run in the sandbox."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

vf = pytest.importorskip("verifiers", reason="the verifiers extra is not installed (pip install -e '.[verifiers]')")
openai = pytest.importorskip("openai")

from simreflect.agents.parse import MAX_ANSWER_CHARS  # noqa: E402
from simreflect.core.env import RepairEnv  # noqa: E402
from simreflect.core.registry import get_suite  # noqa: E402
from simreflect.core.returns import ReturnRule, budget_discount  # noqa: E402
from simreflect.integrations.verifiers import SimreflectEnv, answer_text, load_environment  # noqa: E402
from simreflect.testing.scripted_llm import ScriptedLLMServer  # noqa: E402

TASK = "kinematics_rover.stage1"
ENV_ID = "simreflect.integrations.verifiers"


@pytest.fixture(scope="module")
def oracle_answer() -> str:
    suite = get_suite("pace")
    task = next(t for t in suite.load_tasks(suite.default_root()) if t.id == TASK)
    return json.dumps({"diagnosis": "the stage's reference design", "script": suite.oracle(task)})


def client_for(server: ScriptedLLMServer):
    return vf.OpenAIChatCompletionsClient(openai.AsyncOpenAI(base_url=server.base_url, api_key="none", max_retries=0))


def play(env: SimreflectEnv, replies: list) -> tuple[dict, list[dict]]:
    """One rollout of the environment's one task through verifiers' generate; its output (with the
    episode summary) and the requests the model server received."""
    with ScriptedLLMServer(replies) as server:
        inputs = env.get_dataset().to_list()
        assert len(inputs) == 1
        out = env.generate_sync(inputs, client=client_for(server), model="scripted", state_columns=["simreflect"],
                                on_progress=lambda *a: None)
        requests = list(server.requests)
    (output,) = out["outputs"]
    return output, requests


def last_user(request: dict) -> str:
    return next(m["content"] for m in reversed(request["messages"]) if m["role"] == "user")


def test_the_dataset_is_the_first_chat_of_each_episode():
    env = vf.load_environment(ENV_ID, suite="pace", tasks="kinematics_rover.*", level=2, max_rounds=3)
    assert isinstance(env, SimreflectEnv) and env.env_id == ENV_ID and env.env_args["suite"] == "pace"
    rows = env.get_dataset().to_list()
    assert [r["answer"] for r in rows] == [f"kinematics_rover.stage{i}" for i in range(1, 5)]
    repair = RepairEnv("pace", level="L2", budget=3, tasks=[TASK])
    repair.reset(options={"task": TASK})
    system, user = repair.opening_chat
    repair.close()
    first = rows[0]
    assert [(m["role"], m["content"]) for m in first["prompt"]] == [("system", system["content"]),
                                                                     ("user", user["content"])]
    assert "Round 1 of 3." in user["content"]
    assert first["info"] == {"suite": "pace", "task_id": TASK, "level": "L2"}


def test_the_reference_program_scores_a_solve_in_one_turn(oracle_answer):
    env = load_environment(suite="pace", tasks=TASK, max_rounds=3)
    with ScriptedLLMServer([{"content": oracle_answer}]) as server:  # verifiers' evaluate, over the env's dataset
        out = env.evaluate_sync(client=client_for(server), model="scripted", num_examples=1,
                                state_columns=["simreflect"])
        requests = list(server.requests)
    (output,) = out["outputs"]
    assert output["error"] is None and output["stop_condition"] == "has_final_env_response"
    solve = float(get_suite("pace").scale.reward_high)
    assert output["reward"] == solve == 1.0
    assert output["metrics"]["solved"] == 1.0 and output["metrics"]["num_turns"] == 1.0
    assert len(requests) == 1
    summary = output["simreflect"]
    assert summary["rounds"] == 1 and summary["passed"] and summary["attempt_rewards"] == [solve]
    # the completion ends with the verifier's last word: the passing report
    assert output["completion"][-1]["role"] == "user" and "PASS" in output["completion"][-1]["content"]


def test_garbage_scores_the_failure_reward_and_ends_with_the_budget():
    env = load_environment(suite="pace", tasks=TASK, max_rounds=3)
    output, requests = play(env, [{"content": "I would rather not write a program."}])
    crash = float(get_suite("pace").crash_reward)
    assert output["error"] is None and output["reward"] == crash == -1.0
    assert output["metrics"]["num_turns"] == 3.0 and output["metrics"]["solved"] == 0.0
    assert len(requests) == 3  # the budget, and not one request more
    assert output["simreflect"]["attempt_rewards"] == [crash] * 3
    # each failed round's feedback is the next user message, as the repair loop sends it
    for n, request in enumerate(requests[1:], start=2):
        text = last_user(request)
        assert text.startswith("Your previous answer was not used: no JSON object with a 'script'")
        assert f"Round {n} of 3." in text
    assert "Round 1 of 3." in last_user(requests[0])


def test_a_later_solve_earns_the_discounted_return_and_each_turn_its_increment(oracle_answer):
    env = load_environment(suite="pace", tasks=TASK, max_rounds=3)
    output, requests = play(env, [{"content": "```python\nraise SystemExit(3)\n```"}, {"content": oracle_answer}])
    suite = get_suite("pace")
    rule = ReturnRule(floor=float(suite.crash_reward), discount=budget_discount(3))
    rewards = [float(suite.crash_reward), float(suite.scale.reward_high)]
    assert output["metrics"]["num_turns"] == 2.0 and len(requests) == 2
    assert output["reward"] == pytest.approx(rule.of(rewards)) and 0.0 < output["reward"] < 1.0
    assert output["simreflect"]["attempt_rewards"] == rewards
    assert last_user(requests[1]).startswith("Your previous script failed")


def test_hostile_answers_are_failed_rounds_never_exceptions():
    huge = "x" * (MAX_ANSWER_CHARS + 10)
    nested = '{"diagnosis": "deep", "script": ' + "[" * 50_000 + "]" * 50_000 + "}"
    replies = [
        {"content": huge},
        {"content": "\x00\x07\x1b[2J \u202e\ufffd\uffff not a program, and no fence"},
        {"content": nested},
        {"content": json.dumps({"diagnosis": {"a": [1, 2]}, "script": {"not": "a string"}})},
        {"content": "{\"script\": \"" + "\\u0000" * 1000 + "\"}"},
    ]
    env = load_environment(suite="pace", tasks=TASK, max_rounds=len(replies))
    output, requests = play(env, replies)
    crash = float(get_suite("pace").crash_reward)
    assert output["error"] is None and output["reward"] == crash
    assert output["metrics"]["num_turns"] == float(len(replies)) and len(requests) == len(replies)
    reasons = [last_user(r) for r in requests[1:]]
    assert all(r.startswith("Your previous answer was not used:") for r in reasons), [r[:200] for r in reasons]
    assert f"more than the {MAX_ANSWER_CHARS} accepted" in reasons[0], reasons[0][:300]


def test_an_answer_the_client_cannot_read_ends_the_rollout_at_the_floor(oracle_answer):
    """A lone surrogate in the response JSON: the openai SDK refuses the body, verifiers records a
    model error and ends the rollout; the reward is what the rounds played earned (here none: the
    crash reward), and nothing raises."""
    env = load_environment(suite="pace", tasks=TASK, max_rounds=3)
    output, requests = play(env, [{"content": "\ud800 half a character"}, {"content": oracle_answer}])
    assert output["error"] is not None and output["stop_condition"] == "has_error"
    assert output["reward"] == float(get_suite("pace").crash_reward) and output["metrics"]["solved"] == 0.0
    assert len(requests) == 1 and output["simreflect"]["rounds"] == 0


def test_answer_text_reads_only_text_and_is_bounded():
    assert answer_text({"role": "assistant", "content": None}) == ""
    assert answer_text({"role": "assistant", "content": 42}) == ""
    parts = [{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {"url": "x"}}, {"text": "b"}]
    assert answer_text({"content": parts}) == "ab"
    assert len(answer_text({"content": ["y" * MAX_ANSWER_CHARS] * 3})) == 0  # parts that are not text parts
    assert len(answer_text({"content": [{"text": "y" * MAX_ANSWER_CHARS}] * 3})) == MAX_ANSWER_CHARS + 1
    assert len(answer_text(vf.AssistantMessage(content="z" * (MAX_ANSWER_CHARS + 5)))) == MAX_ANSWER_CHARS + 1


def test_arguments_are_checked():
    with pytest.raises(ValueError):
        load_environment(suite="pace", tasks=TASK, max_rounds=0)
    with pytest.raises(ValueError):
        load_environment(suite="pace", tasks=TASK, level=7)
    with pytest.raises(ValueError, match="no task matches 'no_such_task"):
        load_environment(suite="pace", tasks="no_such_task*")
    with pytest.raises(KeyError):
        load_environment(suite="no-such-suite")


def test_concurrent_rollouts_play_episodes_of_their_own(oracle_answer):
    """Two rollouts of one task at once: each its own workspace and rounds (garbage, then the
    reference), whatever order their requests reach the server in."""
    def by_turn(request: dict) -> dict:
        turns = sum(m["role"] == "assistant" for m in request["messages"])
        return {"content": "no program here" if turns == 0 else oracle_answer}

    env = load_environment(suite="pace", tasks=TASK, max_rounds=3, concurrency=2)
    with ScriptedLLMServer([by_turn]) as server:
        out = env.evaluate_sync(client=client_for(server), model="scripted", num_examples=1, rollouts_per_example=2,
                                state_columns=["simreflect"])
        assert len(server.requests) == 4
    rule = ReturnRule(floor=-1.0, discount=budget_discount(3))
    assert [o["reward"] for o in out["outputs"]] == [pytest.approx(rule.of([-1.0, 1.0]))] * 2
    assert [o["metrics"]["num_turns"] for o in out["outputs"]] == [2.0, 2.0]
    assert all(o["simreflect"]["passed"] for o in out["outputs"]) and not env._live  # every episode closed


def test_vf_eval_finds_the_environment_by_its_module_name(oracle_answer, tmp_path):
    """verifiers' own command line (vf-eval ENV_ID: the module whose load_environment it calls)."""
    vf_eval = Path(sys.executable).with_name("vf-eval")
    args = json.dumps({"suite": "pace", "tasks": TASK, "max_rounds": 2})
    with ScriptedLLMServer([{"content": oracle_answer}]) as server:
        run = subprocess.run([str(vf_eval), ENV_ID, "-a", args, "-m", "scripted", "-b", server.base_url,
                              "-k", "SCRIPTED_KEY", "-n", "1", "-r", "1"], capture_output=True, text=True,
                             timeout=300, cwd=tmp_path, env={**os.environ, "SCRIPTED_KEY": "none"})
        assert len(server.requests) == 1
    assert run.returncode == 0, run.stderr[-2000:]
    assert "solved: avg - 1.000" in run.stdout and "num_turns: avg - 1.000" in run.stdout, run.stdout[-2000:]
