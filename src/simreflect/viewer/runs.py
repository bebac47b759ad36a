"""A run as the viewer reads it: its configuration, its episode rows and records, its summary, its
trajectories (attempt-budget suites). A directory that is not a run is a NotARun with the reason."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simreflect.core.records import EpisodeLog
from simreflect.core.suite import SuiteUnavailable
from simreflect.run.report import rows_of, trajectories_of, write_report
from simreflect.run.runner import RunConfig
from simreflect.run.store import RunStore, StoreError


class NotARun(ValueError):
    """What the viewer cannot show: a directory that is not a run, or more runs than it compares (the
    message says why; the CLI prints it and exits 2)."""


@dataclass(frozen=True)
class LoadedRun:
    dir: Path
    config: RunConfig
    rows: list[dict[str, Any]]
    logs: dict[str, EpisodeLog]
    summary: dict[str, Any]
    summary_md: str
    trajectories: list
    """analysis.trajectory.Trajectory per episode ([] unless the suite has an attempt budget)."""

    @property
    def model(self) -> str:
        return str(self.config.agent_options.get("model") or "")

    @property
    def description(self) -> str:
        """suite, agent, model and method as one line (a model name is any text: escape it)."""
        c = self.config
        parts = [c.suite, f"agent {c.agent}"] + ([f"model {self.model}"] if self.model else [])
        parts += [f"method {c.method}"] if c.method != "vanilla" else []
        return ", ".join(parts)


def load_run(run_dir: Path) -> LoadedRun:
    """The run in `run_dir`, its derived files (runs.jsonl, summary) written afresh."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        why = "a file, not a directory" if run_dir.exists() else "no such directory"
        raise NotARun(f"{run_dir} is not a run directory ({why})")
    try:
        RunStore(run_dir).config()  # the store's own message for a directory without a run
        md = write_report(run_dir)
        summary = json.loads((run_dir / "summary.json").read_text())
        config, rows = rows_of(run_dir)
        trajectories = trajectories_of(run_dir, config, rows)
        logs = RunStore(run_dir).episodes()
    except StoreError as e:
        raise NotARun(str(e)) from None
    except (KeyError, SuiteUnavailable) as e:  # its suite is not here
        raise NotARun(f"{run_dir}: cannot read its suite ({e.args[0] if e.args else e})") from None
    except (OSError, ValueError) as e:
        raise NotARun(f"{run_dir} cannot be read as a run ({type(e).__name__}: {str(e)[:300]})") from None
    return LoadedRun(run_dir, config, rows, logs, summary, md, trajectories)
