"""The viewer of an interactive episode: its session as a turn list (replies, tool calls with their
arguments, results, the harness's notes, how the session ended) beside the review videos its record
holds, every model string escaped, opened in a real headless Chromium (Debian's) driven by
Playwright; a session directory whose files are links is not followed."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from simreflect.core.interactive import parse_transcript

from simreflect.run.interactive import TRANSCRIPT, session_dir
from simreflect.run.runner import RunConfig, run
from simreflect.suites.audit.cards import tasks_dir
from simreflect.testing.scripted_llm import ScriptedLLMServer
from simreflect.viewer import write_viewer

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
HOSTILE = "<img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>"
TASK = "logistic-lyapunov"


def _call(name, arguments, call_id):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """An interactive audit run of a scripted model whose reply, code and output carry HTML that must
    never execute: a python call, a reply without a call (the harness's note), then finish."""
    out = tmp_path_factory.mktemp("viewinteractive")
    replies = [{"content": HOSTILE, "tool_calls": [_call("python", {"code": f"print({HOSTILE!r})"}, "a")]},
               {"content": "thinking, no call"},
               {"content": "", "tool_calls": [_call("finish", {"summary": HOSTILE}, "b")]}]
    with ScriptedLLMServer(replies) as server:
        run(out, RunConfig(suite="audit", bench=str(tasks_dir() / TASK), agent="llm", levels=("L1",), rounds=1,
                           mode="interactive", agent_options={"model": "m", "base_url": server.base_url,
                                                              "max_retries": 0}))
    videos = session_dir(out, TASK, "L1") / "record" / "videos"
    videos.mkdir(parents=True)
    frames = [Image.new("RGB", (64, 48), c) for c in ((200, 30, 30), (30, 200, 30))]
    frames[0].save(videos / "front.gif", save_all=True, append_images=frames[1:], duration=100, loop=0)
    os.symlink("/etc/passwd", videos / "leak.mp4")  # a link is never read or copied
    return out


def test_the_session_page_holds_the_turns_escaped_and_the_videos(run_dir):
    index = write_viewer(run_dir)
    page = (index.parent / "episodes" / f"{TASK}-L1.html").read_text()
    assert "<script>document" not in page and "&lt;script&gt;" in page
    assert page.count("class='turn'") == 3 and "session ended (finish)" in page
    assert "class='tool'>python<" in page and "class='tool'>note<" in page and "class='tool'>finish<" in page
    assert "called no tool" in page and "[ok] exit: 0" in page
    media = index.parent / "media"
    assert (media / f"{TASK}-L1-front.gif").is_file() and not list(media.glob("*leak*"))


def test_a_session_whose_transcript_is_a_link_is_not_followed(run_dir, tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy, symlinks=True)
    transcript = session_dir(copy, TASK, "L1") / TRANSCRIPT
    secret = tmp_path / "secret.jsonl"
    secret.write_bytes(transcript.read_bytes().replace(b"thinking, no call", b"SECRET-OUTSIDE-THE-RUN"))
    transcript.unlink()
    os.symlink(secret, transcript)
    page = (write_viewer(copy).parent / "episodes" / f"{TASK}-L1.html").read_text()
    assert "SECRET-OUTSIDE-THE-RUN" not in page and "symbolic link" in page


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (scripts/setup.sh installs it)")
def test_interactive_episode_in_headless_chromium(run_dir):
    from playwright.sync_api import sync_playwright

    index = write_viewer(run_dir)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"])
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.goto(index.as_uri())
        page.click("#episodes a")
        assert page.locator(".turn").count() == 3
        assert HOSTILE in page.locator(".reply").first.inner_text()  # shown as text ...
        assert HOSTILE in page.locator(".args").nth(1).inner_text()  # finish(summary)
        assert HOSTILE in page.locator(".result").first.inner_text()
        assert page.title() != "pwned"  # ... never run
        assert "[error]" in page.locator(".result").nth(1).inner_text()  # the note: no call
        assert "session ended (finish)" in page.inner_text(".session-end")
        turns, videos = page.locator(".turns").bounding_box(), page.locator(".videos").bounding_box()
        assert videos["x"] >= turns["x"] + turns["width"] - 1  # beside the turn list, not under it
        assert page.evaluate("document.querySelector('.videos img').naturalWidth") == 64  # the GIF loaded
        browser.close()


_values = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=20),
                    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2))
_fields = {"turn": _values, "index": _values, "call_id": _values, "tool": _values, "content": _values,
           "status": _values, "message": st.one_of(_values, st.fixed_dictionaries(
               {"content": _values, "tool_calls": st.one_of(_values, st.lists(st.one_of(_values, st.fixed_dictionaries(
                   {"function": st.one_of(_values, st.fixed_dictionaries({"name": _values, "arguments": _values}))})),
                   max_size=3))})),
           "budget": _values, "reason": _values, "turns": _values, "commands": _values}


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["turn", "tool_result", "session_end", "other"]),
                          st.dictionaries(st.sampled_from(sorted(_fields)), _values, max_size=6)), max_size=6),
       st.data())
def test_a_hostile_transcript_renders_or_is_skipped_never_raises(lines, data):
    """A transcript is data: lines of any field types either rebuild as records or are skipped, and
    whatever rebuilds renders escaped."""
    from simreflect.core.records import TRANSCRIPT_FORMAT, TRANSCRIPT_KEY
    from simreflect.viewer import _turns_html

    rows = []
    for kind, fields in lines:
        if "message" in fields or kind == "turn":
            fields["message"] = data.draw(_fields["message"])
        rows.append(json.dumps({"type": kind, TRANSCRIPT_KEY: TRANSCRIPT_FORMAT, **fields}, default=str))
    page = _turns_html(parse_transcript(("\n".join(rows) + "\n").encode()))
    assert isinstance(page, str) and "<script" not in page


def test_a_transcript_whose_fields_have_the_wrong_types_still_renders_escaped():
    from simreflect.core.records import TRANSCRIPT_FORMAT, TRANSCRIPT_KEY
    from simreflect.viewer import _turns_html

    head = {TRANSCRIPT_KEY: TRANSCRIPT_FORMAT}
    lines = [{"type": "turn", "turn": [1], "message": {"content": ["<script>x</script>"], "tool_calls": "x"}, **head},
             {"type": "tool_result", "turn": [1], "index": "0", "call_id": {}, "tool": 5, "content": {"a": "<script>"},
              "status": ["ok"], **head},
             {"type": "session_end", "budget": "<b>", "reason": None, "turns": "many", "commands": [], "sim_time": {},
              "wall_s": "x", "prompt_tokens": None, "completion_tokens": 0, **head}]
    assert parse_transcript("\n".join(json.dumps(x) for x in lines).encode()) == []  # the reader refuses them
    from simreflect.core.records import SessionEndRecord, ToolResultRecord, TurnRecord

    kinds = {"turn": TurnRecord, "tool_result": ToolResultRecord, "session_end": SessionEndRecord}
    # built around the reader: the viewer must still cope with any field type
    records = [kinds[x["type"]](**{k: v for k, v in x.items() if k not in ("type", TRANSCRIPT_KEY)}) for x in lines]
    page = _turns_html(records)
    assert "<script" not in page and "&lt;script&gt;" in page and "class='tool'>note<" in page
    assert "session ended (&lt;b&gt;)" in page
