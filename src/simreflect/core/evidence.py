"""Evidence levels and the report a verifier's verdict becomes for the agent.

Level 1 shows which checks failed with their measured values and limits; higher levels add the
details a check tagged with that level. The rendering is the same for every suite: suites decide
what evidence exists, not how it is printed.
"""

from __future__ import annotations

from enum import IntEnum

from simreflect.core.verdict import Verdict


class EvidenceLevel(IntEnum):
    L1 = 1
    L2 = 2
    L3 = 3

    @classmethod
    def parse(cls, text: str | int) -> EvidenceLevel:
        if isinstance(text, int):
            return cls(text)
        key = text.strip().upper()
        if key in cls.__members__:
            return cls[key]
        if key.isdigit():
            return cls(int(key))
        raise ValueError(f"unknown evidence level {text!r}; use L1, L2 or L3")


def render_report(verdict: Verdict, level: EvidenceLevel | int, title: str = "Verifier report") -> str:
    """Plain-text report of a verdict at an evidence level (what the agent reads)."""
    level = EvidenceLevel(int(level))
    lines = [f"{title} (evidence level L{int(level)})"]
    if verdict.invalid:
        lines.append(f"RESULT: FAIL - the artefact could not be verified: {verdict.invalid}")
        return "\n".join(lines) + "\n"
    failed = [c for c in verdict.checks if not c.passed]
    result = "PASS" if verdict.passed else f"FAIL ({len(failed)} of {len(verdict.checks)} checks failed)"
    lines.append(f"RESULT: {result}")
    for c in verdict.checks:
        status = "ok  " if c.passed else "FAIL"
        measured = "" if c.value is None else f" measured {c.value:.4g}{(' ' + c.unit) if c.unit else ''}"
        limit = f" (limit {c.limit})" if c.limit else ""
        lines.append(f"- [{status}] {c.name}:{measured}{limit}")
        if not c.passed:
            if c.message:
                lines.append(f"    {c.message}")
            for d in c.details:
                if d.level <= level:
                    for row in d.text.splitlines():
                        lines.append(f"    {row}")
    return "\n".join(lines) + "\n"
