"""The review video of a recorded session: one MP4 (or GIF) of four tiles and a caption strip.

Tiles (review_views.py): the work area from behind the table, from above and from the left end,
and a close view following the active hand (the hand that moved last; the bit tip when it holds a
drill). The strip (review_overlay.py) shows the simulated time, the command number and the current
event, derived from the record's commands (review_events.py). Screws are drawn in a signal red so a
screw being driven stands out against the wood.

Where the time goes (benchmarks/workshop_render.py): the physics is never replayed: each frame sets
the recorded qpos sample and runs mj_kinematics only (under 0.1 ms); Renderer.render on the
software GL of a machine without a GPU costs 11-18 ms a view at the MJCF's capsule tessellation
whatever the size, so the renderer's tessellation is lowered (MESH_SLICES, MESH_STACKS: 5 ms a
view), the default is 10 frames per second of 320x240 tiles, and a frame whose pose did not change
reuses the tiles of the one before. Frames stream to the encoder (review_writer.py) as they are
made, and the poses are read a row at a time from poses.f32: memory does not grow with the record.

Headless MuJoCo rendering: the GL backend is MUJOCO_GL (default egl; osmesa also works where
installed). The videos are for people; the record (commands, snapshots, final state) is what counts.
A record may come from elsewhere: model.xml is MuJoCo's to parse (its failure is a RenderRefused),
poses.f32 must have rows of the model's nq + 1 values, and the frame count is bounded by MAX_FRAMES.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

import numpy as np

from simreflect.suites.workshop.recording import META_FILE, MODEL_FILE, POSES_FILE
from simreflect.suites.workshop.review_events import Moment, Timeline, load_timeline
from simreflect.suites.workshop.review_overlay import STRIP_HEIGHT, draw_strip, draw_tile_label
from simreflect.suites.workshop.review_views import FIXED_VIEWS, TILE_NAMES, close_view, set_camera
from simreflect.suites.workshop.review_writer import VideoWriter

DEFAULT_FPS = 10
DEFAULT_TILE = (320, 240)
MAX_FRAMES = 60 * 60 * 30  # an hour at 30 fps (a session has at most 900 simulated seconds)
MESH_SLICES, MESH_STACKS = 12, 8  # MuJoCo's defaults are 28 and 16
SCREW_RGBA = (0.9, 0.08, 0.08, 1.0)
VIDEO_NAME = "review"
_CHUNK_ROWS = 1024


class RenderUnavailable(RuntimeError):
    """No headless OpenGL backend could be started."""


class RenderRefused(ValueError):
    """The record cannot be rendered (its model or poses are not what the recorder writes)."""


@dataclass(frozen=True)
class Layout:
    """Four tiles of `tile` (width, height) in two rows, the caption strip below them."""

    tile: tuple[int, int] = DEFAULT_TILE

    @property
    def size(self) -> tuple[int, int]:
        w, h = self.tile
        return 2 * w, 2 * h + STRIP_HEIGHT

    def tile_box(self, k: int) -> tuple[slice, slice]:
        """(rows, columns) of tile k (review_views.TILE_NAMES order) in the frame."""
        w, h = self.tile
        r, c = divmod(k, 2)
        return slice(r * h, (r + 1) * h), slice(c * w, (c + 1) * w)

    def strip_box(self) -> tuple[slice, slice]:
        w, h = self.tile
        return slice(2 * h, 2 * h + STRIP_HEIGHT), slice(0, 2 * w)


def _even(n: int) -> int:
    return max(16, int(n) // 2 * 2)


class PoseRows:
    """poses.f32 read forward a chunk at a time: the sample for each of increasing times."""

    def __init__(self, root: Path, nq: int):
        path = Path(root) / POSES_FILE
        self.width = nq + 1
        self.rows = path.stat().st_size // (4 * self.width) if path.is_file() else 0
        self._f = open(path, "rb") if self.rows else None
        self._chunk = np.zeros((0, self.width), np.float32)
        self._pos = 0  # index of the chunk's first row
        self._k = 0  # row within the chunk

    def row(self, i: int) -> np.ndarray:
        self._f.seek(4 * self.width * i)
        return np.frombuffer(self._f.read(4 * self.width), "<f4").astype(np.float64)

    def span(self) -> tuple[float, float]:
        return float(self.row(0)[0]), float(self.row(self.rows - 1)[0])

    def _next_chunk(self) -> bool:
        start = self._pos + len(self._chunk)
        if start >= self.rows:
            return False
        self._f.seek(4 * self.width * start)
        raw = self._f.read(4 * self.width * min(_CHUNK_ROWS, self.rows - start))
        self._chunk = np.frombuffer(raw, "<f4").reshape(-1, self.width)
        self._pos, self._k = start, 0
        return len(self._chunk) > 0

    def at(self, t: float) -> np.ndarray:
        """The first sample at or after t (the last one past the end), for t not decreasing."""
        while True:
            hit = np.flatnonzero(self._chunk[self._k:, 0] >= t - 1e-6)
            if len(hit):
                self._k += int(hit[0])
                break
            if not self._next_chunk():
                self._k = len(self._chunk) - 1
                break
        return np.asarray(self._chunk[self._k], np.float64)

    def close(self) -> None:
        if self._f:
            self._f.close()


def _load_model(root: Path):
    import mujoco

    try:
        model = mujoco.MjModel.from_xml_path(str(Path(root) / MODEL_FILE))
    except Exception as e:  # noqa: BLE001 - MuJoCo's parse error on a record's model
        raise RenderRefused(f"{MODEL_FILE} does not load: {str(e)[:300]}") from None
    try:
        meta = json.loads((Path(root) / META_FILE).read_text()[:100_000])
        nq = int(meta["nq"])
    except (OSError, ValueError, KeyError, TypeError):
        raise RenderRefused(f"{META_FILE} has no readable nq") from None
    if nq != model.nq:
        raise RenderRefused(f"{META_FILE} says nq {nq}, the model has {model.nq}")
    return model


def _prepare_model(model, tile: tuple[int, int]) -> None:
    """What is drawn, set on the loaded model only (the record is not changed): coarser capsules,
    red screws, an offscreen buffer that fits a tile."""
    import mujoco

    model.vis.quality.numslices = MESH_SLICES
    model.vis.quality.numstacks = MESH_STACKS
    model.vis.global_.offwidth = max(int(model.vis.global_.offwidth), tile[0])
    model.vis.global_.offheight = max(int(model.vis.global_.offheight), tile[1])
    for g in range(model.ngeom):
        body = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, int(model.geom_bodyid[g])) or ""
        if body.startswith("screw") and body[5:].isdigit():
            model.geom_matid[g] = -1
            model.geom_rgba[g] = SCREW_RGBA


def _renderer(model, width: int, height: int):
    os.environ.setdefault("MUJOCO_GL", "egl")
    import mujoco

    try:
        r = mujoco.Renderer(model, height, width)
    except Exception as e:  # noqa: BLE001 - any GL failure means: no backend here
        raise RenderUnavailable(f"MUJOCO_GL={os.environ.get('MUJOCO_GL')}: {e}") from None
    r.scene.flags[mujoco.mjtRndFlag.mjRND_SHADOW] = 0
    r.scene.flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = 0
    r.scene.flags[mujoco.mjtRndFlag.mjRND_SKYBOX] = 0
    return r


def _focus(model, data, moment: Moment) -> np.ndarray:
    """The point the close view looks at: the held drill's bit tip, else the hand's pinch point."""
    import mujoco

    for name in ((f"{moment.held}/tip",) if moment.held.startswith("drill") else ()) + (f"{moment.hand}/pinch",):
        sid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, name)
        if sid >= 0:
            return data.site_xpos[sid].copy()
    return np.array(FIXED_VIEWS[0].lookat)


@dataclass
class ReviewFrame:
    """One frame of the review: its simulated time, what the strip says, the pixels (a buffer the
    generator reuses: copy it to keep it) and whether the tiles were drawn anew for it."""

    index: int
    total: int  # frames in the video
    time: float
    moment: Moment
    pixels: np.ndarray
    drawn: bool


def frame_times(start: float, end: float, fps: int, max_frames: Optional[int] = None) -> np.ndarray:
    n = int(np.floor((end - start) * fps + 1e-6)) + 1 if end >= start else 0
    n = min(n, MAX_FRAMES, max_frames if max_frames is not None else MAX_FRAMES)
    return start + np.arange(max(n, 0)) / fps


def review_frames(root: Path, fps: int = DEFAULT_FPS, tile: tuple[int, int] = DEFAULT_TILE,
                  max_frames: Optional[int] = None, timeline: Optional[Timeline] = None,
                  from_time: float = -np.inf) -> Iterator[ReviewFrame]:
    """The frames of a record's review video, one at a time (see the module doc); with
    `from_time`, only those from that simulated time on (a look at one moment)."""
    import mujoco

    root = Path(root)
    tile = (_even(tile[0]), _even(tile[1]))
    layout = Layout(tile)
    model = _load_model(root)
    _prepare_model(model, tile)
    data = mujoco.MjData(model)
    poses = PoseRows(root, model.nq)
    if poses.rows == 0:
        poses.close()
        return
    timeline = timeline if timeline is not None else load_timeline(root)
    start, end = poses.span()
    if not (np.isfinite(start) and np.isfinite(end)):
        poses.close()
        raise RenderRefused(f"{POSES_FILE} has a time that is not a finite number")
    times = frame_times(start, end, fps, max_frames)
    w, h = layout.size
    canvas = np.zeros((h, w, 3), np.uint8)
    r = _renderer(model, *tile)
    cams = [mujoco.MjvCamera() for _ in TILE_NAMES]
    for cam, view in zip(cams, FIXED_VIEWS):
        set_camera(cam, view)
    last_row: Optional[np.ndarray] = None
    last_focus: Optional[tuple] = None
    try:
        for i, t in enumerate(times):
            if t < from_time:
                continue
            row = poses.at(float(t))
            moment = timeline.at(float(t))
            moved = last_row is None or not np.array_equal(row, last_row)
            if moved:
                data.qpos[:] = row[1:]
                mujoco.mj_kinematics(model, data)
                for k, view in enumerate(FIXED_VIEWS):
                    r.update_scene(data, camera=cams[k])
                    canvas[layout.tile_box(k)] = r.render()
                    draw_tile_label(canvas[layout.tile_box(k)], view.name)
            focus = (moment.hand, moment.held)
            if moved or focus != last_focus:
                set_camera(cams[3], close_view(_focus(model, data, moment)))
                r.update_scene(data, camera=cams[3])
                canvas[layout.tile_box(3)] = r.render()
                draw_tile_label(canvas[layout.tile_box(3)], f"{moment.hand} hand")
            draw_strip(canvas[layout.strip_box()], float(t), moment)
            yield ReviewFrame(i, len(times), float(t), moment, canvas, moved or focus != last_focus)
            last_row, last_focus = row, focus
    finally:
        r.close()
        poses.close()


def render_review(root: Path, out_dir: Optional[Path] = None, fps: int = DEFAULT_FPS,
                  tile: tuple[int, int] = DEFAULT_TILE, max_frames: Optional[int] = None,
                  use_ffmpeg: bool = True) -> Optional[Path]:
    """Write the review video of a record into out_dir (default RECORD/videos): review.mp4 (or
    review.gif without ffmpeg); None when the record has no poses."""
    root = Path(root)
    out_dir = Path(out_dir) if out_dir is not None else root / "videos"
    out_dir.mkdir(parents=True, exist_ok=True)
    tile = (_even(tile[0]), _even(tile[1]))
    writer: Optional[VideoWriter] = None
    try:
        for frame in review_frames(root, fps=fps, tile=tile, max_frames=max_frames):
            if writer is None:
                h, w = frame.pixels.shape[:2]
                writer = VideoWriter(out_dir / VIDEO_NAME, fps, (w, h), expected_frames=frame.total,
                                     use_ffmpeg=use_ffmpeg)
            writer.write(frame.pixels)
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    return writer.close() if writer is not None else None


def render_record(root: Path, out_dir: Optional[Path] = None, fps: int = DEFAULT_FPS,
                  size: tuple[int, int] = DEFAULT_TILE, max_frames: Optional[int] = None) -> list[Path]:
    """The review videos of a record (one tiled video; `size` is a tile's): the paths written."""
    out = render_review(root, out_dir, fps=fps, tile=size, max_frames=max_frames)
    return [out] if out is not None else []
