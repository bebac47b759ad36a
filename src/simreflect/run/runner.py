"""Running an agent over a benchmark's tasks x evidence levels, in parallel, resumably."""

from __future__ import annotations

import re
import shutil
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from simreflect.core.evidence import EvidenceLevel
from simreflect.core.lifetime import worker_pool
from simreflect.core.registry import get_suite
from simreflect.core.selection import select_ids
from simreflect.run.agents import make_agent, make_turn_agent
from simreflect.run.episode import EpisodeOutcome, run_episode
from simreflect.run.store import EpisodeLog, RunStore, StoreError, episode_key


@dataclass(frozen=True)
class RunConfig:
    suite: str
    bench: str
    agent: str
    levels: tuple[str, ...] = ("L1", "L2", "L3")
    rounds: int = 3
    timeout_s: float = 60.0
    agent_options: dict[str, Any] = field(default_factory=dict)
    method: str = "vanilla"
    suite_options: dict[str, Any] = field(default_factory=dict)
    runs: int = 1  # independent runs of every task x level
    history: str = "full"  # what an agent is shown of earlier rounds: full | last+best
    invalid_streak: int = 0  # end an episode after this many invalid generations in a row (0: never)
    tasks: tuple[str, ...] = ()  # task ids or glob patterns to run (empty: every task of the benchmark)
    limit: int = 0  # run only the first this many of them (0: all)
    mode: str = "rounds"  # rounds (a program per round) | interactive (one live session: run/interactive.py)
    session: dict[str, Any] = field(default_factory=dict)  # interactive budgets: core.interactive.SessionBudgets
    invalid_retries: int = 0  # PACE's generation retries of an answer without a program, at no cost (0: none)

    def to_dict(self) -> dict[str, Any]:
        out = {"suite": self.suite, "bench": self.bench, "agent": self.agent, "levels": list(self.levels),
               "rounds": self.rounds, "timeout_s": self.timeout_s, "agent_options": self.agent_options,
               "method": self.method, "suite_options": self.suite_options, "runs": self.runs,
               "history": self.history, "invalid_streak": self.invalid_streak}
        if self.tasks:  # only when set: runs recorded before the option resume unchanged
            out["tasks"] = list(self.tasks)
        if self.limit:
            out["limit"] = self.limit
        if self.invalid_retries:
            out["invalid_retries"] = self.invalid_retries
        if self.mode != "rounds":
            out["mode"], out["session"] = self.mode, dict(self.session)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunConfig:
        """The configuration a run recorded (StoreError when a field it needs is missing or not of its kind)."""
        try:
            return cls(str(d["suite"]), str(d["bench"]), str(d["agent"]), tuple(map(str, d["levels"])),
                       int(d["rounds"]), float(d["timeout_s"]), dict(d.get("agent_options", {})),
                       str(d.get("method", "vanilla")), dict(d.get("suite_options", {})), int(d.get("runs", 1)),
                       str(d.get("history", "full")), int(d.get("invalid_streak", 0)), tuple(d.get("tasks", ())),
                       int(d.get("limit", 0)), str(d.get("mode", "rounds")), dict(d.get("session", {})),
                       int(d.get("invalid_retries", 0)))
        except KeyError as e:
            raise StoreError(f"the run configuration has no {e.args[0]!r}") from None
        except (TypeError, ValueError) as e:
            raise StoreError(f"the run configuration is damaged ({e})") from None

    def suite_instance(self):
        return get_suite(self.suite).with_options(**self.suite_options)

    def selected_tasks(self) -> dict[str, Any]:
        """The benchmark's tasks this run covers, in the benchmark's order: those matching any of
        `tasks` (ids or glob patterns), then the first `limit`. A pattern that matches no task is
        an error (a typo must not silently shrink a run)."""
        every = _tasks(self.suite, self.bench)
        chosen = {k: every[k] for k in select_ids(every, self.tasks)}
        if self.limit:
            chosen = dict(list(chosen.items())[:self.limit])
        return chosen


#: A run stops once this many episodes in a row ended on the same infrastructure failure.
BREAKER_THRESHOLD = 3


class CircuitOpen(RuntimeError):
    """The run stopped early: the same infrastructure failure ended `count` episodes in a row."""

    def __init__(self, error: str, count: int, outcomes: list[EpisodeOutcome]):
        super().__init__(f"stopped after {count} episodes in a row ended on the same infrastructure failure: {error}")
        self.error, self.count, self.outcomes = error, count, outcomes


