"""Charts as inline SVG (no script, no library): a line chart of series of points and a horizontal bar
chart, each scaled to the width of the page. Labels are escaped; points and bars carry their values
(`data-x`, `data-y`, `data-value`) and a tooltip."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

from simreflect.viewer.markup import e

PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f")
MAX_LABEL_CHARS = 48


@dataclass(frozen=True)
class Series:
    label: str
    points: tuple[tuple[float, float], ...]
    """(x, y); a point whose y is not finite is left out."""


def _short(text: str, n: int = MAX_LABEL_CHARS) -> str:
    text = str(text)
    return text if len(text) <= n else text[:n - 1] + "\u2026"


def _ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step + 1e-9) + 1)]


def _num(x: float) -> str:
    return f"{x:.4g}"


def line_chart(title: str, series: Sequence[Series], x_label: str, y_label: str,
               y_range: tuple[float, float] | None = None, css_class: str = "") -> str:
    """Lines through each series' points (x ascending), with a legend; '' when no series has a point."""
    drawn = [Series(s.label, tuple(sorted((float(x), float(y)) for x, y in s.points if math.isfinite(y))))
             for s in series]
    drawn = [s for s in drawn if s.points]
    if not drawn:
        return ""
    xs = [x for s in drawn for x, _ in s.points]
    ys = [y for s in drawn for _, y in s.points]
    x0, x1 = min(xs), max(xs)
    if x1 == x0:
        x0, x1 = x0 - 1, x1 + 1
    y0, y1 = y_range if y_range else (min(ys), max(ys))
    if y1 <= y0:
        y0, y1 = y0 - 1, y1 + 1
    w, left, right, top, ph = 640, 56, 16, 30, 220
    pw = w - left - right
    h = top + ph + 60 + 16 * ((len(drawn) - 1) // 2)

    def px(x: float) -> float:
        return left + (x - x0) / (x1 - x0) * pw

    def py(y: float) -> float:
        return top + ph - (min(max(y, y0), y1) - y0) / (y1 - y0) * ph

    out = [f"<svg class='chart line-chart {e(css_class)}' viewBox='0 0 {w} {h}' role='img' "
           f"xmlns='http://www.w3.org/2000/svg'><title>{e(title)}</title>",
           f"<text class='title' x='{left}' y='18'>{e(_short(title, 90))}</text>"]
    for t in _ticks(y0, y1):
        out.append(f"<line class='grid' x1='{left}' x2='{left + pw}' y1='{py(t):.1f}' y2='{py(t):.1f}'/>"
                   f"<text x='{left - 6}' y='{py(t) + 4:.1f}' text-anchor='end'>{_num(t)}</text>")
    for t in _ticks(x0, x1, min(10, max(1, int(x1 - x0)))):
        out.append(f"<text x='{px(t):.1f}' y='{top + ph + 16}' text-anchor='middle'>{_num(t)}</text>")
    out.append(f"<line class='axis' x1='{left}' x2='{left + pw}' y1='{top + ph}' y2='{top + ph}'/>"
               f"<line class='axis' x1='{left}' x2='{left}' y1='{top}' y2='{top + ph}'/>"
               f"<text x='{left + pw / 2}' y='{top + ph + 34}' text-anchor='middle'>{e(x_label)}</text>"
               f"<text x='14' y='{top + ph / 2}' text-anchor='middle' transform='rotate(-90 14 {top + ph / 2})'>"
               f"{e(y_label)}</text>")
    for k, s in enumerate(drawn):
        color = PALETTE[k % len(PALETTE)]
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in s.points)
        # later series dashed and with smaller marks, so a line another one covers still shows
        dash = "" if k == 0 else f" stroke-dasharray='{6 + 2 * k} 4'"
        radius = max(2.0, 4.5 - 0.8 * k)
        out.append(f"<g class='series' data-label='{e(s.label)}'>"
                   f"<polyline fill='none' stroke='{color}' stroke-width='2'{dash} points='{path}'/>")
        for x, y in s.points:
            out.append(f"<circle class='point' cx='{px(x):.1f}' cy='{py(y):.1f}' r='{radius:.1f}' fill='{color}' "
                       f"data-x='{_num(x)}' data-y='{_num(y)}'><title>{e(s.label)}: {_num(x)}, {_num(y)}</title></circle>")
        out.append("</g>")
        lx, ly = left + (k % 2) * pw / 2, top + ph + 52 + 16 * (k // 2)
        out.append(f"<rect x='{lx:.1f}' y='{ly - 9}' width='12' height='10' fill='{color}'/>"
                   f"<text x='{lx + 16:.1f}' y='{ly}'>{e(_short(s.label, 60))}</text>")
    out.append("</svg>")
    return "".join(out)


def bar_chart(title: str, bars: Sequence[tuple[str, float]], value_text: Callable[[float], str] = _num,
              x_max: float | None = None, css_class: str = "", width: int = 1000, colors: bool = False) -> str:
    """One horizontal bar per (label, value >= 0), in the order given; '' when there are none.
    `width`: of the drawing (it is scaled to its box: 1000 for the page's width, about 500 for half);
    `colors`: each bar in the colour of the line chart's series of the same position."""
    if not bars:
        return ""
    w, right, top, row = width, 70, 30, 24
    left = min(300, w // 3)
    h = top + row * len(bars) + 8
    top_value = x_max if x_max is not None else max((v for _, v in bars if math.isfinite(v)), default=0.0)
    scale = (w - left - right) / top_value if top_value > 0 else 0.0
    out = [f"<svg class='chart bar-chart {e(css_class)}' viewBox='0 0 {w} {h}' role='img' "
           f"xmlns='http://www.w3.org/2000/svg'><title>{e(title)}</title>",
           f"<text class='title' x='4' y='18'>{e(_short(title, 120))}</text>"]
    for k, (label, value) in enumerate(bars):
        v = value if math.isfinite(value) and value > 0 else 0.0
        y = top + k * row
        out.append(f"<text x='{left - 8}' y='{y + 15}' text-anchor='end'>{e(_short(label))}</text>"
                   f"<rect class='bar' x='{left}' y='{y + 3}' width='{v * scale:.1f}' height='{row - 7}' "
                   f"fill='{PALETTE[k % len(PALETTE)] if colors else PALETTE[0]}' data-label='{e(label)}' data-value='{_num(value)}'>"
                   f"<title>{e(label)}: {e(value_text(value))}</title></rect>"
                   f"<text x='{left + v * scale + 6:.1f}' y='{y + 15}'>{e(value_text(value))}</text>")
    out.append("</svg>")
    return "".join(out)
