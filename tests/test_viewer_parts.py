"""The viewer's parts on their own: the paired differences of analysis/compare.py, the SVG charts, the
summary's sections replaced by charts, page names for any task id, and a suite whose attempt
pictures fail (the viewer goes on, the page says why, no broken image)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from simreflect.analysis.bootstrap import bootstrap_interval
from simreflect.analysis.compare import ItemResult, episode_score, item_results, paired_difference, shared_items
from simreflect.core.registry import register_suite, unregister_suite
from simreflect.run.runner import RunConfig, run
from simreflect.testing.toy import ToySuite, write_task_list
from simreflect.viewer import write_viewer
from simreflect.viewer.charts import Series, bar_chart, line_chart
from simreflect.viewer.episodes import SAFE_NAME, page_stem
from simreflect.viewer.markup import markdown_tables

HOSTILE = "<script>alert(1)</script>"


def _items(values: dict[str, tuple[float, float | None]]) -> dict:
    return {("s", t, "L1"): ItemResult(("s", t, "L1"), 1, solved, score) for t, (solved, score) in values.items()}


def test_paired_difference_is_the_mean_of_the_per_task_differences_with_a_paired_interval():
    a = _items({"t1": (1.0, 100.0), "t2": (1.0, 80.0), "t3": (0.0, 10.0), "only-a": (1.0, 100.0)})
    b = _items({"t1": (0.0, 20.0), "t2": (1.0, 80.0), "t3": (0.5, None), "only-b": (0.0, 0.0)})
    d = paired_difference("A", a, "B", b)
    assert d.n == 3 and d.scored == 2  # t3 has no score on B's side
    assert d.solved_diff == np.mean([1.0, 0.0, -0.5]) and d.score_diff == np.mean([80.0, 0.0])
    assert d.solved_ci == bootstrap_interval([1.0, 0.0, -0.5], seed=0)  # tasks resampled together
    assert (d.wins, d.losses, d.ties) == (1, 1, 1)  # t1 by score, t2 tied, t3 by its solved share
    none = paired_difference("A", a, "C", _items({"x": (1.0, 1.0)}))
    assert not none.shared and math.isnan(none.solved_diff) and math.isnan(none.score_ci[0])
    assert shared_items(a, b) == [("s", "t1", "L1"), ("s", "t2", "L1"), ("s", "t3", "L1")]


def test_an_episode_score_is_the_best_finite_number_its_records_hold():
    assert episode_score({"rounds": [{"score_before": -5, "score": None}, {"score": 3.5}]}) == 3.5
    assert episode_score({"rounds": [{"score_before": 2.0, "score": None}]}) == 2.0  # nothing verified: the start
    assert episode_score({"rounds": [{"score_before": float("nan"), "score": "100"}, {"score": True}]}) is None
    assert episode_score({"rounds": []}) is None
    rows = [{"task": "t", "level": "L1", "finished": True, "solved": True, "rounds": [{"score": 1.0}]},
            {"task": "t", "level": "L1", "finished": True, "solved": False, "rounds": [{"score": 0.0}]},
            {"task": "u", "level": "L1", "finished": False, "solved": False, "rounds": []}]  # infra: in no mean
    results = item_results("s", rows)
    assert list(results) == [("s", "t", "L1")] and results[("s", "t", "L1")].solved == 0.5
    assert results[("s", "t", "L1")].score == 0.5 and results[("s", "t", "L1")].episodes == 2


def test_charts_draw_every_finite_point_and_bar_escaped():
    svg = line_chart(HOSTILE, [Series(HOSTILE, ((1, 10.0), (2, float("nan")), (3, 30.0))), Series("b", ((1, 5.0),))],
                     "x", "y", (0.0, 100.0))
    assert svg.count("class='point'") == 3 and svg.count("<polyline") == 2  # the NaN left out
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    assert line_chart("t", [Series("a", ())], "x", "y") == ""
    bars = bar_chart("t", [(HOSTILE, 3.0), ("b", 0.0), ("c", float("inf"))])
    assert bars.count("class='bar'") == 3 and "<script>" not in bars and "viewBox='0 0 1000" in bars
    assert bar_chart("t", []) == ""


def test_a_summary_section_is_replaced_and_wide_tables_scroll():
    md = ("### Error taxonomy of the failed runs\n\nUnit: failed run\n\na | b\n---|---\n1 | 2\n\n"
          "### Error taxonomy: priority order and thresholds\n\nx | y\n---|---\n3 | 4\n")
    html = markdown_tables(md, {"Error taxonomy of the failed runs": "<svg class='taxonomy'></svg>"})
    assert "<h4>Error taxonomy of the failed runs</h4>\n<svg class='taxonomy'></svg>" in html
    assert "Unit: failed run" not in html and "<td>1</td>" not in html  # the wide table is gone ...
    assert "<td>3</td>" in html and "priority order" in html  # ... the next section stays
    assert html.count("<div class='wide'>") == 1


def test_a_page_name_is_a_plain_file_name_for_any_task_id():
    assert page_stem({"task": "ep01", "level": "L2", "run": 0}) == "ep01-L2"
    assert page_stem({"task": "ep01", "level": "L2", "run": 3}) == "ep01-L2-run3"
    for task in (HOSTILE, "../../etc/passwd", ".hidden", "a/b", "\ud800", "x" * 500):
        stem = page_stem({"task": task, "level": "L1", "run": 0})
        assert SAFE_NAME.fullmatch(stem) and not stem.startswith(".") and "/" not in stem
    assert page_stem({"task": "a/b", "level": "L1"}) != page_stem({"task": "a_b", "level": "L1"})


class FailingPictures(ToySuite):
    """The toy suite, claiming to draw attempts and failing at it: once by raising, once by drawing nothing."""

    name = "toypictures"
    calls: list[int] = []

    def attempt_picture(self, task, programs, dest, timeout_s):
        FailingPictures.calls.append(len(programs))
        if task.id.endswith("0"):
            raise RuntimeError("the renderer crashed " + HOSTILE)
        return None


def test_an_attempt_picture_that_fails_never_fails_the_viewer(tmp_path):
    register_suite(FailingPictures.name, FailingPictures)
    try:
        bench = write_task_list(tmp_path / "bench", 2, seed=1)
        run(tmp_path / "run", RunConfig(suite=FailingPictures.name, bench=str(bench), agent="oracle", levels=("L1",),
                                        rounds=1))
        index = write_viewer(tmp_path / "run")
    finally:
        unregister_suite(FailingPictures.name)
    pages = {p.name: p.read_text() for p in (index.parent / "episodes").glob("*.html")}
    assert FailingPictures.calls == [1, 1]  # round 1 of each episode: the last and the best, drawn once
    crashed, empty = pages["toy-00-L1.html"], pages["toy-01-L1.html"]
    assert "no picture of this round's program: not drawn (RuntimeError: the renderer crashed &lt;script&gt;" in crashed
    assert "nothing to draw" in empty
    assert "<img" not in crashed + empty and not list(Path(index.parent / "media").glob("*-round*"))


def test_a_view_draws_at_most_its_budget_of_new_pictures(tmp_path):
    from simreflect.core.records import RoundRecord
    from simreflect.viewer.pictures import PictureBudget, attempt_pictures

    class Drawing(ToySuite):
        def attempt_picture(self, task, programs, dest, timeout_s):
            Path(dest).write_bytes(b"GIF89a")
            return Path(dest)

    task = ToySuite().load_tasks()[0]
    ok = {"status": "ok", "reason": "", "output_tail": ""}
    rounds = [RoundRecord(1, script="a", program=ok, accepted=True, verdict={"score": 0.5}),
              RoundRecord(2, script="b", program=ok, accepted=True, verdict={"score": 0.2})]
    budget = PictureBudget(1)
    drawn = attempt_pictures(Drawing(), task, rounds, tmp_path, "ep", 5.0, budget)
    assert [(p.round, p.name) for p in drawn] == [(1, "ep-round1.gif"), (2, None)]  # the best, then the budget ends
    assert "the next view of the run draws more" in drawn[1].why
    again = attempt_pictures(Drawing(), task, rounds, tmp_path, "ep", 5.0, PictureBudget(1))
    assert [p.name for p in again] == ["ep-round1.gif", "ep-round2.gif"]  # the drawn one reused, not counted


def test_the_sign_test_of_a_comparison_is_the_exact_binomial_one():
    from scipy.stats import binomtest

    a = _items({f"t{i}": (1.0, 10.0) for i in range(6)})
    b = _items({f"t{i}": (0.0, 0.0 if i < 5 else 10.0) for i in range(6)})
    d = paired_difference("A", a, "B", b)
    assert (d.wins, d.losses, d.ties) == (5, 0, 1) and d.p == binomtest(5, 5, 0.5).pvalue
