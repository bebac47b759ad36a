"""The review video's caption strip: simulated time, command number and the current event, drawn
with Pillow's bundled font (no font is looked up on the system or the network)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from simreflect.suites.workshop.review_events import Moment

STRIP_HEIGHT = 24  # pixels below the tiles (even: the encoder's 4:2:0 needs even sizes)
BACKGROUND = (24, 24, 28)
FOREGROUND = (240, 240, 240)
EVENT_COLOUR = (255, 200, 90)


@lru_cache(maxsize=4)
def _font(size: int):
    try:
        return ImageFont.load_default(size=size)
    except (OSError, TypeError, ValueError):  # a Pillow without FreeType: its bitmap font
        return ImageFont.load_default()


def caption(t: float, moment: Moment) -> tuple[str, str]:
    """The strip's two texts: time and command on the left, the command and event after them."""
    left = f"t {t:7.2f} s  cmd {moment.command}/{moment.commands}"
    right = f"{moment.label}  |  {moment.event}" if moment.event and moment.event != moment.label else moment.label
    return left, right


def draw_strip(strip: np.ndarray, t: float, moment: Moment) -> None:
    """Draw the caption of time t into `strip` (h, w, 3 uint8, written in place)."""
    h, w = strip.shape[:2]
    img = Image.new("RGB", (w, h), BACKGROUND)
    d = ImageDraw.Draw(img)
    font = _font(max(9, h * 5 // 8))
    left, right = caption(t, moment)
    y = max(0, (h - font.size) // 2 - 1) if hasattr(font, "size") else 2
    d.text((6, y), left, fill=FOREGROUND, font=font)
    x = 6 + int(d.textlength(left, font=font)) + 14
    d.text((x, y), right, fill=EVENT_COLOUR, font=font)
    strip[:] = np.asarray(img)


@lru_cache(maxsize=16)
def _label_patch(text: str, height: int) -> np.ndarray:
    font = _font(max(8, height * 3 // 4))
    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    width = int(probe.textlength(text, font=font)) + 8
    img = Image.new("RGB", (width, height), BACKGROUND)
    ImageDraw.Draw(img).text((4, 0), text, fill=FOREGROUND, font=font)
    return np.asarray(img)


def draw_tile_label(tile: np.ndarray, text: str) -> None:
    """A small name in the tile's top left corner (written in place)."""
    h, w = tile.shape[:2]
    patch = _label_patch(text[:40], max(10, h // 14))
    ph, pw = min(patch.shape[0], h), min(patch.shape[1], w)
    tile[:ph, :pw] = patch[:ph, :pw]
