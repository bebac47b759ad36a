"""provider/model strings: resolution, and a real run through a provider's base URL variable."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from simreflect.agents.providers import EndpointError, resolve
from simreflect.testing.scripted_llm import ScriptedLLMServer


def test_resolution(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    e = resolve("openai/gpt-4.1")
    assert (e.model, e.base_url, e.api_key_env) == ("gpt-4.1", "https://api.openai.com/v1", "OPENAI_API_KEY")
    monkeypatch.setenv("VLLM_BASE_URL", "http://127.0.0.1:9999/v1")
    e = resolve("vllm/Qwen/Qwen3-8B")
    assert (e.model, e.base_url, e.api_key_env) == ("Qwen/Qwen3-8B", "http://127.0.0.1:9999/v1", "VLLM_API_KEY")
    e = resolve("meta-llama/Llama-3.1-8B", base_url="http://h/v1")  # not a provider: sent as it is
    assert (e.model, e.api_key_env) == ("meta-llama/Llama-3.1-8B", "SIMREFLECT_API_KEY")
    assert resolve("ollama/llama3.1", base_url="http://x/v1").base_url == "http://x/v1"
    with pytest.raises(EndpointError, match="pass --base-url"):
        resolve("meta-llama/Llama-3.1-8B")


def test_a_run_through_a_provider_variable(one_bench, tmp_path):
    from simreflect.suites.gait.suite import GaitSuite

    oracle = GaitSuite().load_tasks(one_bench)[0].hidden["oracle_fix"]
    with ScriptedLLMServer([{"content": json.dumps({"diagnosis": "d", "script": oracle})}]) as server:
        env = {**os.environ, "VLLM_BASE_URL": server.base_url, "VLLM_API_KEY": "k-123"}
        res = subprocess.run([sys.executable, "-m", "simreflect.cli", "run", "gait", "--agent", "llm",
                              "--model", "vllm/org/model-7b", "--bench", str(one_bench), "--out", str(tmp_path),
                              "--levels", "L1"], env=env, capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, res.stdout + res.stderr
        assert server.requests[0]["model"] == "org/model-7b"
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["agent_options"]["api_key_env"] == "VLLM_API_KEY"
    assert "k-123" not in (tmp_path / "config.json").read_text() + (tmp_path / "attempts.jsonl").read_text()
