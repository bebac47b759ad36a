"""The audit's interactive episode (suites/audit/interactive.py): the model runs code in its
sandboxed workspace with `python`, reads the output, and hands in audits with `submit`, each graded
and counted against the 3-attempt budget. The reference submitted at once passes, a noop fails, a
scripted model through the real chat-completions server recovers from a failed submission, hostile
tool arguments are tool errors that cost nothing, the workspace cannot stand in for a submission,
and a killed session resumes without running a submission twice."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simreflect.agents.interactive import NoopTurnAgent, ToolLLMAgent
from simreflect.agents.llm import LLMConfig
from simreflect.core.contract import InteractiveEpisodes, capabilities
from simreflect.core.evidence import EvidenceLevel
from simreflect.core.interactive import MAX_CODE_CHARS, ModelTurn, SessionBudgets, ToolCall, Transcript, check_arguments, \
    parse_reply, run_session
from simreflect.core.records import SessionEndRecord, ToolResultRecord, TurnRecord
from simreflect.run.interactive import TRANSCRIPT, opening, run_interactive_episode, session_dir
from simreflect.run.store import EpisodeLog, RunStore
from simreflect.suites.audit.cards import tasks_dir
from simreflect.suites.audit.interactive import CALLS, AuditWorld, read_calls
from simreflect.suites.audit.suite import AuditSuite
from simreflect.testing.scripted_llm import ScriptedLLMServer

TASK = "logistic-lyapunov"  # the quickest reference (each grade runs it and the script three times)
TOOLS = ("python", "submit", "finish")
CRASH = "raise SystemExit('no experiment yet')\n"


@pytest.fixture(scope="module")
def suite_task():
    suite = AuditSuite()
    return suite, suite.load_tasks(tasks_dir() / TASK)[0]


def _call(name, arguments, call_id="c1"):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


class Scripted:
    """A TurnAgent answering from a list of messages (the last one repeats)."""

    name, text_protocol = "scripted", False

    def __init__(self, *messages):
        self.messages, self.seen = list(messages), []

    def turn(self, messages, tools):
        self.seen.append(messages)
        msg = self.messages[min(len(self.seen) - 1, len(self.messages) - 1)]
        return ModelTurn(msg, prompt_tokens=10, completion_tokens=5)


def _turn(*calls, content=""):
    return {"role": "assistant", "content": content, "tool_calls": list(calls)}


def _episode(suite, task, agent, tmp_path):
    store = RunStore(tmp_path / "run")
    out = run_interactive_episode(suite, agent, task, EvidenceLevel.L1, store, EpisodeLog())
    records = Transcript(session_dir(store.dir, task.id, "L1") / TRANSCRIPT).read()
    return out, store, records


def test_audit_offers_interactive_episodes_with_python_submit_and_finish(suite_task):
    suite, task = suite_task
    assert isinstance(suite, InteractiveEpisodes) and "interactive" in capabilities(suite)
    assert suite.interactive_tools == TOOLS
    chat = opening(suite, task, SessionBudgets(), text_protocol=False)
    system = chat[0]["content"]
    assert "submit(script)" in system and "3 submissions" in system and "http(" not in system
    text = opening(suite, task, SessionBudgets(), text_protocol=True)[0]["content"]
    assert '"name": "python"' in text and "submit(script: string)" in text and "http(method" not in text


def test_the_reference_submitted_at_once_passes_and_a_noop_fails(suite_task, tmp_path):
    suite, task = suite_task
    out, store, records = _episode(suite, task, suite.interactive_oracle(task), tmp_path / "oracle")
    assert out.solved
    end = [r for r in records if isinstance(r, SessionEndRecord)][0]
    assert end.budget == "passed" and end.turns == 1 and end.commands == 1
    result = [r for r in records if isinstance(r, ToolResultRecord)][0]
    assert result.tool == "submit" and result.content.startswith("Submission 1 of 3: passed.")
    assert "Exit code: 0" in result.content and "session ends" in result.content
    round_ = store.read().records[0]
    assert round_["type"] == "round" and round_["passed"] and round_["method_notes"]["interactive"]["budget"] == "passed"

    out, store, records = _episode(suite, task, NoopTurnAgent(), tmp_path / "noop")
    assert not out.solved
    end = [r for r in records if isinstance(r, SessionEndRecord)][0]
    assert end.budget == "finish" and end.commands == 1
    verdict = store.read().records[0]["verdict"]
    assert verdict["score"] == 0.0 and any(c["name"] == "ran" and not c["passed"] for c in verdict["checks"])


def test_a_scripted_model_runs_code_reads_a_failed_report_and_passes_through_the_real_server(suite_task, tmp_path):
    """The seed's protocol through real tool calls: try the experiment with python, submit a script
    that crashes (its exit code, output tail and failed checks come back, one of three spent), then
    submit the reference, which passes and ends the session."""
    suite, task = suite_task
    reference = suite.oracle(task)
    replies = [
        {"content": "Let me look.", "tool_calls": [_call("python", {"code": "import json; print(sorted(json.load(open('params.json'))))"}, "a")]},
        {"content": "", "tool_calls": [_call("submit", {"script": CRASH}, "b")]},
        {"content": "", "tool_calls": [_call("submit", {"script": reference}, "c")]},
        {"content": "", "tool_calls": [_call("finish", {"summary": "should not be asked"}, "d")]},
    ]
    with ScriptedLLMServer(replies) as server:
        agent = ToolLLMAgent(LLMConfig(model="m", base_url=server.base_url, max_retries=0))
        out, store, records = _episode(suite, task, agent, tmp_path)
        sent = server.requests
    assert out.solved and len(sent) == 3
    assert [t["function"]["name"] for t in sent[0]["tools"]] == list(TOOLS)
    results = [r for r in records if isinstance(r, ToolResultRecord)]
    assert [r.tool for r in results] == ["python", "submit", "submit"]
    assert results[0].status == "ok" and "seed" in results[0].content and "exit: 0" in results[0].content
    failed = results[1].content
    assert failed.startswith("Submission 1 of 3: not passed.") and "2 submission(s) left." in failed
    assert "Exit code: 1" in failed and "no experiment yet" in failed and "Failed key checks:" in failed
    assert sent[2]["messages"][-1] == {"role": "tool", "tool_call_id": "b", "content": failed}  # the model read it
    end = [r for r in records if isinstance(r, SessionEndRecord)][0]
    assert end.budget == "passed" and end.turns == 3 and end.commands == 3


def test_three_failed_submissions_spend_the_budget_and_a_fourth_is_not_run(suite_task, tmp_path):
    suite, task = suite_task
    agent = Scripted(_turn(*[_call("submit", {"script": CRASH}, f"s{k}") for k in range(4)]))
    out, store, records = _episode(suite, task, agent, tmp_path)
    assert not out.solved
    results = [r for r in records if isinstance(r, ToolResultRecord)]
    assert [r.content.split(":")[0] for r in results[:3]] == ["Submission 1 of 3", "Submission 2 of 3", "Submission 3 of 3"]
    assert "No submission left" in results[2].content
    assert len(results) == 3  # the session ended with the third: the fourth call was never run
    end = [r for r in records if isinstance(r, SessionEndRecord)][0]
    assert end.budget == "attempts" and end.commands == 3 and end.turns == 1
    assert len(read_calls(session_dir(store.dir, task.id, "L1") / CALLS)) == 3


HOSTILE_CALLS = [
    (_call("submit", {"script": ""}), "non-empty"),
    (_call("submit", {"script": 7}), "string"),
    (_call("submit", {"script": "x" * (MAX_CODE_CHARS + 1)}), "characters"),
    (_call("submit", {"script": "pass", "level": "L3"}), "no argument"),
    (_call("submit", {"code": "pass"}), "no argument"),
    (_call("http", {"method": "GET", "path": "/state"}), "no tool"),
    ({"id": "c1", "type": "function", "function": {"name": "submit", "arguments": '{"script": "\\ud800"}'}}, "surrogate"),
    ({"id": "c1", "type": "function", "function": {"name": "submit", "arguments": "[" * 400 + "]" * 400}}, "nest"),
]


@pytest.mark.parametrize("call, why", HOSTILE_CALLS)
def test_a_hostile_submit_is_a_tool_error_that_costs_no_submission(call, why, suite_task, tmp_path):
    suite, task = suite_task
    reply = parse_reply(_turn(call), TOOLS)
    assert len(reply.calls) == 1 and not isinstance(reply.calls[0], ToolCall)
    assert why in reply.calls[0].error, reply.calls[0].error
    agent = Scripted(_turn(call), _turn(_call("finish", {"summary": "done"}, "f")))
    world = AuditWorld(suite, task, tmp_path)
    end = run_session(agent, world, [{"role": "user", "content": "go"}], Transcript(tmp_path / TRANSCRIPT)).end
    assert world.submissions() == [] and end.budget == "finish" and end.commands == 1  # only the finish


@settings(max_examples=300, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.none(), st.integers(), st.text(max_size=50), st.lists(st.text(max_size=5), max_size=3),
                 st.dictionaries(st.text(max_size=8), st.one_of(st.none(), st.integers(), st.text(max_size=20)),
                                 max_size=4)))
def test_submit_arguments_fuzzed_are_checked_or_refused_never_raised(args):
    out = check_arguments("submit", args)
    if isinstance(out, dict):
        assert set(out) == {"script"} and isinstance(out["script"], str) and out["script"].strip()
        assert isinstance(args, dict) and args == {"script": out["script"]}
    else:
        assert isinstance(out, str) and out


def test_the_workspace_cannot_stand_in_for_a_submission(suite_task, tmp_path):
    """What python leaves (a forged params.json, a cache, a planted link) is the model's scratch
    space: a submission runs in a fresh directory with our params.json and CONTRACT.md alone."""
    suite, task = suite_task
    world = AuditWorld(suite, task, tmp_path)
    plant = ("import json, os\n"
             "p = json.load(open('params.json')); p['seed'] = 123456\n"
             "open('params.json', 'w').write(json.dumps(p))\n"
             "open('cache.txt', 'w').write('precomputed')\n"
             "os.symlink('/etc/passwd', 'tool_call_link')\n"
             "os.remove('tool_call.py'); os.symlink('/etc/hostname', 'tool_call.py')\n"
             "print('planted')\n")
    status, shown = world.call(ToolCall("a", "python", {"code": plant}))
    assert status == "ok" and "planted" in shown
    status, shown = world.call(ToolCall("b", "python", {"code": "print(open('cache.txt').read())"}))
    assert status == "ok" and "precomputed" in shown  # the link in its place was replaced, never followed
    look = ("import json, os\nprint('FILES', sorted(os.listdir('.')))\n"
            "print('SEED', json.load(open('params.json'))['seed'])\n")
    status, shown = world.call(ToolCall("c", "submit", {"script": look}))
    assert status == "error" and "Submission 1 of 3" in shown
    assert "FILES ['CONTRACT.md', 'params.json', 'script.py']" in shown
    assert f"SEED {task.params['seed']}" in shown and "123456" not in shown


def test_a_killed_session_resumes_without_running_a_submission_twice(suite_task, tmp_path):
    """A kill after a submission was graded but before its result reached the transcript: the
    resumed session recovers the result from calls.jsonl (no second run, the count kept)."""
    suite, task = suite_task
    transcript = Transcript(tmp_path / TRANSCRIPT)
    turn = _turn(_call("python", {"code": "print('hello from the sandbox')"}, "p"))
    transcript.append(TurnRecord(1, parse_reply(turn, TOOLS).message, 10, 5, 0.0, 0.1, 0.0, 0))
    first = AuditWorld(suite, task, tmp_path)
    first.call(ToolCall("p", "python", {"code": "print('hello from the sandbox')"}))
    (tmp_path / CALLS).open("ab").write(b'{"kind": "submit", "shown": "cut sh')  # a line the kill cut short
    resumed = AuditWorld(suite, task, tmp_path)
    assert resumed.commands() == 1 and resumed.submissions() == []
    agent = Scripted(_turn(_call("finish", {"summary": "done"}, "f")))
    out = run_session(agent, resumed, [{"role": "user", "content": "go"}], transcript)
    results = [r for r in transcript.read() if isinstance(r, ToolResultRecord)]
    assert results[0].status == "recovered" and "hello from the sandbox" in results[0].content
    assert [e.kind for e in read_calls(tmp_path / CALLS)] == ["python", "finish"]  # python ran once
    assert out.end.budget == "finish" and out.end.commands == 2 and len(agent.seen) == 1


def _scripted_by_state(reference):
    """The chat-completions reply for a chat: chosen by how many tool results it holds, so a resumed
    session (whose chat is rebuilt from the transcript) gets the same reply as an uninterrupted one."""
    plan = [("python", {"code": "import json; print('params', sorted(json.load(open('params.json'))))"}),
            ("submit", {"script": CRASH}), ("python", {"code": "print('second look')"}),
            ("submit", {"script": reference})]

    def reply(request):
        k = sum(1 for m in request["messages"] if m.get("role") == "tool")
        name, args = plan[min(k, len(plan) - 1)]
        return {"content": f"step {k}", "tool_calls": [_call(name, args, f"k{k}")]}
    return reply


@pytest.mark.slow
def test_sigkill_at_several_turns_then_resume_equals_an_uninterrupted_run(suite_task, tmp_path):
    """The same command resumes a session killed with SIGKILL: the same calls in the transcript,
    each python and submit call run once (calls.jsonl), the same verdict."""
    import os
    import signal
    import subprocess
    import sys
    import time

    suite, task = suite_task
    env = {**os.environ, "SIMREFLECT_CACHE": str(tmp_path / "cache")}
    with ScriptedLLMServer([_scripted_by_state(suite.oracle(task))]) as server:
        def command(out):
            return [sys.executable, "-m", "simreflect.cli", "run", "audit", "--agent", "llm", "--mode", "interactive",
                    "--bench", str(tasks_dir() / TASK), "--levels", "L1", "--out", str(out), "--model", "m",
                    "--base-url", server.base_url]

        def finish(out):
            done = subprocess.run(command(out), env=env, capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]

        def kill_at(out, lines):
            proc = subprocess.Popen(command(out), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    start_new_session=True)
            path = session_dir(out, TASK, "L1") / TRANSCRIPT
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline and proc.poll() is None:
                if path.is_file() and path.read_bytes().count(b"\n") >= lines:
                    break
                time.sleep(0.01)
            assert proc.poll() is None, "the run ended before it could be killed"
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()

        def outcome(out):
            base = session_dir(out, TASK, "L1")
            recs = Transcript(base / TRANSCRIPT).read()
            rounds = [r for r in RunStore(out).read().records if r["type"] == "round"]
            return {"calls": [r.message["tool_calls"][0]["function"]["arguments"] for r in recs if isinstance(r, TurnRecord)],
                    "kinds": [e.kind for e in read_calls(base / CALLS)],
                    "end": [(r.budget, r.turns, r.commands) for r in recs if isinstance(r, SessionEndRecord)],
                    "passed": [r["passed"] for r in rounds]}

        finish(tmp_path / "whole")
        whole = outcome(tmp_path / "whole")
        assert whole["passed"] == [True] and whole["end"] == [("passed", 4, 4)]
        assert whole["kinds"] == ["python", "submit", "python", "submit"]
        for name, kills in (("early", (1,)), ("middle", (4,)), ("twice", (2, 6))):
            out = tmp_path / name
            for lines in kills:
                kill_at(out, lines)
            finish(out)
            got = outcome(out)
            assert got == whole, name


def test_python_cannot_read_the_answer_keys_or_the_reference(suite_task, tmp_path):
    """The python tool is a way to probe the filesystem: the task folder (keys.json, reference.py,
    card.toml) is not in the sandbox, and the session's own calls.jsonl (verdicts) is outside it."""
    suite, task = suite_task
    world = AuditWorld(suite, task, tmp_path)
    world.call(ToolCall("z", "python", {"code": "print(1)"}))
    folder = suite.card(task).directory
    keys = tasks_dir() / "icl-bayes-c1" / "keys.json"  # this task's key is in its card
    assert keys.is_file() and (tmp_path / CALLS).is_file()  # there, outside the sandbox
    probe = "\n".join(["import os"] + [
        f"print({name!r}, 'READ' if os.path.exists({str(path)!r}) else 'absent')"
        for name, path in (("keys", keys), ("reference", folder / "reference.py"),
                           ("card", folder / "card.toml"), ("calls", tmp_path / CALLS), ("up", "../" + CALLS))])
    status, shown = world.call(ToolCall("a", "python", {"code": probe}))
    assert status == "ok", shown
    for name in ("keys", "reference", "card", "calls", "up"):
        assert f"{name} absent" in shown, shown


