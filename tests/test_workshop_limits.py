"""The workshop service's limits on the host, attacked over real HTTP (uvicorn on 127.0.0.1): bodies
too large to hold, hostile JSON, too many requests at once, the note budget, the record's size, and
every session budget, whose exhausting command must be recorded so that the replay of the record
equals its final state."""

from __future__ import annotations

import json
import socket
from dataclasses import replace

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simreflect.suites.workshop import recording, session as session_mod
from simreflect.suites.workshop.builds import get_build
from simreflect.suites.workshop.builds.spec import Budgets
from simreflect.suites.workshop.guard import MAX_BODY_BYTES, MAX_IN_FLIGHT
from simreflect.suites.workshop.service import ServiceThread
from simreflect.suites.workshop.session import MAX_NOTES, MAX_NOTES_CHARS, Session
from simreflect.suites.workshop.sim import SETTLE_S
from simreflect.suites.workshop.world import HZ

MAX_REFUSAL_BYTES = 8192  # a refusal never carries more than this, whatever was sent
WAIT = {"segments": [{"type": "wait", "duration": 0.1}]}


@pytest.fixture(scope="module")
def service():
    with ServiceThread(Session.for_build("place", 0)) as svc:
        yield svc


@pytest.fixture(scope="module")
def http(service):
    with httpx.Client(base_url=service.url, timeout=60) as client:
        yield client


def _spec(**budgets):
    spec = get_build("place").spec(0)
    return replace(spec, budgets=replace(spec.budgets, **budgets))


def _raw_response(sock: socket.socket) -> bytes:
    sock.settimeout(30)
    out = b""
    while b"\r\n\r\n" not in out or len(out.split(b"\r\n\r\n", 1)[1]) < _length(out):
        chunk = sock.recv(65536)
        if not chunk:
            break
        out += chunk
    return out


def _length(raw: bytes) -> int:
    for line in raw.split(b"\r\n\r\n", 1)[0].split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 0


def _status(raw: bytes) -> int:
    return int(raw.split(b" ", 2)[1])


def _refusal(r: httpx.Response) -> dict:
    """A refusal is a 4xx JSON object with a detail, small, and never repeats more than a bounded
    snippet of the input (a key named in a location is cut to 40 characters)."""
    assert 400 <= r.status_code < 500, (r.status_code, r.text[:300])
    assert len(r.content) <= MAX_REFUSAL_BYTES
    assert "MARK" * 11 not in r.text and "x" * 100 not in r.text
    body = r.json()
    assert body["detail"]
    return body


def test_a_declared_huge_body_is_refused_before_it_is_read(service):
    """A 1 GB Content-Length is answered 413 after the client sent 4 MB of it, and the connection
    is closed: the host never waits for (or holds) the body."""
    with socket.create_connection(("127.0.0.1", service.port)) as s:
        s.sendall(b"POST /act HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 1073741824\r\n\r\n")
        sent = 0
        try:
            for _ in range(4):
                s.sendall(b" " * (1 << 20))
                sent += 1 << 20
        except OSError:
            pass  # the server closed the connection while we were still sending
        raw = _raw_response(s)
    assert _status(raw) == 413
    assert b"connection: close" in raw.lower()
    assert "larger than" in json.loads(raw.split(b"\r\n\r\n", 1)[1])["detail"]
    assert sent <= 4 << 20


def test_a_chunked_body_is_counted_as_it_arrives(service):
    """Without a Content-Length the body is refused as soon as it passes the limit: the server
    answers and closes while the client is still sending."""
    with socket.create_connection(("127.0.0.1", service.port)) as s:
        s.sendall(b"POST /note HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n")
        chunk = b"%x\r\n%s\r\n" % (1 << 16, b" " * (1 << 16))
        sent = 0
        try:
            while sent < 64 * MAX_BODY_BYTES:
                s.sendall(chunk)
                sent += 1 << 16
        except OSError:
            pass
        raw = _raw_response(s)
    assert _status(raw) == 413
    assert sent < 64 * MAX_BODY_BYTES  # the server stopped us long before we were done


