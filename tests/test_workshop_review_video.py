"""The workshop's review video, rendered for real (MuJoCo's Renderer on headless EGL, ffmpeg): the
caption strip changes with the time, the close camera follows the hand, the MP4 has the frames the
record's length asks for, and rendering a record three times as long takes no more memory.

Rendering runs in a fresh process each time: MuJoCo picks its GL backend (MUJOCO_GL) when it is
first imported, and another test of this worker may have imported it already."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from simreflect.suites.workshop.review_events import load_timeline
from simreflect.suites.workshop.review_overlay import caption
from simreflect.suites.workshop.session import Session

_FRAMES_SCRIPT = r"""
import json, sys
import numpy as np
from simreflect.suites.workshop.render import Layout, RenderUnavailable, review_frames
root, out, fps, w, h = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
try:
    frames, meta = [], []
    for f in review_frames(root, fps=fps, tile=(w, h)):
        frames.append(f.pixels.copy())
        meta.append({"time": f.time, "command": f.moment.command, "hand": f.moment.hand, "drawn": f.drawn})
except RenderUnavailable as e:
    print("NO-GL", e); sys.exit(3)
np.save(out + ".npy", np.stack(frames))
json.dump(meta, open(out + ".json", "w"))
"""

_PEAK_SCRIPT = r"""
import resource, sys
from simreflect.suites.workshop.render import RenderUnavailable, render_review
try:
    path = render_review(sys.argv[1], sys.argv[2], fps=int(sys.argv[3]), tile=(int(sys.argv[4]), int(sys.argv[5])))
except RenderUnavailable as e:
    print("NO-GL", e); sys.exit(3)
print(path)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _env() -> dict:
    return {**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")}


def _run(script: str, *args) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-c", script, *map(str, args)], capture_output=True, text=True,
                          timeout=600, env=_env())
    if proc.returncode == 3 and "NO-GL" in proc.stdout:
        pytest.skip(f"no headless GL backend (needs libegl1 + libegl-mesa0, or libosmesa6): {proc.stdout[-300:]}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def _record(root: Path, seconds: float) -> Path:
    """A record of the left arm sliding right and back (seconds of simulated time, about)."""
    session = Session.for_build("place", 0, record_dir=root)
    t, k = 0.0, 0
    while t < seconds - 1e-9:
        d = min(1.0, seconds - t)
        session.act({"segments": [{"type": "move", "duration": d,
                                   "left": {"joints": {"base_x": 0.25 if k % 2 == 0 else -0.25}}}]})
        t, k = t + d, k + 1
    session.note({"text": "slid back and forth"})
    session.finish({"summary": "done"})
    return root


def _frames(tmp_path: Path, root: Path, fps: int, tile=(160, 120)):
    out = tmp_path / "frames"
    _run(_FRAMES_SCRIPT, root, out, fps, *tile)
    return np.load(str(out) + ".npy"), json.loads(Path(str(out) + ".json").read_text())


def test_caption_strip_shows_time_and_the_close_camera_follows_the_hand(tmp_path):
    root = _record(tmp_path / "rec", 2.0)
    frames, meta = _frames(tmp_path, root, fps=5)
    w, h = 160, 120
    assert frames.shape[1:] == (2 * h + 24, 2 * w, 3)
    strip = frames[:, 2 * h:]
    close = frames[:, h:2 * h, w:]  # the fourth tile
    assert meta[0]["hand"] == "left" and meta[-1]["command"] >= 2
    # the strip's text differs between two times (and says the time)
    assert not np.array_equal(strip[0], strip[3])
    assert caption(meta[3]["time"], load_timeline(root).at(meta[3]["time"]))[0].startswith("t    0.60 s")
    # the left hand slides: the close view (following it) changes from frame to frame
    assert np.abs(close[1].astype(int) - close[4].astype(int)).mean() > 1.0
    # the fixed views see the arm move too
    behind = frames[:, :h, :w]
    assert not np.array_equal(behind[1], behind[4])


def test_review_video_has_the_frames_of_the_record(tmp_path):
    root = _record(tmp_path / "rec", 1.5)
    proc = subprocess.run([sys.executable, "-m", "simreflect.suites.workshop.commands", "render", str(root),
                           "--fps", "6", "--width", "160", "--height", "120"],
                          capture_output=True, text=True, timeout=300, env=_env())
    if proc.returncode == 2 and "no headless OpenGL backend" in proc.stderr:
        pytest.skip(f"no headless GL backend: {proc.stderr[-300:]}")
    assert proc.returncode == 0, proc.stderr[-2000:]
    video = Path(proc.stdout.split()[-1])
    assert video.name in ("review.mp4", "review.gif") and video.parent == root / "videos"
    from simreflect.suites.workshop.recording import load_poses
    from simreflect.suites.workshop.render import frame_times

    poses = load_poses(root)
    expected = len(frame_times(float(poses[0, 0]), float(poses[-1, 0]), 6))
    assert expected == 16  # 0 .. 2.5 s (1.5 s of moves and the 1 s finish settle) at 6 fps
    if video.suffix == ".mp4" and shutil.which("ffprobe"):
        probe = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                "stream=nb_read_frames,width,height", "-of", "json", str(video)],
                               capture_output=True, text=True, timeout=60)
        stream = json.loads(probe.stdout)["streams"][0]
        assert int(stream["nb_read_frames"]) == expected
        assert (stream["width"], stream["height"]) == (320, 264)
    else:
        from PIL import Image

        assert Image.open(video).n_frames == expected


