"""`simreflect pace probe`: a seeded adversarial search for designs that pass without the reference's mechanism.

A policy trained on pace finds every way to a pass the rules leave open; the probe looks first.
For one (task, stage) pair it spends a budget of evaluations, each one a program run through the
same sandboxed path as `simreflect pace verify` (`evaluate`), on designs built from the whole API:

* exploration (half the budget, at least one population), the generators taken in turn:
  for design tasks mutations of the stage's reference and of the source design, random
  structures, random structures at the legal extremes and the reference at the legal extremes
  (`probe_designs`); for controller tasks constant, timed bang-bang, switching bang-bang and
  resonant laws, and the task's own laws saturated, dithered or with rescaled literals
  (`probe_controllers`);
* evolution: generations of `population` children, each a mutation of the fitter of two parents
  drawn from the pool: the best half-population so far and the best of each generator's lineage
  (by score, a run that broke a rule credited for its progress toward the goal; a pass of a
  mechanism already found counts less each time it is found again, so the search keeps looking
  for other mechanisms).

Design candidates are screened before they cost an evaluation: the program is rendered, the
design it declares is read back (it is our own program) and measured with `check_design`; one
outside the rules (it could never pass) or already evaluated is redrawn. Every evaluation is
watched by a `mechanism.ContactLog`; the stage's reference is evaluated once the same way, and
every pass is compared with it (`mechanism.compare`).

Findings (`write_findings`): per pair a folder `<task>/<stage>/` with every passing program
(`pass-NN.py`, runnable with `simreflect pace verify --task T --stage N --program pass-NN.py`),
a GIF of the first pass of each distinct mechanism (up to `gifs`, mechanisms unlike the
reference's first; that run re-verifies the pass), `pair.json` and `trials.jsonl`; at the top
`findings.json` and `summary.md`. Everything is a pure function of the code, the task folders and
the seed: a rerun gives the same bytes. Timings are kept apart in `timing.json`.
"""

from __future__ import annotations

import hashlib
import json
import os
import textwrap
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from simreflect.agents.param_search import task_seed
from simreflect.suites.pace.design import Design, check_design
from simreflect.suites.pace.engine import Sim
from simreflect.suites.pace.evaluate import DEFAULT_TIMEOUT_S, Evaluation, evaluate
from simreflect.suites.pace.mechanism import Comparison, ContactLog, Mechanism, compare
from simreflect.suites.pace.probe_controllers import (BASED, FAMILIES, ControlSpace, Law, control_space, law_program,
                                                      mutate_law, random_law)
from simreflect.suites.pace.probe_designs import (DesignSpace, declare, design_program, extreme_design, fit,
                                                  mutate_design, random_design)
from simreflect.suites.pace.task import STAGES, TARGETS, TaskSpec, load_spec, load_specs, parse_stage

#: Draws of a candidate before a generator gives up for this turn.
MAX_DRAWS = 30
#: A pass of a mechanism already found counts this much less each time it is found again.
REPEAT_PENALTY = 20.0
#: A run that broke a rule is credited this much for reaching its goal (times its progress).
VIOLATION_PROGRESS = 50.0
DESIGN_FAMILIES = ("reference", "extremes", "random", "source", "reference-extremes")
FORMAT = 1


@dataclass(frozen=True)
class ProbeConfig:
    budget: int = 200  # sandboxed evaluations per pair (the reference's and the GIF runs not counted)
    population: int = 8
    seed: int = 0
    gifs: int = 3  # GIFs per pair: the first pass of each distinct mechanism, unlike the reference's first
    timeout_s: float = DEFAULT_TIMEOUT_S

    def __post_init__(self) -> None:
        if self.budget < 1 or self.population < 1 or self.gifs < 0 or self.timeout_s <= 0:
            raise ValueError("budget and population must be at least 1, gifs at least 0, timeout positive")

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k != "timeout_s"}


@dataclass
class Candidate:
    family: str  # the generator it came from (its lineage's, for children)
    origin: str  # what was done: "random", "mutation of #12: scale+motor", ...
    program: str
    design: Design | None = None
    law: Law | None = None
    parent: int | None = None


