"""The records of a run, as every reader above the store sees them (the store, analysis, the
viewer, the methods and the environment): core, so that nothing below the run package has to
import it to read a run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class EpisodeLog:
    """What the store holds about one episode x level: its round records in order, its
    infrastructure errors and its end record (None while the episode is unfinished)."""

    rounds: list[dict[str, Any]] = field(default_factory=list)
    infra_errors: list[dict[str, Any]] = field(default_factory=list)
    end: dict[str, Any] | None = None


__all__ = ["EpisodeLog"]
