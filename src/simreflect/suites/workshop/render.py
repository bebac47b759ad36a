"""Review videos of a recorded session from the four fixed cameras (front, left, right, top).

Headless MuJoCo rendering (mujoco.Renderer) of the sampled poses in poses.f32, with shadows and
reflections off for speed. The GL backend is MUJOCO_GL (default egl; osmesa also works where
installed). Frames go to an MP4 through the system ffmpeg when it is on PATH, else to a GIF (Pillow).
The videos are for people; the record (commands, snapshots, final state) is what counts.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np

from simreflect.suites.workshop.recording import MODEL_FILE, load_poses
from simreflect.suites.workshop.world import CAMERAS

DEFAULT_FPS = 15
DEFAULT_SIZE = (480, 360)


class RenderUnavailable(RuntimeError):
    """No headless OpenGL backend could be started."""


def _renderer(model, width: int, height: int):
    os.environ.setdefault("MUJOCO_GL", "egl")
    import mujoco

    try:
        r = mujoco.Renderer(model, height, width)
    except Exception as e:  # noqa: BLE001 - any GL failure means: no backend here
        raise RenderUnavailable(f"MUJOCO_GL={os.environ.get('MUJOCO_GL')}: {e}") from None
    r.scene.flags[mujoco.mjtRndFlag.mjRND_SHADOW] = 0
    r.scene.flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = 0
    return r


def render_frames(root: Path, camera: str, fps: int = DEFAULT_FPS, size=DEFAULT_SIZE, max_frames: int | None = None):
    """RGB frames (n, h, w, 3) of one camera over the recorded episode at `fps`."""
    import mujoco

    root = Path(root)
    model = mujoco.MjModel.from_xml_path(str(root / MODEL_FILE))
    data = mujoco.MjData(model)
    poses = load_poses(root)
    if len(poses) == 0:
        return np.zeros((0, size[1], size[0], 3), np.uint8)
    times = poses[:, 0]
    want = np.arange(times[0], times[-1] + 1e-9, 1.0 / fps)
    idx = np.minimum(np.searchsorted(times, want - 1e-6), len(times) - 1)
    if max_frames is not None:
        idx = idx[:max_frames]
    r = _renderer(model, size[0], size[1])
    frames = []
    try:
        for i in idx:
            data.qpos[:] = poses[i, 1:]
            mujoco.mj_kinematics(model, data)
            r.update_scene(data, camera=camera)
            frames.append(r.render().copy())
    finally:
        r.close()
    return np.stack(frames)


def write_video(path: Path, frames: np.ndarray, fps: int) -> Path:
    """MP4 via ffmpeg if available, else GIF; returns the path written."""
    path = Path(path)
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg and len(frames):
        out = path.with_suffix(".mp4")
        h, w = frames.shape[1:3]
        cmd = [ffmpeg, "-y", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{w}x{h}",
               "-r", str(fps), "-i", "-", "-an", "-vcodec", "libx264", "-pix_fmt", "yuv420p", "-crf", "28", str(out)]
        proc = subprocess.run(cmd, input=frames.tobytes(), capture_output=True)
        if proc.returncode == 0:
            return out
    from PIL import Image

    out = path.with_suffix(".gif")
    images = [Image.fromarray(f) for f in frames]
    images[0].save(out, save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0)
    return out


def render_record(root: Path, out_dir: Path | None = None, fps: int = DEFAULT_FPS, size=DEFAULT_SIZE,
                  cameras=tuple(CAMERAS), max_frames: int | None = None) -> list[Path]:
    root = Path(root)
    out_dir = Path(out_dir) if out_dir is not None else root / "videos"
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for cam in cameras:
        frames = render_frames(root, cam, fps=fps, size=size, max_frames=max_frames)
        if len(frames):
            written.append(write_video(out_dir / cam, frames, fps))
    return written
