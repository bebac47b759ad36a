"""The harness's cost of an interactive workshop session: per turn without a model, and the wall
time of whole scripted `place` episodes.

    .venv/bin/python benchmarks/interactive_overhead.py [--turns 200]

1. Per-turn overhead: an agent that answers at once (no model) calls `http` every turn, either
   GET /state?fields=time or a one-step POST /act; the time per turn of core.interactive.run_session
   covers the chat rebuilt from the transcript, the reply parsed and checked, the request over the
   service's Unix socket, the result truncated and both records appended and fsynced.
2. The scripted `place` episode: the reference controller behind `http` calls, once in process
   (the oracle agent) and once behind the scripted chat-completions server (every turn a real HTTP
   request carrying the chat so far, answered with tool calls), with the agent's default history
   compaction (only the last turns' long results shown in full) and without it.
Timings are measurements on this machine (shared cores make them noisy), never asserted in tests.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from simreflect.core.evidence import EvidenceLevel
from simreflect.core.interactive import ModelTurn, SessionBudgets, Transcript, run_session
from simreflect.run.interactive import opening, run_interactive_episode
from simreflect.run.store import EpisodeLog, RunStore
from simreflect.suites.workshop.suite import WorkshopSuite, make_task


class Repeat:
    """Answers every turn with the same http call, at once."""

    name = "repeat"
    text_protocol = False

    def __init__(self, args: dict):
        self.call = {"id": "c", "type": "function", "function": {"name": "http", "arguments": json.dumps(args)}}

    def turn(self, messages, tools) -> ModelTurn:
        return ModelTurn({"role": "assistant", "content": "", "tool_calls": [self.call]})


def per_turn(args: dict, turns: int) -> float:
    suite, task = WorkshopSuite(), make_task("place", 0)
    with tempfile.TemporaryDirectory() as tmp:
        world = suite.open_world(task, Path(tmp) / "s", EvidenceLevel.L2)
        try:
            budgets = SessionBudgets(max_turns=turns)
            t0 = time.perf_counter()
            run_session(Repeat(args), world, opening(suite, task, budgets, False), Transcript(Path(tmp) / "t.jsonl"),
                        budgets)
            return (time.perf_counter() - t0) / turns
        finally:
            world.close()


def place_episode(agent_factory) -> tuple[float, dict]:
    suite, task = WorkshopSuite(), make_task("place", 0)
    with tempfile.TemporaryDirectory() as tmp:
        store = RunStore(Path(tmp) / "run")
        t0 = time.perf_counter()
        out = run_interactive_episode(suite, agent_factory(task), task, EvidenceLevel.L1, store, EpisodeLog(),
                                      SessionBudgets(max_tokens=10**12))
        wall = time.perf_counter() - t0
        rec = [r for r in store.read().records if r["type"] == "round"][0]
        return wall, {"solved": out.solved, **rec["method_notes"]["interactive"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    state = {"method": "GET", "path": "/state?fields=time"}
    step = {"method": "POST", "path": "/act", "body": {"segments": [{"type": "move", "duration": 1 / 180}]}}
    for name, args in (("GET /state?fields=time", state), ("POST /act (1 step)", step)):
        times = [per_turn(args, a.turns) for _ in range(a.repeats)]
        print(f"per turn, {name}: median {statistics.median(times) * 1e3:.2f} ms over {a.repeats} x {a.turns} turns")

    suite = WorkshopSuite()
    wall, end = place_episode(suite.interactive_oracle)
    print(f"place, oracle in process: {wall:.1f} s wall; {end}")

    from simreflect.agents.interactive import DEFAULT_HISTORY_TURNS, ToolLLMAgent
    from simreflect.agents.llm import LLMConfig
    from simreflect.suites.workshop.reference.turns import ReferenceTurnAgent
    from simreflect.testing.scripted_llm import ScriptedLLMServer

    for history in (DEFAULT_HISTORY_TURNS, 0):
        model = ReferenceTurnAgent("place")  # the scripted model: the reference controller, fresh per episode

        def reply(body, model=model):
            return {"content": "", "tool_calls": model.turn(body["messages"], body["tools"]).message["tool_calls"]}

        with ScriptedLLMServer([reply]) as server:
            wall, end = place_episode(lambda task: ToolLLMAgent(
                LLMConfig(model="scripted", base_url=server.base_url), history_turns=history))
            sent = sum(len(json.dumps(r)) for r in server.requests)
            largest = max(len(json.dumps(r)) for r in server.requests)
        shown = f"last {history} turns in full" if history else "whole history in full"
        print(f"place, scripted chat-completions server ({shown}): {wall:.1f} s wall, {len(server.requests)} "
              f"requests, {sent / 1e6:.2f} MB of chat sent (largest request {largest / 1e3:.0f} kB); {end}")

if __name__ == "__main__":
    main()
