"""The repair loop driven through a real local OpenAI-compatible server that answers from a script.

The subject is the toy suite (simreflect.testing.toy): these are tests of the loop, the store and
the model client, not of any benchmark."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest

from simreflect.run.report import rescore, rows_of, write_report
from simreflect.run.runner import RunConfig, run
from simreflect.run.store import RunStore
from simreflect.testing.scripted_llm import ScriptedLLMServer
from simreflect.testing.toy import ToySuite, toy_suite_registered, write_task_list


@pytest.fixture(autouse=True)
def toy():
    with toy_suite_registered():
        yield


@pytest.fixture
def small_bench(tmp_path_factory) -> Path:
    return write_task_list(tmp_path_factory.mktemp("toy3"), 3)


@pytest.fixture
def one_bench(tmp_path_factory) -> Path:
    return write_task_list(tmp_path_factory.mktemp("toy1"), 1)


def oracle_of(bench: Path) -> dict[str, str]:
    suite = ToySuite()
    return {t.id: suite.oracle(t) for t in suite.load_tasks(bench)}


def answering_oracle(bench: Path):
    oracles = oracle_of(bench)

    def reply(body):
        last = body["messages"][-1]["content"]
        task = re.search(r"Toy report for (toy-\d+)", last).group(1)
        return {"content": json.dumps({"diagnosis": f"multiply the numbers of {task}", "script": oracles[task]})}

    return reply


def llm_config(bench: Path, server, levels=("L2",), **options) -> RunConfig:
    opts = {"model": "scripted", "base_url": server.base_url, "backoff_s": 0.01, "max_retries": 2, "timeout_s": 10.0}
    opts.update(options)
    return RunConfig(suite="toy", bench=str(bench), agent="llm", levels=tuple(levels), rounds=3, agent_options=opts)


def test_good_fixes_are_solved_in_one_round_and_recorded(small_bench, tmp_path):
    with ScriptedLLMServer([answering_oracle(small_bench)]) as server:
        run(tmp_path, llm_config(small_bench, server))
        first = server.requests[0]
    assert first["response_format"]["type"] == "json_schema"
    assert first["messages"][0]["role"] == "system" and "Your program is Python" in first["messages"][0]["content"]
    _, rows = rows_of(tmp_path)
    assert len(rows) == 3 and all(r["solved_round"] == 1 for r in rows)
    rnd = rows[0]["rounds"][0]
    assert rnd["prompt"] == first["messages"] or rnd["prompt"][0] == first["messages"][0]
    assert rnd["diagnosis"].startswith("multiply the numbers")
    assert rnd["errors_before"] and rnd["errors_after"] == []
    assert rows[0]["tokens"] > 0 and rnd["usage"]["calls"] == 1
    assert rescore(tmp_path) == []


def test_broken_answers_cost_their_round_never_the_run(one_bench, tmp_path):
    oracle = next(iter(oracle_of(one_bench).values()))
    replies = [
        {"content": "I think the product is wrong but I will not write code."},
        {"content": "```python\nopen('answer.txt', 'w').write(\n```"},  # syntax error
        {"content": json.dumps({"diagnosis": "boom", "script": "raise RuntimeError('boom')"})},
        {"content": json.dumps({"diagnosis": "fix", "script": oracle})},
    ]
    with ScriptedLLMServer(replies) as server:
        config = llm_config(one_bench, server)
        config = RunConfig(**{**config.__dict__, "rounds": 4})
        run(tmp_path, config)
    _, rows = rows_of(tmp_path)
    row = rows[0]
    assert row["solved"] and row["solved_round"] == 4
    assert row["no_program"] == 1 and row["scripts"] == 3 and row["crashes"] == 2
    r1, r2, r3, r4 = row["rounds"]
    assert "no JSON object" in r1["error"]
    assert r2["error"].startswith("error") and "SyntaxError" in r2["output_tail"]
    assert "boom" in r3["output_tail"]
    assert r1["errors_after"] == r1["errors_before"] == r3["errors_after"]
    # the agent is told what happened to its previous answer
    assert "was not used" in r2["prompt"][-1]["content"]
    assert "failed" in r3["prompt"][-1]["content"]
    assert r4["errors_after"] == []


def test_rate_limit_then_success(one_bench, tmp_path):
    with ScriptedLLMServer([{"status": 429, "retry_after": 0}, answering_oracle(one_bench)]) as server:
        run(tmp_path, llm_config(one_bench, server))
        assert len(server.requests) == 2
    _, rows = rows_of(tmp_path)
    assert rows[0]["solved_round"] == 1 and rows[0]["rounds"][0]["usage"]["calls"] == 2


def test_server_without_structured_output_falls_back_to_a_code_block(one_bench, tmp_path):
    oracle = next(iter(oracle_of(one_bench).values()))
    replies = [{"reject_format": True}, {"content": f"The product is a times b.\n```python\n{oracle}```\n"}]
    with ScriptedLLMServer(replies) as server:
        run(tmp_path, llm_config(one_bench, server))
        assert "response_format" in server.requests[0] and "response_format" not in server.requests[1]
    _, rows = rows_of(tmp_path)
    assert rows[0]["solved_round"] == 1
    assert rows[0]["rounds"][0]["diagnosis"].startswith("The product is a times b")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_hang_is_an_infrastructure_error_retried_on_resume(one_bench, tmp_path):
    port = _free_port()
    with ScriptedLLMServer([{"hang": 2.0}], port=port) as server:
        config = llm_config(one_bench, server, timeout_s=0.3, max_retries=1)
        outcomes = run(tmp_path, config)
    assert [o.status for o in outcomes] == ["infra_error"]
    records, _ = RunStore(tmp_path).records()
    assert [r["type"] for r in records] == ["infra_error"] and "timed out" in records[0]["error"]
    md = write_report(tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["levels"]["L2"]["n"] == 0 and summary["unfinished"] == ["toy-00/L2"]
    assert "infrastructure errors" in md
    # the same command again, with the endpoint back: the episode is retried and finishes
    with ScriptedLLMServer([answering_oracle(one_bench)], port=port):
        outcomes = run(tmp_path, config)
    assert [(o.status, o.solved) for o in outcomes] == [("finished", True)]
    write_report(tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["levels"]["L2"]["n"] == 1 and summary["levels"]["L2"]["solved_1"] == 1
    assert summary["unfinished"] == []


def test_response_cache(one_bench, tmp_path):
    cache = tmp_path / "cache"
    with ScriptedLLMServer([answering_oracle(one_bench)]) as server:
        run(tmp_path / "a", llm_config(one_bench, server, cache_dir=str(cache)))
        n = len(server.requests)
        run(tmp_path / "b", llm_config(one_bench, server, cache_dir=str(cache)))
        assert len(server.requests) == n  # answered from the cache
    _, rows = rows_of(tmp_path / "b")
    assert rows[0]["solved"] and rows[0]["rounds"][0]["usage"]["cached"] is True


def test_resume_refuses_a_different_config(one_bench, tmp_path):
    from simreflect.run.store import StoreError

    run(tmp_path, RunConfig(suite="toy", bench=str(one_bench), agent="noop", levels=("L1",)))
    with pytest.raises(StoreError, match="another configuration"):
        run(tmp_path, RunConfig(suite="toy", bench=str(one_bench), agent="oracle", levels=("L1",)))
