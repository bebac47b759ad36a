"""The picture of an episode: its broken input walking, falling under MuJoCo where balance fails."""

from __future__ import annotations

from pathlib import Path

from simreflect.suites.gait.episodes import Episode
from simreflect.suites.gait.render import episode_gif
from simreflect.suites.gait.verify import verify_rig


def fall_frame(ep: Episode) -> int | None:
    """First frame of the first failing balance run, or None when the broken walk keeps its balance."""
    balance = verify_rig(ep.rig, ep.reference).check("balance")
    first = None if balance.passed else balance.where.get("first_frame")  # absent when only a joint separates
    return None if first is None else int(first)


def episode_picture(ep: Episode, path: Path) -> int:
    """Write the episode's GIF (leaked vertices marked red). Returns the number of frames."""
    leaked = {v for d in ep.defects if d["kind"] == "leak" for v in d["vertices"]}
    title = f"{ep.id}: {' + '.join(ep.kinds)}"
    return episode_gif(path, ep.rig, fall_from=fall_frame(ep), highlight=leaked, title=title)
