"""Pictures of a run's summary (matplotlib, PNG and SVG)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def solved_by_level(summary: dict[str, Any], out_stem: Path, title: str = "") -> list[Path]:
    """Bars of solved-in-1-round and solved-within-budget shares per level, with 95% intervals."""
    levels = list(summary["levels"])
    budget = summary["budget"]
    fig, ax = plt.subplots(figsize=(6, 3.4), dpi=110)
    width = 0.38
    x = np.arange(len(levels))
    for k, (key, label) in enumerate((("solved_1", "solved in 1 round"), ("solved_within", f"solved within {budget}"))):
        n = np.array([max(summary["levels"][lv]["n"], 1) for lv in levels])
        share = np.array([summary["levels"][lv][key] for lv in levels]) / n
        ci = np.array([summary["levels"][lv][f"{key}_ci"] for lv in levels], dtype=float)
        err = np.nan_to_num(np.abs(np.stack([share - ci[:, 0], ci[:, 1] - share])))
        ax.bar(x + (k - 0.5) * width, share * 100, width, yerr=err * 100, capsize=3, label=label,
               color=("#f28e2b", "#4e79a7")[k])
    ax.set_xticks(x, levels)
    ax.set_ylim(0, 105)
    ax.set_ylabel("% of episodes")
    ax.set_title(title or "solved by evidence level")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    paths = []
    for ext in ("png", "svg"):
        path = out_stem.with_suffix(f".{ext}")
        fig.savefig(path, metadata={"Date": None} if ext == "svg" else None)
        paths.append(path)
    plt.close(fig)
    return paths
