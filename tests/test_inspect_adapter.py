"""The Inspect AI adapter (integrations/inspect_tasks.py) through Inspect's own API: `inspect eval`
finds simreflect's tasks by their entry point, talks to the scripted OpenAI-compatible server
through Inspect's openai-api provider, and the log it writes opens with Inspect's log reader. The
score is the simulator's verdict, so no answer scores without a working program."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.log import list_eval_logs, read_eval_log  # noqa: E402

from simreflect.core.registry import get_suite  # noqa: E402
from simreflect.integrations.inspect_tasks import pace, suite_dataset  # noqa: E402
from simreflect.testing.scripted_llm import ScriptedLLMServer  # noqa: E402

SUITE = get_suite("pace")
TASKS = {t.id: t for t in SUITE.load_tasks(SUITE.default_root(0))}
BRIDGE, LANDER = "statics_bridge.stage1", "control_lander.stage2"
INSPECT = Path(sys.executable).with_name("inspect")


def task_of(body: dict) -> str:
    text = "\n".join(str(m.get("content", "")) for m in body["messages"])
    m = re.search(r"PACE task (\w+), \w+; target environment Stage-(\d)", text)
    return f"{m.group(1)}.stage{m.group(2)}"


def reference_for_bridge(body: dict) -> dict:
    """The bridge gets its reference program; the lander an answer that claims success and holds no program."""
    tid = task_of(body)
    if tid == BRIDGE:
        return {"content": json.dumps({"diagnosis": "the reference", "script": SUITE.oracle(TASKS[tid])})}
    return {"content": "RESULT: PASS. I verified it myself; the cart reached the goal. score 100"}


def _model_env(server: ScriptedLLMServer) -> dict[str, str]:
    return {"SCRIPTED_BASE_URL": server.base_url, "SCRIPTED_API_KEY": "not-a-key"}


def _sample(log, task_id: str):
    return next(s for s in log.samples if s.metadata["task"] == task_id)


def test_inspect_eval_runs_a_suite_from_its_entry_point_and_its_log_opens(tmp_path):
    logs = tmp_path / "logs"
    with ScriptedLLMServer([reference_for_bridge]) as server:
        proc = subprocess.run(
            [str(INSPECT), "eval", "simreflect/pace", "--model", "openai-api/scripted/scripted",
             "-T", f"tasks={BRIDGE},{LANDER}", "-T", "budget=3", "--log-dir", str(logs), "--display", "plain",
             "--max-connections", "2"],
            env={**os.environ, **_model_env(server)}, capture_output=True, text=True, timeout=600)
        requests = list(server.requests)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    [info] = list_eval_logs(str(logs))
    log = read_eval_log(info)
    assert log.status == "success" and log.eval.task == "simreflect/pace"
    assert {s.metadata["task"] for s in log.samples} == {BRIDGE, LANDER}
    bridge, lander = _sample(log, BRIDGE), _sample(log, LANDER)
    assert bridge.scores["verdict"].value == {"solved": 1.0, "reward": 1.0, "score": 100.0}
    assert [r["round"] for r in bridge.scores["verdict"].metadata["rounds"]] == [1]
    # a confident claim of success with no program is three spent rounds and no reward
    assert lander.scores["verdict"].value["solved"] == 0.0
    assert lander.scores["verdict"].value["reward"] == float(SUITE.crash_reward)
    rounds = lander.scores["verdict"].metadata["rounds"]
    assert [r["round"] for r in rounds] == [1, 2, 3] and all(not r["passed"] for r in rounds)
    assert all("no program" in r["error"] or "code block" in r["error"] for r in rounds), rounds
    # the model saw the suite's own prompt and, after each failed round, the report as a user message
    lander_requests = [b for b in requests if task_of(b) == LANDER]
    assert len(lander_requests) == 3
    assert [m["role"] for m in lander_requests[-1]["messages"]] == ["system", "user", "assistant", "user",
                                                                    "assistant", "user"]
    assert lander_requests[-1]["messages"][-1]["content"].startswith("no program in the answer") or \
        "Round 3 of 3." in lander_requests[-1]["messages"][-1]["content"]
    metrics = {s.name: s.metrics["mean"].value for s in log.results.scores}
    assert metrics == {"solved": 0.5, "reward": (1.0 + SUITE.crash_reward) / 2, "score": pytest.approx(
        (100.0 + lander.scores["verdict"].value["score"]) / 2)}


HOSTILE = {
    "deep JSON": {"content": "[" * 50_000 + "]" * 50_000},
    "a megabyte": {"content": "x" * 1_000_000},
    "lone surrogates": {"content": json.dumps({"diagnosis": "\ud800", "script": "print('\udfff')"})},
    "script not a string": {"content": json.dumps({"diagnosis": "d", "script": {"code": "print(1)"}})},
    "a crashing program": {"content": json.dumps({"diagnosis": "d", "script": "raise SystemExit(3)"})},
    "a hanging program": {"content": json.dumps({"diagnosis": "d", "script": "import time\ntime.sleep(600)"})},
    "a program writing the verdict": {"content": json.dumps({"diagnosis": "d", "script": (
        "import json, pathlib\n"
        "for name in ('verdict.json', 'result.json', 'reward.txt'):\n"
        "    pathlib.Path(name).write_text(json.dumps({'passed': True, 'score': 100, 'reward': 1}))\n")})},
}


@pytest.fixture(scope="module")
def hostile_model():
    """One scripted server for the whole module: Inspect keeps a model's client for the process, so
    every in-process eval of `openai-api/scripted/scripted` must reach the same server."""
    current: dict = {}
    with ScriptedLLMServer([lambda body: current["reply"]]) as server:
        saved = {k: os.environ.get(k) for k in _model_env(server)}
        os.environ.update(_model_env(server))
        try:
            yield current, server
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_answer_is_a_failed_round_never_an_error(tmp_path, hostile_model, name):
    current, server = hostile_model
    current["reply"] = HOSTILE[name]
    before = len(server.requests)
    [log] = inspect_eval(pace(tasks=LANDER, budget=2, timeout_s=3.0), model="openai-api/scripted/scripted",
                         log_dir=str(tmp_path), display="none", max_retries=0, fail_on_error=True)
    assert log.status == "success", log.error
    assert len(server.requests) - before == 2
    [sample] = log.samples
    assert sample.error is None
    score = sample.scores["verdict"]
    assert score.value["solved"] == 0.0 and score.value["reward"] < 1.0
    assert [r["round"] for r in score.metadata["rounds"]] == [1, 2]
    assert not any(r["passed"] for r in score.metadata["rounds"])


def test_the_dataset_is_the_suites_tasks_and_a_pattern_picks_some():
    every = suite_dataset("pace")
    assert len(every) == len(TASKS) and {s.metadata["task"] for s in every} == set(TASKS)
    picked = suite_dataset("pace", tasks="statics_*", level="L3")
    assert {s.metadata["task"] for s in picked} == {t for t in TASKS if t.startswith("statics_")}
    assert all(s.id.endswith("-L3") and s.metadata["level"] == "L3" for s in picked)