class Breaker:
    """Counts episodes in a row that ended on the same infrastructure failure (numbers in the
    message, such as request ids or ports, do not make two failures different)."""

    def __init__(self, threshold: int = BREAKER_THRESHOLD):
        self.threshold, self.count, self._kind = threshold, 0, None

    def record(self, outcome: EpisodeOutcome, outcomes: list[EpisodeOutcome]) -> None:
        """Raise CircuitOpen when `outcome` makes `threshold` identical failures in a row (0: never)."""
        if outcome.status != "infra_error":
            self.count, self._kind = 0, None
            return
        kind = re.sub(r"\d+", "#", outcome.error or "")
        self.count = self.count + 1 if kind == self._kind else 1
        self._kind = kind
        if self.threshold and self.count >= self.threshold:
            raise CircuitOpen(outcome.error or "(no message)", self.count, outcomes)


_tasks_cache: dict[str, dict[str, Any]] = {}


def _tasks(suite_name: str, bench: str) -> dict[str, Any]:
    key = f"{suite_name}:{bench}"
    if key not in _tasks_cache:
        _tasks_cache[key] = {t.id: t for t in get_suite(suite_name).load_tasks(Path(bench))}
    return _tasks_cache[key]


def _run_one(run_dir: str, cfg: dict[str, Any], task_id: str, level: str, run: int = 0) -> EpisodeOutcome:
    config = RunConfig.from_dict(cfg)
    suite = config.suite_instance()
    task = _tasks(config.suite, config.bench)[task_id]
    store = RunStore(Path(run_dir))
    log = store.episodes().get(episode_key(task_id, level, run), EpisodeLog())
    if config.mode == "interactive":
        from simreflect.core.interactive import SessionBudgets
        from simreflect.run.interactive import run_interactive_episode

        agent = make_turn_agent(config.agent, suite, task, config.agent_options)
        return run_interactive_episode(suite, agent, task, EvidenceLevel.parse(level), store, log,
                                       SessionBudgets(**config.session), run=run)
    agent = make_agent(config.agent, suite, config.agent_options, config.method)
    return run_episode(suite, agent, task, EvidenceLevel.parse(level), config.rounds, store, log, config.timeout_s,
                       run=run, history=config.history, invalid_streak=config.invalid_streak,
                       invalid_retries=config.invalid_retries)


def pending(store: RunStore, config: RunConfig) -> list[tuple[str, str, int]]:
    """(task, level, run) episodes not finished yet, in canonical order (run, level, task)."""
    logs = store.episodes()
    out = []
    for run in range(config.runs):
        for level in config.levels:
            for task_id in config.selected_tasks():
                log = logs.get(episode_key(task_id, level, run))
                if log is None or log.end is None:
                    out.append((task_id, level, run))
    return out


def run(run_dir: Path, config: RunConfig, workers: int = 1,
        progress: Callable[[EpisodeOutcome, int, int], None] | None = None,
        executor: str = "local", address: str | None = None,
        breaker: int = BREAKER_THRESHOLD) -> list[EpisodeOutcome]:
    """Run (or resume) every pending episode. Returns the outcomes of this invocation.

    executor "local" runs episodes in a process pool of `workers`, each appending to the run's store;
    "ray" runs each episode as a Ray task on the cluster at `address` (a local one is started when
    None) in a store of its own, and its records travel back through Ray to this process, which
    appends them: RUN_DIR need not be on a filesystem the nodes share (the benchmark must be at the
    same path on every node, as the packaged pace and audit tasks are). A killed driver loses the
    records of the episodes in flight on Ray; they run again on resume.
    After `breaker` episodes in a row end on the same infrastructure failure (0: never), the
    episodes not started are left pending and CircuitOpen is raised (running the command again resumes).
    """
    store = RunStore(run_dir)
    selected = config.selected_tasks()  # an empty or mistyped selection fails before the run exists
    if not store.open(config.to_dict()):
        _keep_episodes(Path(config.bench), Path(run_dir))
    todo = pending(store, config)
    total = len(selected) * len(config.levels) * config.runs
    done_before = total - len(todo)
    outcomes: list[EpisodeOutcome] = []
    cfg = config.to_dict()
    trip = Breaker(breaker)

    def finished(outcome: EpisodeOutcome) -> None:
        outcomes.append(outcome)
        if progress:
            progress(outcome, done_before + len(outcomes), total)
        trip.record(outcome, outcomes)

    try:
        if executor == "ray":
            _run_on_ray(str(run_dir), cfg, todo, address, workers, finished)
        elif executor != "local":
            raise ValueError(f"unknown executor {executor!r}; use local or ray")
        elif workers <= 1:
            for task_id, level, rep in todo:
                finished(_run_one(str(run_dir), cfg, task_id, level, rep))
        else:
            _run_on_pool(str(run_dir), cfg, todo, workers, finished)
    finally:
        _remove_finished_workspaces(store)
    return outcomes


