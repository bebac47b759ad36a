"""`check_suite`: the contract test every suite passes (`simreflect check SUITE`).

For every task (or a seeded sample) it plays the real path (core.attempt) and checks that
  - the suite's declarations hold (a run protocol, a score scale whose low reward is the crash reward),
  - the untouched workspace fails and the oracle passes,
  - verification is deterministic: the same verdict twice, and again in a fresh process (apart from
    the suite's declared volatile diagnostics),
  - a saved task loads back and gives the same verdict (when the suite exports),
  - the instruction, the notes and every evidence level render, and none shows a hidden value
    (`Suite.hidden_values`),
  - every score and reward lies in the declared scale,
  - every task of the directory loads (a suite with hand-written task folders names a broken one),
  - hostile programs (one that crashes; ones that leave links, FIFOs or garbage in place of the
    workspace's files) get a verdict that does not pass, never an exception or a harness failure.
A problem is a Finding; nothing here raises for what a suite does.
"""

from __future__ import annotations

import inspect
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simreflect.core.attempt import AttemptOutcome, attempt, check_and_verify, guarded
from simreflect.core.contract import BrokenTasks, Exports, RunProtocol, ScoreScale, volatile_keys
from simreflect.core.evidence import EvidenceLevel
from simreflect.core.suite import Suite
from simreflect.core.task import Task
from simreflect.core.verdict import Verdict

LEVELS = (EvidenceLevel.L1, EvidenceLevel.L2, EvidenceLevel.L3)
CHILD_TIMEOUT_S = 600.0
#: Bytes a garbage file holds: control characters, invalid UTF-8, a lone surrogate's encoding, NUL.
GARBAGE = b"\x00\xff\xfe{\"\xed\xa0\x80]]]\x1b[2J" + bytes(range(256))

_CRASH = "raise SystemExit(3)\n"
_REPLACE = """import os
for name in {names!r}:
    if os.path.lexists(name):
        os.remove(name)
    {make}
"""
HOSTILE = {
    "crash": lambda names: _CRASH,
    "links": lambda names: _REPLACE.format(names=names, make="os.symlink('/etc/passwd', name)"),
    "fifos": lambda names: _REPLACE.format(names=names, make="os.mkfifo(name)"),
    "garbage": lambda names: _REPLACE.format(names=names, make=f"open(name, 'wb').write({GARBAGE!r})"),
}


@dataclass(frozen=True)
class Finding:
    task: str  # "" for the suite's declarations
    check: str
    problem: str

    def __str__(self) -> str:
        return f"{self.task or '(suite)'}: {self.check}: {self.problem}"


