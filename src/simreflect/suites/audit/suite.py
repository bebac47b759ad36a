"""The audit suite behind the core Suite interface: claim cards, sandboxed scripts, the grader."""

from __future__ import annotations

import functools
import json
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from simreflect.core.attempt import TrustedSideFailure
from simreflect.core.contract import HiddenValue, RunProtocol, ScoreScale, value_texts
from simreflect.core.evidence import EvidenceLevel, render_report
from simreflect.core.program import ProgramRun, refuse_program
from simreflect.core.records import RoundRecord
from simreflect.core.sandbox import (
    SANDBOX_WORKDIR,
    Limits,
    UnsafeWorkspaceFile,
    read_workspace_file,
    remove_workspace_file,
    run_sandboxed,
    write_workspace_file,
)
from simreflect.core.suite import Suite
from simreflect.core.task import Task
from simreflect.core.untrusted import ArrayLimits, JsonLimits, Refusal, finite_float, load_json, load_npz
from simreflect.core.verdict import Verdict
from simreflect.suites.audit import notes
from simreflect.suites.audit.cards import REFERENCE_FILE, Card, load_card, load_cards, tasks_dir
from simreflect.suites.audit.draws import draw_params
from simreflect.suites.audit.grader import (
    Integrity,
    RawData,
    ReferenceOutcome,
    RunRecord,
    VariantOutcome,
    grade,
    integrity_worthwhile,
    raw_problems,
    variant_draws,
)
from simreflect.suites.audit.summary import find_summary, read_metrics

#: Written into the work directory after a script ran (by us, not by the script): the script's
#: source, how the run ended and its output tail. verify() grades from it.
RUN_RECORD = ".audit_run.json"
SCRIPT_TIMEOUT_S = 60.0
SCRIPT_LIMITS = Limits(wall_s=SCRIPT_TIMEOUT_S, cpu_s=SCRIPT_TIMEOUT_S, memory_mb=2048, processes=64, file_mb=64,
                       output_kb=256, disk_mb=512)
MAX_RAW_BYTES = 64 << 20
MAX_RAW_UNPACKED = 256 << 20
MAX_RECORD_BYTES = 1 << 20
#: The longest script timeout a run record may carry (the variant re-run uses it).
MAX_TIMEOUT_S = 3600.0
REFERENCE_TIMEOUT_S = 300.0  # trusted code; generous so a loaded machine does not fail a grade
RUN_WORKERS = 2  # sandboxed runs of one grade done at once (the script's and the reference's)


class ReferenceRunError(TrustedSideFailure):
    """The reference implementation did not produce its metrics and raw arrays (a grader bug:
    every reference must run over the whole range its card draws from)."""


def task_from_card(card: Card) -> Task:
    return Task(id=card.id, suite="audit", seed=int(card.params["seed"]), params=dict(card.params),
                hidden={"dir": str(card.directory), "key_strength": card.key_strength, "domain": card.domain},
                budget=AuditSuite.protocol.budget)


def write_workspace(card: Card, workdir: Path, params: dict[str, Any]) -> None:
    workdir.mkdir(parents=True, exist_ok=True)
    write_workspace_file(workdir, notes.PARAMS_FILE, json.dumps(params, indent=2, sort_keys=True) + "\n")
    write_workspace_file(workdir, notes.CONTRACT_FILE, notes.contract(card, params))


def run_script(program: str, workdir: Path, timeout_s: float = SCRIPT_TIMEOUT_S) -> ProgramRun:
    """Run `program` as script.py in the sandbox with `workdir` as its only directory, then write the
    run record (also the run's artefact). Stale outputs of an earlier round (raw.npz, the record)
    are removed first."""
    workdir = Path(workdir)
    for stale in (notes.RAW_FILE, RUN_RECORD):
        remove_workspace_file(workdir, stale)
    write_workspace_file(workdir, notes.SCRIPT_FILE, program)
    result = run_sandboxed([sys.executable, f"{SANDBOX_WORKDIR}/{notes.SCRIPT_FILE}"], workdir,
                           replace(SCRIPT_LIMITS, wall_s=timeout_s, cpu_s=timeout_s))
    record = {"script": program, "timeout_s": timeout_s, **result.to_dict()}
    write_workspace_file(workdir, RUN_RECORD, json.dumps(record))
    return ProgramRun(result, record)


#: The record is ours (written after the run), but a run directory from elsewhere is data too.
RECORD_LIMITS = JsonLimits(max_bytes=MAX_RECORD_BYTES, max_depth=16, nonfinite="allow", surrogates="replace")
#: The fields of the record and their types (a record with another shape is no record).
_RECORD_FIELDS = {"script": str, "timeout_s": (int, float), "status": str, "exit_code": (int, type(None)),
                  "output_tail": str, "reason": str, "seconds": (int, float)}
