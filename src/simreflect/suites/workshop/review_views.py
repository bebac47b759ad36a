"""The review video's cameras: three fixed views of the workshop and one close view that follows
the active hand.

They are free cameras of the renderer (mjvCamera: a point looked at, a distance, an azimuth and an
elevation), not the MJCF's cameras, so a record made before these views existed renders with them
too. The fixed views look at the work area over the table from where the robot's columns do not
stand in the way: from behind the table (the side across from the robot), from straight above, and
from the left end high over the screw comb and the stock rack. The close view looks at the active
hand's pinch point, or at the bit tip when that hand holds a drill, from behind and above.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simreflect.suites.workshop.builds.spec import TABLE_TOP


@dataclass(frozen=True)
class View:
    """A free camera: it looks at `lookat` from `distance` m, azimuth and elevation in degrees
    (MuJoCo's convention: azimuth 90 looks along +y, elevation negative looks down)."""

    name: str
    lookat: tuple[float, float, float]
    distance: float
    azimuth: float
    elevation: float


#: The fixed views, in tile order (the close view is the fourth tile).
FIXED_VIEWS = (
    View("behind", (0.0, -0.25, TABLE_TOP + 0.12), 1.5, -90.0, -58.0),
    View("top", (-0.3, -0.12, TABLE_TOP), 1.75, 90.0, -89.0),
    View("left", (-0.35, -0.05, TABLE_TOP + 0.05), 1.45, 0.0, -50.0),
)
CLOSE_DISTANCE = 0.42
CLOSE_AZIMUTH, CLOSE_ELEVATION = -120.0, -38.0
TILE_NAMES = tuple(v.name for v in FIXED_VIEWS) + ("hand",)


def close_view(point: np.ndarray) -> View:
    """The close view of a point (the active hand's, see the module doc)."""
    p = np.asarray(point, float)
    return View("hand", (float(p[0]), float(p[1]), float(p[2])), CLOSE_DISTANCE, CLOSE_AZIMUTH, CLOSE_ELEVATION)


def set_camera(camera, view: View) -> None:
    """Point a mujoco.MjvCamera (free) at a view."""
    import mujoco

    camera.type = mujoco.mjtCamera.mjCAMERA_FREE
    camera.lookat[:] = view.lookat
    camera.distance = view.distance
    camera.azimuth = view.azimuth
    camera.elevation = view.elevation