@dataclass(frozen=True)
class CheckReport:
    suite: str
    tasks: tuple[str, ...]
    checks: int
    findings: tuple[Finding, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not self.findings

    def text(self) -> str:
        head = (f"{self.suite}: {len(self.tasks)} task(s), {self.checks} checks, "
                f"{'all passed' if self.ok else f'{len(self.findings)} finding(s)'}")
        return "\n".join([head, *(f"  {f}" for f in self.findings)])


def sample_tasks(tasks: list[Task], sample: int | None, seed: int = 0) -> list[Task]:
    """`sample` tasks drawn with `seed` (all of them with None), in their canonical order."""
    if sample is None or sample >= len(tasks):
        return list(tasks)
    keep = set(random.Random(seed).sample(range(len(tasks)), max(sample, 0)))
    return [t for i, t in enumerate(tasks) if i in keep]


def comparable(verdict: Verdict | dict, volatile: tuple[str, ...]) -> dict[str, Any]:
    """A verdict as JSON data without its volatile diagnostics (what must repeat)."""
    d = json.loads(json.dumps(verdict.to_dict() if isinstance(verdict, Verdict) else verdict, default=str))
    if isinstance(d.get("diagnostics"), dict):
        d["diagnostics"] = {k: v for k, v in d["diagnostics"].items() if k not in volatile}
    return d


def suite_spec(suite: Suite) -> str:
    """module:Class of a suite, how a fresh process builds it."""
    return f"{type(suite).__module__}:{type(suite).__qualname__}"


def verify_in_child(suite: Suite, options: dict[str, Any], task: Task, work: Path) -> dict[str, Any]:
    """The verdict of `work` computed by a fresh interpreter (simreflect.testing.verify_child)."""
    payload = json.dumps({"suite": suite_spec(suite), "options": options, "task": task.to_dict(),
                          "work": str(work)})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}  # the same import path
    proc = subprocess.run([sys.executable, "-m", "simreflect.testing.verify_child"], input=payload,
                          capture_output=True, text=True, timeout=CHILD_TIMEOUT_S, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"the child process failed ({proc.returncode}): {proc.stderr[-800:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


class _TaskCheck:
    def __init__(self, suite: Suite, task: Task, tmp: Path, options: dict[str, Any], *, oracle: bool,
                 cross_process: bool, hostile: bool, timeout_s: float) -> None:
        self.suite, self.task, self.tmp, self.options = suite, task, tmp, options
        self.oracle, self.cross_process, self.hostile, self.timeout_s = oracle, cross_process, hostile, timeout_s
        self.volatile = volatile_keys(suite)
        self.findings: list[Finding] = []
        self.checks = 0

    def expect(self, ok: bool, check: str, problem: str) -> bool:
        self.checks += 1
        if not ok:
            self.findings.append(Finding(self.task.id, check, problem))
        return ok

    def in_scale(self, verdict: Verdict, what: str) -> None:
        scale = self.suite.scale
        self.expect(scale.score_in_range(verdict.score), "score range",
                    f"{what}: score {verdict.score!r} outside [{scale.score_low}, {scale.score_high}]")
        self.expect(scale.reward_in_range(verdict.reward), "reward range",
                    f"{what}: reward {verdict.reward!r} outside [{scale.reward_low}, {scale.reward_high}]")

    def fresh(self, name: str) -> Path:
        work = self.tmp / name
        self.suite.prepare_workspace(self.task, work)
        return work

    def run(self) -> None:
        untouched_dir = self.fresh("untouched")
        names = sorted(str(p.relative_to(untouched_dir)) for p in untouched_dir.rglob("*") if p.is_file())
        untouched, failure = check_and_verify(self.suite, self.task, untouched_dir)
        self.expect(failure is None, "untouched", f"the verifier raised {failure and failure.type}")
        self.expect(not untouched.passed, "untouched", "the untouched workspace passes: doing nothing solves it")
        self.in_scale(untouched, "untouched")
        judged, verdicts = (untouched_dir, untouched), (untouched,)
        if self.oracle:
            solved_dir = self.fresh("oracle")
            outcome = attempt(self.suite, self.task, self.suite.oracle(self.task), solved_dir, self.timeout_s)
            if not self.expect(outcome.verdict is not None and outcome.verdict.passed, "oracle",
                               f"the oracle does not pass: {_what(outcome)}"):
                return
            self.in_scale(outcome.verdict, "oracle")
            judged, verdicts = (solved_dir, outcome.verdict), (untouched, outcome.verdict)
        self.determinism(*judged)
        self.round_trip(*judged)
        self.texts(verdicts)
        if self.hostile:
            for kind, make in HOSTILE.items():
                self.hostile_program(kind, make(names))

    def determinism(self, work: Path, first: Verdict) -> None:
        want = comparable(first, self.volatile)
        again, failure = check_and_verify(self.suite, self.task, work)
        self.expect(failure is None and comparable(again, self.volatile) == want, "deterministic",
                    "verifying the same workspace twice gives two verdicts")
        if self.cross_process:
            try:
                other = comparable(verify_in_child(self.suite, self.options, self.task, work), self.volatile)
            except (RuntimeError, ValueError, subprocess.TimeoutExpired) as e:
                self.expect(False, "deterministic across processes", str(e)[:500])
                return
            self.expect(other == want, "deterministic across processes",
                        f"a fresh process gives another verdict (differs in {_differing(want, other)})")

    def round_trip(self, work: Path, first: Verdict) -> None:
        if not isinstance(self.suite, Exports):
            return
        dest = self.tmp / "saved"
        _, failure = guarded("save", self.suite.save_task, self.task, dest)
        loaded, failure = (None, failure) if failure else guarded("load", self.suite.load_task, dest)
        if not self.expect(failure is None and isinstance(loaded, Task), "save/load",
                           f"saving or loading the task raised {failure and failure.type}: "
                           f"{failure and failure.message}"):
            return
        self.expect((loaded.id, loaded.suite) == (self.task.id, self.task.suite), "save/load",
                    f"the loaded task is {loaded.suite}/{loaded.id}")
        again, failure = check_and_verify(self.suite, loaded, work)
        self.expect(failure is None and comparable(again, self.volatile) == comparable(first, self.volatile),
                    "save/load", "the loaded task judges the same workspace differently")

    def texts(self, verdicts: tuple[Verdict, ...]) -> None:
        rendered = {"instruction": self.suite.instruction(self.task)}
        for level in LEVELS:
            rendered[f"interface notes {level.name}"] = self.suite.interface_notes(level)
            for v in verdicts:
                what = f"{'passing' if v.passed else 'failing'} report {level.name}"
                text, failure = guarded("observe", self.suite.observe, self.task, v, level)
                if self.expect(failure is None and isinstance(text, str) and text.strip(), "renders",
                               f"the {what} does not render ({failure and failure.type})"):
                    rendered[what] = text
        hidden = self.suite.hidden_values(self.task)
        for what, text in rendered.items():
            shown = [s for s in (h.shown_in(text) for h in hidden) if s is not None]
            self.expect(not shown, "hidden values", f"the {what} shows hidden value(s) {', '.join(shown)}")

    def hostile_program(self, kind: str, program: str) -> None:
        work = self.fresh(f"hostile-{kind}")
        outcome = guarded("attempt", attempt, self.suite, self.task, program, work, self.timeout_s)[0]
        if not self.expect(isinstance(outcome, AttemptOutcome), f"hostile {kind}", "the attempt raised"):
            return
        self.expect(outcome.harness is None, f"hostile {kind}",
                    f"the suite raised on it (caught by the backstop): {outcome.harness and outcome.harness.type}: "
                    f"{outcome.harness and outcome.harness.message}")
        if outcome.verdict is not None:
            self.expect(not outcome.verdict.passed, f"hostile {kind}", "a hostile program passes")
            self.in_scale(outcome.verdict, f"hostile {kind}")


def _what(outcome: AttemptOutcome) -> str:
    if outcome.harness is not None:
        return f"the harness failed ({outcome.harness.stage}: {outcome.harness.type}: {outcome.harness.message})"
    if outcome.verdict is None:
        p = outcome.program
        return f"the program did not run ({p.status if p else 'no result'}: {(p.output_tail if p else '')[-300:]})"
    return f"errors {outcome.verdict.errors} {outcome.verdict.invalid}"


def _differing(a: dict, b: dict) -> str:
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    if keys == ["diagnostics"]:
        da, db = a["diagnostics"], b["diagnostics"]
        keys = [f"diagnostics.{k}" for k in sorted(set(da) | set(db)) if da.get(k) != db.get(k)]
    return ", ".join(keys)


def check_declarations(suite: Suite) -> list[Finding]:
    found = []
    if not suite.name:
        found.append(Finding("", "declarations", "the suite has no name"))
    if not isinstance(getattr(suite, "protocol", None), RunProtocol):
        found.append(Finding("", "declarations", "the suite declares no RunProtocol"))
    scale = getattr(suite, "scale", None)
    if not isinstance(scale, ScoreScale):
        found.append(Finding("", "declarations", "the suite declares no ScoreScale"))
    elif suite.crash_reward != scale.reward_low:
        found.append(Finding("", "declarations", f"crash_reward {suite.crash_reward} is not the lowest reward"))
    return found


def default_timeout(suite: Suite) -> float:
    """The program timeout a suite's run_program takes when given none."""
    default = inspect.signature(suite.run_program).parameters["timeout_s"].default
    return float(default) if isinstance(default, (int, float)) else 120.0


def check_suite(suite: Suite, root: Path | None = None, *, sample: int | None = None, seed: int = 0,
                tasks: tuple[str, ...] = (), options: dict[str, Any] | None = None, oracle: bool = True,
                cross_process: bool = True, hostile: bool = True, timeout_s: float | None = None) -> CheckReport:
    """Check `suite` (configured with `options`) on the tasks of `root`: every task, the ids in
    `tasks`, or `sample` of them drawn with `seed`. `oracle=False` skips running the oracle (for a
    quick pass over a suite whose reference takes minutes): the determinism and save/load checks
    then judge the untouched workspace. `timeout_s`: per program (default: the suite's own)."""
    options = dict(options or {})
    suite = suite.with_options(**options)
    timeout_s = default_timeout(suite) if timeout_s is None else timeout_s
    findings = check_declarations(suite)
    if findings:
        return CheckReport(suite.name, (), len(findings), tuple(findings))
    every = suite.load_tasks(root)
    if isinstance(suite, BrokenTasks):  # a task that does not load is its finding; the others are checked
        findings += [Finding(b.id, "loads", b.reason) for b in suite.broken_tasks(root)]
    chosen = [t for t in every if t.id in tasks] if tasks else sample_tasks(every, sample, seed)
    checks = 4
    with tempfile.TemporaryDirectory(prefix=f"simreflect-check-{suite.name}-") as tmp:
        for i, task in enumerate(chosen):
            one = _TaskCheck(suite, task, Path(tmp) / f"t{i}", options, oracle=oracle, cross_process=cross_process,
                             hostile=hostile, timeout_s=timeout_s)
            try:
                one.run()
            except Exception as e:  # noqa: BLE001 - a suite that raises is a finding, not the checker's crash
                one.findings.append(Finding(task.id, "raised", f"{type(e).__name__}: {str(e)[:500]}"))
            findings += one.findings
            checks += one.checks
            shutil.rmtree(Path(tmp) / f"t{i}", ignore_errors=True)
    return CheckReport(suite.name, tuple(t.id for t in chosen), checks, tuple(findings))
