"""Interactive episodes (core.interactive): the tool-call parser against hostile replies (and a
hypothesis fuzz of it), truncation, the transcript, and whole workshop sessions through a real
service: the oracle driving it through http calls passes place, a noop fails, each budget ends a
session cleanly and says so, a model's malformed calls are tool errors it is shown, and the
scripted chat-completions server emitting tool calls builds place and passes."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simreflect.core.evidence import EvidenceLevel
from simreflect.core.interactive import (
    MAX_CALLS_PER_TURN,
    MAX_RESULT_CHARS,
    NO_CALL,
    MalformedCall,
    ModelTurn,
    TOOL_SPECS,
    SessionBudgets,
    ToolCall,
    Transcript,
    check_arguments,
    conversation,
    parse_reply,
    parse_transcript,
    run_session,
    truncate,
)
from simreflect.core.records import SessionEndRecord, ToolResultRecord, TurnRecord
from simreflect.run.interactive import opening, run_interactive_episode, session_dir
from simreflect.run.store import EpisodeLog, RunStore
from simreflect.suites.workshop.interactive import recorded_commands
from simreflect.suites.workshop.session import InvalidCommand, Session
from simreflect.suites.workshop.suite import WorkshopSuite, make_task

TOOLS = ("http", "python", "finish")


def _call(name, arguments, call_id="c1"):
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}


def _message(*calls, content=""):
    return {"role": "assistant", "content": content, "tool_calls": list(calls)}


# ----- the parser ---------------------------------------------------------------------------------

def test_a_well_formed_call_is_read_with_exactly_its_fields():
    reply = parse_reply(_message(_call("http", {"method": "post", "path": "/act", "body": {"segments": []}})), TOOLS)
    assert reply.calls == (ToolCall("c1", "http", {"method": "POST", "path": "/act", "body": {"segments": []}}),)
    assert reply.message["tool_calls"][0]["function"]["name"] == "http"


@pytest.mark.parametrize("call, why", [
    (_call("http", "{not json"), "JSON"),
    (_call("http", "[" * 5000 + "]" * 5000), "nest"),
    (_call("shell", {"command": "rm -rf /"}), "no tool"),
    (_call("http", {"method": "DELETE", "path": "/state"}), "method"),
    (_call("http", {"method": "GET", "path": "http://example.com/"}), "path"),
    (_call("http", {"method": "GET", "path": "//example.com/state"}), "no host"),
    (_call("http", {"method": "GET", "path": "/state\r\nX-Injected: 1"}), "no host"),
    (_call("http", {"method": "GET", "path": "/" + "a" * 5000}), "path"),
    (_call("http", {"method": "POST", "path": "/act", "body": [1, 2]}), "body"),
    (_call("http", {"method": "GET", "path": "/state", "headers": {"Host": "x"}}), "no argument"),
    (_call("python", {"code": ""}), "non-empty"),
    (_call("python", {"code": 5}), "string"),
    (_call("python", {"code": "x" * 300_000}), "characters"),
    (_call("finish", {"summary": ["a"]}), "string"),
    (_call("http", '{"method": "GET", "path": "/state", "x": NaN}'), "NaN"),
    (_call("http", '"just a string"'), "object"),
    ({"id": "c1", "type": "function"}, "function"),
    ("not a dict", "function"),
])
def test_a_hostile_call_is_a_tool_error_never_an_exception(call, why):
    reply = parse_reply(_message(call), TOOLS)
    assert len(reply.calls) == 1 and isinstance(reply.calls[0], MalformedCall), reply.calls
    assert why.lower() in reply.calls[0].error.lower(), reply.calls[0].error


def test_too_many_calls_and_duplicate_ids_and_surrogates():
    calls = [_call("http", {"method": "GET", "path": "/state"}, call_id="same") for _ in range(MAX_CALLS_PER_TURN + 3)]
    reply = parse_reply(_message(*calls, content="hi \ud800 there"), TOOLS)
    assert len(reply.calls) == MAX_CALLS_PER_TURN and reply.dropped == 3
    assert all(isinstance(c, ToolCall) for c in reply.calls)
    assert len(reply.message["tool_calls"]) == MAX_CALLS_PER_TURN  # every kept call gets its result
    ids = [c.call_id for c in reply.calls]
    assert len(set(ids)) == len(ids)  # every result names its own call
    assert "\ud800" not in reply.message["content"] and "\ufffd" in reply.message["content"]
    json.dumps(reply.message).encode()  # what is kept can be recorded and sent again


def test_the_text_protocol_reads_fenced_tool_blocks():
    text = ('I will look.\n```tool\n{"name": "http", "arguments": {"method": "GET", "path": "/state?fields=boards"}}\n```\n'
            '```tool\n{broken\n```')
    reply = parse_reply({"role": "assistant", "content": text}, TOOLS, text_protocol=True)
    assert reply.calls[0] == ToolCall("call_0", "http", {"method": "GET", "path": "/state?fields=boards", "body": None})
    assert isinstance(reply.calls[1], MalformedCall) and "not JSON" in reply.calls[1].error
    assert "tool_calls" not in reply.message


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                           lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
                           max_leaves=20)
raw_calls = st.fixed_dictionaries({}, optional={
    "id": st.one_of(st.text(max_size=200), st.integers()),
    "function": st.one_of(json_values, st.fixed_dictionaries({}, optional={
        "name": st.one_of(st.sampled_from(TOOLS + ("shell", "")), json_values),
        "arguments": st.one_of(st.text(max_size=200), json_values.map(json.dumps), json_values)}))})


@settings(max_examples=400, derandomize=True, deadline=None)
@given(message=st.one_of(json_values, st.fixed_dictionaries({}, optional={
    "content": st.one_of(st.text(max_size=100), json_values),
    "tool_calls": st.one_of(st.lists(st.one_of(raw_calls, json_values), max_size=20), json_values)})),
    text_protocol=st.booleans())
def test_fuzz_the_parser_never_raises_and_every_call_it_runs_is_checked(message, text_protocol):
    reply = parse_reply(message, TOOLS, text_protocol)
    json.dumps(reply.message)
    assert len(reply.calls) <= MAX_CALLS_PER_TURN
    if not text_protocol:
        assert len(reply.message.get("tool_calls", [])) == len(reply.calls)
    for call in reply.calls:
        if isinstance(call, ToolCall):
            assert call.name in TOOLS
            assert check_arguments(call.name, call.arguments) == call.arguments
        else:
            assert isinstance(call, MalformedCall) and call.error


def test_truncation_says_how_much_was_left_out():
    assert truncate("abc", 10) == "abc"
    cut = truncate("x" * (MAX_RESULT_CHARS + 500))
    assert cut.startswith("x" * MAX_RESULT_CHARS) and "truncated: 500 of" in cut


def test_the_transcript_skips_a_torn_line_and_rebuilds_the_chat(tmp_path):
    t = Transcript(tmp_path / "t.jsonl")
    t.append(TurnRecord(1, _message(_call("http", {"method": "GET", "path": "/state"}))))
    t.append(ToolResultRecord(1, 0, "c1", "http", "HTTP 200\n{}"))
    with open(t.path, "ab") as f:
        f.write(b'{"type": "turn", "transcript_format": 1, "turn": 2, "mess')  # a kill mid-line
    t.append(TurnRecord(2, {"role": "assistant", "content": "thinking"}))
    t.append(ToolResultRecord(2, 0, "", "", NO_CALL, "error"))
    recs = t.read()
    assert [type(r).__name__ for r in recs] == ["TurnRecord", "ToolResultRecord", "TurnRecord", "ToolResultRecord"]
    chat = conversation([{"role": "system", "content": "s"}], recs, text_protocol=False)
    assert [m["role"] for m in chat] == ["system", "assistant", "tool", "assistant", "user"]
    assert chat[2] == {"role": "tool", "tool_call_id": "c1", "content": "HTTP 200\n{}"}


# ----- the state filter --------------------------------------------------------------------------

def test_state_field_filter_in_the_session():
    s = Session.for_build("place", 0)
    part = s.state("boards, screws")
    assert set(part) == {"boards", "screws"}
    with pytest.raises(InvalidCommand, match="the state has: .*arms"):
        s.state("boards,secrets")
    for bad in ("", "a," * 40, "x" * 2000, "boards,,screws"):
        with pytest.raises(InvalidCommand):
            s.state(bad)


# ----- sessions over the workshop ------------------------------------------------------------------

class ScriptAgent:
    """Replies from a list of messages (the last repeats), as a model would."""

    name = "script"
    text_protocol = False

    def __init__(self, messages, tokens=(0, 0)):
        self.messages, self.tokens, self.seen = list(messages), tokens, []

    def turn(self, messages, tools):
        self.seen.append(messages)
        msg = self.messages[min(len(self.seen) - 1, len(self.messages) - 1)]
        return ModelTurn(msg, *self.tokens)


def _session(tmp_path, agent, budgets=SessionBudgets(), build="place"):
    suite, task = WorkshopSuite(), make_task(build, 0)
    world = suite.open_world(task, tmp_path / "s", EvidenceLevel.L2)
    try:
        out = run_session(agent, world, opening(suite, task, budgets, False), Transcript(tmp_path / "s" / "t.jsonl"), budgets)
        return out, suite.grade_world(task, world), world
    finally:
        world.close()


def test_malformed_calls_are_shown_to_the_model_and_the_session_goes_on(tmp_path):
    agent = ScriptAgent([_message(_call("http", "{oops"), _call("nope", {})),
                         {"role": "assistant", "content": "no tools here"},
                         _message(_call("http", {"method": "GET", "path": "/state?fields=nothing"})),
                         _message(_call("http", {"method": "GET", "path": "/state?fields=boards"})),
                         _message(_call("finish", {"summary": "done"}))])
    out, verdict, _ = _session(tmp_path, agent)
    assert out.end.budget == "finish" and out.end.turns == 5 and not verdict.passed
    contents = [r.content for r in out.results]
    assert contents[0].startswith("tool error:") and "no tool 'nope'" in contents[1]
    assert contents[2] == NO_CALL
    assert contents[3].startswith("HTTP 422") and "the state has" in contents[3]
    assert contents[4].startswith("HTTP 200") and set(json.loads(contents[4].split("\n", 1)[1])) == {"boards"}
    assert agent.seen[1][-2]["role"] == "tool" and agent.seen[1][-1]["content"].startswith("tool error")


@pytest.mark.parametrize("budget, budgets, tokens", [
    ("turns", SessionBudgets(max_turns=3), (0, 0)),
    ("tokens", SessionBudgets(max_tokens=250), (100, 20)),
    ("wall", SessionBudgets(wall_s=0.0), (0, 0)),
])
def test_each_harness_budget_ends_the_session_and_says_so(tmp_path, budget, budgets, tokens):
    agent = ScriptAgent([_message(_call("http", {"method": "GET", "path": "/health"}))], tokens)
    out, verdict, world = _session(tmp_path, agent, budgets)
    assert out.end.budget == budget and not verdict.passed
    assert world.session.finished and world.session.finish_reason == out.end.reason  # ended cleanly, then graded
    written = Transcript(tmp_path / "s" / "t.jsonl").read()[-1]
    assert isinstance(written, SessionEndRecord) and (written.budget, written.reason) == (budget, out.end.reason)


def test_the_action_budget_of_the_world_ends_the_session(tmp_path):
    wait = {"type": "move", "duration": 1 / 180}
    agent = ScriptAgent([_message(_call("http", {"method": "POST", "path": "/act", "body": {"segments": [wait] * 50}}))])
    out, verdict, world = _session(tmp_path, agent)
    assert out.end.budget == "actions" and out.end.turns == 12, out.end  # 600 actions, 50 a command
    assert world.session.engine.actions_used == 600 and not verdict.passed


def test_python_tool_reaches_the_service_from_the_sandbox(tmp_path):
    code = ("import json, os, httpx\nr = httpx.get(os.environ['WORKSHOP_URL'] + '/state?fields=time,commands')\n"
            "print('got', json.dumps(r.json(), sort_keys=True))\n"
            "httpx.post(os.environ['WORKSHOP_URL'] + '/note', json={'text': 'from python'})\n")
    agent = ScriptAgent([_message(_call("python", {"code": code})), _message(_call("finish", {"summary": "x"}))])
    out, _, world = _session(tmp_path, agent)
    assert out.results[0].status == "ok", out.results[0].content
    assert 'got {"commands": 0, "time": 0.0}' in out.results[0].content
    assert world.session.notes[0]["text"] == "from python" and out.results[0].commands == 1


def test_noop_finishes_at_once_and_fails(tmp_path):
    from simreflect.agents.interactive import NoopTurnAgent

    store = RunStore(tmp_path / "run")
    out = run_interactive_episode(WorkshopSuite(), NoopTurnAgent(), make_task("place", 0), EvidenceLevel.L1, store,
                                  EpisodeLog())
    assert out.status == "finished" and not out.solved
    rec = [r for r in store.read().records if r["type"] == "round"][0]
    assert rec["method_notes"]["interactive"]["budget"] == "finish" and rec["method_notes"]["interactive"]["turns"] == 1
    assert rec["passed"] is False


def test_oracle_drives_place_through_http_calls_and_passes(tmp_path):
    suite, task = WorkshopSuite(), make_task("place", 0)
    store = RunStore(tmp_path / "run")
    out = run_interactive_episode(suite, suite.interactive_oracle(task), task, EvidenceLevel.L1, store, EpisodeLog())
    assert out.solved, store.read().records
    recs = Transcript(session_dir(store.dir, task.id, "L1") / "transcript.jsonl").read()
    calls = [json.loads(r.message["tool_calls"][0]["function"]["arguments"]) for r in recs if isinstance(r, TurnRecord)]
    assert all(r.status == "ok" for r in recs if isinstance(r, ToolResultRecord))
    assert calls[-1]["path"] == "/finish" and sum(c["path"] == "/act" for c in calls) > 10
    end = [r for r in recs if isinstance(r, SessionEndRecord)][0]
    assert end.budget == "finish" and end.commands > 10 and end.sim_time > 1.0


@pytest.mark.slow
@pytest.mark.parametrize("build", ["lap", "frame"])
def test_oracle_drives_the_larger_builds_through_http_calls_and_passes(tmp_path, build):
    """One request a turn under the default budgets: 1,987 turns for lap, 5,779 for frame."""
    suite, task = WorkshopSuite(), make_task(build, 0)
    store = RunStore(tmp_path / "run")
    out = run_interactive_episode(suite, suite.interactive_oracle(task), task, EvidenceLevel.L1, store, EpisodeLog())
    rec = [r for r in store.read().records if r["type"] == "round"][0]
    assert out.solved, rec["verdict"]
    assert rec["method_notes"]["interactive"]["budget"] == "finish" and rec["method_notes"]["interactive"]["turns"] > 400


@pytest.mark.slow
def test_a_scripted_model_builds_place_through_the_chat_completions_server(tmp_path):
    """The scripted server answers each request from the chat it is sent (the reference controller
    behind it reads the tool results in the request), with real tool calls over HTTP."""
    from simreflect.agents.interactive import ToolLLMAgent
    from simreflect.agents.llm import LLMConfig
    from simreflect.suites.workshop.reference.turns import ReferenceTurnAgent
    from simreflect.testing.scripted_llm import ScriptedLLMServer

    model = ReferenceTurnAgent("place")

    def reply(body):
        assert [t["function"]["name"] for t in body["tools"]] == list(TOOLS) and body["tool_choice"] == "auto"
        msg = model.turn(body["messages"], body["tools"]).message
        return {"content": "", "tool_calls": msg["tool_calls"]}

    suite, task = WorkshopSuite(), make_task("place", 0)
    store = RunStore(tmp_path / "run")
    with ScriptedLLMServer([reply]) as server:
        agent = ToolLLMAgent(LLMConfig(model="scripted", base_url=server.base_url, max_retries=0))
        out = run_interactive_episode(suite, agent, task, EvidenceLevel.L1, store, EpisodeLog(),
                                      SessionBudgets(max_tokens=10**12))
        assert out.solved, store.read().records
        assert all(r["messages"][0]["role"] == "system" for r in server.requests)
    rec = [r for r in store.read().records if r["type"] == "round"][0]
    assert rec["usage"]["prompt_tokens"] > 0 and rec["method_notes"]["interactive"]["budget"] == "finish"


def test_a_call_whose_command_ran_before_a_kill_is_recovered_never_run_again(tmp_path):
    """The harness died after the world executed the act and before its result was recorded: the
    resumed session replays the record, answers the call from it, and the act is in the record once."""
    suite, task = WorkshopSuite(), make_task("place", 0)
    act = {"segments": [{"type": "move", "duration": 0.5, "left": {"joints": {"shoulder_pitch": 0.2}}}]}
    turn = _message(_call("http", {"method": "POST", "path": "/act", "body": act}))
    transcript = Transcript(tmp_path / "s" / "t.jsonl")
    world = suite.open_world(task, tmp_path / "s", EvidenceLevel.L2)
    transcript.append(TurnRecord(1, parse_reply(turn, TOOLS).message, commands=world.commands()))
    live = world.session.act(act)  # the call ran; the kill comes before its result is written
    world.close()
    resumed = suite.open_world(task, tmp_path / "s", EvidenceLevel.L2)
    try:
        assert resumed.commands() == 1 and resumed.sim_time() == live["time"]
        agent = ScriptAgent([_message(_call("finish", {"summary": "done"}))])
        out = run_session(agent, resumed, [{"role": "system", "content": "s"}], transcript)
        first = out.results[0]
        assert first.status == "recovered" and json.loads(first.content.split("\n", 1)[1])["time"] == live["time"]
        kinds = [line["kind"] for line in recorded_commands(tmp_path / "s" / "record")]
        assert kinds == ["act", "finish"], kinds  # the act ran once
        assert out.end.budget == "finish" and agent.seen[0][-1]["tool_call_id"] == "c1"
    finally:
        resumed.close()


def test_a_recovered_act_with_state_answers_with_the_state_it_would_have_carried(tmp_path):
    """The record leaves with_state out (looking changes nothing); a call that asked for the state and
    ran before a kill is answered on resume with the state after its command (was: without one, and
    the reference controller, reading it, gave up mid-build after a resume)."""
    suite, task = WorkshopSuite(), make_task("place", 0)
    act = {"segments": [{"type": "move", "duration": 0.5, "left": {"joints": {"shoulder_pitch": 0.2}}}],
           "with_state": True}
    turn = _message(_call("http", {"method": "POST", "path": "/act", "body": act}))
    transcript = Transcript(tmp_path / "s" / "t.jsonl")
    world = suite.open_world(task, tmp_path / "s", EvidenceLevel.L2)
    transcript.append(TurnRecord(1, parse_reply(turn, TOOLS).message, commands=world.commands()))
    live = world.session.act(act)
    world.close()
    resumed = suite.open_world(task, tmp_path / "s", EvidenceLevel.L2)
    try:
        out = run_session(ScriptAgent([_message(_call("finish", {"summary": "done"}))]), resumed,
                          [{"role": "system", "content": "s"}], transcript)
        first = out.results[0]
        assert first.status == "recovered"
        answer = json.loads(first.content.split("\n", 1)[1])
        assert answer["state"]["time"] == live["state"]["time"]
        assert answer["state"]["arms"] == live["state"]["arms"] and answer["state"]["boards"] == live["state"]["boards"]
    finally:
        resumed.close()


def test_a_command_line_cut_short_by_a_kill_is_not_replayed(tmp_path):
    suite, task = WorkshopSuite(), make_task("place", 0)
    world = suite.open_world(task, tmp_path / "s", EvidenceLevel.L2)
    world.session.note({"text": "one"})
    world.close()
    with open(tmp_path / "s" / "record" / "commands.jsonl", "ab") as f:
        f.write(b'{"i": 1, "kind": "note", "request": {"te')
    resumed = suite.open_world(task, tmp_path / "s", EvidenceLevel.L2)
    try:
        assert resumed.commands() == 1 and [n["text"] for n in resumed.session.notes] == ["one"]
    finally:
        resumed.close()


def test_cli_interactive_noop_fails_with_the_session_columns_and_bad_options_are_refused(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from simreflect.cli import app

    monkeypatch.setenv("SIMREFLECT_CACHE", str(tmp_path / "cache"))
    base = ["run", "workshop", "--agent", "noop", "--mode", "interactive", "--tasks", "place-0", "--levels", "L1"]
    res = CliRunner().invoke(app, base + ["--out", str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    summary = (tmp_path / "run" / "summary.md").read_text()
    assert "Interactive sessions" in summary and "| finish 1" in summary and "0/1" in summary
    for bad in (["--session", "wall=5"], ["--session", "max_turns=x"], ["--mode", "live"]):
        res = CliRunner().invoke(app, base + ["--out", str(tmp_path / "bad")] + bad)
        assert res.exit_code == 2, (bad, res.output)
    res = CliRunner().invoke(app, ["run", "pace", "--agent", "noop", "--mode", "interactive", "--limit", "1",
                                   "--out", str(tmp_path / "pace")])
    assert res.exit_code == 2 and "does not offer interactive episodes" in res.output, res.output


def test_text_protocol_through_the_scripted_server_and_an_endpoint_down_is_an_infra_error(tmp_path):
    from simreflect.agents.interactive import ToolLLMAgent
    from simreflect.agents.llm import LLMConfig
    from simreflect.testing.scripted_llm import ScriptedLLMServer

    block = '```tool\n{"name": "%s", "arguments": %s}\n```'
    replies = [{"status": 500},
               {"content": "Looking.\n" + block % ("http", '{"method": "GET", "path": "/state?fields=boards"}')},
               {"content": block % ("finish", '{"summary": "gave up"}')}]
    suite, task = WorkshopSuite(), make_task("place", 0)
    store = RunStore(tmp_path / "run")
    with ScriptedLLMServer(replies) as server:
        agent = ToolLLMAgent(LLMConfig(model="m", base_url=server.base_url, max_retries=0), text_protocol=True)
        first = run_interactive_episode(suite, agent, task, EvidenceLevel.L1, store, EpisodeLog())
        assert first.status == "infra_error"
        again = run_interactive_episode(suite, agent, task, EvidenceLevel.L1, store, EpisodeLog())
        assert again.status == "finished" and not again.solved
        sent = server.requests
    assert all("tools" not in body for body in sent) and "```tool" in sent[1]["messages"][0]["content"]
    last = sent[2]["messages"][-1]
    assert last["role"] == "user" and last["content"].startswith("Result of call 1 (http):\nHTTP 200")
    kinds = [r["type"] for r in store.read().records]
    assert kinds == ["infra_error", "round", "end"]


# ----- what the model is sent: compaction, the cache; what the transcript reader accepts ----------

def _chat_of(turns: int, result_chars: int = 5_000) -> list[dict]:
    chat = [{"role": "system", "content": "S" * 3_000}, {"role": "user", "content": "begin"}]
    for n in range(1, turns + 1):
        chat.append(_message(_call("http", {"method": "GET", "path": "/state"}, f"c{n}"), content=f"turn {n} " + "t" * 3_000))
        chat.append({"role": "tool", "tool_call_id": f"c{n}", "content": f"HTTP 200\n{n}:" + "r" * result_chars})
    return chat


def test_compaction_keeps_the_opening_every_call_and_the_last_turns_whole():
    from simreflect.core.interactive import ELIDED_HEAD_CHARS, compact_chat

    chat = _chat_of(6)
    sent, elided = compact_chat(chat, 2)
    assert elided == 4 and len(sent) == len(chat) and chat == _chat_of(6)  # the caller's chat is untouched
    assert sent[:2] == chat[:2] and sent[-4:] == chat[-4:]  # the opening and turns 5 and 6 whole
    for n in range(1, 5):
        assistant, result = sent[2 * n], sent[2 * n + 1]
        assert assistant["tool_calls"] == chat[2 * n]["tool_calls"]  # what was done stays in the chat
        assert assistant["content"].startswith(f"turn {n} ") and "[elided: " in assistant["content"]
        assert result["content"].startswith(chat[2 * n + 1]["content"][:ELIDED_HEAD_CHARS])
        assert f"of this result of turn {n}; only the last 2 turns are shown in full" in result["content"]
        assert len(result["content"]) < 600
    assert compact_chat(chat, 0) == (chat, 0) and compact_chat(chat, 6) == (chat, 0)
    short = _chat_of(5, result_chars=100)  # results already short are left as they are
    assert compact_chat(short, 1)[1] == 0


def test_the_llm_agent_sends_a_compacted_chat_and_records_what_it_sent(tmp_path):
    from simreflect.agents.interactive import ToolLLMAgent
    from simreflect.agents.llm import LLMConfig
    from simreflect.testing.scripted_llm import ScriptedLLMServer

    status = _call("http", {"method": "GET", "path": "/state"})
    replies = [{"content": "", "tool_calls": [status]}] * 6 + [{"content": "", "tool_calls": [_call("finish", {"summary": "x"})]}]
    with ScriptedLLMServer(replies) as server:
        agent = ToolLLMAgent(LLMConfig(model="m", base_url=server.base_url, max_retries=0), history_turns=2)
        out, verdict, _ = _session(tmp_path, agent)
        sent = [r["messages"] for r in server.requests]
    assert out.end.budget == "finish" and out.end.turns == 7 and not verdict.passed
    assert [t.elided for t in out.turns] == [0, 0, 0, 1, 2, 3, 4]  # full state results (kB each) cut once old
    assert all(t.prompt_chars == len(json.dumps(m)) for t, m in zip(out.turns, sent))
    assert "[elided: " in sent[-1][3]["content"] and "[elided: " not in sent[-1][-1]["content"]
    recorded = [r for r in Transcript(tmp_path / "s" / "t.jsonl").read() if isinstance(r, TurnRecord)]
    assert [r.elided for r in recorded] == [0, 0, 0, 1, 2, 3, 4] and recorded[-1].prompt_chars > 0
    with pytest.raises(ValueError, match="history_turns"):
        ToolLLMAgent(LLMConfig(model="m", base_url="http://127.0.0.1:9"), history_turns=-1)


def test_the_llm_agents_turns_are_answered_from_the_response_cache(tmp_path):
    from simreflect.run.agents import make_turn_agent
    from simreflect.testing.scripted_llm import ScriptedLLMServer

    chat = _chat_of(1)
    tools = [TOOL_SPECS[t] for t in TOOLS]
    suite, task = WorkshopSuite(), make_task("place", 0)
    with ScriptedLLMServer([{"content": "", "tool_calls": [_call("finish", {"summary": "cached"})]},
                            {"content": "", "tool_calls": [_call("finish", {"summary": "not cached"})]}]) as server:
        options = {"model": "m", "base_url": server.base_url, "cache_dir": str(tmp_path / "cache"), "max_retries": 0}
        first = make_turn_agent("llm", suite, task, options).turn(chat, tools)
        again = make_turn_agent("llm", suite, task, options).turn(chat, tools)  # a fresh agent, the same request
        other = make_turn_agent("llm", suite, task, options).turn(chat + [{"role": "user", "content": "more"}], tools)
        assert len(server.requests) == 2
    assert again.message == first.message and again.latency_s == 0.0
    assert json.loads(first.message["tool_calls"][0]["function"]["arguments"])["summary"] == "cached"
    assert json.loads(other.message["tool_calls"][0]["function"]["arguments"])["summary"] == "not cached"
    assert len(list((tmp_path / "cache").glob("*.json"))) == 2


@pytest.mark.parametrize("line, why", [
    (b"[" * 5000 + b"]" * 5000, "nested past the reader's depth"),
    (b'{"type": "turn", "transcript_format": 1, "turn": 1, "message": {}, "prompt_tokens": 1' + b"0" * 400 + b"}",
     "a 400-digit count"),
    (b'{"type": "turn", "transcript_format": 1, "turn": 1, "message": {}, "latency_s": NaN}', "NaN seconds"),
    (b'{"type": "turn", "transcript_format": 1, "turn": 1, "message": {}, "prompt_tokens": "9"}', "a count as text"),
    (b'{"type": "turn", "transcript_format": 1, "turn": -1, "message": {}}', "a negative turn"),
    (b'{"type": "turn", "transcript_format": 1, "turn": true, "message": {}}', "a boolean turn"),
    (b'{"type": "tool_result", "transcript_format": 1, "turn": 1, "index": 0, "call_id": "c", "tool": "http", '
     b'"content": "x", "wall_s": 1e999}', "infinite wall seconds"),
    (b'{"type": "session_end", "transcript_format": 1, "budget": "finish", "reason": "r", "turns": 1, "commands": 1, '
     b'"sim_time": 0, "wall_s": 0, "prompt_tokens": 0, "completion_tokens": 0, "extra": 1}', "an unknown field"),
    (b'{"type": "turn", "transcript_format": 1, "turn": 1, "message": []}', "a message that is no object"),
    (b'{"type": "shell", "transcript_format": 1}', "an unknown record type"),
    (b"\xff\xfe not utf-8", "bytes that are not UTF-8"),
])
def test_a_hostile_transcript_line_is_skipped_and_the_rest_is_read(line, why):
    good = [TurnRecord(1, {"role": "assistant", "content": "\ud800 kept"}), ToolResultRecord(1, 0, "c", "http", "ok")]
    data = b"\n".join([json.dumps(good[0].to_dict()).encode(), line, json.dumps(good[1].to_dict()).encode()])
    records = parse_transcript(data)
    assert [type(r) for r in records] == [TurnRecord, ToolResultRecord], why
    assert records[1].content == "ok"


@settings(max_examples=150, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=6),
                    max_leaves=30))
def test_fuzz_transcript_fields_never_crash_the_reader_and_what_it_returns_is_well_typed(value):
    import dataclasses

    from simreflect.core.records import TRANSCRIPT_FORMAT, TRANSCRIPT_KEY

    base = {"type": "turn", TRANSCRIPT_KEY: TRANSCRIPT_FORMAT, "turn": 1, "message": {}}
    for field in ("turn", "message", "prompt_tokens", "latency_s", "wall_s", "elided"):
        line = json.dumps({**base, field: value}, allow_nan=True).encode()
        for rec in parse_transcript(line):
            for f in dataclasses.fields(rec):
                got = getattr(rec, f.name)
                assert isinstance(got, {"int": int, "float": (int, float), "dict[str, Any]": dict}[f.type])
                assert not isinstance(got, bool)


def test_session_budgets_and_history_out_of_range_are_refused():
    for bad in ({"wall_s": float("nan")}, {"wall_s": -1.0}, {"max_turns": -1}, {"max_tokens": 1.5}, {"max_turns": True}):
        with pytest.raises(ValueError):
            SessionBudgets(**bad)
