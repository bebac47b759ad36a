"""The command protocol of the workshop service: what a client may send, as pydantic models.

The same models validate commands over HTTP (FastAPI turns a validation error into a 422 with the
field and the reason) and commands given to the engine in-process. Everything is checked before
anything is executed: a command that fails validation changes nothing.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from simreflect.suites.workshop.world import ARM_JOINTS, HZ, JOINT_CLASSES, SIDE_JOINTS, joint_class

MAX_SEGMENT_S = 5.0
MAX_SEGMENTS = 50
MAX_EE_LINEAR = 0.4  # m/s
MAX_EE_ANGULAR = 1.5  # rad/s
MAX_NOTE_CHARS = 2000

Vec3 = Annotated[list[float], Field(min_length=3, max_length=3)]


def _finite(v: list[float], what: str) -> list[float]:
    for x in v:
        if not math.isfinite(x):
            raise ValueError(f"{what} must be finite numbers")
    return v


class EndEffector(BaseModel):
    """Velocity of a point fixed to the hand (world frame): linear m/s and angular rad/s. The arm's
    seven joints follow from damped least squares on the hand Jacobian at that point, every step."""

    model_config = ConfigDict(extra="forbid")
    linear: Vec3 = Field(default_factory=lambda: [0.0, 0.0, 0.0])
    angular: Vec3 = Field(default_factory=lambda: [0.0, 0.0, 0.0])
    point: Optional[Vec3] = Field(None, description="World point at the segment's start, carried by the hand; default the palm site.")
    use_base: bool = Field(False, description="Let the base slides take part in the motion.")

    @field_validator("linear")
    @classmethod
    def _lin(cls, v):
        _finite(v, "linear")
        if math.sqrt(sum(x * x for x in v)) > MAX_EE_LINEAR + 1e-9:
            raise ValueError(f"linear speed {math.sqrt(sum(x * x for x in v)):.4g} m/s exceeds {MAX_EE_LINEAR} m/s")
        return v

    @field_validator("angular")
    @classmethod
    def _ang(cls, v):
        _finite(v, "angular")
        if math.sqrt(sum(x * x for x in v)) > MAX_EE_ANGULAR + 1e-9:
            raise ValueError(f"angular speed {math.sqrt(sum(x * x for x in v)):.4g} rad/s exceeds {MAX_EE_ANGULAR} rad/s")
        return v

    @field_validator("point")
    @classmethod
    def _pt(cls, v):
        if v is not None:
            _finite(v, "point")
            if any(abs(x) > 5.0 for x in v):
                raise ValueError("point is outside the workshop (|coordinate| > 5 m)")
        return v


class ArmCommand(BaseModel):
    """Joint velocities (rad/s; m/s for base_x, base_y) by short joint name, and/or an end-effector
    velocity. With `ee`, the seven arm joints are driven by the IK and may not also be given."""

    model_config = ConfigDict(extra="forbid")
    joints: dict[str, float] = Field(default_factory=dict)
    ee: Optional[EndEffector] = None

    @field_validator("joints")
    @classmethod
    def _joints(cls, v):
        for name, vel in v.items():
            if name not in SIDE_JOINTS:
                raise ValueError(f"unknown joint {name!r}; joints are {', '.join(SIDE_JOINTS)}")
            if not math.isfinite(vel):
                raise ValueError(f"velocity of {name} must be finite")
            vmax = JOINT_CLASSES[joint_class(name)].max_velocity
            if abs(vel) > vmax + 1e-9:
                raise ValueError(f"velocity {vel:.4g} of {name} exceeds its limit {vmax}")
        return v

    @model_validator(mode="after")
    def _exclusive(self):
        if self.ee is not None:
            both = [j for j in self.joints if j in ARM_JOINTS]
            if both:
                raise ValueError(f"arm joints {both} given together with an end-effector velocity")
        return self


STOP_CLASSES = ("any", "static", "object", "robot", "left_hand", "right_hand", "left", "right")


class StopWhen(BaseModel):
    """Stop the segment as soon as `a` touches `b` with at least `min_force` newtons of normal force.
    `a`: an object name (board, drill, screw) or left_hand / right_hand; `b`: an object name or one of
    any, static (table, racks, comb), object, robot, left_hand, right_hand, left, right (whole arm).
    With `state` (screws only: seated or driven), stop instead when screw `a` reaches that state."""

    model_config = ConfigDict(extra="forbid")
    a: str
    b: str = "any"
    min_force: float = Field(0.0, ge=0.0, le=1000.0)
    state: Optional[Literal["seated", "driven"]] = None


class Move(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["move"] = "move"
    duration: float = Field(..., gt=0.0, le=MAX_SEGMENT_S, description="Seconds, rounded to whole 1/180 s steps (at least one).")
    left: Optional[ArmCommand] = None
    right: Optional[ArmCommand] = None
    stop: list[StopWhen] = Field(default_factory=list, max_length=8)

    @field_validator("duration")
    @classmethod
    def _dur(cls, v):
        if not math.isfinite(v):
            raise ValueError("duration must be finite")
        return v

    @property
    def steps(self) -> int:
        return max(1, int(round(self.duration * HZ)))


class Wait(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["wait"]
    duration: float = Field(..., gt=0.0, le=MAX_SEGMENT_S)

    @property
    def steps(self) -> int:
        return max(1, int(round(self.duration * HZ)))


class DrillAction(BaseModel):
    """engage: seat the bit of the drill this hand holds in the screw head it touches (and, for a
    free screw, seat the screw's tip in the board it stands on); release: stop driving."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["drill"]
    hand: Literal["left", "right"]
    action: Literal["engage", "release"]


Segment = Annotated[Union[Move, Wait, DrillAction], Field(discriminator="type")]


class Act(BaseModel):
    model_config = ConfigDict(extra="forbid")
    segments: list[Segment] = Field(..., min_length=1, max_length=MAX_SEGMENTS)


class Note(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(..., min_length=1, max_length=MAX_NOTE_CHARS)


class Finish(BaseModel):
    model_config = ConfigDict(extra="forbid")
    summary: str = Field("", max_length=MAX_NOTE_CHARS)


def parse_act(payload: dict) -> Act:
    return Act.model_validate(payload)


def parse_segment(payload: dict) -> Act:
    """A single segment (the /step endpoint): a move if it has no type."""
    payload = dict(payload)
    payload.setdefault("type", "move")
    return Act.model_validate({"segments": [payload]})
