"""The rig: an armature, a skinned box mesh and a keyed walk, with a Blender-like editing interface.

Conventions (the same as Blender's):
- world axes: X to the robot's right, Y forward (the walking direction), Z up; metres, radians;
- a bone's rest frame has its Y axis along the bone (head to tail), roll 0 as Blender computes it;
- a pose channel (`location`, `rotation_euler` in XYZ order) is expressed in the bone's rest frame,
  relative to its parent, and every frame of the action carries a key for every channel;
- linear blend skinning: a vertex moves with the weighted average of its bones' deform matrices,
  weights normalised by their sum (like Blender's armature modifier).

A `Rig` is plain data (numpy arrays) plus the methods a fix script uses. `to_json`/`from_json` write
and read it as canonical JSON so the same rig always gives the same bytes.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import numpy as np

CHANNELS = ("location", "rotation_euler")
RIG_FORMAT = "simreflect.gait.rig/1"


@dataclass(frozen=True)
class Bone:
    name: str
    parent: str | None
    head: tuple[float, float, float]
    tail: tuple[float, float, float]


@dataclass(frozen=True)
class Part:
    """A rigid box of the mesh: its vertex range, the bone it belongs to, its mass and colour."""

    name: str
    bone: str
    start: int
    stop: int
    mass: float
    color: tuple[int, int, int]

    @property
    def indices(self) -> range:
        return range(self.start, self.stop)


def bone_rest_rotation(head: np.ndarray, tail: np.ndarray) -> np.ndarray:
    """Blender's rest orientation of a bone with roll 0: the minimal rotation taking +Y to the bone."""
    y = np.asarray(tail, float) - np.asarray(head, float)
    y = y / np.linalg.norm(y)
    ref = np.array([0.0, 1.0, 0.0])
    axis = np.cross(ref, y)
    s = np.linalg.norm(axis)
    c = float(np.dot(ref, y))
    if s < 1e-12:
        return np.eye(3) if c > 0 else np.diag([-1.0, -1.0, 1.0])
    k = axis / s
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    angle = math.atan2(s, c)
    return np.eye(3) + math.sin(angle) * kx + (1 - math.cos(angle)) * (kx @ kx)


def euler_xyz_matrices(euler: np.ndarray) -> np.ndarray:
    """Rotation matrices (..., 3, 3) of XYZ Euler angles (applied X, then Y, then Z)."""
    x, y, z = euler[..., 0], euler[..., 1], euler[..., 2]
    cx, sx, cy, sy, cz, sz = np.cos(x), np.sin(x), np.cos(y), np.sin(y), np.cos(z), np.sin(z)
    m = np.empty(euler.shape[:-1] + (3, 3))
    m[..., 0, 0] = cy * cz
    m[..., 0, 1] = sx * sy * cz - cx * sz
    m[..., 0, 2] = cx * sy * cz + sx * sz
    m[..., 1, 0] = cy * sz
    m[..., 1, 1] = sx * sy * sz + cx * cz
    m[..., 1, 2] = cx * sy * sz - sx * cz
    m[..., 2, 0] = -sy
    m[..., 2, 1] = sx * cy
    m[..., 2, 2] = cx * cy
    return m


class VertexGroup:
    """Blender-style access to one bone's vertex weights (`add`, `remove`, `weight`)."""

    def __init__(self, rig: Rig, bone_index: int):
        self._rig = rig
        self.index = bone_index
        self.name = rig.bones[bone_index].name

    def add(self, index: Iterable[int], weight: float, type: str = "REPLACE") -> None:
        idx = self._rig._vertex_indices(index)
        w = float(weight)
        col = self._rig.weights[:, self.index]
        if type == "REPLACE":
            col[idx] = w
        elif type == "ADD":
            col[idx] = col[idx] + w
        elif type == "SUBTRACT":
            col[idx] = col[idx] - w
        else:
            raise ValueError(f"type must be REPLACE, ADD or SUBTRACT, not {type!r}")
        np.clip(col, 0.0, 1.0, out=col)

    def remove(self, index: Iterable[int]) -> None:
        self._rig.weights[self._rig._vertex_indices(index), self.index] = 0.0

    def weight(self, index: int) -> float:
        w = float(self._rig.weights[int(index), self.index])
        if w == 0.0:
            raise RuntimeError(f"vertex {index} is not in group {self.name!r}")
        return w

    def vertices(self) -> list[int]:
        """Indices of the vertices with a non-zero weight in this group."""
        return [int(i) for i in np.flatnonzero(self._rig.weights[:, self.index] > 0)]


