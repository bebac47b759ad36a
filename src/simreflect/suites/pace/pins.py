"""Pinned metrics: each task folder records the fingerprint of every control's metrics.

`simreflect pace validate` runs every control (see validate.py); each evaluation's metrics are
deterministic JSON, and their SHA-256 prefix is the control's fingerprint. A task folder's
`pinned_metrics.json` keeps the fingerprints of its nine controls from the last deliberate pin
(`simreflect pace validate --pin`), with the platform they were computed on. On the same
platform a different fingerprint means the benchmark changed: the engine, the task's world or
evaluator, a reference design, the report. That is an error until it is re-pinned on purpose,
so an "optimisation" that moves a single float shows up. Box2D and libm may round differently
on another platform, so there a difference is reported, not enforced.
"""

from __future__ import annotations

import json
import platform
import sys
from pathlib import Path
from typing import Any, Iterable

PIN_FILE = "pinned_metrics.json"
SAME, CHANGED, UNPINNED, OTHER_PLATFORM = "same", "changed", "unpinned", "other platform"


def platform_tag() -> str:
    """Where fingerprints are comparable: OS, CPU architecture, Box2D and Python versions."""
    import Box2D

    return (f"{sys.platform}-{platform.machine()} box2d-{Box2D.__version__} "
            f"python-{sys.version_info.major}.{sys.version_info.minor}")


def control_key(env: str, program: str) -> str:
    """A control's name in the pin file: the environment, then the program run in it."""
    return f"{env}/{program}"


def read_pins(folder: Path) -> dict[str, Any] | None:
    """The folder's pins ({"platform", "controls": {key: fingerprint}}), or None when it has none.
    A pin file that is not what this module writes is an error, never silently ignored."""
    path = Path(folder) / PIN_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not JSON ({e}); re-pin with `simreflect pace validate --pin`") from None
    if not (isinstance(data, dict) and isinstance(data.get("platform"), str)
            and isinstance(data.get("controls"), dict)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in data["controls"].items())):
        raise ValueError(f"{path}: expected {{\"platform\": str, \"controls\": {{name: fingerprint}}}}; "
                         f"re-pin with `simreflect pace validate --pin`")
    return data


def compare(pins: dict[str, Any] | None, env: str, program: str, fingerprint: str) -> str:
    """How a control's fingerprint stands against the folder's pins."""
    if pins is None or control_key(env, program) not in pins["controls"]:
        return UNPINNED
    if pins["platform"] != platform_tag():
        return OTHER_PLATFORM
    return SAME if pins["controls"][control_key(env, program)] == fingerprint else CHANGED


def write_pins(folder: Path, rows: Iterable[Any]) -> Path:
    """Pin the fingerprints of `rows` (ControlResult-like: env, program, metrics_sha) in `folder`."""
    controls = {control_key(r.env, r.program): r.metrics_sha for r in rows}
    path = Path(folder) / PIN_FILE
    path.write_text(json.dumps({"platform": platform_tag(), "controls": dict(sorted(controls.items()))},
                               indent=1) + "\n")
    return path
