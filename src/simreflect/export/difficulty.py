"""An exported task's difficulty, from the pass rate a recorded baseline run measured on it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: Pass rates at or above each bound get its label (checked in order); below the last, "hard".
BOUNDS = ((2 / 3, "easy"), (1 / 3, "medium"))
UNMEASURED = "unmeasured"


@dataclass(frozen=True)
class Difficulty:
    label: str
    #: Solved episodes / episodes of the baseline run on this task (every level and run), or None.
    pass_rate: float | None = None
    episodes: int = 0
    #: The agent (and method) of the run that measured it.
    measured_by: str | None = None

    def metadata(self) -> dict[str, object]:
        """The task.toml [metadata] entries."""
        out: dict[str, object] = {"difficulty": self.label}
        if self.pass_rate is not None:
            out.update(baseline_pass_rate=round(self.pass_rate, 4), baseline_episodes=self.episodes,
                       baseline_agent=self.measured_by)
        return out


def label(pass_rate: float) -> str:
    return next((name for bound, name in BOUNDS if pass_rate >= bound), "hard")


def measured_difficulties(run_dir: Path | None, suite: str) -> dict[str, Difficulty]:
    """Each task's Difficulty from the finished episodes of a run directory of `suite` (none: {})."""
    if run_dir is None:
        return {}
    from simreflect.run.report import rows_of

    config, rows = rows_of(Path(run_dir))
    if config.suite != suite:
        raise ValueError(f"the baseline run {run_dir} is of suite {config.suite!r}, not {suite!r}")
    agent = config.agent if config.method == "vanilla" else f"{config.agent} ({config.method})"
    tally: dict[str, list[int]] = {}
    for row in rows:
        if row["finished"] and not row["infra_errors"]:  # an episode the endpoint cut short measures nothing
            solved, total = tally.setdefault(row["task"], [0, 0])
            tally[row["task"]] = [solved + bool(row["solved"]), total + 1]
    return {task: Difficulty(label(solved / total), solved / total, total, agent)
            for task, (solved, total) in tally.items()}