class _Groups:
    def __init__(self, rig: Rig):
        self._rig = rig

    def __getitem__(self, name: str) -> VertexGroup:
        return VertexGroup(self._rig, self._rig.bone_index(name))

    def __iter__(self):
        return (VertexGroup(self._rig, i) for i in range(len(self._rig.bones)))

    def keys(self) -> list[str]:
        return list(self._rig.bone_names)


class PoseBone:
    """A bone's channels at the rig's current frame; assigning writes the key of that frame."""

    __slots__ = ("_rig", "_i", "name")

    def __init__(self, rig: Rig, bone_index: int):
        self._rig = rig
        self._i = bone_index
        self.name = rig.bones[bone_index].name

    @property
    def location(self) -> np.ndarray:
        return self._rig.location[self._rig.frame_current, self._i]

    @location.setter
    def location(self, value) -> None:
        self._rig.location[self._rig.frame_current, self._i] = np.asarray(value, float)

    @property
    def rotation_euler(self) -> np.ndarray:
        return self._rig.rotation_euler[self._rig.frame_current, self._i]

    @rotation_euler.setter
    def rotation_euler(self, value) -> None:
        self._rig.rotation_euler[self._rig.frame_current, self._i] = np.asarray(value, float)

    def keyframe_insert(self, data_path: str, frame: int | None = None, index: int = -1) -> None:
        """Kept for Blender habits: every frame is already keyed, so assigning a value is enough.

        With `frame` given, the value at the current frame is copied to that frame's key.
        """
        if data_path not in CHANNELS:
            raise ValueError(f"data_path must be one of {CHANNELS}, not {data_path!r}")
        if frame is None or int(frame) == self._rig.frame_current:
            return
        arr = getattr(self._rig, data_path)
        f = self._rig._frame(frame)
        if index == -1:
            arr[f, self._i] = arr[self._rig.frame_current, self._i]
        else:
            arr[f, self._i, index] = arr[self._rig.frame_current, self._i, index]


class _PoseBones:
    def __init__(self, rig: Rig):
        self._rig = rig

    def __getitem__(self, name: str) -> PoseBone:
        return PoseBone(self._rig, self._rig.bone_index(name))

    def __iter__(self):
        return (PoseBone(self._rig, i) for i in range(len(self._rig.bones)))

    def keys(self) -> list[str]:
        return list(self._rig.bone_names)


class _Pose:
    def __init__(self, rig: Rig):
        self.bones = _PoseBones(rig)


