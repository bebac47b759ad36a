"""A pace task folder and the small protocol its modules implement.

Every task is one folder under `tasks/`, every folder the same shape:

    card.toml       the task card: goal, success criteria, the primitive API doc, the hard
                    constraints, the design rules, the engine settings, the variables (visible or
                    not, units, descriptions) and notes (why each target stage is solvable)
    stages.toml     the source environment ([source], every variable) and its four mutated
                    stages ([stage1] .. [stage4], only what changes; difficulty rising)
    world.py        `World(PaceWorld)`: builds the environment from its parameters (terrain, the
                    task's own objects, forces), the build zones, and for controller tasks the
                    sensors and actuators
    evaluator.py    `Evaluator(PaceEvaluator)`: watches the run, decides the goal, progress and
                    the task's hard constraints
    feedback.py     `terminal_lines(terminal, visible)`: the task's lines about the terminal state
                    (the rest of the report is the suite's generic formatter)
    render.py       `view(env)` and `overlays(env)`: what the GIF shows besides the bodies
    source.py       the design that succeeds in the source environment (and fails every target)
    ref_stage1.py .. ref_stage4.py   one reference design per target stage
    pinned_metrics.json   the fingerprints of the nine controls' metrics (pins.py; written by
                    `simreflect pace validate --pin`)

Adding a task touches nothing outside its folder. Values in card.toml may name an environment
variable as "env:NAME"; descriptions may use {NAME} of visible variables only.
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import re
import sys
import tomllib
import types
import warnings
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from simreflect.core.contract import BrokenTask
from simreflect.suites.pace.design import Design, DesignRules
from simreflect.suites.pace.engine import EngineSettings, JointStrength, Sim
from simreflect.suites.pace.hold import Hold, HoldRule
from simreflect.suites.pace.scoring import Constraint

STAGES = ("source", "stage1", "stage2", "stage3", "stage4")
TARGETS = STAGES[1:]
DOMAINS = ("statics", "kinematics", "dynamics", "granular", "control", "exotic")
FOLDER_FILES = ("card.toml", "stages.toml", "world.py", "evaluator.py", "feedback.py", "render.py", "source.py",
                "ref_stage1.py", "ref_stage2.py", "ref_stage3.py", "ref_stage4.py")
GENERIC_CONSTRAINTS = ("execution", "build_zone", "mass_budget", "design_rules")


class TaskFormatError(ValueError):
    """A task folder that does not follow the format."""


class BrokenTaskWarning(UserWarning):
    """A task folder under a tasks directory that does not load; the other tasks still run."""


#: What reading a hand-written task folder may raise besides TaskFormatError: a card or stage file that
#: is not TOML or not UTF-8 (ValueError), a table where a value was expected or a missing key.
_READ_ERRORS = (ValueError, KeyError, TypeError, AttributeError, OSError)


def tasks_dir() -> Path:
    return Path(__file__).resolve().parent / "tasks"


def stage_label(stage: str) -> str:
    return "source environment" if stage == "source" else f"target environment Stage-{stage[-1]}"


def parse_stage(text: str | int) -> str:
    t = str(text).strip().lower()
    if t in STAGES:
        return t
    if t in ("0", "src"):
        return "source"
    if t in ("1", "2", "3", "4"):
        return f"stage{t}"
    if t.startswith("stage-") and t[-1] in "1234":
        return f"stage{t[-1]}"
    raise ValueError(f"unknown stage {text!r}; use source, 1, 2, 3 or 4")


# ----- what a task's modules implement ------------------------------------------------------------

class PaceWorld:
    """The environment around the design (a task's world.py subclasses this as `World`).

    `env` holds every variable of the stage, hidden ones included: this runs on the trusted side.
    """

    #: True when `before_step` must run before every physics step (environment forces).
    forces: bool = False
    #: Controller tasks: actuator name -> (lower, upper); commands are clamped to these.
    commands: dict[str, tuple[float, float]] = {}

    def __init__(self, sim: Sim, env: dict[str, Any]):
        self.sim = sim
        self.env = env

    @classmethod
    def zones(cls, env: dict[str, Any]) -> dict[str, Any]:
        """{"build": [polygon, ...], "anchors": [polygon, ...], "placements": {name: [polygon, ...]}}"""
        return {"build": [], "anchors": [], "placements": {}}

    def build(self) -> None:
        """Terrain and the task's own objects (before the design is built)."""

    def place(self, design: Design) -> None:
        """After the design is built: objects the design positions (`api.place`), joints to them."""

    def before_step(self, step: int) -> None:
        """Environment forces before physics step `step` (only called when `forces` is True)."""

    def sensors(self, step: int) -> dict[str, Any]:
        """The readings a controller gets (only what the task documents)."""
        return {}

    def apply(self, cmd: dict[str, float], step: int) -> None:
        """Apply clamped actuator commands (held until the next control step)."""


@dataclass
class Outcome:
    """What a task's evaluator concludes about one run."""

    goal_met: bool
    progress: float
    goal: str  # the goal's measured state in words ("cart at x = 12.3 m; goal x >= 14 m")
    constraints: list[Constraint]
    failure: tuple[int, str] | None = None  # the first thing that went wrong: (step, why)
    terminal: dict[str, Any] = field(default_factory=dict)


class PaceEvaluator:
    """Watches one run (a task's evaluator.py subclasses this as `Evaluator`).

    `success` is the run's one `Hold` of the card's rule: the evaluator feeds it its success
    condition at every tick, and its `Outcome.goal_met` may be true only when `success.met` is."""

    def __init__(self, sim: Sim, world: PaceWorld, env: dict[str, Any], rule: HoldRule):
        self.sim = sim
        self.world = world
        self.env = env
        self.success = Hold(rule)

    def tick(self, step: int) -> bool:
        """Called every `tick_every` steps; True ends the run (goal settled or failure final)."""
        return False

    def finish(self) -> Outcome:
        raise NotImplementedError


# ----- a task folder ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Run:
    """One run of an evaluation: a task whose success must not hang on one fixed episode (a
    track an open-loop program could be tuned to) lists several in its card (`[[runs]]`), each
    setting invisible variables only, so the program cannot tell which run it is in; a pass needs
    every run to pass."""

    name: str
    overrides: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class Variable:
    name: str
    unit: str
    visible: bool
    description: str


def _package_name(folder: Path, task_id: str) -> str:
    """The module package a task folder's modules live in (registered so that they can import one
    another relatively: `from . import world`)."""
    if folder.parent == tasks_dir():
        pkg = f"simreflect.suites.pace.tasks.{task_id}"
    else:
        top = f"simreflect_pace_tasks_{hashlib.sha256(str(folder).encode()).hexdigest()[:12]}"
        pkg = f"{top}.{task_id}"
        if top not in sys.modules:  # a namespace of its own, so that its task packages resolve by name
            namespace = types.ModuleType(top)
            namespace.__path__ = []
            sys.modules[top] = namespace
    if pkg not in sys.modules:
        module = types.ModuleType(pkg)
        module.__path__ = [str(folder)]
        module.__package__ = pkg
        sys.modules[pkg] = module
    return pkg


def _load_module(folder: Path, task_id: str, name: str):
    mod_name = f"{_package_name(folder, task_id)}.{name}"
    if mod_name in sys.modules:
        return sys.modules[mod_name]
    spec = importlib.util.spec_from_file_location(mod_name, folder / f"{name}.py")
    if spec is None or spec.loader is None:
        raise TaskFormatError(f"{folder}: cannot load {name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[mod_name]
        raise
    return module


class TaskSpec:
    """One task folder, read and checked."""

    def __init__(self, folder: Path):
        self.folder = Path(folder).resolve()
        try:
            self._read()
        except TaskFormatError:
            raise
        except _READ_ERRORS as e:
            raise TaskFormatError(f"{self.folder.name}: {_reason(e)}") from None

    def _read(self) -> None:
        missing = [f for f in FOLDER_FILES if not (self.folder / f).is_file()]
        if missing:
            raise TaskFormatError(f"{self.folder}: missing {', '.join(missing)}")
        self.card: dict[str, Any] = tomllib.loads((self.folder / "card.toml").read_text())
        stages = tomllib.loads((self.folder / "stages.toml").read_text())
        self.id = str(self.card.get("id", ""))
        if self.id != self.folder.name:
            raise TaskFormatError(f"{self.folder}: card id {self.id!r} differs from the folder name")
        for key in ("domain", "title", "goal", "success"):
            if not self.card.get(key):
                raise TaskFormatError(f"{self.id}: card.toml needs {key!r}")
        self.domain = str(self.card["domain"])
        if self.domain not in DOMAINS:
            raise TaskFormatError(f"{self.id}: domain {self.domain!r} is not one of {DOMAINS}")
        self.title = str(self.card["title"])
        self.controller = bool(self.card.get("controller", False))
        self.variables = {name: Variable(name, str(v.get("unit", "")), bool(v["visible"]), str(v["description"]))
                          for name, v in self.card.get("variables", {}).items()}
        if set(stages) != set(STAGES):
            raise TaskFormatError(f"{self.id}: stages.toml needs exactly {STAGES}, has {sorted(stages)}")
        source = dict(stages["source"])
        if set(source) != set(self.variables):
            raise TaskFormatError(f"{self.id}: [source] must set every variable; differs on "
                                  f"{sorted(set(source) ^ set(self.variables))}")
        self._stages: dict[str, dict[str, Any]] = {"source": source}
        for st in TARGETS:
            extra = set(stages[st]) - set(self.variables)
            if extra:
                raise TaskFormatError(f"{self.id}: [{st}] sets unknown variables {sorted(extra)}")
            self._stages[st] = {**source, **stages[st]}
        self.constraint_specs = [(str(c["name"]), str(c["description"])) for c in self.card.get("constraints", [])]
        names = [n for n, _ in self.constraint_specs]
        if len(set(names)) != len(names) or set(names) & set(GENERIC_CONSTRAINTS):
            raise TaskFormatError(f"{self.id}: constraint names must be unique and not {GENERIC_CONSTRAINTS}")
        self.runs = self._read_runs()
        for st in STAGES:
            self.hold_rule(self._stages[st])
        for text in [self.card["goal"], self.card["success"], self.api_doc, *(d for _, d in self.constraint_specs)]:
            for ref in re.findall(r"{(\w+)}", text):
                if ref not in self.variables or not self.variables[ref].visible:
                    raise TaskFormatError(f"{self.id}: the card text uses {{{ref}}}, which is not a visible variable")
        for name in FOLDER_FILES:
            if name.endswith(".py"):
                _check_parses(self.folder / name, self.id)

    def _read_runs(self) -> tuple[Run, ...]:
        tables = self.card.get("runs", [{}])
        if not isinstance(tables, list) or not tables or not all(isinstance(t, dict) for t in tables):
            raise TaskFormatError(f"{self.id}: card.toml [[runs]] must be a non-empty list of tables")
        runs = []
        for t in tables:
            sets = {k: v for k, v in t.items() if k != "name"}
            shown = sorted(k for k in sets if k not in self.variables or self.variables[k].visible)
            if shown:
                raise TaskFormatError(f"{self.id}: a run may set only invisible variables (the program must not tell "
                                      f"the runs apart), not {shown}")
            runs.append(Run(str(t.get("name", "")), tuple(sorted(sets.items()))))
        return tuple(runs)

    def run_environment(self, stage: str, run: Run) -> dict[str, Any]:
        """Every variable of a stage in one of its runs (trusted side only)."""
        return {**self.environment(stage), **dict(run.overrides)}

    @property
    def api_doc(self) -> str:
        return str(self.card.get("api", {}).get("doc", "")).strip("\n")

    # --- modules

    @cached_property
    def world_class(self) -> type[PaceWorld]:
        return _load_module(self.folder, self.id, "world").World

    @cached_property
    def evaluator_class(self) -> type[PaceEvaluator]:
        return _load_module(self.folder, self.id, "evaluator").Evaluator

    @cached_property
    def feedback_module(self):
        return _load_module(self.folder, self.id, "feedback")

    @cached_property
    def render_module(self):
        return _load_module(self.folder, self.id, "render")

    # --- environments

    def environment(self, stage: str) -> dict[str, Any]:
        """Every variable of a stage (trusted side only)."""
        return dict(self._stages[parse_stage(stage)])

    def visible(self, stage: str) -> dict[str, Any]:
        """The visible variables of a stage: what the prompt and the program may see."""
        env = self._stages[parse_stage(stage)]
        return {k: env[k] for k in sorted(self.variables) if self.variables[k].visible}

    def invisible_names(self) -> list[str]:
        """Names of the invisible variables: the same list for every stage of the task."""
        return sorted(k for k, v in self.variables.items() if not v.visible)

    def mutations(self, stage: str) -> list[str]:
        """Variables whose value differs from the source environment."""
        st, src = self._stages[parse_stage(stage)], self._stages["source"]
        return sorted(k for k in self.variables if st[k] != src[k])

    def _resolve(self, value: Any, env: dict[str, Any]) -> Any:
        if isinstance(value, str) and value.startswith("env:"):
            name = value[4:]
            if name not in env:
                raise TaskFormatError(f"{self.id}: card refers to unknown variable {name!r}")
            return env[name]
        if isinstance(value, list):
            return [self._resolve(v, env) for v in value]
        return value

    def engine_settings(self, env: dict[str, Any]) -> EngineSettings:
        e = {k: self._resolve(v, env) for k, v in self.card.get("engine", {}).items()}
        return EngineSettings(**e)

    def hold_rule(self, env: dict[str, Any]) -> HoldRule:
        """The card's success rule in this environment (hold.py)."""
        until = str(self.card.get("hold", ""))
        seconds = self._resolve(self.card.get("hold_s", 0.0), env)
        try:
            return HoldRule(until, float(seconds))
        except (TypeError, ValueError) as e:
            raise TaskFormatError(f"{self.id}: card.toml hold/hold_s: {e}") from None

    def make_evaluator(self, sim: Sim, world: PaceWorld, env: dict[str, Any]) -> PaceEvaluator:
        return self.evaluator_class(sim, world, env, self.hold_rule(env))

    def strength(self, env: dict[str, Any]) -> JointStrength:
        raw = self.card.get("strength", {})
        vals = {k: float(self._resolve(raw.get(k, math.inf), env)) for k in ("rigid_force", "rigid_torque",
                                                                            "pivot_force")}
        refs = [v[4:] for v in raw.values() if isinstance(v, str) and v.startswith("env:")]
        return JointStrength(**vals, visible=all(self.variables[r].visible for r in refs))

    def rules(self, env: dict[str, Any]) -> DesignRules:
        raw = {k: self._resolve(v, env) for k, v in self.card.get("design", {}).items()}
        for k in ("primitives", "materials"):
            if k in raw:
                raw[k] = tuple(raw[k])
        for k in ("beam_length", "beam_thickness", "block_size", "wheel_radius", "spring_stiffness",
                  "spring_damping"):
            if k in raw:
                raw[k] = tuple(float(x) for x in raw[k])
        for k in ("mass_budget", "max_motor_speed", "max_motor_torque", "spring_preload", "spring_energy"):
            if k in raw:
                raw[k] = float(raw[k])
        z = self.world_class.zones(env)

        def polys(items) -> tuple:
            return tuple(tuple((float(x), float(y)) for x, y in p) for p in items)

        return DesignRules(**raw, build_zone=polys(z.get("build", [])), anchor_zones=polys(z.get("anchors", [])),
                           placement_zones={k: polys(v) for k, v in sorted(z.get("placements", {}).items())})

    # --- programs

    def program(self, which: str) -> str:
        """source.py or ref_stageN.py ("source", "stage1".."stage4" or a file name)."""
        name = which if which.endswith(".py") else ("source.py" if which == "source" else
                                                    f"ref_{parse_stage(which)}.py")
        return (self.folder / name).read_text()

    def reference(self, stage: str) -> str:
        st = parse_stage(stage)
        return self.program("source" if st == "source" else st)

    # --- text

    def fill(self, text: str, stage: str) -> str:
        vis = self.visible(stage)
        return re.sub(r"{(\w+)}", lambda m: _fmt(vis[m.group(1)]), text)

    def constraint_text(self, stage: str) -> list[tuple[str, str]]:
        return [(n, self.fill(d, stage)) for n, d in self.constraint_specs]

    def notes(self, stage: str) -> str:
        return str(self.card.get("notes", {}).get(parse_stage(stage), ""))


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, list):
        return "(" + ", ".join(_fmt(x) for x in v) + ")"
    return str(v)


def format_value(v: Any, unit: str = "") -> str:
    return _fmt(v) + (f" {unit}" if unit else "")


def _reason(e: BaseException) -> str:
    if isinstance(e, KeyError):
        return f"a table lacks the key {e.args[0]!r}" if e.args else "a table lacks a key"
    return f"{type(e).__name__}: {e}"


def _check_parses(path: Path, task_id: str) -> None:
    """A task module that is not Python is the folder's error, found when the folder is read rather than
    in the middle of a run (compiled, never executed here)."""
    try:
        compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
    except SyntaxError as e:
        raise TaskFormatError(f"{task_id}: {path.name} does not parse (line {e.lineno}: {e.msg})") from None
    except ValueError as e:  # NUL bytes
        raise TaskFormatError(f"{task_id}: {path.name} does not parse ({e})") from None


@dataclass(frozen=True)
class Discovery:
    """The task folders of a tasks directory: those that load and those that do not."""

    specs: tuple[TaskSpec, ...]
    broken: tuple[BrokenTask, ...]


def task_folders(root: Path | None = None) -> list[Path]:
    """The task folders (a folder with a card.toml) under `root` (default: the packaged tasks), sorted."""
    root = Path(root) if root is not None else tasks_dir()
    return [d for d in sorted(root.iterdir()) if d.is_dir() and (d / "card.toml").is_file()]


def discover(root: Path | None = None) -> Discovery:
    """Read every task folder under `root`; a folder that does not load is a BrokenTask with its reason,
    and the others load regardless."""
    specs, broken = [], []
    for folder in task_folders(root):
        try:
            specs.append(TaskSpec(folder))
        except TaskFormatError as e:
            broken.append(BrokenTask(folder.name, str(e)))
    return Discovery(tuple(specs), tuple(broken))


def warn_broken(found: Discovery) -> None:
    for b in found.broken:
        warnings.warn(f"pace task {b.id} skipped: {b.reason}", BrokenTaskWarning, stacklevel=3)


def load_specs(root: Path | None = None) -> list[TaskSpec]:
    """Every task folder under `root` (default: the packaged tasks) that loads, sorted by id; each one that
    does not is named in a BrokenTaskWarning (`discover` returns them)."""
    found = discover(root)
    warn_broken(found)
    return list(found.specs)


_SPEC_CACHE: dict[str, TaskSpec] = {}


def load_spec(task_id: str, root: Path | None = None) -> TaskSpec:
    root = Path(root) if root is not None else tasks_dir()
    folder = (root / task_id).resolve()
    key = str(folder)
    if key not in _SPEC_CACHE:
        if not (folder / "card.toml").is_file():
            known = ", ".join(d.name for d in task_folders(root))
            raise FileNotFoundError(f"no pace task {task_id!r}; tasks: {known}")
        _SPEC_CACHE[key] = TaskSpec(folder)
    return _SPEC_CACHE[key]
