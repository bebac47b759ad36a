"""Tokens and cost per episode and per run, priced by a table the user can edit."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from simreflect.analysis.cost import DEFAULT_TABLE, Price, load_price_table, run_cost
from simreflect.cli import app
from simreflect.run.report import write_report
from simreflect.run.runner import RunConfig, run
from simreflect.run.store import RunStore
from simreflect.testing.scripted_llm import ScriptedLLMServer


def test_the_shipped_table_loads_and_prices_by_name_then_pattern(tmp_path):
    table = load_price_table()
    assert table.source == str(DEFAULT_TABLE) and table.price("gpt-4.1") == Price(2.0, 8.0)
    assert table.price("no-such-model") is None and table.price(None) is None
    own = tmp_path / "prices.toml"
    own.write_text('[models."Qwen/Qwen3-8B"]\ninput = 0.5\noutput = 1\n[models."Qwen/*"]\ninput = 0.1\noutput = 0.2\n')
    table = load_price_table(own)
    assert table.price("Qwen/Qwen3-8B") == Price(0.5, 1.0) and table.price("Qwen/Qwen3-32B") == Price(0.1, 0.2)
    assert Price(0.5, 1.0).of(2_000_000, 1_000_000) == pytest.approx(2.0)


@pytest.mark.parametrize("text, words", [
    ('[models."m"]\ninput = -1\noutput = 1\n', "must be a finite number >= 0"),
    ('[models."m"]\ninput = nan\noutput = 1\n', "must be a finite number >= 0"),
    ('[models."m"]\ninput = "cheap"\noutput = 1\n', "not 'cheap'"),
    ('[models."m"]\ninput = 1\n', "output must be"),
    ('[models]\nm = 3\n', "must be a table with input and output"),
    ("models = 3\n", "[models] must be a table"),
    ("[models\n", "is not TOML"),
])
def test_a_bad_table_is_a_clear_error(tmp_path, text, words):
    path = tmp_path / "prices.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=r"the price table .*" + words.replace("[", r"\[").replace("]", r"\]")):
        load_price_table(path)
    with pytest.raises(ValueError, match="cannot read"):
        load_price_table(tmp_path / "absent.toml")


def test_cached_answers_cost_nothing_and_are_counted_apart():
    table = load_price_table()
    rows = [{"task": "t", "level": "L1", "run": 0, "rounds": [
        {"usage": {"prompt_tokens": 1000, "completion_tokens": 500, "cached": False}},
        {"usage": {"prompt_tokens": 4000, "completion_tokens": 100, "cached": True}},
        {"usage": {}}]}]
    cost = run_cost(rows, "gpt-4.1", table).to_dict()
    assert (cost["prompt_tokens"], cost["completion_tokens"], cost["cached_tokens"]) == (1000, 500, 4100)
    assert cost["cost_usd"] == pytest.approx((1000 * 2.0 + 500 * 8.0) / 1e6)


def test_a_model_runs_summary_shows_tokens_and_cost(one_bench, tmp_path):
    answer = json.dumps({"diagnosis": "nothing to do", "script": "pass"})
    prices = tmp_path / "prices.toml"
    prices.write_text('[models."priced-model"]\ninput = 3.0\noutput = 15.0\n')
    with ScriptedLLMServer([{"content": answer}]) as server:
        out = tmp_path / "run"
        run(out, RunConfig(suite="gait", bench=str(one_bench), agent="llm", levels=("L1",), rounds=2,
                           agent_options={"model": "priced-model", "base_url": server.base_url, "max_retries": 0}))
    records, _ = RunStore(out).records()
    usage = [r["usage"] for r in records if r["type"] == "round"]
    prompt, completion = sum(u["prompt_tokens"] for u in usage), sum(u["completion_tokens"] for u in usage)
    assert prompt > 0 and completion > 0
    md = write_report(out, prices)
    cost = json.loads((out / "summary.json").read_text())["cost"]
    assert (cost["prompt_tokens"], cost["completion_tokens"]) == (prompt, completion)
    assert cost["cost_usd"] == pytest.approx((3.0 * prompt + 15.0 * completion) / 1e6)
    assert cost["per_episode"][0]["cost_usd"] == pytest.approx(cost["cost_usd"])
    assert "## Tokens and cost (priced-model)" in md and f"{prompt:,}" in md
    assert "No price for 'priced-model'" in write_report(out)  # the shipped table does not know it
    res = CliRunner().invoke(app, ["report", str(out), "--price-table", str(tmp_path / "absent.toml")])
    assert res.exit_code == 2 and "cannot read the price table" in res.output
    res = CliRunner().invoke(app, ["report", str(out), "--price-table", str(prices)])
    assert res.exit_code == 0 and "Priced at 3 / 15 USD per million" in res.output
