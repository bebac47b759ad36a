"""The Suite interface every benchmark family implements.

A suite owns its task generation, the workspace an agent starts from, its verifier, its oracle and
its evidence. The episode loop, stores, reports and environments only talk to this interface.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path

from simreflect.core.evidence import EvidenceLevel
from simreflect.core.program import ProgramRun
from simreflect.core.task import Task
from simreflect.core.verdict import Verdict


class Suite(ABC):
    name: str = ""
    #: Rounds (or verified attempts) an agent gets per task unless a run says otherwise.
    default_budget: int = 1
    #: The order in which summary tables list the subsets of `subsets()`.
    subset_order: tuple[str, ...] = ()
    #: The protocol a run follows unless told otherwise: independent runs per task, what an agent is
    #: shown of earlier rounds (full | last+best), invalid generations in a row that end an episode.
    default_runs: int = 1
    default_history: str = "full"
    default_invalid_streak: int = 0
    #: The evidence levels a run covers unless told otherwise (each level is its own condition).
    default_levels: tuple[str, ...] = ("L1", "L2", "L3")
    #: Keys of a verdict's diagnostics that describe the run rather than judge it (wall time, raw
    #: output): `rescore` does not expect them to repeat. Everything else in a verdict must.
    volatile_diagnostics: tuple[str, ...] = ()
    #: The reward of an attempt whose program did not run to the end (a crash, a timeout, no
    #: program): the suite's lowest reward, and the floor of an episode's return (core/returns.py).
    crash_reward: float = 0.0

    @abstractmethod
    def load_tasks(self, root: Path) -> list[Task]:
        """Tasks of a built benchmark directory, in their canonical order."""

    @abstractmethod
    def prepare_workspace(self, task: Task, workdir: Path) -> None:
        """Write into `workdir` exactly the files the agent's program may see and edit."""

    @abstractmethod
    def run_program(self, task: Task, program: str, workdir: Path, timeout_s: float) -> ProgramRun:
        """Run an untrusted program against a prepared workspace (never in this process); the
        result carries the artefact handle `verify` reads (see ProgramRun)."""

    @abstractmethod
    def verify(self, task: Task, workdir: Path, run: ProgramRun | None = None) -> Verdict:
        """Verify the artefact of `run` (what `run_program` returned for `workdir`) or, without a
        run, the one left in `workdir` (a prepared workspace, edited or not, or a work directory
        this suite did not run: offline grading, export). The same arguments give the same verdict
        in any process: nothing is remembered between calls."""

    @abstractmethod
    def oracle(self, task: Task) -> str:
        """The reference program that solves the task."""

    @abstractmethod
    def observe(self, task: Task, verdict: Verdict, level: EvidenceLevel) -> str:
        """The report text an agent reads about a verdict at an evidence level."""

    @abstractmethod
    def instruction(self, task: Task) -> str:
        """What the agent is asked to do on this task."""

    @abstractmethod
    def interface_notes(self, level: EvidenceLevel) -> str:
        """The documentation of the program interface, shown to the agent at every level."""

    def refuse(self, reason: str) -> Verdict:
        """The verdict of an artefact the trusted side will not read (a link in the work directory,
        an input the harness failed on): invalid, scored as this suite scores any invalid artefact."""
        return Verdict.invalid_artefact(reason)

    def subsets(self, task: Task) -> list[str]:
        """Labels of the reporting subsets a task belongs to (e.g. 'contains leak', '2 defects')."""
        return []

    def baseline_agent(self):
        """The suite's honest non-model repair baseline, if it has one (an object with `act`)."""
        return None

    #: The file name under which an agent's program is delivered when a task is exported.
    program_filename: str = "program.py"

    def save_task(self, task: Task, dest: Path) -> None:
        """Write what `load_task` needs to rebuild the task elsewhere (hidden parts included)."""
        raise NotImplementedError(f"suite {self.name!r} cannot be exported yet")

    def load_task(self, path: Path) -> Task:
        """The task saved by `save_task` in `path`."""
        raise NotImplementedError(f"suite {self.name!r} cannot be exported yet")

    def picture(self, task: Task) -> Path | None:
        """A picture or video of the task's starting state (a GIF, MP4 or PNG), if the suite made one."""
        return None

    def default_root(self, seed: int = 0) -> Path:
        """The benchmark directory used when none is given (built or shipped by the suite)."""
        raise FileNotFoundError(f"suite {self.name!r} has no default benchmark; pass one explicitly")

    #: Options a run may set (see `with_options`), with their meaning.
    options_help: dict[str, str] = {}

    def with_options(self, **options) -> "Suite":
        """This suite configured for a run (e.g. the audit suite's context window). No options: itself."""
        if options:
            unknown = sorted(set(options) - set(self.options_help))
            raise ValueError(f"suite {self.name!r} has no option(s) {', '.join(unknown)}; "
                             f"it knows {', '.join(sorted(self.options_help)) or 'none'}")
        return self

    def trajectory_fields(self, task: Task) -> dict | None:
        """For attempt-budget protocols (pace): the task's {"domain", "stage"} in the trajectory
        contract of simreflect.analysis.trajectory; None keeps the suite out of Pass@k tables."""
        return None

    def attempt_flags(self, verdict: dict) -> dict[str, bool]:
        """Simulator flags of one verified attempt (constraint_violation, structural_failure,
        numerical_instability), read from a recorded verdict; never inferred from a score."""
        return {}

    def episode_flags(self, rounds: list[dict]) -> list[str]:
        """Flags a suite raises on an episode from its round records (e.g. audit's verify_gain)."""
        return []
