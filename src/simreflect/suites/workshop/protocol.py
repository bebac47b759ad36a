"""The command protocol of the workshop service: what a client may send, as pydantic models.

The same models validate commands over HTTP (the service turns a validation error into a 422 with
the field and the reason, never the input itself) and commands given to the engine in-process.
Everything is checked before anything is executed: a command that fails validation changes nothing.
Every number must be finite (NaN and infinities are refused, whatever the field), every string is
bounded and must be valid Unicode text (a lone surrogate is refused), every list and map is bounded.
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
MAX_NAME_CHARS = 64  # object, hand and class names in stop conditions
MAX_STOPS = 8
MAX_POINT_M = 5.0


def Text(max_length: int, min_length: int = 0):
    """A bounded string (pydantic refuses one holding a lone surrogate: it is not Unicode text)."""
    return Annotated[str, Field(min_length=min_length, max_length=max_length)]


JointName = Literal[SIDE_JOINTS]


def _vec3(bound: float):
    return Annotated[list[Annotated[float, Field(ge=-bound, le=bound)]], Field(min_length=3, max_length=3)]


class Strict(BaseModel):
    """No unknown fields, no NaN or infinity anywhere, no type coercion (0 is not false, "1" is not 1)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)


class EndEffector(Strict):
    """Velocity of a point fixed to the hand (world frame): linear m/s and angular rad/s. The arm's
    seven joints follow from damped least squares on the hand Jacobian at that point, every step."""

    linear: _vec3(MAX_EE_LINEAR) = Field(default_factory=lambda: [0.0, 0.0, 0.0])
    angular: _vec3(MAX_EE_ANGULAR) = Field(default_factory=lambda: [0.0, 0.0, 0.0])
    point: Optional[_vec3(MAX_POINT_M)] = Field(
        None, description="World point at the segment's start, carried by the hand; default the palm site.")
    use_base: bool = Field(False, description="Let the base slides take part in the motion.")

    @field_validator("linear")
    @classmethod
    def _lin(cls, v):
        if math.sqrt(sum(x * x for x in v)) > MAX_EE_LINEAR + 1e-9:
            raise ValueError(f"linear speed {math.sqrt(sum(x * x for x in v)):.4g} m/s exceeds {MAX_EE_LINEAR} m/s")
        return v

    @field_validator("angular")
    @classmethod
    def _ang(cls, v):
        if math.sqrt(sum(x * x for x in v)) > MAX_EE_ANGULAR + 1e-9:
            raise ValueError(f"angular speed {math.sqrt(sum(x * x for x in v)):.4g} rad/s exceeds {MAX_EE_ANGULAR} rad/s")
        return v


class ArmCommand(Strict):
    """Joint velocities (rad/s; m/s for base_x, base_y) by short joint name, and/or an end-effector
    velocity. With `ee`, the seven arm joints are driven by the IK and may not also be given."""

    joints: dict[JointName, float] = Field(default_factory=dict, max_length=len(SIDE_JOINTS))
    ee: Optional[EndEffector] = None

    @field_validator("joints")
    @classmethod
    def _joints(cls, v):
        for name, vel in v.items():
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


class StopWhen(Strict):
    """Stop the segment as soon as `a` touches `b` with at least `min_force` newtons of normal force.
    `a`: an object name (board, drill, screw) or left_hand / right_hand; `b`: an object name or one of
    any, static (table, racks, comb), object, robot, left_hand, right_hand, left, right (whole arm).
    With `state` (screws only: seated or driven), stop instead when screw `a` reaches that state."""

    a: Text(MAX_NAME_CHARS, min_length=1)
    b: Text(MAX_NAME_CHARS, min_length=1) = "any"
    min_force: float = Field(0.0, ge=0.0, le=1000.0)
    state: Optional[Literal["seated", "driven"]] = None


class Move(Strict):
    type: Literal["move"] = "move"
    duration: float = Field(..., gt=0.0, le=MAX_SEGMENT_S, description="Seconds, rounded to whole 1/180 s steps (at least one).")
    left: Optional[ArmCommand] = None
    right: Optional[ArmCommand] = None
    stop: list[StopWhen] = Field(default_factory=list, max_length=MAX_STOPS)

    @property
    def steps(self) -> int:
        return max(1, int(round(self.duration * HZ)))


class Wait(Strict):
    type: Literal["wait"]
    duration: float = Field(..., gt=0.0, le=MAX_SEGMENT_S)

    @property
    def steps(self) -> int:
        return max(1, int(round(self.duration * HZ)))


class DrillAction(Strict):
    """engage: seat the bit of the drill this hand holds in the screw head it touches (and, for a
    free screw, seat the screw's tip in the board it stands on); release: stop driving."""

    type: Literal["drill"]
    hand: Literal["left", "right"]
    action: Literal["engage", "release"]


Segment = Annotated[Union[Move, Wait, DrillAction], Field(discriminator="type")]


class Act(Strict):
    segments: list[Segment] = Field(..., min_length=1, max_length=MAX_SEGMENTS)
    #: the response carries the state after the command (as GET /state gives it): one round trip less
    with_state: bool = False


class Note(Strict):
    text: Text(MAX_NOTE_CHARS, min_length=1)


class Finish(Strict):
    summary: Text(MAX_NOTE_CHARS) = ""


def parse_act(payload: dict) -> Act:
    return Act.model_validate(payload)


def parse_segment(payload: dict) -> Act:
    """A single segment (the /step endpoint): a move if it has no type."""
    payload = dict(payload)
    payload.setdefault("type", "move")
    return Act.model_validate({"segments": [payload]})