@dataclass
class Trial:
    index: int  # 1, 2, ... in order of evaluation
    family: str
    origin: str
    parent: int | None  # the index of the trial it mutates
    score: float
    passed: bool
    progress: float
    steps: int
    failure: str
    program_sha: str
    mechanism: Mechanism | None = None
    repeats: int = 0  # passes with the same core mechanism before this one

    @property
    def fitness(self) -> float:
        """What selection ranks by: the score, with a run that broke a rule credited for how far
        it got toward the goal (a launch too strong for the solver is close to one that works),
        and a pass of a mechanism already found counting less each time."""
        if self.passed:
            return max(0.0, 100.0 - REPEAT_PENALTY * min(self.repeats, 5))
        return self.score + VIOLATION_PROGRESS * self.progress if self.score < 0 else self.score

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "family": self.family, "origin": self.origin, "parent": self.parent,
                "score": self.score, "passed": self.passed, "progress": round(self.progress, 6), "steps": self.steps,
                "failure": self.failure[:200], "program_sha": self.program_sha}


@dataclass
class Finding:
    """One passing design."""

    name: str  # pass-01 ...
    trial: int
    family: str
    origin: str
    steps: int
    program: str  # path relative to the findings directory
    mechanism: Mechanism
    comparison: Comparison
    group: int  # designs of one core mechanism share a group (1, 2, ... in order of discovery)
    gif: str | None = None
    reproduced: bool | None = None  # the GIF run passed again (None: not re-run)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "trial": self.trial, "family": self.family, "origin": self.origin,
                "steps": self.steps, "sim_time": round(self.steps / 60.0, 4), "program": self.program,
                "gif": self.gif, "reproduced": self.reproduced, "group": self.group,
                "shares_reference": self.comparison.shares, "comparison": self.comparison.to_dict(),
                "mechanism": self.mechanism.to_dict()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Finding:
        return cls(d["name"], d["trial"], d["family"], d["origin"], d["steps"], d["program"],
                   Mechanism.from_dict(d["mechanism"]), Comparison.from_dict(d["comparison"]), d["group"], d["gif"],
                   d["reproduced"])


@dataclass
class PairResult:
    task: str
    stage: str
    config: dict[str, Any]
    evaluations: int = 0
    screened: int = 0  # candidates outside the rules, never evaluated
    duplicates: int = 0  # candidates already evaluated, redrawn
    best_score: float = -100.0
    reference_passed: bool = False
    reference_mechanism: Mechanism | None = None
    findings: list[Finding] = field(default_factory=list)
    families: dict[str, dict[str, float]] = field(default_factory=dict)
    error: str = ""
    wall_s: float = 0.0  # timing: kept out of the deterministic files
    gif_evaluations: int = 0

    @property
    def novel(self) -> list[Finding]:
        return [f for f in self.findings if not f.comparison.shares]

    @property
    def folder(self) -> str:
        return f"{self.task}/{self.stage}"

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "task": self.task, "stage": self.stage, "config": self.config,
                "evaluations": self.evaluations, "screened": self.screened, "duplicates": self.duplicates,
                "best_score": self.best_score, "reference_passed": self.reference_passed,
                "reference_mechanism": None if self.reference_mechanism is None else
                self.reference_mechanism.to_dict(),
                "passes": len(self.findings), "passes_unlike_reference": len(self.novel),
                "mechanisms": len({f.group for f in self.findings}), "families": self.families,
                "findings": [f.to_dict() for f in self.findings], "error": self.error}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PairResult:
        ref = d.get("reference_mechanism")
        return cls(d["task"], d["stage"], d["config"], d["evaluations"], d["screened"], d["duplicates"],
                   d["best_score"], d["reference_passed"], None if ref is None else Mechanism.from_dict(ref),
                   [Finding.from_dict(f) for f in d["findings"]], d["families"], d["error"])


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _stage_index(stage: str) -> int:
    return STAGES.index(parse_stage(stage))


def start_readings(spec: TaskSpec, env: dict[str, Any]) -> dict[str, Any]:
    """A controller task's sensor readings at the start (for their names and scales)."""
    sim = Sim(spec.engine_settings(env))
    world = spec.world_class(sim, env)
    world.build()
    sim.build_design(Design(), spec.rules(env), spec.strength(env))
    world.place(Design())
    return world.sensors(0)


