"""The run viewer on a gait run: the episode's picture (the GIF) loads and gait's scripts are shown
(the viewer's core behaviour: test_viewer.py, on the toy suite)."""

from __future__ import annotations

import pytest

from test_viewer import episode_in_chromium, needs_chromium, scripted_run


@pytest.fixture(scope="module")
def run_dir(one_bench, tmp_path_factory):
    from simreflect.suites.gait.suite import GaitSuite

    oracle = GaitSuite().load_tasks(one_bench)[0].hidden["oracle_fix"]
    return scripted_run(tmp_path_factory.mktemp("viewrun"), "gait", one_bench,
                        "rig.fcurve('torso', 'location')[:, 0] += 0.0\n", oracle)


@needs_chromium
def test_gait_episode_shows_its_picture_and_scripts(run_dir, tmp_path):
    with episode_in_chromium(run_dir, "ep01", tmp_path / "episode.png") as page:
        assert "rig.fcurve" in page.locator(".script").nth(0).inner_text()
        assert "Oracle repair" in page.locator(".script").nth(1).inner_text()
        assert page.evaluate("document.querySelector('img.pic').naturalWidth") > 0  # the GIF loaded
        # the oracle's round (the last and the best) drawn: the rig its fix script left, walking
        assert page.locator("img.attempt").count() == 1
        assert page.evaluate("document.querySelector('img.attempt').naturalWidth") > 0
        assert page.locator(".round .score").nth(1).inner_text() == "1"  # all seven checks pass