def test_a_submissions_report_is_at_the_episodes_level(suite_task, tmp_path):
    """The report after a submission is the round protocol's report at the episode's level (was
    always L1 whatever level the run asked for)."""
    suite, task = suite_task
    for level in (EvidenceLevel.L1, EvidenceLevel.L3):
        world = suite.open_world(task, tmp_path / level.name, level)
        status, shown = world.call(ToolCall("s", "submit", {"script": CRASH}), 600.0)
        assert status == "error" and shown.startswith("Submission 1 of 3: not passed.")
        assert suite.observe(task, world.verdict(), level) in shown
        assert f"(evidence level L{int(level)})" in shown


def test_a_script_never_runs_past_the_sessions_wall_budget(suite_task, tmp_path):
    suite, task = suite_task
    world = suite.open_world(task, tmp_path, EvidenceLevel.L1)
    status, shown = world.call(ToolCall("p", "python", {"code": "import time\ntime.sleep(50)\nprint('woke')"}), 1.5)
    assert status == "error" and "timeout" in shown and "woke" not in shown
    status, shown = world.call(ToolCall("s", "submit", {"script": "import time\ntime.sleep(50)\n"}), 1.5)
    assert status == "error" and world.verdict() is not None and not world.verdict().passed
    ran = world.verdict().to_dict()["checks"][0]
    assert ran["name"] == "ran" and "killed after 1.5 s of wall time" in ran["message"]
