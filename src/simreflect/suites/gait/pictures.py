"""The picture of an episode: its broken input walking, falling under MuJoCo where balance fails."""

from __future__ import annotations

from pathlib import Path

from simreflect.core.task import Task
from simreflect.suites.gait.episodes import Episode
from simreflect.suites.gait.fixrunner import RIG_FILE
from simreflect.suites.gait.render import episode_gif
from simreflect.suites.gait.rig import Rig
from simreflect.suites.gait.verify import WalkReference, verify_rig


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


def attempt_gif(task: Task, rig: Rig, path: Path) -> int:
    """The GIF of a rig a fix script left (the episode's leaked vertices marked red, so a fixed leak
    shows): walking, falling where balance fails, as the episode's own picture. ValueError when the
    rig's structure is not the episode's (the verifier rejects such a rig as a whole)."""
    trusted = Rig.load(Path(task.params["dir"]) / RIG_FILE)
    verdict = verify_rig(rig, WalkReference.from_dict(task.hidden["walk_check"]), trusted=trusted)
    if verdict.invalid:
        raise ValueError(f"the rig is not the episode's: {verdict.invalid}")
    balance = verdict.check("balance")
    first = None if balance.passed else balance.where.get("first_frame")
    leaked = {v for d in task.hidden["defects"] if d["kind"] == "leak" for v in d["vertices"]}
    title = f"{task.id}: {'all checks pass' if verdict.passed else ', '.join(verdict.errors) or 'failing'}"
    return episode_gif(path, rig, fall_from=None if first is None else int(first), highlight=leaked, title=title)