@pytest.mark.slow
def test_rendering_a_three_times_longer_record_takes_no_more_memory(tmp_path):
    peaks = {}
    for name, seconds in (("short", 8.0), ("long", 24.0)):
        root = _record(tmp_path / name, seconds)
        proc = _run(_PEAK_SCRIPT, root, tmp_path / f"{name}-videos", 10, 160, 120)
        path, peak_kb = proc.stdout.split()[-2:]
        assert Path(path).stat().st_size > 0
        peaks[name] = int(peak_kb) / 1024
    # frames held in memory would add 160 more of 320x264x3 bytes (40 MB) for the long record
    assert peaks["long"] < peaks["short"] + 20, peaks


def test_timeline_of_a_real_record_and_of_a_damaged_one(tmp_path):
    root = _record(tmp_path / "rec", 1.0)
    tl = load_timeline(root)
    assert tl.labels[0] == "move left" and tl.hands[0] == "left"
    assert tl.events[-2] == "note: slid back and forth" and tl.events[-1] == "finish"
    assert tl.at(0.0).command == 1 and tl.at(1e9).command == len(tl.ends)
    # a record from elsewhere: garbage lines, an over-long note, wrong types; nothing raises
    from simreflect.suites.workshop.recording import COMMANDS_FILE
    from simreflect.suites.workshop.review_events import MAX_LABEL_CHARS

    lines = (root / COMMANDS_FILE).read_text().splitlines()
    bad = ["not json", "[1, 2]", '{"kind": "act", "time": "soon"}', '{"kind": "note", "time": 0.5, "request": '
           '{"text": "' + "\\u0007x" * 5000 + '"}}', '{"kind": "act", "time": 0.6, "request": {"segments": 5}, '
           '"result": {"results": [{"events": [1, null, {"a": 2}]}]}, "snapshot": {"hold_refs": [["left", 7], 3]}}',
           '{"kind": "act", "time": NaN}', "{" * 100_000]
    (root / COMMANDS_FILE).write_text("\n".join(lines[:1] + bad + lines[1:]) + "\n")
    damaged = load_timeline(root)
    assert len(damaged.ends) == len(tl.ends) + 2  # the note and the act with odd fields are kept
    assert all(len(s) <= MAX_LABEL_CHARS and s.isprintable() for s in damaged.labels + damaged.events)
    assert damaged.ends == sorted(damaged.ends)


def test_a_record_whose_poses_do_not_fit_its_model_is_refused(tmp_path):
    from simreflect.suites.workshop.recording import META_FILE
    from simreflect.suites.workshop.render import RenderRefused, _load_model

    root = _record(tmp_path / "rec", 0.5)
    meta = json.loads((root / META_FILE).read_text())
    (root / META_FILE).write_text(json.dumps({**meta, "nq": meta["nq"] + 1}))
    with pytest.raises(RenderRefused, match="nq"):
        _load_model(root)
    (root / "model.xml").write_text("<mujoco><worldbody><geom type='nonsense'/></worldbody></mujoco>")
    with pytest.raises(RenderRefused, match="does not load"):
        _load_model(root)


_DRIVE_SCRIPT = r"""
import json, sys
import numpy as np
from simreflect.suites.workshop.render import RenderUnavailable, review_frames
root, out, t0 = sys.argv[1], sys.argv[2], float(sys.argv[3])
try:
    frames = []
    for f in review_frames(root, fps=10, tile=(240, 180), from_time=t0):
        frames.append(f.pixels.copy())
        if len(frames) == 3:
            break
except RenderUnavailable as e:
    print("NO-GL", e); sys.exit(3)
np.save(out, np.stack(frames))
"""


def _red(pixels: np.ndarray) -> np.ndarray:
    p = pixels.astype(int)
    return (p[..., 0] > 150) & (p[..., 1] < 70) & (p[..., 2] < 70)


@pytest.mark.slow
def test_the_close_camera_sees_the_screw_being_driven(tmp_path):
    from simreflect.suites.workshop.client import WorkshopClient
    from simreflect.suites.workshop.reference import lap
    from simreflect.suites.workshop.service import ServiceThread

    root = tmp_path / "lap"
    with ServiceThread(Session.for_build("lap", 0, record_dir=root)) as svc:
        assert lap.run(WorkshopClient(svc.url))["ok"]
    tl = load_timeline(root)
    k = tl.labels.index("drive screw0")
    drive = [i for i in range(k, len(tl.labels)) if tl.labels[i] == "drive screw0"]
    t_mid = tl.ends[drive[len(drive) // 2]]  # well into the drive: the bit is in the head
    moment = tl.at(t_mid)
    assert moment.hand == "right" and moment.held == "drill0" and "screw0" in moment.label
    out = tmp_path / "drive.npy"
    _run(_DRIVE_SCRIPT, root, out, t_mid)
    frames = np.load(out)
    w, h = 240, 180
    close = frames[:, h:2 * h, w:]
    centre = close[:, h // 4: 3 * h // 4, w // 4: 3 * w // 4]  # the close view looks at the bit tip
    assert all(_red(c).sum() > 30 for c in centre), [int(_red(c).sum()) for c in centre]
    # the screws stand out red in the fixed views too (three in the comb or in the boards)
    assert _red(frames[0][:h, :w]).sum() > 10