class Rig:
    """Armature + skinned mesh + action. See the module docstring for the conventions."""

    def __init__(
        self,
        bones: list[Bone],
        rest_vertices: np.ndarray,
        faces: np.ndarray,
        parts: list[Part],
        weights: np.ndarray,
        location: np.ndarray,
        rotation_euler: np.ndarray,
        fps: int = 24,
    ):
        self.bones = list(bones)
        self.bone_names = tuple(b.name for b in self.bones)
        self._index = {n: i for i, n in enumerate(self.bone_names)}
        self.rest_vertices = np.asarray(rest_vertices, float)
        self.faces = np.asarray(faces, np.int64)
        self.parts = list(parts)
        self.weights = np.asarray(weights, float).copy()
        self.location = np.asarray(location, float).copy()
        self.rotation_euler = np.asarray(rotation_euler, float).copy()
        self.fps = int(fps)
        self.frame_current = 0
        self.parent_index = np.array([-1 if b.parent is None else self._index[b.parent] for b in self.bones])
        self.rest_matrices = np.stack([self._rest_matrix(b) for b in self.bones])
        self.pose = _Pose(self)
        self.vertex_groups = _Groups(self)

    # ----- structure -------------------------------------------------------------------------
    @property
    def frame_count(self) -> int:
        return int(self.location.shape[0])

    def bone_index(self, name: str) -> int:
        try:
            return self._index[name]
        except KeyError:
            raise KeyError(f"no bone named {name!r}; bones are {list(self.bone_names)}") from None

    def is_parent_or_child(self, a: str, b: str) -> bool:
        ia, ib = self.bone_index(a), self.bone_index(b)
        return self.parent_index[ia] == ib or self.parent_index[ib] == ia

    def ancestors(self, name: str) -> list[str]:
        """The bone and its parents up to the root, root first."""
        chain, i = [], self.bone_index(name)
        while i >= 0:
            chain.append(self.bone_names[i])
            i = self.parent_index[i]
        return chain[::-1]

    def part_of_vertex(self, v: int) -> Part:
        for p in self.parts:
            if p.start <= v < p.stop:
                return p
        raise IndexError(f"vertex {v} out of range 0..{len(self.rest_vertices) - 1}")

    @staticmethod
    def _rest_matrix(b: Bone) -> np.ndarray:
        m = np.eye(4)
        m[:3, :3] = bone_rest_rotation(np.array(b.head), np.array(b.tail))
        m[:3, 3] = b.head
        return m

    def _frame(self, frame: int) -> int:
        f = int(frame)
        if not 0 <= f < self.frame_count:
            raise IndexError(f"frame {frame} out of range 0..{self.frame_count - 1}")
        return f

    def _vertex_indices(self, index: Iterable[int]) -> np.ndarray:
        idx = np.asarray(list(index) if not isinstance(index, np.ndarray) else index, dtype=np.int64).ravel()
        n = len(self.rest_vertices)
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            raise IndexError(f"vertex index out of range 0..{n - 1}")
        return idx

    # ----- Blender-like editing ------------------------------------------------------------------
    def frame_set(self, frame: int) -> None:
        self.frame_current = self._frame(frame)

    def fcurve(self, bone: str, channel: str) -> np.ndarray:
        """The keys of one channel of one bone for every frame: a writable (frames, 3) view."""
        if channel not in CHANNELS:
            raise ValueError(f"channel must be one of {CHANNELS}, not {channel!r}")
        return getattr(self, channel)[:, self.bone_index(bone)]

    def copy(self) -> Rig:
        return Rig(self.bones, self.rest_vertices, self.faces, self.parts, self.weights, self.location,
                   self.rotation_euler, self.fps)

    # ----- evaluation ----------------------------------------------------------------------------
    def pose_matrices(self) -> np.ndarray:
        """World (armature-space) pose matrices of every bone at every frame: (frames, bones, 4, 4)."""
        n, nb = self.frame_count, len(self.bones)
        basis = np.zeros((n, nb, 4, 4))
        basis[..., :3, :3] = euler_xyz_matrices(self.rotation_euler)
        basis[..., :3, 3] = self.location
        basis[..., 3, 3] = 1.0
        out = np.empty_like(basis)
        for i in range(nb):  # bones are stored parents first
            p = self.parent_index[i]
            if p < 0:
                out[:, i] = self.rest_matrices[i] @ basis[:, i]
            else:
                offset = np.linalg.inv(self.rest_matrices[p]) @ self.rest_matrices[i]
                out[:, i] = out[:, p] @ offset @ basis[:, i]
        return out

    def normalized_weights(self) -> np.ndarray:
        total = self.weights.sum(axis=1, keepdims=True)
        return np.divide(self.weights, total, out=np.zeros_like(self.weights), where=total > 0)

    def skin(self, pose: np.ndarray) -> np.ndarray:
        """Linear blend skinning of the rest mesh by pose matrices (frames, bones, 4, 4) -> (frames, V, 3).

        A vertex with no weight at all stays at its rest position (as in Blender).
        """
        deform = pose @ np.linalg.inv(self.rest_matrices)
        w = self.normalized_weights()
        rest_h = np.concatenate([self.rest_vertices, np.ones((len(self.rest_vertices), 1))], axis=1)
        per_bone = np.einsum("fbij,vj->fbvi", deform[..., :3, :], rest_h)  # (F, B, V, 3)
        skinned = np.einsum("vb,fbvi->fvi", w, per_bone)
        unweighted = w.sum(axis=1) == 0
        if unweighted.any():
            skinned[:, unweighted] = self.rest_vertices[unweighted]
        return skinned

    def world_vertices(self, frame: int | None = None) -> np.ndarray:
        """Skinned vertex positions: (frames, V, 3), or (V, 3) for one frame."""
        pose = self.pose_matrices()
        if frame is None:
            return self.skin(pose)
        return self.skin(pose[self._frame(frame)][None])[0]

    def bone_axes(self, frame: int) -> dict[str, np.ndarray]:
        """Each bone's local X, Y, Z axes in world space at a frame (columns of its pose matrix)."""
        m = self.pose_matrices()[self._frame(frame)]
        return {name: m[i, :3, :3].T.copy() for i, name in enumerate(self.bone_names)}

    # ----- serialisation -------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        groups = {}
        for i, name in enumerate(self.bone_names):
            nz = np.flatnonzero(self.weights[:, i])
            groups[name] = [[int(v), float(self.weights[v, i])] for v in nz]
        return {
            "format": RIG_FORMAT,
            "fps": self.fps,
            "frame_count": self.frame_count,
            "bones": [{"name": b.name, "parent": b.parent, "head": list(b.head), "tail": list(b.tail)} for b in self.bones],
            "vertices": self.rest_vertices.tolist(),
            "faces": self.faces.tolist(),
            "parts": [
                {"name": p.name, "bone": p.bone, "start": p.start, "stop": p.stop, "mass": p.mass, "color": list(p.color)}
                for p in self.parts
            ],
            "vertex_groups": groups,
            "action": {
                name: {"location": self.location[:, i].tolist(), "rotation_euler": self.rotation_euler[:, i].tolist()}
                for i, name in enumerate(self.bone_names)
            },
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"), sort_keys=True)

    def save(self, path: Path) -> None:
        Path(path).write_text(self.to_json())

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Rig:
        """Build a rig from its JSON form, checking shapes and values (raises RigFormatError)."""
        return _parse_rig(d)

    @classmethod
    def load(cls, path: Path) -> Rig:
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise RigFormatError(f"cannot read rig file {Path(path).name}: {e}") from None
        return cls.from_dict(data)


class RigFormatError(ValueError):
    """A rig file that is not a well-formed rig."""


#: The most a rig may hold before its arrays are allocated (an episode has 10 bones, 164 vertices
#: and 60 frames): bones, skin weights (vertices x bones) and keys (frames x bones) per channel.
MAX_BONES = 256
MAX_WEIGHT_CELLS = 1 << 22
MAX_KEY_CELLS = 1 << 20


def _array(value: Any, shape_tail: tuple[int, ...], what: str, dtype=float) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=dtype)
    except (TypeError, ValueError, OverflowError):
        raise RigFormatError(f"{what}: not a numeric array") from None
    if arr.ndim != 1 + len(shape_tail) or arr.shape[1:] != shape_tail:
        raise RigFormatError(f"{what}: expected shape (n, {', '.join(map(str, shape_tail))}), got {arr.shape}")
    if dtype is float and not np.all(np.isfinite(arr)):
        raise RigFormatError(f"{what}: contains NaN or infinite values")
    return arr