def test_a_body_at_the_limit_is_read(http):
    note = {"text": "limit"}
    body = json.dumps(note).encode()
    body += b" " * (MAX_BODY_BYTES - len(body))
    r = http.post("/note", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 200 and r.json()["text"] == "limit"


HOSTILE = {
    "nan": (b'{"segments":[{"type":"wait","duration":NaN}]}', "/act"),
    "infinity": (b'{"segments":[{"type":"move","duration":0.1,"left":{"ee":{"linear":[Infinity,0,0]}}}]}', "/act"),
    "minus infinity": (b'{"type":"move","duration":0.1,"left":{"joints":{"elbow":-Infinity}}}', "/step"),
    "overflowing float": (b'{"segments":[{"type":"wait","duration":1e999}]}', "/act"),
    "400-digit integer": (b'{"segments":[{"type":"wait","duration":' + b"9" * 400 + b"}]}", "/act"),
    "5000-digit integer": (b'{"segments":[{"type":"wait","duration":' + b"9" * 5000 + b"}]}", "/act"),
    "huge integer min_force": (b'{"segments":[{"type":"move","duration":0.1,"stop":[{"a":"A","min_force":'
                               + b"1" * 300 + b"}]}]}", "/act"),
    "lone surrogate note": (b'{"text":"MARK\\ud800"}', "/note"),
    "lone surrogate summary": (b'{"summary":"MARK\\udfff"}', "/finish"),
    "lone surrogate joint": (b'{"segments":[{"type":"move","duration":0.1,"left":{"joints":{"MARK\\ud800":0.1}}}]}', "/act"),
    "lone surrogate stop": (b'{"segments":[{"type":"move","duration":0.1,"stop":[{"a":"\\ud83d"}]}]}', "/act"),
    "invalid utf-8": (b'{"text":"\xff\xfe MARK"}', "/note"),
    "deep nesting": (b"[" * 200_000, "/act"),
    "deep objects": (b'{"a":' * 50_000 + b"1" + b"}" * 50_000, "/note"),
    "long name echoed": (json.dumps({"segments": [{"type": "move", "duration": 0.1,
                                                   "stop": [{"a": "MARK" + "x" * 300_000}]}]}).encode(), "/act"),
    "long joint key": (json.dumps({"type": "move", "duration": 0.1, "left": {"joints": {"MARK" * 50_000: 0.1}}}).encode(), "/step"),
    "many errors": (json.dumps({"segments": [{"type": "wait", "duration": -1}] * 50}).encode(), "/act"),
    "too many segments": (json.dumps({"segments": [{"type": "wait", "duration": 0.1}] * 51}).encode(), "/act"),
    "not json": (b"MARK this is not json", "/act"),
    "array": (b"[1, 2, 3]", "/note"),
    "empty": (b"", "/act"),
    "note too long": (json.dumps({"text": "MARK" * 1000}).encode(), "/note"),
    "unknown field": (json.dumps({"text": "ok", "MARK": 1}).encode(), "/note"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_bodies_get_a_small_json_refusal_and_change_nothing(http, name):
    body, path = HOSTILE[name]
    before = http.get("/state").json()
    r = http.post(path, content=body, headers={"content-type": "application/json"})
    detail = _refusal(r)["detail"]
    if isinstance(detail, list):
        assert len(detail) <= 21 and all(len(json.dumps(e)) < 1000 for e in detail)
    after = http.get("/state").json()
    assert (after["time"], after["commands"], after["notes"], after["done"]) == \
        (before["time"], before["commands"], before["notes"], before["done"])


def _json_values():
    leaves = (st.none() | st.booleans() | st.integers(min_value=-(10 ** 400), max_value=10 ** 400)
              | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=40)
              | st.sampled_from(["move", "wait", "drill", "engage", "left", "right", "elbow", "A", "\ud800"]))
    keys = st.sampled_from(["segments", "type", "duration", "left", "right", "joints", "ee", "linear", "stop", "a",
                            "text", "summary", "elbow", "\udc00", "x" * 100]) | st.text(max_size=10)
    return st.recursive(leaves, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(keys, inner, max_size=5),
                        max_leaves=30)


FUZZ = settings(derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))


def _post_fuzzed(http, path, value) -> None:
    body = json.dumps(value).encode()  # json.dumps writes NaN, Infinity and lone surrogates as such
    r = http.post(path, content=body, headers={"content-type": "application/json"})
    assert r.status_code < 500, r.text[:300]
    assert len(r.content) <= MAX_REFUSAL_BYTES or r.status_code == 200
    r.json()


@settings(FUZZ, max_examples=300)
@given(path=st.sampled_from(["/act", "/step", "/note"]), value=_json_values())
def test_fuzzed_bodies_never_make_a_server_error(http, path, value):
    _post_fuzzed(http, path, value)


@pytest.mark.slow
@settings(FUZZ, max_examples=3000)
@given(path=st.sampled_from(["/act", "/step", "/note"]), value=_json_values())
def test_fuzzed_bodies_never_make_a_server_error_many(http, path, value):
    _post_fuzzed(http, path, value)


@settings(FUZZ, max_examples=200)
@given(path=st.sampled_from(["/act", "/step", "/note", "/finish"]), body=st.binary(max_size=300))
def test_fuzzed_bytes_never_make_a_server_error(http, path, body):
    r = http.post(path, content=body, headers={"content-type": "application/json"})
    assert r.status_code < 500, r.text[:300]
    r.json()


def test_requests_beyond_the_in_flight_limit_are_refused_then_served_again():
    """Requests whose bodies never arrive hold their places; one more is refused with 429; once
    they are gone the service answers again."""
    with ServiceThread(Session.for_build("place", 0)) as svc:
        stalled = []
        for _ in range(MAX_IN_FLIGHT):
            s = socket.create_connection(("127.0.0.1", svc.port))
            s.sendall(b"POST /note HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
            stalled.append(s)
        http = httpx.Client(base_url=svc.url, timeout=30)
        codes = []
        for _ in range(200):  # until every stalled request has reached the guard
            codes.append(http.get("/health").status_code)
            if codes[-1] == 429:
                break
        assert codes[-1] == 429
        assert "at once" in _refusal(http.get("/health"))["detail"]
        for s in stalled:
            s.close()
        for _ in range(200):
            if http.get("/health").status_code == 200:
                break
        assert http.get("/health").json()["ok"]


def test_note_budget_count(tmp_path):
    with ServiceThread(Session(_spec(), record_dir=tmp_path)) as svc:
        http = httpx.Client(base_url=svc.url, timeout=30)
        for k in range(MAX_NOTES):
            assert http.post("/note", json={"text": f"n{k}"}).status_code == 200
        r = http.post("/note", json={"text": "one too many"})
        assert r.status_code == 409 and "note budget spent" in _refusal(r)["detail"]
        assert http.post("/act", json=WAIT).status_code == 200  # the session goes on
        assert http.get("/state").json()["budgets"]["notes"]["left"] == 0
        http.post("/finish", json={"summary": "notes"})
    lines = recording.load_commands(tmp_path)
    notes = [c for c in lines if c["kind"] == "note"]
    assert len(notes) == MAX_NOTES and "one too many" not in json.dumps(notes)
    assert all("snapshot" not in c for c in notes)
    assert recording.canonical(recording.replay(tmp_path)) + "\n" == (tmp_path / recording.FINAL_FILE).read_text()


def test_note_budget_characters():
    with ServiceThread(Session(_spec())) as svc:
        http = httpx.Client(base_url=svc.url, timeout=30)
        full = MAX_NOTES_CHARS // 2000
        for _ in range(full):
            assert http.post("/note", json={"text": "x" * 2000}).status_code == 200
        r = http.post("/note", json={"text": "y"})
        assert r.status_code == 409 and "characters" in _refusal(r)["detail"]


def _replays(record) -> bool:
    return recording.canonical(recording.replay(record)) + "\n" == (record / recording.FINAL_FILE).read_text()


def test_the_command_that_spends_the_action_budget_is_recorded_and_replays(tmp_path):
    with ServiceThread(Session(_spec(actions=3), record_dir=tmp_path)) as svc:
        http = httpx.Client(base_url=svc.url, timeout=30)
        assert http.post("/act", json=WAIT).json()["done"] is False
        last = http.post("/act", json={"segments": [WAIT["segments"][0]] * 2})
        assert last.status_code == 200
        assert last.json()["done"] is True and last.json()["finish_reason"] == "action budget spent"
        r = http.post("/act", json=WAIT)
        assert r.status_code == 409 and "finished" in _refusal(r)["detail"]
    kinds = [c["kind"] for c in recording.load_commands(tmp_path)]
    assert kinds == ["act", "act", "finish"]
    assert recording.load_final(tmp_path)["reason"] == "action budget spent"
    assert _replays(tmp_path)


def test_the_command_that_spends_the_simulated_time_is_recorded_and_replays(tmp_path):
    with ServiceThread(Session(_spec(sim_seconds=1.0), record_dir=tmp_path)) as svc:
        http = httpx.Client(base_url=svc.url, timeout=30)
        out = http.post("/act", json={"segments": [{"type": "move", "duration": 0.6, "left": {"joints": {"base_x": -0.1}}},
                                                  {"type": "wait", "duration": 0.6}, {"type": "wait", "duration": 0.5}]}).json()
        assert out["done"] is True and out["finish_reason"] == "simulated-time budget spent"
        assert [r.get("steps") for r in out["results"][:2]] == [108, 72]
        assert out["results"][2] == {"type": "wait", "skipped": "simulated-time budget spent"}
    assert [c["kind"] for c in recording.load_commands(tmp_path)] == ["act", "finish"]
    assert _replays(tmp_path)


def test_wall_time_spent_during_a_command_is_recorded_and_replays(tmp_path):
    now = [0.0]
    session = Session(_spec(wall_seconds=5.0), record_dir=tmp_path, clock=lambda: now[0])
    session.engine.listeners.append(lambda eng: now.__setitem__(0, now[0] + 0.1))  # 18 s of wall per simulated s
    with ServiceThread(session) as svc:
        http = httpx.Client(base_url=svc.url, timeout=30)
        assert http.post("/act", json=WAIT).json()["done"] is False
        out = http.post("/act", json={"segments": [{"type": "move", "duration": 0.5, "right": {"joints": {"elbow": 0.3}}}]}).json()
        assert out["done"] is True and out["finish_reason"] == "wall-time budget spent"
    assert [c["kind"] for c in recording.load_commands(tmp_path)] == ["act", "act", "finish"]
    assert _replays(tmp_path)


def test_wall_time_spent_between_commands_finishes_and_replays(tmp_path):
    now = [0.0]
    with ServiceThread(Session(_spec(wall_seconds=5.0), record_dir=tmp_path, clock=lambda: now[0])) as svc:
        http = httpx.Client(base_url=svc.url, timeout=30)
        assert http.post("/act", json={"segments": [{"type": "move", "duration": 0.3, "left": {"joints": {"base_y": 0.1}}}]}).json()["done"] is False
        assert http.post("/note", json={"text": "thinking"}).status_code == 200
        now[0] = 6.0  # the program plans for six seconds
        r = http.post("/act", json=WAIT)
        assert r.status_code == 409 and "wall-time budget spent" in _refusal(r)["detail"]
        assert http.get("/state").json()["finish_reason"] == "wall-time budget spent"
    assert [c["kind"] for c in recording.load_commands(tmp_path)] == ["act", "note", "finish"]
    assert _replays(tmp_path)


def test_the_record_size_limit_finishes_the_session_and_replays(tmp_path, monkeypatch):
    monkeypatch.setattr(recording, "MAX_RECORD_BYTES", 40_000)
    with ServiceThread(Session(_spec(), record_dir=tmp_path)) as svc:
        http = httpx.Client(base_url=svc.url, timeout=30)
        outs = []
        for _ in range(50):
            outs.append(http.post("/act", json=WAIT).json())
            if outs[-1]["done"]:
                break
        assert outs[-1]["done"] is True and outs[-1]["finish_reason"] == "record size limit reached"
        assert 1 < len(outs) < 50
        assert http.post("/act", json=WAIT).status_code == 409
    size = sum((tmp_path / f).stat().st_size for f in (recording.COMMANDS_FILE, recording.POSES_FILE))
    line = max(len(x) + 1 for x in (tmp_path / recording.COMMANDS_FILE).read_text().splitlines())
    row = (json.loads((tmp_path / recording.META_FILE).read_text())["nq"] + 1) * 4
    rows = int((0.1 + SETTLE_S) * HZ / recording.SAMPLE_EVERY) + 1
    # past the limit: at most the command that filled it and the finish, with their poses
    assert 40_000 <= size <= 40_000 + 2 * line + rows * row
    assert [c["kind"] for c in recording.load_commands(tmp_path)][-1] == "finish"
    assert _replays(tmp_path)


def test_spec_states_the_limits(http):
    limits = http.get("/spec").json()["limits"]
    assert limits["body_bytes"] == MAX_BODY_BYTES and limits["requests_in_flight"] == MAX_IN_FLIGHT
    assert limits["notes"] == MAX_NOTES and limits["notes_chars"] == MAX_NOTES_CHARS
    assert limits["record_bytes"] == recording.MAX_RECORD_BYTES
    assert session_mod.MAX_NOTES == MAX_NOTES


def test_a_websocket_upgrade_is_answered_as_plain_http(service):
    """The server speaks plain HTTP only (ws="none"): an upgrade request is an ordinary GET."""
    with socket.create_connection(("127.0.0.1", service.port)) as s:
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        raw = _raw_response(s)
    assert _status(raw) == 200 and json.loads(raw.split(b"\r\n\r\n", 1)[1])["ok"] is True


@pytest.mark.parametrize("body, status, reason", [
    (b'{"segments":' + b"[" * 20 + b"]" * 20 + b"}", 400, "nests deeper than 16 levels"),
    (b'{"segments":[{"type":"wait","duration":' + b"9" * 40 + b"}]}", 422, "more than 32 digits"),
    (b'{"segments":[{"type":"wait","duration":NaN}]}', 422, "not a finite number"),
    (b'{"text":"\\ud800"}', 422, "lone surrogate"),
])
def test_bodies_are_read_by_the_bounded_reader_first(http, body, status, reason):
    """The guard reads every body with core.untrusted's reader before the app does: the reason is
    the reader's, in bounded words, and nothing reaches the session."""
    r = http.post("/act", content=body, headers={"content-type": "application/json"})
    assert r.status_code == status and reason in r.json()["detail"][0]["msg"], r.text[:300]
