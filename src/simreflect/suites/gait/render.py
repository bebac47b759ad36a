"""Headless software rendering of a rig's vertex frames with Pillow only (no OpenGL), and GIF output.

A fixed 3/4 perspective camera looks at the robot from its front-right and a little above (the robot
faces +Y, so its orange face and chest plates are seen) and follows its travel: the camera target is
the mean vertex x, y of each frame (at a height that drops when the robot lies down), smoothed by a
centred moving average. Each frame draws a floor at z=0 with a world-fixed grid, the robot's shadow
from a fixed light, then the robot's quads back to front (painter's algorithm on face-centre depth,
back faces culled) with flat Lambert shading in each part's colour, red dots on highlighted
vertices, and a caption. Frames are drawn at twice the size
and box-filtered down for anti-aliasing. Everything is deterministic: same input, same pixels, same
GIF bytes.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from simreflect.suites.gait.rig import Rig

SUPERSAMPLE = 2
FOV_DEG = 34.0  # vertical field of view
CAMERA_DISTANCE = 4.4  # metres from the target
CAMERA_AZIMUTH_DEG = 38.0  # from +Y (in front of the robot) towards +X (its right)
CAMERA_ELEVATION_DEG = 16.0
TARGET_HEIGHT = (0.36, 0.48)  # target z = a + b * mean vertex z: ~0.75 m standing, ~0.45 m lying
FOLLOW_WINDOW = 9  # frames of the centred moving average of the camera target
NEAR = 0.05
LIGHT = np.array([-0.35, 0.55, 0.76])  # towards the light: front-left, above
LIGHT = LIGHT / np.linalg.norm(LIGHT)
AMBIENT, DIFFUSE = 0.38, 0.62
SKY = (223, 229, 237)
FLOOR = (239, 238, 233)
GRID = (204, 206, 210)
SHADOW = (196, 196, 192)
HIGHLIGHT = (230, 20, 20)
GRID_STEP = 0.5
GRID_HALF = 6.0
EDGE_DARKEN = 0.75
PALETTE_SAMPLES = 6


# ----- camera ------------------------------------------------------------------------------------

def camera_targets(vertex_frames: np.ndarray, window: int = FOLLOW_WINDOW) -> np.ndarray:
    """The camera target (frames, 3): each frame's mean vertex x, y (centred moving average); its
    height is TARGET_HEIGHT[0] + TARGET_HEIGHT[1] * the mean vertex z, also averaged."""
    raw = vertex_frames.mean(axis=1)
    raw[:, 2] = TARGET_HEIGHT[0] + TARGET_HEIGHT[1] * raw[:, 2]
    n, half = len(raw), max(0, window // 2)
    padded = np.concatenate([np.repeat(raw[:1], half, axis=0), raw, np.repeat(raw[-1:], half, axis=0)])
    kernel = np.full(2 * half + 1, 1.0 / (2 * half + 1))
    return np.stack([np.convolve(padded[:, i], kernel, mode="valid") for i in range(3)], axis=1)[:n]


class Camera:
    """A pinhole camera at `eye` looking at `target`, Z up; `size` in pixels."""

    def __init__(self, target: np.ndarray, size: tuple[int, int]):
        az, el = math.radians(CAMERA_AZIMUTH_DEG), math.radians(CAMERA_ELEVATION_DEG)
        back = np.array([math.sin(az) * math.cos(el), math.cos(az) * math.cos(el), math.sin(el)])
        self.eye = np.asarray(target, float) + CAMERA_DISTANCE * back
        f = -back
        r = np.cross(f, [0.0, 0.0, 1.0])
        r /= np.linalg.norm(r)
        u = np.cross(r, f)
        self.rot = np.stack([r, u, f])  # rows: camera x (right), y (up), z (forward)
        self.w, self.h = size
        self.focal = (self.h / 2) / math.tan(math.radians(FOV_DEG) / 2)

    def to_camera(self, p: np.ndarray) -> np.ndarray:
        return (np.asarray(p, float) - self.eye) @ self.rot.T

    def to_screen(self, c: np.ndarray) -> np.ndarray:
        z = np.maximum(c[..., 2], NEAR)
        return np.stack([self.w / 2 + self.focal * c[..., 0] / z, self.h / 2 - self.focal * c[..., 1] / z], axis=-1)


def _clip_near(poly: np.ndarray) -> np.ndarray:
    """Sutherland-Hodgman clip of a camera-space polygon (n, 3) to z >= NEAR."""
    out = []
    n = len(poly)
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        ina, inb = a[2] >= NEAR, b[2] >= NEAR
        if ina:
            out.append(a)
        if ina != inb:
            t = (NEAR - a[2]) / (b[2] - a[2])
            out.append(a + t * (b - a))
    return np.array(out).reshape(-1, 3)


def _pts(xy: np.ndarray) -> list[float]:
    """Flat [x0, y0, x1, y1, ...] for ImageDraw."""
    return np.asarray(xy, float).ravel().tolist()


# ----- drawing -----------------------------------------------------------------------------------

def _face_colors(rig: Rig) -> np.ndarray:
    """Base RGB (F, 3) of each face: the colour of the part its first vertex belongs to."""
    vertex_color = np.zeros((len(rig.rest_vertices), 3))
    for p in rig.parts:
        vertex_color[p.start:p.stop] = p.color
    return vertex_color[rig.faces[:, 0]]


def _draw_floor(draw: ImageDraw.ImageDraw, cam: Camera, target: np.ndarray, ss: int) -> None:
    cx = math.floor(target[0] / GRID_STEP) * GRID_STEP
    cy = math.floor(target[1] / GRID_STEP) * GRID_STEP
    lo_x, hi_x, lo_y, hi_y = cx - GRID_HALF, cx + GRID_HALF, cy - GRID_HALF, cy + GRID_HALF
    quad = np.array([[lo_x, lo_y, 0], [hi_x, lo_y, 0], [hi_x, hi_y, 0], [lo_x, hi_y, 0]], float)
    poly = _clip_near(cam.to_camera(quad))
    if len(poly) >= 3:
        draw.polygon(_pts(cam.to_screen(poly)), fill=FLOOR)
    ticks = np.arange(-GRID_HALF, GRID_HALF + 1e-9, GRID_STEP)
    zeros, ones = np.zeros_like(ticks), np.ones_like(ticks)
    a = np.concatenate([np.stack([cx + ticks, ones * lo_y, zeros], 1), np.stack([ones * lo_x, cy + ticks, zeros], 1)])
    b = np.concatenate([np.stack([cx + ticks, ones * hi_y, zeros], 1), np.stack([ones * hi_x, cy + ticks, zeros], 1)])
    ca, cb = cam.to_camera(a), cam.to_camera(b)
    keep = (ca[:, 2] >= NEAR) | (cb[:, 2] >= NEAR)
    ca, cb = ca[keep], cb[keep]
    t = np.clip((NEAR - ca[:, 2]) / np.where(cb[:, 2] != ca[:, 2], cb[:, 2] - ca[:, 2], 1.0), 0.0, 1.0)[:, None]
    cut = ca + t * (cb - ca)  # the point where the segment crosses the near plane (if it does)
    ca = np.where(ca[:, 2:3] < NEAR, cut, ca)
    cb = np.where(cb[:, 2:3] < NEAR, cut, cb)
    ends = cam.to_screen(np.stack([ca, cb], axis=1))
    for seg in ends:
        draw.line(_pts(seg), fill=GRID, width=ss)


def render_frames(
    vertex_frames: np.ndarray,
    rig: Rig,
    highlight: set[int] | Iterable[int] | None = None,
    size: tuple[int, int] = (360, 360),
    title: str = "",
    *,
    captions: Sequence[str] | None = None,
) -> list[Image.Image]:
    """Draw each frame of `vertex_frames` (frames, V, 3) as an RGB image of `size` (width, height).

    `highlight`: vertex indices drawn as red dots on top. The caption of frame i is
    `f"{title}  frame {i}"`, or `f"{title}  {captions[i]}"` when `captions` is given.
    """
    verts = np.asarray(vertex_frames, float)
    if verts.ndim == 2:
        verts = verts[None]
    if captions is not None and len(captions) != len(verts):
        raise ValueError(f"{len(captions)} captions for {len(verts)} frames")
    ss = SUPERSAMPLE
    w, h = int(size[0]), int(size[1])
    big = (w * ss, h * ss)
    faces = rig.faces
    base = _face_colors(rig)
    part_of = np.zeros(len(rig.rest_vertices), int)
    for i, p in enumerate(rig.parts):
        part_of[p.start:p.stop] = i
    face_part = part_of[faces[:, 0]]
    hl = np.array(sorted(int(v) for v in highlight), dtype=np.int64) if highlight else np.zeros(0, np.int64)
    targets = camera_targets(verts)
    font = ImageFont.load_default(size=max(9, round(h / 30)))
    dot = 2.2 * ss

    images = []
    for k, (v, target) in enumerate(zip(verts, targets)):
        cam = Camera(target, big)
        im = Image.new("RGB", big, SKY)
        draw = ImageDraw.Draw(im)
        _draw_floor(draw, cam, target, ss)

        quads = v[faces]  # (F, 4, 3)
        centers = quads.mean(axis=1)
        normals = np.cross(quads[:, 2] - quads[:, 0], quads[:, 3] - quads[:, 1])
        normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-12)
        part_centers = np.stack([v[p.start:p.stop].mean(axis=0) for p in rig.parts])
        outward = np.einsum("fi,fi->f", normals, centers - part_centers[face_part])
        normals *= np.where(outward < 0, -1.0, 1.0)[:, None]

        # shadow: every face projected along the light onto the floor
        lit_side = normals @ LIGHT > 0
        shadow = quads[lit_side] - LIGHT * (quads[lit_side][..., 2:3] / LIGHT[2])
        shadow[..., 2] = 0.0
        sc = cam.to_camera(shadow)
        if np.all(sc[..., 2] > NEAR):
            for q in cam.to_screen(sc).reshape(len(sc), 8).tolist():
                draw.polygon(q, fill=SHADOW)

        cc = cam.to_camera(quads)
        facing = np.einsum("fi,fi->f", normals, cam.eye - centers) > 0
        order = np.argsort(-cc[:, :, 2].mean(axis=1), kind="stable")
        order = order[facing[order]]
        shade = AMBIENT + DIFFUSE * np.clip(normals @ LIGHT, 0.0, 1.0)
        colors = np.clip(base * shade[:, None], 0, 255).round().astype(int)
        screen = cam.to_screen(cc)
        edges = (colors * EDGE_DARKEN).astype(int)
        fill_list, edge_list, pts = colors.tolist(), edges.tolist(), screen.reshape(len(screen), 8).tolist()
        for fi in order.tolist():
            draw.polygon(pts[fi], fill=tuple(fill_list[fi]), outline=tuple(edge_list[fi]))

        if hl.size:
            for x, y in cam.to_screen(cam.to_camera(v[hl])):
                draw.ellipse((x - dot, y - dot, x + dot, y + dot), fill=HIGHLIGHT, outline=(110, 0, 0))

        im = im.reduce(ss)
        label = captions[k] if captions is not None else f"frame {k}"
        text = f"{title}  {label}" if title else label
        ImageDraw.Draw(im).text((6, 4), text, fill=(40, 44, 52), font=font)
        images.append(im)
    return images


# ----- output ------------------------------------------------------------------------------------

def write_gif(path: str | Path, frames: list[Image.Image], fps: int) -> None:
    """Write `frames` as an animated GIF that loops forever, `fps` frames per second.

    All frames share one 256-colour palette (median cut of a few evenly spaced frames, no dithering),
    which is ten times faster than a palette per frame. GIF delays are whole centiseconds, so 24 fps
    plays at 25 fps (40 ms a frame). Pillow merges a frame identical to the previous one into it
    (adding up the delays); `render_frames` captions differ per frame, so its frames are all kept.
    """
    if not frames:
        raise ValueError("no frames to write")
    w, h = frames[0].size
    picks = sorted(set(np.linspace(0, len(frames) - 1, min(len(frames), PALETTE_SAMPLES)).round().astype(int)))
    mosaic = Image.new("RGB", (w * len(picks), h))
    for k, i in enumerate(picks):
        mosaic.paste(frames[i].convert("RGB"), (k * w, 0))
    palette = mosaic.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    indexed = [im.convert("RGB").quantize(palette=palette, dither=Image.Dither.NONE) for im in frames]
    duration = max(20, int(round(100.0 / fps)) * 10)
    indexed[0].save(Path(path), format="GIF", save_all=True, append_images=indexed[1:],
                    duration=duration, loop=0, optimize=False)


def episode_gif(
    path: str | Path,
    rig: Rig,
    fall_from: int | None = None,
    highlight: set[int] | Iterable[int] | None = None,
    title: str = "",
    size: tuple[int, int] = (360, 360),
) -> int:
    """Render the walk (frames 0..frame_count-1) as a GIF at rig.fps; returns the number of frames.

    With `fall_from`: walk frames 0..fall_from, then the pose at fall_from falling
    (`falls.simulate_fall(rig, fall_from)`, 1.5 s).
    """
    from simreflect.suites.gait.falls import simulate_fall

    walk = rig.world_vertices()
    n = rig.frame_count
    if fall_from is None:
        frames = walk
        captions = [f"frame {i}/{n - 1}" for i in range(n)]
    else:
        f = int(fall_from)
        if not 0 <= f < n:
            raise IndexError(f"fall_from {fall_from} out of range 0..{n - 1}")
        fall = simulate_fall(rig, f)
        frames = np.concatenate([walk[:f + 1], fall])
        captions = [f"frame {i}/{n - 1}" for i in range(f + 1)]
        captions += [f"frame {f} + {(k + 1) / rig.fps:.2f} s, falling" for k in range(len(fall))]
    images = render_frames(frames, rig, highlight=highlight, size=size, title=title, captions=captions)
    write_gif(path, images, rig.fps)
    return len(images)
