"""The Suite interface every benchmark family implements.

A suite owns its task generation, the workspace an agent starts from, its verifier, its oracle and
its evidence. The episode loop, stores, reports and environments only talk to this interface.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path

from simreflect.core.contract import HiddenValue, RunProtocol, ScoreScale
from simreflect.core.evidence import EvidenceLevel
from simreflect.core.program import ProgramRun
from simreflect.core.task import Task
from simreflect.core.verdict import Verdict


class SuiteUnavailable(RuntimeError):
    """The suite cannot load its tasks on this machine (a missing checkout or an optional dependency).
    The message says what to set or install; the CLI prints it as one line and exits 2."""


class Suite(ABC):
    """The members every suite has. What only some suites can do (export, source programs,
    attempt-budget analysis, episode flags, volatile diagnostics, a baseline agent, pictures) is an
    optional capability in core.contract, looked up with `isinstance` or `capabilities(suite)`."""

    name: str = ""
    #: One line for help texts: what a task asks.
    summary: str = ""
    #: How a run goes unless it says otherwise (budget, runs, history, invalid streak, levels).
    protocol: RunProtocol = RunProtocol()
    #: What a verdict's score and reward mean (their ranges; the reward's map to [0, 1]).
    scale: ScoreScale
    #: The order in which summary tables list the subsets of `subsets()`.
    subset_order: tuple[str, ...] = ()

    @property
    def crash_reward(self) -> float:
        """The reward of an attempt whose program did not run to the end (a crash, a timeout, no
        program): the suite's lowest reward, and the floor of an episode's return (core/returns.py)."""
        return self.scale.reward_low

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

    def hidden_values(self, task: Task) -> tuple[HiddenValue, ...]:
        """The task's hidden ground truth that no instruction, note or report may show (what
        `check_suite` scans every rendered text for): pace's changed invisible values near their
        names, audit's keys, gait's planted defect magnitudes at full precision. A suite whose
        tasks hide nothing returns ()."""
        return ()

    def subsets(self, task: Task) -> list[str]:
        """Labels of the reporting subsets a task belongs to (e.g. 'contains leak', '2 defects')."""
        return []

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