def _run_on_pool(run_dir: str, cfg: dict[str, Any], todo: list[tuple[str, str, int]], workers: int,
                 on_done: Callable[[EpisodeOutcome], None]) -> None:
    with worker_pool(workers) as pool:  # a killed run takes its workers (and their sandboxes) with it
        futures = {pool.submit(_run_one, run_dir, cfg, t, lv, rep) for t, lv, rep in todo}
        try:
            while futures:
                done, futures = wait(futures, return_when=FIRST_COMPLETED)
                for fut in done:
                    on_done(fut.result())
        finally:
            for fut in futures:  # the breaker tripped (or the run is stopping): start nothing more
                fut.cancel()


def _run_shipped(cfg: dict[str, Any], task_id: str, level: str, rep: int,
                 prior: list[dict[str, Any]]) -> tuple[EpisodeOutcome, list[dict[str, Any]]]:
    """One episode in a store of its own on the node that runs it (a Ray task): the episode's earlier
    records come in, the outcome and the records it added go back, so no node needs the run directory."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="simreflect-episode-") as tmp:
        store = RunStore(Path(tmp))
        store.open(cfg)
        for record in prior:
            store.append(record)
        outcome = _run_one(tmp, cfg, task_id, level, rep)
        return outcome, store.records()[0][len(prior):]


def _run_on_ray(run_dir: str, cfg: dict[str, Any], todo: list[tuple[str, str, int]], address: str | None,
                workers: int, on_done: Callable[[EpisodeOutcome], None]) -> None:
    """Each episode a Ray task; its records travel back through Ray and the driver appends them to
    the run's store (the run directory is on the driver's machine only)."""
    import ray

    store = RunStore(Path(run_dir))
    earlier: dict[str, list[dict[str, Any]]] = {}
    for record in store.records()[0]:
        earlier.setdefault(episode_key(record["task"], record["level"], record.get("run", 0)), []).append(record)
    started = not ray.is_initialized()
    if started:
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=max(workers, 1), include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1",
                     object_store_memory=128 * 1024 * 1024)
    try:
        remote = ray.remote(num_cpus=1, max_retries=0)(_run_shipped)
        pending_refs = [remote.remote(cfg, t, lv, rep, earlier.get(episode_key(t, lv, rep), [])) for t, lv, rep in todo]
        try:
            while pending_refs:
                ready, pending_refs = ray.wait(pending_refs, num_returns=1)
                for ref in ready:
                    outcome, records = ray.get(ref)
                    for record in records:
                        store.append(record)
                    on_done(outcome)
        finally:
            for ref in pending_refs:
                ray.cancel(ref)
    finally:
        if started:
            ray.shutdown()


def _keep_episodes(bench: Path, run_dir: Path) -> None:
    """A copy of the benchmark's episode list and manifest: the run states what it ran on."""
    for name, copy in (("episodes.jsonl", "episodes.jsonl"), ("manifest.json", "bench_manifest.json")):
        if (bench / name).is_file():
            shutil.copyfile(bench / name, run_dir / copy)


def _remove_finished_workspaces(store: RunStore) -> None:
    """Workspaces of episodes that ended (a kill can strike between the end record and the cleanup)."""
    work = store.dir / "work"
    if not work.is_dir():
        return
    ended = {key.replace("/", "-") for key, log in store.episodes().items() if log.end is not None}
    for path in work.iterdir():
        if path.name in ended:
            shutil.rmtree(path, ignore_errors=True)
    if not any(work.iterdir()):
        work.rmdir()
