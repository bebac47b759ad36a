"""Suite-independent objects: tasks, checks and verdicts, evidence rendering, the suite registry.

Nothing in core imports a suite; suites register themselves (see registry.py).
"""

from simreflect.core.evidence import EvidenceLevel, render_report
from simreflect.core.registry import get_suite, suite_names
from simreflect.core.task import Task
from simreflect.core.verdict import Check, Detail, Verdict

__all__ = ["Check", "Detail", "EvidenceLevel", "Task", "Verdict", "get_suite", "render_report", "suite_names"]
