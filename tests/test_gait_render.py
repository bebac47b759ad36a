"""The fall simulation (MuJoCo) and the Pillow renderer of the gait suite."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from simreflect.suites.gait.episodes import build_episode
from simreflect.suites.gait.falls import part_com, simulate_fall
from simreflect.suites.gait.render import episode_gif, render_frames
from simreflect.suites.gait.robot import ORANGE, build_robot
from simreflect.suites.gait.verify import verify_rig


@pytest.fixture(scope="module")
def balance_episode():
    ep = build_episode(0, 0, ("balance",))
    first = verify_rig(ep.rig, ep.reference).check("balance").where["first_frame"]
    return ep, first


@pytest.fixture(scope="module")
def normal_rig():
    rig, _, _, _ = build_robot(np.random.default_rng(0))
    return rig


def test_balance_defect_falls_to_the_floor(balance_episode):
    ep, first = balance_episode
    out = simulate_fall(ep.rig, first)
    assert out.shape == (round(1.5 * ep.rig.fps), len(ep.rig.rest_vertices), 3)
    start = part_com(ep.rig, ep.rig.world_vertices(first))
    end = part_com(ep.rig, out[-1])
    assert end[2] < 0.45 * start[2], (start, end)  # lying down, not standing
    assert out[..., 2].min() > -0.05
    assert np.all(np.isfinite(out))


def test_simulate_fall_is_deterministic(balance_episode, normal_rig):
    ep, first = balance_episode
    a, b = simulate_fall(ep.rig, first), simulate_fall(ep.rig, first)
    assert a.tobytes() == b.tobytes()
    c, d = simulate_fall(normal_rig, 0, seconds=0.5, fps=30), simulate_fall(normal_rig, 0, seconds=0.5, fps=30)
    assert c.shape == (15, len(normal_rig.rest_vertices), 3)
    assert c.tobytes() == d.tobytes()


def _orange_pixels(im: Image.Image) -> int:
    px = np.asarray(im.convert("RGB")).astype(int)
    r, g, b = px[..., 0], px[..., 1], px[..., 2]
    ratio = ORANGE[1] / ORANGE[0]
    return int(np.sum((r > 90) & (b < 40) & (np.abs(g - ratio * r) < 0.12 * r)))


def test_render_frames_size_and_content(normal_rig):
    verts = normal_rig.world_vertices()[:3]
    images = render_frames(verts, normal_rig, highlight={10, 11}, size=(200, 160), title="t")
    assert len(images) == 3
    assert all(im.size == (200, 160) and im.mode == "RGB" for im in images)
    assert _orange_pixels(images[0]) > 10  # the face and chest plates face the camera
    assert len(np.unique(np.asarray(images[0]).reshape(-1, 3), axis=0)) > 20  # not blank
    again = render_frames(verts, normal_rig, highlight={10, 11}, size=(200, 160), title="t")
    assert all(a.tobytes() == b.tobytes() for a, b in zip(images, again))


def test_episode_gif_frame_counts(tmp_path, normal_rig, balance_episode):
    walk = tmp_path / "walk.gif"
    assert episode_gif(walk, normal_rig, size=(160, 160)) == normal_rig.frame_count
    with Image.open(walk) as im:
        assert im.n_frames == normal_rig.frame_count
        assert im.size == (160, 160)
        assert im.info.get("loop") == 0

    ep, first = balance_episode
    fall = tmp_path / "fall.gif"
    expected = first + 1 + round(1.5 * ep.rig.fps)
    assert episode_gif(fall, ep.rig, fall_from=first, size=(160, 160), title="ep01") == expected
    with Image.open(fall) as im:
        assert im.n_frames == expected
    again = tmp_path / "fall2.gif"
    episode_gif(again, ep.rig, fall_from=first, size=(160, 160), title="ep01")
    assert fall.read_bytes() == again.read_bytes()