class PairSearch:
    """The search over one (task, stage) pair (see the module docstring)."""

    def __init__(self, spec: TaskSpec, stage: str, config: ProbeConfig,
                 run: Callable[[str, ContactLog], Evaluation] | None = None):
        self.spec, self.stage, self.config = spec, parse_stage(stage), config
        env = spec.environment(self.stage)
        self.visible = spec.visible(self.stage)
        self.rules = spec.rules(env)
        self.space = DesignSpace.of(self.rules)
        self.rng = np.random.default_rng(np.random.SeedSequence(task_seed(spec.id, config.seed) +
                                                                [_stage_index(self.stage)]))
        self._run = run or (lambda program, log: evaluate(spec, self.stage, program, timeout_s=config.timeout_s,
                                                           observe=log))
        programs = {"source": spec.program("source"), self.stage: spec.reference(self.stage)}
        self.controls: ControlSpace | None = None
        self.bases: dict[str, Design] = {}
        if spec.controller:
            self.controls = control_space(dict(spec.world_class.commands), start_readings(spec, env),
                                          spec.engine_settings(env).control_every, programs)
            self.families: tuple[str, ...] = FAMILIES
        else:
            self.bases = {name: self._legal_base(declare(text, self.visible))
                          for name, text in sorted(programs.items())}
            self.families = DESIGN_FAMILIES if self.space.designable else ()
        self.trials: list[Trial] = []
        self.candidates: list[Candidate] = []
        self.seen: set[str] = set()
        self.result = PairResult(spec.id, self.stage, config.to_dict())
        self._cores: dict[frozenset[str], int] = {}

    def _legal(self, design: Design) -> bool:
        return all(c.passed for c in check_design(design, self.rules)[0])

    def _legal_base(self, design: Design) -> Design:
        """A task design as the search starts from it: as it is, or fitted into this stage's zone
        and budget when that makes it legal (the source in a smaller zone)."""
        if self._legal(design):
            return design
        fitted = fit(self.space, design)
        return fitted if self._legal(fitted) else design

    # --- candidates

    def _doc(self, origin: str) -> str:
        n = len(self.trials) + 1
        found = textwrap.fill(f"Found by `simreflect pace probe` (seed {self.config.seed}): {self.spec.id}, "
                              f"{self.stage}, candidate {n}: {origin}.", 96)
        stage = self.stage[-1] if self.stage != "source" else "source"
        return f"{found}\n\nRun it: simreflect pace verify --task {self.spec.id} --stage {stage} --program THIS_FILE.py"

    def _design_candidate(self, family: str, origin: str, design: Design, parent: int | None) -> Candidate | None:
        program = design_program(design, self._doc(origin))
        try:
            canonical = declare(program, self.visible)
        except ValueError:  # DesignInvalid included: a mutation made a design that cannot be read
            self._count(family, "screened")
            return None
        if not self._legal(canonical):
            self._count(family, "screened")
            return None
        return Candidate(family, origin, program, design=canonical, parent=parent)

    def _law_candidate(self, family: str, origin: str, law: Law, parent: int | None) -> Candidate:
        return Candidate(family, origin, law_program(self.controls, law, self._doc(origin)), law=law, parent=parent)

    def _fresh(self, family: str) -> Candidate | None:
        rng = self.rng
        if self.controls is not None:
            law = random_law(self.controls, family, rng)
            return self._law_candidate(family, law.label, law, None)
        if family == "random":
            return self._design_candidate(family, "random structure", random_design(self.space, rng), None)
        if family == "extremes":
            d = extreme_design(self.space, random_design(self.space, rng, extreme=True), rng)
            return self._design_candidate(family, "random structure at the legal extremes", d, None)
        base = "source" if family == "source" else self.stage
        if family == "reference-extremes":
            d = extreme_design(self.space, self.bases[base], rng)
            return self._design_candidate(family, f"the {base} design at the legal extremes", d, None)
        d, ops = mutate_design(self.space, self.bases[base], rng)
        return self._design_candidate(family, f"the {base} design, {ops}", d, None)

    def _child(self, parent: int) -> Candidate | None:
        cand = self.candidates[parent - 1]
        if cand.law is not None:
            law = mutate_law(self.controls, cand.law, self.rng)
            return self._law_candidate(cand.family, f"mutation of #{parent} ({law.label})", law, parent)
        d, ops = mutate_design(self.space, cand.design, self.rng)
        return self._design_candidate(cand.family, f"mutation of #{parent}: {ops}", d, parent)

    def _draw(self, make: Callable[[], Candidate | None]) -> Candidate | None:
        for _ in range(MAX_DRAWS):
            cand = make()
            if cand is None:
                continue
            key = sha(_body(cand.program))
            if key in self.seen:
                self._count(cand.family, "duplicates")
                continue
            self.seen.add(key)
            return cand
        return None

    def _count(self, family: str, what: str) -> None:
        """Count a redrawn candidate (screened out or duplicate), in all and for its generator."""
        setattr(self.result, what, getattr(self.result, what) + 1)
        fam = self._family(family)
        fam[what] += 1

    def _family(self, family: str) -> dict[str, float]:
        return self.result.families.setdefault(family, {"evaluations": 0, "passes": 0, "best_score": -100.0,
                                                        "screened": 0, "duplicates": 0})

    # --- evaluations

    def _extra(self, law: Law | None) -> tuple[str, ...]:
        if self.controls is None:
            return ()
        if law is None or law.family in ("literals", "dithered"):  # the task's own law, moved or perturbed
            return ("controller:own",)
        return (f"controller:own-{law.family}",) if law.family in BASED else (f"controller:{law.family}",)

    def _evaluate(self, cand: Candidate) -> Trial:
        log = ContactLog()
        ev = self._run(cand.program, log)
        mech = log.mechanism(extra=self._extra(cand.law))
        trial = Trial(len(self.trials) + 1, cand.family, cand.origin, cand.parent, ev.score, ev.passed, ev.progress,
                      ev.steps, ev.invalid or ev.failure, sha(cand.program), mech if ev.passed else None)
        if ev.passed:
            core = mech.core
            trial.repeats = self._cores.get(core, 0)
            self._cores[core] = trial.repeats + 1
        self.trials.append(trial)
        self.candidates.append(cand)
        self.result.evaluations += 1
        self.result.best_score = max(self.result.best_score, ev.score)
        fam = self._family(cand.family)
        fam["evaluations"] += 1
        fam["passes"] += int(ev.passed)
        fam["best_score"] = max(fam["best_score"], ev.score)
        return trial

    def reference(self) -> None:
        log = ContactLog()
        ev = self._run(self.spec.reference(self.stage), log)
        self.result.reference_passed = ev.passed
        self.result.reference_mechanism = log.mechanism(extra=self._extra(None))

    def parents(self) -> list[Trial]:
        """The parent pool: the best half-population overall and the best of every generator's
        lineage (so that one family's passes do not crowd the others out)."""
        ranked = sorted(self.trials, key=lambda t: (-t.fitness, t.index))
        pool = ranked[:max(1, self.config.population // 2)]
        for family in self.families:
            best = next((t for t in ranked if t.family == family), None)
            if best is not None and best not in pool:
                pool.append(best)
        for t in ranked:
            if len(pool) >= self.config.population:
                break
            if t not in pool:
                pool.append(t)
        return pool

    def search(self) -> PairResult:
        """Spend the budget (see the module docstring)."""
        cfg = self.config
        self.reference()
        if not self.families:
            self.result.error = "nothing to search: the task's design has no parts and it has no controller"
            return self.result
        explore = min(cfg.budget, max(cfg.population, cfg.budget // 2))
        families = list(self.families)
        turn = 0
        while self.result.evaluations < explore and families:
            family = families[turn % len(families)]
            cand = self._draw(lambda: self._fresh(family))
            if cand is None:  # this generator finds nothing legal and new here: leave it out
                families.remove(family)
                continue
            turn += 1
            self._evaluate(cand)
        while self.result.evaluations < cfg.budget and self.trials:
            ranked = self.parents()
            spent = self.result.evaluations
            for _ in range(cfg.population):
                if self.result.evaluations >= cfg.budget:
                    break
                a, b = (ranked[int(i)] for i in self.rng.integers(len(ranked), size=2))
                parent = min((a, b), key=lambda t: (-t.fitness, t.index)).index
                cand = self._draw(lambda: self._child(parent))
                if cand is not None:
                    self._evaluate(cand)
            if self.result.evaluations == spent:
                break  # no parent gives a new legal child any more
        return self.result


def _body(program: str) -> str:
    """A program without its docstring (what makes two candidates the same)."""
    if program.startswith('"""'):
        end = program.find('"""', 3)
        return program[end + 3:] if end > 0 else program
    lines = program.splitlines()
    while lines and lines[0].startswith("#"):  # a based law's header comment
        lines.pop(0)
    return "\n".join(lines)


# ----- one pair, with its findings ------------------------------------------------------------------

def probe_pair(task: str, stage: str, config: ProbeConfig, out: Path, root: Path | None = None) -> PairResult:
    """Search one pair and write its findings under `out/<task>/<stage>/`."""
    t0 = time.perf_counter()
    spec = load_spec(task, root)
    search = PairSearch(spec, stage, config)
    try:
        result = search.search()
    except Exception as e:  # noqa: BLE001 - one broken pair must not take the others down
        result = search.result
        result.error = f"{type(e).__name__}: {e}"[:500]
    folder = Path(out) / result.folder
    folder.mkdir(parents=True, exist_ok=True)
    for old in list(folder.glob("pass-*.py")) + list(folder.glob("pass-*.gif")):
        old.unlink()
    _collect_findings(search, folder, Path(out))
    (folder / "trials.jsonl").write_text("".join(json.dumps(t.to_dict(), sort_keys=True) + "\n"
                                                 for t in search.trials))
    (folder / "pair.json").write_text(json.dumps(result.to_dict(), indent=1, sort_keys=True) + "\n")
    result.wall_s = time.perf_counter() - t0
    return result


def _collect_findings(search: PairSearch, folder: Path, out: Path) -> None:
    result, ref = search.result, search.result.reference_mechanism
    groups: dict[frozenset[str], int] = {}
    for t in search.trials:
        if not t.passed:
            continue
        group = groups.setdefault(t.mechanism.core, len(groups) + 1)
        name = f"pass-{len(result.findings) + 1:02d}"
        path = folder / f"{name}.py"
        path.write_text(search.candidates[t.index - 1].program)
        result.findings.append(Finding(name, t.index, t.family, t.origin, t.steps, str(path.relative_to(out)),
                                       t.mechanism, compare(t.mechanism, ref) if ref is not None else
                                       Comparison(False, 0.0, (), ()), group))
    firsts = {}
    for f in result.findings:
        firsts.setdefault(f.group, f)
    order = sorted(firsts.values(), key=lambda f: (f.comparison.shares, f.group))[:search.config.gifs]
    for f in order:
        gif = folder / f"{f.name}.gif"
        ev = evaluate(search.spec, search.stage, search.candidates[f.trial - 1].program,
                      timeout_s=search.config.timeout_s, gif=gif)
        result.gif_evaluations += 1
        f.gif, f.reproduced = str(gif.relative_to(out)), ev.passed


def finished_pair(task: str, stage: str, config: ProbeConfig, out: Path) -> PairResult | None:
    """The result a previous run with the same configuration left for this pair (without error)."""
    path = Path(out) / task / stage / "pair.json"
    try:
        data = json.loads(path.read_text())
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("config") != config.to_dict() \
                or data.get("error"):
            return None
        return PairResult.from_dict(data)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):  # not a record: search the pair again
        return None


def _job(args: tuple) -> PairResult:
    return probe_pair(*args)


def pairs_for(tasks: Sequence[str] | None = None, stages: Sequence[str] | None = None,
              root: Path | None = None) -> list[tuple[str, str]]:
    """The (task, stage) pairs to search: every task by default, every target stage by default."""
    specs = load_specs(root)
    known = [s.id for s in specs]
    if tasks:
        unknown = [t for t in tasks if t not in known]
        if unknown:
            raise KeyError(f"unknown pace task(s) {', '.join(unknown)}; tasks: {', '.join(known)}")
        known = [t for t in known if t in set(tasks)]
    chosen = [parse_stage(s) for s in stages] if stages else list(TARGETS)
    chosen = [s for s in STAGES if s in chosen]
    return [(t, s) for t in known for s in chosen]


def probe(pairs: Sequence[tuple[str, str]], config: ProbeConfig, out: Path, workers: int = 1,
          root: Path | None = None, progress: Callable[[PairResult, int, int], None] | None = None,
          resume: bool = False) -> list[PairResult]:
    """Search every pair (in parallel over pairs) and write the findings directory. With `resume`,
    a pair a previous run with the same configuration finished is read back, not searched again."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    results: list[PairResult] = []
    todo = []
    for task, stage in pairs:
        done = finished_pair(task, stage, config, out) if resume else None
        if done is None:
            todo.append((task, stage))
        else:
            results.append(done)
            if progress:
                progress(done, len(results), len(pairs))
    args = [(task, stage, config, out, root) for task, stage in todo]
    if workers <= 1 or len(args) <= 1:
        for a in args:
            results.append(_job(a))
            if progress:
                progress(results[-1], len(results), len(pairs))
    else:
        with ProcessPoolExecutor(max_workers=min(workers, len(args))) as pool:
            for fut in as_completed([pool.submit(_job, a) for a in args]):
                results.append(fut.result())
                if progress:
                    progress(results[-1], len(results), len(pairs))
    order = {p: i for i, p in enumerate(pairs)}
    results.sort(key=lambda r: order[(r.task, r.stage)])
    write_findings(results, config, out, wall_s=time.perf_counter() - t0, workers=workers)
    return results


# ----- the findings directory ---------------------------------------------------------------------

def totals(results: Sequence[PairResult]) -> dict[str, int]:
    return {"pairs": len(results), "evaluations": sum(r.evaluations for r in results),
            "screened": sum(r.screened for r in results), "passes": sum(len(r.findings) for r in results),
            "passes_unlike_reference": sum(len(r.novel) for r in results),
            "pairs_with_passes": sum(1 for r in results if r.findings),
            "pairs_with_passes_unlike_reference": sum(1 for r in results if r.novel),
            "errors": sum(1 for r in results if r.error)}


def write_findings(results: Sequence[PairResult], config: ProbeConfig, out: Path, wall_s: float = 0.0,
                   workers: int = 1) -> None:
    """findings.json and summary.md (deterministic) and timing.json (this run's times)."""
    data = {"format": FORMAT, "config": config.to_dict(), "totals": totals(results),
            "pairs": [r.to_dict() for r in results]}
    (out / "findings.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    (out / "summary.md").write_text(summary_markdown(results, config))
    searched = [r for r in results if r.wall_s > 0]  # pairs read back by a resumed run took no time here
    evals = sum(r.evaluations for r in searched)
    timing = {"wall_s": round(wall_s, 2), "workers": workers, "pairs_searched": len(searched),
              "evaluations": evals, "all_runs": sum(r.evaluations + r.gif_evaluations + 1 for r in searched),
              "evaluations_per_s": round(evals / wall_s, 3) if wall_s > 0 else None,
              "pairs": [{"task": r.task, "stage": r.stage, "wall_s": round(r.wall_s, 2),
                         "evaluations": r.evaluations, "gif_evaluations": r.gif_evaluations} for r in searched]}
    (out / "timing.json").write_text(json.dumps(timing, indent=1) + "\n")


def _how(f: Finding) -> str:
    return "same as the reference" if f.comparison.shares else \
        ", ".join([f"+{x}" for x in f.comparison.added] + [f"-{x}" for x in f.comparison.removed])


def summary_markdown(results: Sequence[PairResult], config: ProbeConfig) -> str:
    t = totals(results)
    lines = ["# pace probe findings", "",
             f"Seed {config.seed}, budget {config.budget} evaluations per pair, population {config.population}. "
             f"{t['pairs']} pairs, {t['evaluations']} evaluations ({t['screened']} candidates screened out "
             f"before evaluation), {t['passes']} passes in {t['pairs_with_passes']} pairs, "
             f"{t['passes_unlike_reference']} of them unlike the reference's mechanism "
             f"(in {t['pairs_with_passes_unlike_reference']} pairs).", "",
             "| task | stage | evaluations | best | passes | unlike reference | mechanisms | reference passed |",
             "|---|---|---:|---:|---:|---:|---:|---|"]
    for r in results:
        lines.append(f"| {r.task} | {r.stage} | {r.evaluations} | {r.best_score:g} | {len(r.findings)} | "
                     f"{len(r.novel)} | {len({f.group for f in r.findings})} | "
                     f"{'yes' if r.reference_passed else 'NO'} |")
    lines += ["", "## Passes unlike the reference", ""]
    for r in results:
        shown: set[int] = set()
        for f in r.novel:
            if f.group in shown:
                continue
            shown.add(f.group)
            same = sum(1 for g in r.novel if g.group == f.group)
            lines.append(f"- {r.task} {r.stage}: `{f.program}`" + (f" (GIF `{f.gif}`)" if f.gif else "") +
                         f", {same} pass(es) of this mechanism; passed at step {f.steps}; {f.origin}; "
                         f"{_how(f)}; largest spring energy {f.mechanism.max_spring_energy:.4g} J")
    errors = [r for r in results if r.error]
    if errors:
        lines += ["", "## Errors", ""] + [f"- {r.task} {r.stage}: {r.error}" for r in errors]
    return "\n".join(lines) + "\n"


def default_workers() -> int:
    return max(1, min(2, os.cpu_count() or 1))


__all__ = ["Finding", "PairResult", "PairSearch", "ProbeConfig", "Trial", "pairs_for", "probe", "probe_pair",
           "summary_markdown", "totals", "write_findings"]
