"""Pictures of the adaptation analysis (matplotlib, PNG and SVG, byte-stable for the same input):
budget curves with 95% bands, taxonomy shares as stacked bars, similarity per transition."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from simreflect.analysis.passk import BudgetCurves  # noqa: E402
from simreflect.analysis.similarity import TransitionStat  # noqa: E402
from simreflect.analysis.taxonomy import LABEL_TITLES, LABELS, TaxonomyTable  # noqa: E402

_RC = {"svg.hashsalt": "simreflect", "svg.fonttype": "path"}
_LABEL_COLORS = ("#7f0000", "#d62728", "#ff7f0e", "#bcbd22", "#1f77b4", "#2ca02c", "#9467bd", "#17becf", "#7f7f7f")


def _name(key: tuple) -> str:
    return " / ".join(str(v) for v in key) or "all"


def _save(fig, out_stem: Path) -> list[Path]:
    out_stem = Path(out_stem)
    out_stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in ("png", "svg"):
        path = out_stem.with_suffix(f".{ext}")
        fig.savefig(path, metadata={"Date": None} if ext == "svg" else {"Software": None})
        paths.append(path)
    plt.close(fig)
    return paths


def plot_budget_curves(curves: BudgetCurves, out_stem: Path, title: str = "") -> list[Path]:
    """Pass@k@b (left) and Score@k@b (right) against the budget b, one line and 95% band per group."""
    k = curves.k
    with plt.rc_context(_RC):
        fig, (ax_p, ax_s) = plt.subplots(1, 2, figsize=(10, 3.8), dpi=110)
        for key, pts in curves.curves.items():
            b = np.array([p.b for p in pts])
            n = pts[0].n if pts else 0
            for ax, val, ci, scale in ((ax_p, "pass_at_k", "pass_ci", 100.0), (ax_s, "score_at_k", "score_ci", 1.0)):
                y = np.array([getattr(p, val) for p in pts]) * scale
                lo = np.array([getattr(p, ci)[0] for p in pts]) * scale
                hi = np.array([getattr(p, ci)[1] for p in pts]) * scale
                (line,) = ax.plot(b, y, marker="o", ms=3, label=f"{_name(key)} (n={n})")
                ax.fill_between(b, lo, hi, color=line.get_color(), alpha=0.18, linewidth=0)
        ax_p.set_ylabel(f"Pass@{k}@b (% of pairs)")
        ax_p.set_ylim(-2, 102)
        ax_s.set_ylabel(f"Score@{k}@b")
        a0 = "with attempt 0" if curves.include_attempt0 else "without attempt 0"
        for ax in (ax_p, ax_s):
            ax.set_xlabel("attempt budget b")
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.grid(alpha=0.3)
            if curves.max_budget:
                ax.set_xlim(0.5, curves.max_budget + 0.5)
        ax_p.legend(fontsize=7, loc="upper left")
        fig.suptitle(title or f"Success by attempt budget ({a0}; bands: 95% bootstrap over pairs)", fontsize=10)
        fig.tight_layout()
        return _save(fig, out_stem)


def plot_taxonomy_shares(table: TaxonomyTable, out_stem: Path, title: str = "") -> list[Path]:
    """One stacked bar per group: the share of each error label among its failed runs (n above)."""
    rows = table.rows
    with plt.rc_context(_RC):
        fig, ax = plt.subplots(figsize=(max(5.0, 1.1 * len(rows) + 3.5), 4.0), dpi=110)
        x = np.arange(len(rows))
        bottom = np.zeros(len(rows))
        for label, color in zip(LABELS, _LABEL_COLORS):
            share = np.array([0.0 if r.n_failed == 0 else r.shares[label] * 100 for r in rows])
            ax.bar(x, share, 0.7, bottom=bottom, color=color, label=LABEL_TITLES[label])
            bottom += share
        for xi, r in zip(x, rows):
            ax.text(xi, 101, f"n={r.n_failed}", ha="center", va="bottom", fontsize=7)
        ax.set_xticks(x, [_name(tuple(v for _, v in r.group)) for r in rows], rotation=20, ha="right", fontsize=8)
        ax.set_ylim(0, 108)
        ax.set_ylabel("% of failed runs")
        ax.set_title(title or "Error taxonomy (one label per failed run)", fontsize=10)
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
        fig.tight_layout()
        return _save(fig, out_stem)


def plot_similarity(series: dict[tuple, Sequence[TransitionStat]], out_stem: Path, title: str = "") -> list[Path]:
    """Mean code similarity per transition (attempt t-1 -> t), one line and 95% band per group."""
    with plt.rc_context(_RC):
        fig, ax = plt.subplots(figsize=(6.5, 3.6), dpi=110)
        for key, stats in series.items():
            if not stats:
                continue
            t = np.array([s.index for s in stats])
            y = np.array([s.mean for s in stats])
            (line,) = ax.plot(t, y, marker="o", ms=3, label=f"{_name(key)} (runs: {max(s.n for s in stats)})")
            ax.fill_between(t, [s.ci[0] for s in stats], [s.ci[1] for s in stats], color=line.get_color(),
                            alpha=0.18, linewidth=0)
        ax.set_xlabel("transition t (attempt t-1 -> t)")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel("code similarity")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        ax.set_title(title or "Similarity of consecutive attempts (bands: 95% bootstrap over runs)", fontsize=10)
        fig.tight_layout()
        return _save(fig, out_stem)
