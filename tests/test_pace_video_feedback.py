"""The video-feedback intervention (pace suite option video=true): the latest attempt's rendered
frames reach a vision-capable endpoint as image content; the scripted server must receive them."""

from __future__ import annotations

import base64
import io
import json

from PIL import Image

from simreflect.run.runner import RunConfig, run
from simreflect.run.store import RunStore
from simreflect.suites.pace.suite import FEEDBACK_FRAMES, PaceSuite
from simreflect.testing.scripted_llm import ScriptedLLMServer

TASK = "statics_bridge.stage1"


def _run(tmp_path, root, suite_options):
    suite = PaceSuite()
    task = next(t for t in suite.load_tasks(root) if t.id == TASK)
    replies = [{"content": json.dumps({"diagnosis": "unchanged", "script": suite.spec(task).program("source")})},
               {"content": json.dumps({"diagnosis": "reference", "script": suite.oracle(task)})}]
    with ScriptedLLMServer(replies) as server:
        run(tmp_path, RunConfig(suite="pace", bench=str(root), agent="llm", levels=("L3",), rounds=2, runs=1,
                                tasks=(TASK,), suite_options=suite_options,
                                agent_options={"model": "m", "base_url": server.base_url, "backoff_s": 0.01}))
        return [r for r in server.requests if any("Round" in str(m.get("content")) for m in r["messages"])]


def _images(message) -> list[Image.Image]:
    out = []
    for part in message["content"][1:]:
        assert part["type"] == "image_url"
        url = part["image_url"]["url"]
        assert url.startswith("data:image/png;base64,")
        out.append(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))))
    return out


def test_the_endpoint_receives_the_attempts_frames_as_images(tmp_path, pace_sample_root):
    requests = _run(tmp_path, pace_sample_root, {"video": "true"})
    assert len(requests) == 2
    for body in requests:
        last = body["messages"][-1]
        assert last["role"] == "user" and isinstance(last["content"], list)
        assert last["content"][0]["type"] == "text" and "Round" in last["content"][0]["text"]
        frames = _images(last)
        assert len(frames) == FEEDBACK_FRAMES and all(im.format == "PNG" and im.size == (480, 300) for im in frames)
        assert len({im.tobytes() for im in frames}) > 1  # frames of a moving run, not one picture four times
    # round 1 shows the source design's run, round 2 the first attempt's (the same program: the same frames)
    assert [im.tobytes() for im in _images(requests[0]["messages"][-1])] == \
        [im.tobytes() for im in _images(requests[1]["messages"][-1])]
    records, _ = RunStore(tmp_path).records()
    rounds = [r for r in records if r["type"] == "round"]
    assert all(len(r["method_notes"]["video_frames"]) == FEEDBACK_FRAMES for r in rounds)
    assert all(isinstance(m["content"], str) for r in rounds for m in r["prompt"])  # the records keep text


def test_without_the_option_the_chat_is_text(tmp_path, pace_sample_root):
    requests = _run(tmp_path, pace_sample_root, {})
    assert all(isinstance(m["content"], str) for body in requests for m in body["messages"])


def test_the_option_is_parsed():
    assert PaceSuite().with_options(video="true").video_feedback
    assert not PaceSuite().with_options(video="no").video_feedback
    assert not PaceSuite().video_feedback


def test_a_copied_task_folder_renders_its_pictures(pace_sample_root, tmp_path):
    """The task modules of a bench outside the package (a copy) resolve by name in any process: a
    picture of a copied task was refused with ModuleNotFoundError for its namespace."""
    suite = PaceSuite()
    task = next(t for t in suite.load_tasks(pace_sample_root) if t.id == TASK)
    assert len(suite.feedback_frames(task, suite.spec(task).program("source"), 60.0)) == FEEDBACK_FRAMES