#: raw.npz: numeric arrays only (bool, int, uint, float), at most MAX_RAW_UNPACKED bytes as float64.
#: NaN and infinite values are read: a recompute from them does not match any reported finite metric.
RAW_LIMITS = ArrayLimits(max_bytes=MAX_RAW_BYTES, max_members=64, max_values=MAX_RAW_UNPACKED // 8,
                         max_total_values=MAX_RAW_UNPACKED // 8, kinds="biuf", nonfinite="allow")


def read_run_record(workdir: Path) -> dict[str, Any] | None:
    try:
        record = load_json(read_workspace_file(Path(workdir), RUN_RECORD, MAX_RECORD_BYTES), RECORD_LIMITS, RUN_RECORD)
    except (FileNotFoundError, UnsafeWorkspaceFile, OSError, Refusal):
        return None
    return checked_run_record(record)


def checked_run_record(record: Any) -> dict[str, Any] | None:
    """`record` when it has the shape of a run record (read back from a work directory, or handed
    over by run_program), else None."""
    if not isinstance(record, dict) or any(not _typed(record[k], t) for k, t in _RECORD_FIELDS.items() if k in record):
        return None
    timeout = finite_float(record.get("timeout_s", SCRIPT_TIMEOUT_S))
    if timeout is None or not 0 < timeout <= MAX_TIMEOUT_S:
        return None
    return record


def _typed(value: Any, types: type | tuple[type, ...]) -> bool:
    return isinstance(value, types) and not isinstance(value, bool)


def record_to_run(record: dict[str, Any] | None) -> RunRecord | None:
    if record is None:
        return None
    seconds = finite_float(record.get("seconds", 0.0))
    return RunRecord(status=str(record.get("status", "")), exit_code=record.get("exit_code"),
                     output_tail=str(record.get("output_tail", "")), reason=str(record.get("reason", "")),
                     seconds=0.0 if seconds is None else seconds)


def read_raw(workdir: Path) -> RawData:
    """The arrays of raw.npz (numeric only, as float64), read as untrusted data (core.untrusted:
    every header judged before anything is allocated)."""
    try:
        blob = read_workspace_file(Path(workdir), notes.RAW_FILE, MAX_RAW_BYTES)
    except FileNotFoundError:
        return RawData(error=f"no {notes.RAW_FILE} in the working directory")
    except (UnsafeWorkspaceFile, OSError) as e:
        return RawData(error=f"cannot read {notes.RAW_FILE}: {e}")
    try:
        arrays = load_npz(blob, RAW_LIMITS, notes.RAW_FILE)
    except Refusal as e:
        return RawData(error=str(e))
    return RawData(arrays={name: np.asarray(a, dtype=float) for name, a in arrays.items()})


def _run_in_fresh_dir(card: Card, program: str, params: dict[str, Any], timeout_s: float) -> tuple[RunRecord | None, RawData]:
    with tempfile.TemporaryDirectory(prefix="simreflect-audit-run-") as tmp:
        work = Path(tmp) / "work"
        write_workspace(card, work, params)
        run_script(program, work, timeout_s)
        run = record_to_run(read_run_record(work))
        return run, read_raw(work)


@functools.lru_cache(maxsize=16)
def _reference_cached(folder: str, program: str, params_json: str) -> ReferenceOutcome:
    card = load_card(Path(folder))
    params = json.loads(params_json)
    run, raw = _run_in_fresh_dir(card, program, params, REFERENCE_TIMEOUT_S)
    summary = find_summary(run.output_tail if run else "")
    if run is None or not run.ok or summary.data is None:
        why = "did not run" if run is None else (run.reason or summary.error)
        raise ReferenceRunError(f"{card.id} with {params}: the reference failed: {why}\n"
                                f"{(run.output_tail if run else '')[-800:]}")
    metrics = read_metrics(card, summary.data.get("metrics")).values
    problems = [f"{m} not reported" for m in card.metrics if m not in metrics] + raw_problems(card, raw)
    if problems:
        raise ReferenceRunError(f"{card.id} with {params}: the reference's output is incomplete: {problems}")
    return ReferenceOutcome(metrics=dict(metrics), raw=raw)


def run_reference(card: Card, params: dict[str, Any]) -> ReferenceOutcome:
    """The reference implementation's metrics and raw arrays for `params` (sandboxed; the same
    parameters in one process are run once)."""
    program = (card.directory / REFERENCE_FILE).read_text()
    return _reference_cached(str(card.directory), program, json.dumps(params, sort_keys=True))


def run_integrity(card: Card, script: str, timeout_s: float, draws: int | None = None) -> Integrity:
    """The reference at the base parameters, and for each parameter set drawn for this script
    (draws.py) the script's run and the reference's run there, `RUN_WORKERS` at a time."""
    sets = draw_params(card, script, variant_draws() if draws is None else draws) if card.has_variant else []
    with ThreadPoolExecutor(max_workers=RUN_WORKERS) as pool:
        base = pool.submit(run_reference, card, dict(card.params))
        scripts = [pool.submit(_run_in_fresh_dir, card, script, p, timeout_s) for p in sets]
        refs = [pool.submit(run_reference, card, p) for p in sets]
        variants = tuple(VariantOutcome(params=p, run=s.result()[0], raw=s.result()[1], reference=r.result())
                         for p, s, r in zip(sets, scripts, refs))
        return Integrity(reference=base.result(), variants=variants)


def verify_workspace(card: Card, workdir: Path, do_variant: bool = True,
                     run: ProgramRun | None = None) -> Verdict:
    """The grade of the script's run in `workdir`: of the run record in `run` (what run_program
    returned) or, without one, of the record the work directory holds."""
    record = read_run_record(workdir) if run is None else checked_run_record(run.artefact)
    run = record_to_run(record)
    raw = read_raw(workdir) if run is not None else None
    if not do_variant:
        integrity = Integrity(skipped="not requested")
    elif run is None or not integrity_worthwhile(card, run, raw):
        integrity = Integrity(skipped="the attempt already scores at most the integrity cap")
    else:
        integrity = run_integrity(card, str(record.get("script", "")), float(record.get("timeout_s", SCRIPT_TIMEOUT_S)))
    return grade(card, run, raw, integrity)


def observation(card: Card, verdict: Verdict, level: EvidenceLevel | int) -> str:
    """The grader's report as the agent reads it: checks, exit code, output tail, unknown metric
    names and the failed key checks."""
    d = verdict.diagnostics
    lines = [render_report(verdict, level, title=f"Audit grader report for {card.id}").rstrip(), ""]
    lines.append(f"Score: {verdict.score:g} (ladder level: {d.get('level', '?')})")
    flags = d.get("flags") or []
    if flags:
        lines.append("Flags: " + ", ".join(flags))
    failed = [c.name for c in verdict.checks if not c.passed]
    if failed:
        lines.append("Failed key checks: " + ", ".join(failed))
    unknown = d.get("unknown_metrics") or []
    if unknown:
        names = "; ".join(f"{m.name}" + (f" (aliases {', '.join(m.aliases)})" if m.aliases else "")
                          for m in card.metrics.values())
        lines.append("Unknown metric names (not graded): " + ", ".join(unknown) + f". Graded names: {names}.")
    status = d.get("status")
    if status is not None:
        lines.append(f"Exit code: {d.get('exit_code')} ({status}{': ' + d['reason'] if d.get('reason') else ''})")
        tail = (d.get("output_tail") or "").strip()
        lines.append("Output tail:\n" + (tail if tail else "(no output)"))
    return "\n".join(lines) + "\n"


class AuditSuite(Suite):
    name = "audit"
    summary = "audit a scientific claim: write the experiment that tests it and state a verdict"
    protocol = RunProtocol(budget=3, timeout_s=SCRIPT_TIMEOUT_S)
    scale = ScoreScale(0.0, 1.0, 0.0, 1.0, "the reward ladder's rung (0..1, ladder.toml); reward equals score")
    subset_order = ("keyed", "key: reference", "key: variant", "key: none")
    volatile_diagnostics = ("seconds", "output_tail")  # the script's wall time and what it printed
    options_help = {"context_chars": "show only the first N characters of each claim's context (default: all)"}

    def __init__(self, context_chars: int | None = None) -> None:
        self._cards: dict[str, Card] = {}
        self.context_chars = context_chars

    def with_options(self, **options) -> AuditSuite:
        if not options:
            return self
        super().with_options(**{k: v for k, v in options.items() if k not in self.options_help})
        chars = options.get("context_chars")
        return AuditSuite(context_chars=None if chars is None else int(chars))

    program_filename = notes.SCRIPT_FILE

    def save_task(self, task: Task, dest: Path) -> None:
        """The task folder under dest/<id> (a card's id must match its folder's name)."""
        shutil.copytree(Path(task.hidden["dir"]), Path(dest) / task.id, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__"))

    def load_task(self, path: Path) -> Task:
        return self.load_tasks(Path(path))[0]

    def episode_flags(self, rounds: Sequence[RoundRecord]) -> list[str]:
        """verify_gain: the script's verdict flipped to 'supported' after feedback on an earlier round."""
        verdicts = [(r.verdict or {}).get("diagnostics", {}).get("verdict") for r in rounds]
        claims = [c for c in verdicts if c]  # rounds whose script stated a verdict
        flips = any(c == "supported" and any(e != "supported" for e in claims[:i]) for i, c in enumerate(claims))
        return ["verify_gain"] if flips else []

    def hidden_values(self, task: Task) -> tuple[HiddenValue, ...]:
        """The answer keys: the metrics the reference captured (keys.json)."""
        return tuple(HiddenValue(value_texts(v)) for v in self.card(task).keys.get("base", {}).values())

    def card(self, task: Task) -> Card:
        folder = str(task.hidden["dir"])
        if folder not in self._cards:
            self._cards[folder] = load_card(Path(folder))
        return self._cards[folder]

    def load_tasks(self, root: Path | None = None) -> list[Task]:
        """Tasks of a tasks directory (default: the packaged one, `tasks_dir()`), ordered by id.
        A single task folder is accepted too."""
        root = Path(root) if root is not None else tasks_dir()
        cards = [load_card(root)] if (root / "card.toml").is_file() else load_cards(root)
        for c in cards:
            self._cards[str(c.directory)] = c
        return [task_from_card(c) for c in cards]

    def default_root(self, seed: int = 0) -> Path:
        return tasks_dir()

    def prepare_workspace(self, task: Task, workdir: Path) -> None:
        write_workspace(self.card(task), Path(workdir), dict(task.params))

    def run_program(self, task: Task, program: str, workdir: Path, timeout_s: float = SCRIPT_TIMEOUT_S) -> ProgramRun:
        refused = refuse_program(program)
        return ProgramRun(refused) if refused is not None else run_script(program, Path(workdir), timeout_s)

    def verify(self, task: Task, workdir: Path, run: ProgramRun | None = None) -> Verdict:
        return verify_workspace(self.card(task), Path(workdir), run=run)

    def oracle(self, task: Task) -> str:
        return (self.card(task).directory / REFERENCE_FILE).read_text()

    def observe(self, task: Task, verdict: Verdict, level: EvidenceLevel) -> str:
        return observation(self.card(task), verdict, level)

    def instruction(self, task: Task) -> str:
        return notes.instruction(self.card(task), context_chars=self.context_chars)

    def interface_notes(self, level: EvidenceLevel) -> str:
        return notes.interface_notes(level)

    def subsets(self, task: Task) -> list[str]:
        card = self.card(task)
        out = ["keyed"] if card.keyed else []
        return out + [f"key: {card.key_strength}", f"domain: {card.domain}"]

    # ----- interactive episodes (core.contract.InteractiveEpisodes; suites/audit/interactive.py) ---

    interactive_tools = ("python", "submit", "finish")

    def open_world(self, task: Task, base: Path, level: EvidenceLevel, wall_used_s: float = 0.0):
        from simreflect.suites.audit.interactive import AuditWorld

        # the session's clock is the harness's: each call is given the wall seconds the session has left
        return AuditWorld(self, task, Path(base), EvidenceLevel(level), budget=self.protocol.budget,
                          tools=self.interactive_tools)

    def grade_world(self, task: Task, world) -> Verdict:
        from simreflect.suites.audit.interactive import no_submission_verdict

        verdict = world.verdict()
        return verdict if verdict is not None else no_submission_verdict(self, task)

    def interactive_instruction(self, task: Task) -> str:
        return "\n".join([self.instruction(task), notes.INTERFACE, notes.interactive_note(self.protocol.budget)])

    def interactive_oracle(self, task: Task):
        from simreflect.suites.audit.interactive import ReferenceSubmitAgent

        return ReferenceSubmitAgent(self.oracle(task))


def grade_script(task_id: str, script: str, root: Path | None = None, timeout_s: float = SCRIPT_TIMEOUT_S,
                 workdir: Path | None = None) -> tuple[Card, Verdict]:
    """Prepare a workspace for one task, run `script` there and grade it (what `audit grade` does)."""
    root = Path(root) if root is not None else tasks_dir()
    card = load_card(root / task_id)
    with tempfile.TemporaryDirectory(prefix="simreflect-audit-") as tmp:
        work = Path(workdir) if workdir is not None else Path(tmp) / "work"
        write_workspace(card, work, dict(card.params))
        run = run_script(script, work, timeout_s)
        return card, verify_workspace(card, work, run=run)
