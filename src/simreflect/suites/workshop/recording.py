"""Recording a session, and replaying it.

A record directory holds
    spec.json          the build spec (targets, joints, budgets)
    model.xml          the MJCF the session ran
    meta.json          build, seed, rate, format, MuJoCo version
    initial.json       the engine snapshot before the first command
    commands.jsonl     one line per command: kind (act, note, finish), request, result, the
                       simulated time and step after it, its wall time (the only field that varies
                       between runs) and, for act and finish, the engine snapshot after it (the
                       physics state from mj_getState plus the engine's own state), enough to
                       restart from any command (a note changes nothing: it has no snapshot)
    poses.f32          qpos sampled every SAMPLE_EVERY steps (30 Hz): rows of [time, qpos...] as
                       little-endian float32, for the review videos
    final_state.json   the final observation and snapshot after the finish settle, canonical JSON
                       (the same seed and commands give the same bytes)
The grader reads only spec.json and final_state.json.

The record is bounded: commands are bounded by the action budget and notes by the note budget
(session.py), and once commands.jsonl and poses.f32 together reach MAX_RECORD_BYTES the recorder is
`full` and the session finishes after the command that filled it (that command and the finish are
still written).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import numpy as np

from simreflect.core.sandbox import UnsafeWorkspaceFile, read_workspace_file
from simreflect.core.untrusted import JsonLimits, Refusal, finite_float, load_json
from simreflect.suites.workshop.builds.spec import BuildSpec

FORMAT = "workshop-record/1"
SAMPLE_EVERY = 6  # steps: 30 Hz at 180 Hz
MAX_RECORD_BYTES = 256 << 20
MAX_FINAL_BYTES = 16 << 20  # what load_final reads at most (a final state is about 20 KB)
SPEC_FILE, MODEL_FILE, META_FILE = "spec.json", "model.xml", "meta.json"
INITIAL_FILE, COMMANDS_FILE, POSES_FILE, FINAL_FILE = "initial.json", "commands.jsonl", "poses.f32", "final_state.json"


def canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


class Recorder:
    def __init__(self, root: Path, session):
        import mujoco

        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.session = session
        eng = session.engine
        (self.root / SPEC_FILE).write_text(json.dumps(session.spec.to_dict(), indent=1, sort_keys=True) + "\n")
        (self.root / MODEL_FILE).write_text(eng.xml)
        (self.root / META_FILE).write_text(json.dumps({
            "format": FORMAT, "build": session.spec.name, "seed": session.spec.seed, "rate_hz": 180,
            "sample_every": SAMPLE_EVERY, "nq": int(eng.model.nq), "mujoco": mujoco.__version__}, indent=1) + "\n")
        (self.root / INITIAL_FILE).write_text(canonical(eng.snapshot()) + "\n")
        self.commands = open(self.root / COMMANDS_FILE, "w")
        self.poses = open(self.root / POSES_FILE, "wb")
        self.index = 0
        self.bytes_written = 0
        self.closed = False
        self._sample(eng)
        eng.listeners.append(self._on_step)

    def _on_step(self, eng) -> None:
        if eng.step_count % SAMPLE_EVERY == 0:
            self._sample(eng)

    def _sample(self, eng) -> None:
        row = np.concatenate([[eng.time], eng.data.qpos]).astype("<f4")
        self.bytes_written += self.poses.write(row.tobytes())

    @property
    def full(self) -> bool:
        return self.bytes_written >= MAX_RECORD_BYTES

    def command(self, kind: str, request: dict, result: dict, wall_s: float) -> None:
        eng = self.session.engine
        self._write({"i": self.index, "kind": kind, "request": request, "result": result, "time": eng.time,
                     "step": eng.step_count, "wall_s": round(wall_s, 6), "snapshot": eng.snapshot()})

    def note(self, request: dict, result: dict) -> None:
        eng = self.session.engine
        self._write({"i": self.index, "kind": "note", "request": request, "result": result, "time": eng.time,
                     "step": eng.step_count, "wall_s": 0.0})

    def _write(self, line: dict) -> None:
        if self.closed:
            raise RuntimeError("the record is closed: the session has finished")
        self.bytes_written += self.commands.write(canonical(line) + "\n")
        self.commands.flush()
        self.poses.flush()
        self.index += 1

    def finish(self, reason: str, summary: str) -> None:
        eng = self.session.engine
        self.command("finish", {"summary": summary}, {"reason": reason}, wall_s=0.0)
        final = {"format": FORMAT, "build": self.session.spec.name, "seed": self.session.spec.seed,
                 "reason": reason, "summary": summary, "actions_used": eng.actions_used,
                 "state": self.session.final_state, "snapshot": eng.snapshot()}
        (self.root / FINAL_FILE).write_text(canonical(final) + "\n")
        self.commands.close()
        self.poses.close()
        self.closed = True


# ----- reading ----------------------------------------------------------------------------------

def load_spec(root: Path) -> BuildSpec:
    return BuildSpec.from_dict(json.loads((Path(root) / SPEC_FILE).read_text()))


#: How final_state.json is read back (by `verify` for a work directory it did not run, by `grade`):
#: a run directory from elsewhere is data. Canonical JSON as the recorder writes it: finite numbers
#: only (the recorder refuses NaN), no lone surrogates.
FINAL_LIMITS = JsonLimits(max_bytes=MAX_FINAL_BYTES, max_depth=32, max_items=1_000_000, max_string_chars=100_000)


def load_final(root: Path) -> Optional[dict[str, Any]]:
    """The final record of a record directory, None when it has none. Read as untrusted data (never
    through a link, bounded by FINAL_LIMITS) and refused (`Refusal`, a ValueError) unless its state
    has the shape the grader reads (`final_state_problem`)."""
    root = Path(root)
    if root.is_symlink():
        raise Refusal(f"the record directory {root.name} is a symbolic link")
    try:
        raw = read_workspace_file(root, FINAL_FILE, MAX_FINAL_BYTES)
    except FileNotFoundError:
        return None
    except UnsafeWorkspaceFile as e:
        raise Refusal(str(e)) from None
    final = load_json(raw, FINAL_LIMITS, FINAL_FILE)
    problem = final_state_problem(final)
    if problem is not None:
        raise Refusal(f"{FINAL_FILE}: {problem}")
    return final


def _vector(value: Any, n: int) -> bool:
    """A list of n numbers (nested lists flattened: a 3x3 rotation is 9)."""
    flat, stack = [], [value]
    while stack:
        v = stack.pop()
        if isinstance(v, list):
            stack.extend(v)
        else:
            flat.append(v)
        if len(flat) > n:
            return False
    return len(flat) == n and all(finite_float(v) is not None for v in flat)


#: What the grader reads of each entry of a final state: field -> number of values (None: any value).
_GRADED_FIELDS = {
    "boards": {"pos": 3, "rot": 9, "lin_vel": 3, "ang_vel": 3},
    "screws": {"head_top": 3},
    "drills": {"tip": 3},
}


def final_state_problem(final: Any) -> Optional[str]:
    """Why a final record does not have the shape the grader reads, or None when it does."""
    if not isinstance(final, dict):
        return "not a JSON object"
    if "state" not in final:
        return "it has no state"
    state = final["state"]
    if state is None:
        return None
    if not isinstance(state, dict):
        return "its state is not an object"
    for group, fields in _GRADED_FIELDS.items():
        entries = state.get(group, {})
        if not isinstance(entries, dict):
            return f"state.{group} is not an object"
        for name, entry in entries.items():
            if not isinstance(entry, dict):
                return f"state.{group}.{name[:40]} is not an object"
            for field, n in fields.items():
                if not _vector(entry.get(field), n):
                    return f"state.{group}.{name[:40]}.{field} is not {n} finite numbers"
            carry = entry.get("last_carry") if group == "boards" else None
            if carry is not None and not (isinstance(carry, dict) and _vector(carry.get("pos"), 3)
                                          and _vector(carry.get("rot"), 9)):
                return f"state.boards.{name[:40]}.last_carry is not a pose (pos: 3, rot: 9 finite numbers)"
            if group == "screws" and entry.get("state") == "driven" and entry.get("joint_active"):
                for field in ("anchor_top", "anchor_bottom"):
                    if not _vector(entry.get(field), 3):
                        return f"state.screws.{name[:40]}.{field} is not 3 finite numbers"
    holds = state.get("holds", [])
    if not isinstance(holds, list) or not all(isinstance(h, dict) and "hand" in h and "object" in h for h in holds):
        return "state.holds is not a list of {hand, object}"
    return None


def load_commands(root: Path) -> list[dict[str, Any]]:
    path = Path(root) / COMMANDS_FILE
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def load_poses(root: Path) -> np.ndarray:
    meta = json.loads((Path(root) / META_FILE).read_text())
    raw = np.fromfile(Path(root) / POSES_FILE, dtype="<f4")
    width = int(meta["nq"]) + 1
    return raw[: len(raw) // width * width].reshape(-1, width)


def replay(root: Path, start: int = 0) -> dict[str, Any]:
    """Re-run a recorded session from the last snapshot before command `start` (0: the initial
    state) with the recorded requests; returns the final record it produces (as written to
    final_state). The wall clock does not run in a replay: where the session ended on its wall-time
    or record-size budget, the recorded finish ends the replay at the same command."""
    from simreflect.suites.workshop.session import Session

    root = Path(root)
    spec = load_spec(root)
    commands = load_commands(root)
    session = Session(spec, clock=lambda: 0.0)
    with_snapshot = [k for k in range(start) if "snapshot" in commands[k]]
    snap = commands[with_snapshot[-1]]["snapshot"] if with_snapshot else json.loads((root / INITIAL_FILE).read_text())
    start = with_snapshot[-1] + 1 if with_snapshot else 0
    session.engine.restore(snap)
    summary, reason = "", "replay ended without a finish"
    for c in commands[start:]:
        if c["kind"] == "act":
            session.act(c["request"])
        elif c["kind"] == "note":
            session.note(c["request"])
        elif c["kind"] == "finish":
            summary, reason = c["request"].get("summary", ""), c["result"].get("reason", "")
            break
    session._finish(reason, summary)
    eng = session.engine
    return {"format": FORMAT, "build": spec.name, "seed": spec.seed, "reason": reason, "summary": summary,
            "actions_used": eng.actions_used, "state": session.final_state, "snapshot": eng.snapshot()}
