"""The report pictures are written as non-empty PNG and SVG files, the same bytes for the same input."""

from __future__ import annotations

from simreflect.analysis.passk import budget_curves
from simreflect.analysis.report_plots import plot_budget_curves, plot_similarity, plot_taxonomy_shares
from simreflect.analysis.similarity import similarity_by_group
from simreflect.analysis.taxonomy import taxonomy_table
from simreflect.analysis.trajectory import Attempt, Trajectory


def _runs():
    out = []
    for m, method in enumerate(("vanilla", "reflexion")):
        for task in range(4):
            for run in range(2):
                atts, prog = [], "x = 1\n"
                for i in range(1, 7):
                    score = min(100.0, -80.0 + 28 * i + 10 * m + 5 * task - 7 * run)
                    prog += f"y{i} = {i}\n" if (i + task) % 2 else ""
                    atts.append(Attempt(i, score, score >= 100, program=prog))
                    if score >= 100:
                        break
                end = "solved" if atts[-1].passed else "budget"
                out.append(Trajectory(f"T{task}", "statics", 1 + task, method, "m", run, atts, end, budget=6))
    return out


def test_plots_are_written(tmp_path):
    runs = _runs()
    curves = budget_curves(runs, k=2, include_attempt0=False)
    sims, _ = similarity_by_group(runs)
    made = (plot_budget_curves(curves, tmp_path / "a" / "curves")
            + plot_taxonomy_shares(taxonomy_table(runs, by=("method",)), tmp_path / "a" / "taxonomy")
            + plot_similarity(sims, tmp_path / "a" / "similarity"))
    assert sorted(p.name for p in made) == sorted(f"{s}.{e}" for s in ("curves", "taxonomy", "similarity")
                                                  for e in ("png", "svg"))
    for p in made:
        assert p.exists() and p.stat().st_size > 1000
        if p.suffix == ".png":
            assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        else:
            assert b"<svg" in p.read_bytes()[:2000]
    again = plot_budget_curves(curves, tmp_path / "b" / "curves")
    assert again[1].read_bytes() == made[1].read_bytes()  # the SVG is byte-stable
