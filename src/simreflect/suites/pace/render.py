"""GIFs of an evaluation: every body drawn from its Box2D fixtures, headless, with Pillow.

`FrameRecorder.capture` is the engine's frame callback (every 4 steps: 15 frames per simulated
second); `write` draws the frames inside the task's view box (its render.py `view(env)`), with its
overlays on top (build zone outline, goal markers: `overlays(env)`), a status caption and a
fixed palette, so the same run gives the same bytes.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from Box2D import b2CircleShape, b2EdgeShape, b2PolygonShape
from PIL import Image, ImageDraw

from simreflect.suites.pace.engine import DT

if TYPE_CHECKING:
    from simreflect.suites.pace.engine import Sim
    from simreflect.suites.pace.evaluate import Evaluation
    from simreflect.suites.pace.task import TaskSpec

SIZE = (480, 300)
#: Most frames a GIF holds (20 s at 15 frames/s); a longer run is shown sped up.
MAX_FRAMES = 300
PALETTE_RGB = [
    (250, 250, 246),  # 0 background
    (120, 104, 84),  # 1 terrain
    (96, 110, 130),  # 2 design steel (and default design)
    (166, 120, 70),  # 3 design wood
    (45, 45, 45),  # 4 design rubber
    (220, 200, 120),  # 5 design foam
    (150, 150, 145),  # 6 design concrete
    (200, 60, 50),  # 7 vehicle / craft
    (40, 120, 200),  # 8 payload / projectile
    (70, 150, 210),  # 9 particle
    (60, 170, 90),  # 10 goal / target overlay
    (230, 160, 40),  # 11 build-zone overlay
    (20, 20, 20),  # 12 text, joints
    (230, 40, 160),  # 13 springs, broken markers
    (160, 160, 160),  # 14 light grid
]
ROLE_COLOUR = {"terrain": 1, "vehicle": 7, "craft": 7, "payload": 8, "projectile": 8, "particle": 9, "target": 10}
MATERIAL_COLOUR = {(96, 110, 130): 2, (166, 120, 70): 3, (45, 45, 45): 4, (220, 200, 120): 5, (150, 150, 145): 6}
OVERLAY_COLOUR = {"zone": 11, "goal": 10, "target": 10, "marker": 13, "text": 12}


def _palette() -> list[int]:
    flat = [c for rgb in PALETTE_RGB for c in rgb]
    return flat + [0] * (768 - len(flat))


class FrameRecorder:
    """Collects what to draw at each captured step (world coordinates)."""

    def __init__(self, spec: TaskSpec, env: dict[str, Any]):
        self.spec = spec
        self.env = env
        self.frames: list[tuple[int, list[tuple[str, int, Any]]]] = []

    def capture(self, sim: Sim) -> None:
        items: list[tuple[str, int, Any]] = []
        for tag in sim.tagged:
            body = tag.body
            colour = ROLE_COLOUR.get(tag.role, 2)
            if tag.role == "design" and tag.colour is not None:
                colour = MATERIAL_COLOUR.get(tuple(tag.colour), 2)
            xf = body.transform
            for fx in body.fixtures:
                shape = fx.shape
                if isinstance(shape, b2PolygonShape):
                    items.append(("poly", colour, [tuple(xf * v) for v in shape.vertices]))
                elif isinstance(shape, b2CircleShape):
                    c = xf * shape.pos
                    items.append(("circle", colour, (c[0], c[1], shape.radius, body.angle)))
                elif isinstance(shape, b2EdgeShape):
                    items.append(("line", colour, [tuple(xf * v) for v in shape.vertices]))
        for rec in sim.joints.values():
            if rec.joint is not None:
                a = rec.joint.anchorA
                items.append(("joint", 12 if rec.kind == "pivot" else 2, (a[0], a[1])))
        for joint in sim.springs.values():
            items.append(("spring", 13, [tuple(joint.anchorA), tuple(joint.anchorB)]))
        self.frames.append((sim.steps, items))

    def write(self, path: Path, sim: Sim, ev: Evaluation) -> int:
        view = self.spec.render_module.view(self.env)
        overlays = self.spec.render_module.overlays(self.env)
        x0, y0, x1, y1 = (float(v) for v in view)
        w, h = SIZE
        scale = min((w - 10) / (x1 - x0), (h - 30) / (y1 - y0))
        ox = (w - scale * (x1 - x0)) / 2
        oy = h - 5 - (h - 30 - scale * (y1 - y0)) / 2

        def px(p: tuple[float, float]) -> tuple[float, float]:
            return (ox + (p[0] - x0) * scale, oy - (p[1] - y0) * scale)

        images = []
        status = "SUCCESS" if ev.passed else "FAIL"
        # a long run plays faster rather than growing without bound (the last frame always shows)
        stride = max(1, math.ceil(len(self.frames) / MAX_FRAMES))
        frames = self.frames[::stride]
        if frames and frames[-1] is not self.frames[-1]:
            frames.append(self.frames[-1])
        for step, items in frames:
            im = Image.new("P", SIZE, 0)
            im.putpalette(_palette())
            d = ImageDraw.Draw(im)
            for kind, col, data in items:
                if kind == "poly":
                    d.polygon([px(p) for p in data], fill=col, outline=12 if col in (2, 3, 6) else None)
                elif kind == "circle":
                    cx, cy, r, ang = data
                    c = px((cx, cy))
                    rr = max(1.0, r * scale)
                    d.ellipse([c[0] - rr, c[1] - rr, c[0] + rr, c[1] + rr], fill=col)
                    if rr > 3:
                        d.line([c, (c[0] + rr * math.cos(ang), c[1] - rr * math.sin(ang))], fill=0, width=1)
                elif kind == "line":
                    d.line([px(p) for p in data], fill=col, width=2)
                elif kind == "joint":
                    c = px(data)
                    d.ellipse([c[0] - 2, c[1] - 2, c[0] + 2, c[1] + 2], fill=col)
                elif kind == "spring":
                    d.line([px(p) for p in data], fill=col, width=1)
            for ov in overlays:
                pts = [px(p) for p in ov["points"]]
                col = OVERLAY_COLOUR.get(ov.get("colour", "zone"), 11)
                if ov["kind"] == "polygon" and len(pts) >= 2:
                    d.line(pts + [pts[0]], fill=col, width=1)
                elif ov["kind"] == "line" and len(pts) >= 2:
                    d.line(pts, fill=col, width=2)
            caption = f"{self.spec.id} {ev.stage}  t={step * DT:5.2f}s  step {step}" + (
                f"  ({stride}x speed)" if stride > 1 else "")
            if step == self.frames[-1][0]:
                caption += f"  {status} score {ev.score:g}"
            d.text((5, 4), caption, fill=12)
            images.append(im)
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        if not images:
            return 0
        images[0].save(path, save_all=True, append_images=images[1:], duration=int(1000 * 4 * DT), loop=0,
                       optimize=False)
        return len(images)


def gif_frames(path: Path, n: int) -> tuple[bytes, ...]:
    """`n` frames of a GIF this module wrote, evenly spaced with the last included, each as PNG bytes
    (what the video-feedback intervention sends a vision-capable model)."""
    import io

    with Image.open(path) as im:
        total = getattr(im, "n_frames", 1)
        picks = sorted({round(i * (total - 1) / max(1, n - 1)) for i in range(n)}) if total > 1 else [0]
        out = []
        for k in picks:
            im.seek(k)
            buf = io.BytesIO()
            im.convert("RGB").save(buf, format="PNG", optimize=True)
            out.append(buf.getvalue())
    return tuple(out)
