"""Every method (--method) end to end on real pace tasks: the real sandbox and simulator, the model a
ScriptedLLMServer whose answers are a pure function of the request (so a killed and resumed run gets
the same answers as an uninterrupted one).

The script: generation answers are variants of the task's source design (one numeric literal
rescaled; none solves its target), except round 2 of the bridge task, which answers without a
program. Auxiliary answers carry markers (REVIEW-, REFLECTION-, CRITIQUE-, LESSON-, INSIGHT-, MEMORY-)
that the tests look for in the requests the model received; some are malformed on purpose (an empty
reflection, a refine answer without a program, curator output that is not JSON, insight lines that
are not operations, a memory block without a description and a memory answer with no block)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from simreflect.agents.methods import ace, expel, reasoningbank, reflexion, review, self_refine
from simreflect.agents.param_search import find_literals, rewrite
from simreflect.core.evidence import EvidenceLevel
from simreflect.core.registry import get_suite
from simreflect.run.agents import METHOD_NAMES, make_agent
from simreflect.run.episode import run_episode
from simreflect.run.report import write_report
from simreflect.run.runner import RunConfig, run
from simreflect.run.store import EpisodeLog, RunStore
from simreflect.suites.pace.suite import task_for
from simreflect.suites.pace.task import TARGETS, load_spec, tasks_dir
from simreflect.testing.scripted_llm import ScriptedLLMServer

SUITE = get_suite("pace")
SPECS = ("statics_bridge", "control_lander")
TASKS = {f"{spec}.{stage}": task_for(load_spec(spec), stage) for spec in SPECS for stage in TARGETS}
BRIDGE, LANDER = "statics_bridge.stage1", "control_lander.stage2"
BUDGET = 4
# (literal index, factor) of the source design: each variant runs and fails its target
VARIANTS = {"statics_bridge": [(0, 1.5), (1, 0.6), (2, 0.6), (5, 1.5), (6, 1.5), (2, 1.5), (4, 1.5), (7, 0.6)],
            "control_lander": [(1, 0.6), (0, 1.5), (5, 1.5), (4, 0.6), (7, 0.6), (5, 0.6), (2, 1.5), (3, 0.6)]}
_SOURCES: dict[str, str] = {}


def variant(spec: str, k: int) -> str:
    if spec not in _SOURCES:
        _SOURCES[spec] = load_spec(spec).program("source")
    src = _SOURCES[spec]
    lits = find_literals(src)
    i, f = VARIANTS[spec][k % len(VARIANTS[spec])]
    vals = [lit.value for lit in lits]
    v = lits[i].value * f
    vals[i] = max(1, round(v)) if lits[i].is_int else float(f"{v:.4g}")
    return rewrite(src, lits, vals)


def _text(body) -> str:
    return "\n".join(str(m.get("content", "")) for m in body.get("messages", []))


def kind_of(body) -> str:
    system = body["messages"][0]["content"] if body["messages"][0]["role"] == "system" else ""
    for kind, prompt in (("review", review.REVIEWER_SYSTEM), ("reflection", reflexion.REFLECTOR_SYSTEM),
                         ("critique", self_refine.CRITIC_SYSTEM), ("reflector", ace.REFLECTOR_SYSTEM),
                         ("curator", ace.CURATOR_SYSTEM), ("insights", expel.INSIGHT_SYSTEM)):
        if system == prompt:
            return kind
    if system in (reasoningbank.WORKED_SYSTEM, reasoningbank.FAILED_SYSTEM):
        return "memory"
    if body["messages"][-1]["content"].startswith("A critic reviewed your answer"):
        return "refine"
    return "generate"


def task_of(body) -> str:
    m = re.search(r"PACE task (\w+), \w+; target environment Stage-(\d)", _text(body))
    return f"{m.group(1)}.stage{m.group(2)}"


def round_of(body) -> int:
    """The round a request was made in: the latest "Round r of N." it carries, or (curator, insight and
    memory requests, which quote attempts rather than reports) one more than the latest attempt they name."""
    text = _text(body)
    if kind_of(body) in ("curator", "insights", "memory"):
        return 1 + max(int(x) for x in re.findall(r"attempt (\d+)", body["messages"][-1]["content"]))
    rounds = [int(x) for x in re.findall(r"^Round (\d+) of \d+\.", text, re.M)]
    return max(rounds) if rounds else 0


from simreflect.agents.preflight import PROMPT as PREFLIGHT_PROMPT  # noqa: E402


def respond(body, solve_later_stages: bool = False) -> dict:
    """The scripted model: its answer depends on the request only. A request the script does not
    expect gets HTTP 418, which the agent turns into an infrastructure error at once; the run's
    pre-flight request (agents/preflight.py) gets its OK."""
    if body["messages"] == PREFLIGHT_PROMPT:
        return {"content": "OK"}
    try:
        return _respond(body, solve_later_stages)
    except Exception as e:  # noqa: BLE001 - reported through the HTTP status
        return {"status": 418, "message": f"the script cannot answer this request: {e!r}"}


def _respond(body, solve_later_stages: bool) -> dict:
    task = task_of(body)
    spec, stage = task.split(".")[0], int(task[-1])
    r = round_of(body)
    kind = kind_of(body)
    if kind == "review":
        return {"content": f"REVIEW-{task}-r{r}: the joints are overloaded."}
    if kind == "reflection":
        return {"content": "" if (task == BRIDGE and r == 3) else f"REFLECTION-{task}-r{r}: the deck is too weak."}
    if kind == "critique":
        return {"content": f"CRITIQUE-{task}-r{r}: the design ignores the new loads."}
    if kind == "reflector":
        return {"content": f"ACE-REFLECTION-{task}-r{r}: the structure fails under load."}
    if kind == "curator":
        k = r - 1
        if task == BRIDGE and k == 2:
            return {"content": "Sure! I would add a lesson about torque."}  # not JSON
        ops = [{"op": "ADD", "section": "design", "text": f"LESSON-{task}-a{k}"}]
        if k >= 3:
            ops += [{"op": "MODIFY", "id": "b1", "text": f"LESSON-{task}-b1-revised-a{k}"}, {"op": "DELETE", "id": "b99"}]
        return {"content": json.dumps({"operations": ops})}
    if kind == "insights":
        if task == BRIDGE and r == 3:
            return {"content": "I think the bridge is weak."}  # no operation
        lines = [f"ADD: INSIGHT-{task}-r{r}"] + (["UPVOTE I1"] if r >= 3 else []) + ["EDIT I42: no such insight"]
        return {"content": "\n".join(lines)}
    if kind == "memory":
        if task == BRIDGE and r == 4:
            return {"content": "The bridge is weak, I think."}  # no item at all
        return {"content": f"Here are my items.\n\nTITLE: MEMORY-{task}-r{r}-a\nDESCRIPTION: when the deck sags.\n"
                           f"CONTENT: keep the members short.\n\nTITLE: BROKEN-{task}-r{r}\nCONTENT: no description\n\n"
                           f"## Title\nMEMORY-{task}-r{r}-b\n## Description\nwhen the score is below the target.\n"
                           f"## Content\nchange one parameter at a time\nand read the score.\n\n"
                           f"TITLE: MEMORY-{task}-r{r}-c\nDESCRIPTION: one too many.\nCONTENT: beyond the limit."}
    cycle = 0
    if kind == "refine":
        cycle = int(re.search(r"refinement (\d+) of", body["messages"][-1]["content"]).group(1))
        if task == BRIDGE and r == 3 and cycle == 1:
            return {"content": "I would rather not change it."}  # no program
    elif task == BRIDGE and r == 2:
        return {"content": "I cannot write this program."}  # an invalid generation
    if solve_later_stages and stage != 1:
        program = SUITE.oracle(TASKS[task])
    else:
        program = variant(spec, 3 * r + cycle)
    return {"content": json.dumps({"diagnosis": f"G-{task}-r{r}-c{cycle}", "script": program})}


def requests_of(requests, kind, task=None, round_no=None):
    out = []
    for body in requests:
        if kind_of(body) != kind or (task and task_of(body) != task):
            continue
        if round_no is not None and round_of(body) != round_no:
            continue
        out.append(body)
    return out


# aux calls per round (rounds 2..4 unless said) that the script above makes each method spend
def expected_aux(method: str, task: str) -> list[int]:
    per_round = {"vanilla": [0, 0, 0, 0], "tot": [0, 0, 0, 0], "beam": [0, 0, 0, 0], "evolve": [0, 0, 0, 0],
                 "review": [0, 1, 1, 1], "reflexion": [0, 1, 1, 1], "expel": [0, 1, 1, 1], "ace": [0, 2, 2, 2],
                 "reasoningbank": [0, 1, 1, 1],
                 "self-refine": [4, 4, 4, 4]}[method]
    if method == "self-refine" and task == BRIDGE:
        per_round = [4, 0, 4, 4]  # round 2's draft has no program: nothing to critique
    if method == "reasoningbank" and task == BRIDGE:
        per_round = [0, 1, 0, 1]  # attempt 2 has no program: nothing to distil in round 3
    return per_round


def llm(server) -> dict:
    return {"model": "scripted", "base_url": server.base_url, "max_retries": 0, "timeout_s": 30.0}


# ----- every method, end to end, on two tasks ---------------------------------------------------------

@pytest.fixture(scope="module")
def e2e(tmp_path_factory):
    """Every method run once on the two tasks (4 attempts each): (rounds by task, requests)."""
    out = {}
    for method in METHOD_NAMES:
        with ScriptedLLMServer([respond]) as server:
            store = RunStore(tmp_path_factory.mktemp(method.replace("-", "_")))
            store.open({"suite": "pace", "method": method})
            agent = make_agent("llm", SUITE, llm(server), method)
            logs = {}
            for tid in (BRIDGE, LANDER):
                logs[tid] = EpisodeLog()
                run_episode(SUITE, agent, TASKS[tid], EvidenceLevel.L2, BUDGET, store, logs[tid], timeout_s=60,
                            history="last+best", invalid_streak=3)
            out[method] = ({tid: [r.to_dict() for r in log.rounds] for tid, log in logs.items()}, list(server.requests))
    return out


@pytest.mark.parametrize("method", METHOD_NAMES)
def test_counts_of_attempts_and_aux_calls(e2e, method):
    rounds, requests = e2e[method]
    total_aux = 0
    for tid in (BRIDGE, LANDER):
        recs = rounds[tid]
        assert [r["round"] for r in recs] == [1, 2, 3, 4]  # every attempt once, none solved
        assert [r["usage"]["aux_calls"] for r in recs] == expected_aux(method, tid)
        assert all(r["usage"]["calls"] == 1 for r in recs)  # the attempt's own call, counted apart
        assert [len(r["method_notes"].get("aux", [])) for r in recs] == expected_aux(method, tid)
        if method != "vanilla":
            assert all(r["method_notes"]["method"] == method for r in recs)
        else:
            assert all(r["method_notes"] == {} for r in recs)  # --method vanilla is the agent itself
        total_aux += sum(expected_aux(method, tid))
        valid = [r for r in recs if r["program"] is not None]
        assert all(r["accepted"] and r["score"] is not None for r in valid)  # real simulator scores
        if tid == BRIDGE:
            assert recs[1]["program"] is None and "no JSON object" in recs[1]["error"]
            assert len(valid) == 3
    assert len(requests) == 2 * BUDGET + total_aux  # nothing else was sent
    assert sum(1 for b in requests if kind_of(b) == "generate") == 2 * BUDGET


def test_review_advice_reaches_the_model(e2e):
    rounds, requests = e2e["review"]
    for r in (2, 3, 4):
        gen = requests_of(requests, "generate", LANDER, r)[0]
        assert f"REVIEW-{LANDER}-r{r}:" in gen["messages"][-1]["content"]
        assert rounds[LANDER][r - 1]["method_notes"]["review"].startswith(f"REVIEW-{LANDER}-r{r}:")
    assert "REVIEW-" not in json.dumps(requests_of(requests, "generate", LANDER, 1)[0])


def test_reflexion_keeps_the_last_three_reflections(e2e):
    rounds, requests = e2e["reflexion"]
    last = requests_of(requests, "generate", LANDER, 4)[0]["messages"][-1]["content"]
    assert reflexion.SECTION in last
    assert all(f"REFLECTION-{LANDER}-r{r}:" in last for r in (2, 3, 4))
    # the bridge's reflection in round 3 came back empty: recorded, not shown, the run went on
    bridge = rounds[BRIDGE]
    assert bridge[2]["method_notes"]["learned"]["error"] == "empty reflection"
    assert bridge[2]["method_notes"]["aux"] == [{"kind": "reflection", "error": "empty reflection"}]
    shown = requests_of(requests, "generate", BRIDGE, 4)[0]["messages"][-1]["content"]
    assert f"REFLECTION-{BRIDGE}-r2:" in shown and f"REFLECTION-{BRIDGE}-r4:" in shown
    assert bridge[3]["method_notes"]["reflections_shown"] == [1, 3]
    # the reflector saw the attempt it reflects on
    reflect = requests_of(requests, "reflection", LANDER, 3)[0]["messages"][-1]["content"]
    assert rounds[LANDER][1]["script"].strip() in reflect


def test_self_refine_verifies_the_refined_program(e2e):
    rounds, requests = e2e["self-refine"]
    for r in (1, 3, 4):
        rec = rounds[LANDER][r - 1]
        assert rec["script"] == variant("control_lander", 3 * r + 2)  # refinement 2's program was verified
        assert rec["diagnosis"] == f"G-{LANDER}-r{r}-c2"
        notes = rec["method_notes"]
        assert [c["critique"].split(":")[0] for c in notes["cycles"]] == [f"CRITIQUE-{LANDER}-r{r}"] * 2
        assert notes["drafts"] == [variant("control_lander", 3 * r), variant("control_lander", 3 * r + 1)]
        refine = requests_of(requests, "refine", LANDER, r)
        assert len(refine) == 2 and all(f"CRITIQUE-{LANDER}-r{r}:" in b["messages"][-1]["content"] for b in refine)
        assert "response_format" in refine[0]  # refining asks for a program, like the attempt itself
    bridge = rounds[BRIDGE]
    assert bridge[1]["method_notes"]["cycles"] == [{"cycle": 1, "skipped": "the draft has no program"}]
    third = bridge[2]["method_notes"]["cycles"]
    assert third[0]["changed"] is False and third[0]["error"] and third[1]["changed"] is True
    assert bridge[2]["script"] == variant("statics_bridge", 3 * 3 + 2)
    critic = requests_of(requests, "critique", LANDER, 1)[0]
    assert "response_format" not in critic and variant("control_lander", 3).strip() in critic["messages"][-1]["content"]


def _expanded(rounds, requests, tid, method):
    """(parent of each round, the generation requests in order) for a search method."""
    parents = [r["method_notes"]["parent"] for r in rounds[tid]]
    gens = [requests_of(requests, "generate", tid, k)[0] for k in range(1, BUDGET + 1)]
    for k, (parent, body) in enumerate(zip(parents, gens), start=1):
        content = body["messages"][-1]["content"]
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
        if parent == 0:
            assert "the starting design" in content
        else:  # the parent's own program and its own report were shown
            prec = rounds[tid][parent - 1]
            assert prec["script"].strip() in content
            assert f"Score: {prec['score']:g}" in content or f"Score: {prec['score']}" in content
    return parents, gens


def test_tree_of_thoughts_expands_the_best_nodes(e2e):
    rounds, requests = e2e["tot"]
    for tid in (BRIDGE, LANDER):
        parents, gens = _expanded(rounds, requests, tid, "tot")
        recs = rounds[tid]
        assert parents[:2] == [0, 0]  # level 1: the root's two children
        level1 = sorted((r for r in recs[:2] if r["score"] is not None), key=lambda r: (-r["score"], r["round"]))
        assert recs[2]["method_notes"]["frontier"] == [r["round"] for r in level1][:2]
        assert parents[2:] == [level1[0]["round"]] * 2  # the best child first, branch = 2 children
        assert [r["method_notes"]["depth"] for r in recs] == [1, 1, 2, 2]
        # the second child of a node is told what its sibling tried
        assert f"G-{tid}-r1-c0" in gens[1]["messages"][-1]["content"]
    # on the bridge the second child had no program: only attempt 1 can be expanded
    assert rounds[BRIDGE][2]["method_notes"]["frontier"] == [1]


def test_beam_search_keeps_the_top_programs(e2e):
    rounds, requests = e2e["beam"]
    for tid in (BRIDGE, LANDER):
        parents, gens = _expanded(rounds, requests, tid, "beam")
        recs = rounds[tid]
        assert parents[:2] == [0, 0] and recs[0]["method_notes"]["beam"] == [0]
        scored = [(recs[0]["score_before"], 0)] + [(r["score"], r["round"]) for r in recs[:2] if r["score"] is not None]
        top = [k for _, k in sorted(scored, key=lambda x: (-x[0], x[1]))][:3]
        assert recs[2]["method_notes"]["beam"] == top and recs[2]["method_notes"]["generation"] == 2
        assert parents[2:] == [top[0], top[0]]  # children of the best member first


def test_evolve_shows_inspirations(e2e):
    rounds, requests = e2e["evolve"]
    for tid in (BRIDGE, LANDER):
        parents, gens = _expanded(rounds, requests, tid, "evolve")
        notes = [r["method_notes"] for r in rounds[tid]]
        assert [n["island"] for n in notes] == [0, 1, 0, 1]
        assert all(n["parent"] in n["islands"][n["island"]] for n in notes)  # from its own island
        assert all(set(n["contestants"]) <= set(n["islands"][n["island"]]) for n in notes)
        for n, body in zip(notes, gens):
            content = body["messages"][-1]["content"]
            for k in n["inspirations"]:
                assert rounds[tid][k - 1]["script"].strip() in content
        assert any(n["inspirations"] for n in notes[2:])
    lander = [r["method_notes"] for r in rounds[LANDER]]
    assert lander[2]["islands"] == [[0, 1], [0, 2]]  # every scored child joined the island it was made for
    by_score = sorted((1, 2), key=lambda k: (-rounds[LANDER][k - 1]["score"], k))
    assert lander[2]["inspirations"] == [k for k in by_score if k != lander[2]["parent"]][:2]


def test_ace_playbook_reaches_the_generator(e2e):
    rounds, requests = e2e["ace"]
    lander = [r["method_notes"] for r in rounds[LANDER]]
    assert [op["op"] for op in lander[1]["learned"]["operations"]] == ["ADD"]
    assert [op["op"] for op in lander[3]["learned"]["operations"]] == ["ADD", "MODIFY"]
    assert lander[3]["learned"]["rejected"][0]["reason"] == "no bullet 'b99'"
    last = requests_of(requests, "generate", LANDER, 4)[0]["messages"][-1]["content"]
    assert ace.SECTION in last and f"[b1] (design) LESSON-{LANDER}-b1-revised-a3" in last
    assert f"LESSON-{LANDER}-a2" in last and f"LESSON-{LANDER}-a3" in last
    assert lander[3]["playbook"] == ["b1", "b2", "b3"]
    # the curator was shown the reflector's analysis and the playbook
    cur = requests_of(requests, "curator", None, None)
    assert any(f"ACE-REFLECTION-{LANDER}-r3:" in b["messages"][-1]["content"] and f"LESSON-{LANDER}-a1" in
               b["messages"][-1]["content"] for b in cur)
    bridge = [r["method_notes"] for r in rounds[BRIDGE]]
    assert "no JSON list" in bridge[2]["learned"]["error"] and bridge[2]["learned"]["operations"] == []
    assert bridge[2]["playbook"] == ["b1"]  # unchanged by the malformed answer


def test_expel_insights_reach_the_generator(e2e):
    rounds, requests = e2e["expel"]
    lander = [r["method_notes"] for r in rounds[LANDER]]
    assert [op["op"] for op in lander[2]["learned"]["operations"]] == ["ADD", "UPVOTE"]
    assert lander[2]["learned"]["rejected"][0]["id"] == "I42"
    last = requests_of(requests, "generate", LANDER, 4)[0]["messages"][-1]["content"]
    assert expel.SECTION in last
    assert f"[I1, importance 4] INSIGHT-{LANDER}-r2" in last and f"INSIGHT-{LANDER}-r3" in last
    # the comparison showed the better and the worse attempt's programs
    ask = requests_of(requests, "insights", LANDER, 3)[0]["messages"][-1]["content"]
    learned = lander[2]["learned"]
    for k in (learned["better"], learned["worse"]):
        if k:
            assert rounds[LANDER][k - 1]["script"].strip() in ask
    bridge = [r["method_notes"] for r in rounds[BRIDGE]]
    assert bridge[2]["learned"]["operations"] == [] and bridge[2]["aux"][0]["error"]


def test_reasoningbank_memory_is_labelled_by_the_simulator_and_retrieved(e2e):
    rounds, requests = e2e["reasoningbank"]
    for tid in (BRIDGE, LANDER):
        recs = rounds[tid]
        bank: list[dict] = []
        scores = [(recs[0]["score_before"], 0)]
        for k, rec in enumerate(recs, start=1):
            notes = rec["method_notes"]
            if k >= 2:
                learned, latest = notes["learned"], recs[k - 2]
                best_value, best = max(scores, key=lambda x: (float("-inf") if x[0] is None else x[0], -x[1]))
                if latest["script"] is None:
                    assert learned["skipped"] and "aux" not in notes
                else:  # the label is the simulator's: better than every design before it
                    improved = latest["score"] is not None and (best_value is None or latest["score"] > best_value)
                    assert learned["label"] == ("worked" if improved else "failed") and learned["best_before"] == best
                    ask = requests_of(requests, "memory", tid, k)[0]
                    assert ask["messages"][0]["content"] == (reasoningbank.WORKED_SYSTEM if improved
                                                             else reasoningbank.FAILED_SYSTEM)
                    assert latest["script"].strip() in ask["messages"][-1]["content"]
                bank += learned["items"]
                scores.append((latest["score"], k - 1))
            gen = requests_of(requests, "generate", tid, k)[0]["messages"][-1]["content"]
            if not bank:
                assert notes["retrieved"] == [] and reasoningbank.SECTION not in gen
                continue
            want = reasoningbank.retrieve(bank, rec["report"], 1)
            assert [r["id"] for r in notes["retrieved"]] == [i["id"] for i, _ in want]
            assert reasoningbank.SECTION in gen and want[0][0]["content"] in gen
    lander = [r["method_notes"] for r in rounds[LANDER]]
    for k in (2, 3, 4):  # two items kept, the broken block and the third item rejected and recorded
        learned = lander[k - 1]["learned"]
        assert [i["title"] for i in learned["items"]] == [f"MEMORY-{LANDER}-r{k}-a", f"MEMORY-{LANDER}-r{k}-b"]
        assert learned["items"][1]["content"] == "change one parameter at a time and read the score."
        assert [r["reason"] for r in learned["rejected"]] == ["no DESCRIPTION", "more than 2 items"]
    assert [i["id"] for i in lander[3]["learned"]["items"]] == ["M5", "M6"]
    bridge = [r["method_notes"] for r in rounds[BRIDGE]]
    assert bridge[3]["learned"]["items"] == [] and bridge[3]["aux"] == [
        {"kind": "memory", "error": "no usable memory item in the answer"}]


# ----- every method resumes after SIGKILL --------------------------------------------------------------

def _bench(tmp: Path) -> Path:
    bench = tmp / "bench"
    bench.mkdir()
    shutil.copytree(tasks_dir() / "statics_bridge", bench / "statics_bridge")
    return bench


def _comparable(run_dir: Path) -> list[tuple]:
    records, _ = RunStore(run_dir).records()
    rows = []
    for r in records:
        if r["type"] == "round":
            rows.append((r["task"], r["round"], r["script"], r["score"], r["error"], json.dumps(r["prompt"]),
                         json.dumps(r["method_notes"], sort_keys=True), r["usage"]["aux_calls"], r["usage"]["calls"]))
    return sorted(rows)


RESUME_FAST = ("reflexion",)  # the rest: @slow (the quick run keeps one method with history state)


@pytest.mark.parametrize("method", [m if m in RESUME_FAST else pytest.param(m, marks=pytest.mark.slow)
                                    for m in METHOD_NAMES])
def test_sigkill_mid_episode_and_resume(method, tmp_path):
    bench = _bench(tmp_path)

    def responder(body):
        return respond(body, solve_later_stages=True)

    with ScriptedLLMServer([responder]) as server:
        reference = tmp_path / "reference"
        config = RunConfig(suite="pace", bench=str(bench), agent="llm", levels=("L2",), rounds=3, method=method,
                           agent_options=llm(server),
                           runs=1, history="last+best", invalid_streak=3)
        run(reference, config)
        cli = [sys.executable, "-m", "simreflect.cli", "run", "pace", "--agent", "llm", "--model", "scripted",
               "--base-url", server.base_url, "--method", method, "--bench", str(bench), "--out",
               str(tmp_path / "killed"), "--levels", "L2", "--rounds", "3", "--runs", "1", "--history", "last+best", "--invalid-retries", "0", "--request-timeout", "30",
               "--retries", "0", "--workers", "1"]  # one episode at a time: the records' order is the test's
        killed = tmp_path / "killed"
        proc = subprocess.Popen(cli, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:  # until stage1's second attempt is recorded
            path = killed / "attempts.jsonl"
            if path.exists() and path.read_bytes().count(b"\n") >= 2:
                break
            time.sleep(0.01)
        assert proc.poll() is None, "the run finished before it could be killed"
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        before, _ = RunStore(killed).records()
        assert [(r["task"], r["round"]) for r in before if r["type"] == "round"][:2] == \
            [("statics_bridge.stage1", 1), ("statics_bridge.stage1", 2)]
        assert not any(r["type"] == "end" for r in before)  # killed mid-episode: stage1 had a round to go
        done = subprocess.run(cli, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
    records, _ = RunStore(killed).records()
    rounds = Counter((r["task"], r["round"]) for r in records if r["type"] == "round")
    assert rounds and all(n == 1 for n in rounds.values())  # every attempt exactly once
    assert Counter(r["task"] for r in records if r["type"] == "end") == {f"statics_bridge.stage{s}": 1
                                                                        for s in (1, 2, 3, 4)}
    assert rounds[("statics_bridge.stage1", 3)] == 1  # the killed episode went on to its budget
    # the same attempts, prompts, method notes (the method's state) and counts as without the kill
    assert _comparable(killed) == _comparable(reference)
    assert json.loads((killed / "config.json").read_text())["method"] == method
    if method in RESUME_FAST:  # `simreflect report` reads the resumed run like any other
        md = write_report(killed)
        assert ("Auxiliary model calls" in md) == (sum(expected_aux(method, BRIDGE)[:3]) > 0)