def _parse_rig(d: Any) -> Rig:
    if not isinstance(d, dict):
        raise RigFormatError("rig file is not a JSON object")
    if d.get("format") != RIG_FORMAT:
        raise RigFormatError(f"rig format must be {RIG_FORMAT!r}, got {d.get('format')!r}")
    try:
        if len(d["bones"]) > MAX_BONES:
            raise RigFormatError(f"rig too large: {len(d['bones'])} bones, at most {MAX_BONES}")
        bones = [
            Bone(str(b["name"]), None if b["parent"] is None else str(b["parent"]),
                 tuple(float(x) for x in b["head"]), tuple(float(x) for x in b["tail"]))
            for b in d["bones"]
        ]
        names = [b.name for b in bones]
        if len(set(names)) != len(names) or not names:
            raise RigFormatError("bone names must be unique and non-empty")
        seen: set[str] = set()
        for b in bones:
            if b.parent is not None and b.parent not in seen:
                raise RigFormatError(f"bone {b.name!r}: parent {b.parent!r} must be listed before it")
            seen.add(b.name)
        verts = _array(d["vertices"], (3,), "vertices")
        faces = _array(d["faces"], (4,), "faces", dtype=np.int64)
        if faces.size and (faces.min() < 0 or faces.max() >= len(verts)):
            raise RigFormatError("faces refer to vertices that do not exist")
        parts = [
            Part(str(p["name"]), str(p["bone"]), int(p["start"]), int(p["stop"]), float(p["mass"]),
                 tuple(int(c) for c in p["color"]))
            for p in d["parts"]
        ]
        n_frames = int(d["frame_count"])
        if n_frames < 1:
            raise RigFormatError("frame_count must be positive")
        if len(verts) * len(bones) > MAX_WEIGHT_CELLS or n_frames * len(bones) > MAX_KEY_CELLS:
            raise RigFormatError(f"rig too large: {len(bones)} bones, {len(verts)} vertices, {n_frames} frames")
        weights = np.zeros((len(verts), len(bones)))
        groups = d["vertex_groups"]
        if not isinstance(groups, dict):
            raise RigFormatError("vertex_groups must be an object")
        for gname, rows in groups.items():
            if gname not in names:
                raise RigFormatError(f"vertex group {gname!r} has no bone")
            arr = _array(rows, (2,), f"vertex group {gname!r}") if len(rows) else np.zeros((0, 2))
            idx = arr[:, 0].astype(np.int64)
            if np.any(arr[:, 0] != idx) or (idx.size and (idx.min() < 0 or idx.max() >= len(verts))):
                raise RigFormatError(f"vertex group {gname!r}: bad vertex index")
            if np.any(arr[:, 1] < 0) or np.any(arr[:, 1] > 1):
                raise RigFormatError(f"vertex group {gname!r}: weights must lie in 0..1")
            weights[idx, names.index(gname)] = arr[:, 1]
        action = d["action"]
        loc = np.zeros((n_frames, len(bones), 3))
        rot = np.zeros((n_frames, len(bones), 3))
        for i, name in enumerate(names):
            if name not in action:
                raise RigFormatError(f"action has no keys for bone {name!r}")
            for ch, arr in (("location", loc), ("rotation_euler", rot)):
                a = _array(action[name][ch], (3,), f"action {name}.{ch}")
                if len(a) != n_frames:
                    raise RigFormatError(f"action {name}.{ch}: {len(a)} keys for {n_frames} frames")
                arr[:, i] = a
        return Rig(bones, verts, faces, parts, weights, loc, rot, int(d.get("fps", 24)))
    except RigFormatError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, OverflowError, AttributeError) as e:
        raise RigFormatError(f"malformed rig: {type(e).__name__}: {str(e)[:300]}") from None
