"""Frames to a video file one at a time: an MP4 through the system ffmpeg over a pipe (nothing is
held but the frame being written), else a GIF through Pillow, which keeps its frames until it is
closed and so takes at most MAX_GIF_FRAMES of them (the others are dropped evenly)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Optional

import numpy as np

MAX_GIF_FRAMES = 300
CRF = 28  # libx264 quality: readable text, small files


class VideoWriter:
    """`write(frame)` frames of one size (h, w, 3 uint8), then `close()` -> the path written."""

    def __init__(self, path: Path, fps: int, size: tuple[int, int], expected_frames: int,
                 use_ffmpeg: bool = True):
        self.path = Path(path)
        self.fps = fps
        self.width, self.height = size
        self.frames = 0
        self._proc: Optional[subprocess.Popen] = None
        self._gif: list = []
        self._gif_every = max(1, -(-expected_frames // MAX_GIF_FRAMES))
        ffmpeg = shutil.which("ffmpeg") if use_ffmpeg else None
        if ffmpeg:
            self.path = self.path.with_suffix(".mp4")
            cmd = [ffmpeg, "-y", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "rgb24",
                   "-s", f"{self.width}x{self.height}", "-r", str(fps), "-i", "-", "-an", "-vcodec", "libx264",
                   "-preset", "veryfast", "-pix_fmt", "yuv420p", "-crf", str(CRF), str(self.path)]
            self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE)
        else:
            self.path = self.path.with_suffix(".gif")

    def write(self, frame: np.ndarray) -> None:
        if frame.shape != (self.height, self.width, 3):
            raise ValueError(f"frame of shape {frame.shape}, the video is {self.height}x{self.width}")
        if self._proc is not None:
            self._proc.stdin.write(np.ascontiguousarray(frame, np.uint8).tobytes())
        elif self.frames % self._gif_every == 0 and len(self._gif) < MAX_GIF_FRAMES:
            from PIL import Image

            self._gif.append(Image.fromarray(frame).quantize(colors=128))
        self.frames += 1

    def close(self) -> Path:
        if self._proc is not None:
            proc, self._proc = self._proc, None
            proc.stdin.close()
            err = proc.stderr.read()[-2000:] if proc.stderr else b""
            if proc.wait() != 0:
                raise RuntimeError(f"ffmpeg failed: {err.decode(errors='replace')}")
            return self.path
        if self._gif:
            self._gif[0].save(self.path, save_all=True, append_images=self._gif[1:],
                              duration=int(1000 * self._gif_every / self.fps), loop=0)
            self._gif = []
        return self.path

    def abort(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None
        self._gif = []
