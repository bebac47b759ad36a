"""Writing a run's derived files (runs.jsonl, summary.md, summary.json) and re-scoring its records."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path
from typing import Any, Callable

from simreflect.analysis.rows import episode_row
from simreflect.analysis.summary import summarize, summary_markdown
from simreflect.core.attempt import HarnessFailure, attempt
from simreflect.core.contract import AttemptBudget, volatile_keys
from simreflect.core.evidence import EvidenceLevel
from simreflect.core.lifetime import worker_pool
from simreflect.core.records import RoundRecord
from simreflect.core.registry import get_suite
from simreflect.core.workspace import copy_workspace
from simreflect.run.runner import RunConfig, _tasks
from simreflect.run.store import RunStore, episode_key


def rows_of(run_dir: Path) -> tuple[RunConfig, list[dict[str, Any]]]:
    store = RunStore(run_dir)
    config = RunConfig.from_dict(store.config())
    suite = config.suite_instance()
    logs = store.episodes()
    rows = []
    for run in range(config.runs):
        for level in config.levels:
            for task in config.selected_tasks().values():
                log = logs.get(episode_key(task.id, level, run))
                if log is not None:
                    rows.append(episode_row(suite, task, level, log, run))
    return config, rows


def write_report(run_dir: Path, price_table: Path | None = None) -> str:
    """Derive runs.jsonl and the summary from the attempt log. Returns the summary as markdown.

    A model agent's run also gets its tokens and cost, per episode and in all, priced by
    `price_table` (default: the shipped analysis/prices.toml)."""
    run_dir = Path(run_dir)
    config, rows = rows_of(run_dir)
    (run_dir / "runs.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    summary = summarize(rows, list(config.levels), config.rounds, get_suite(config.suite).subset_order)
    read = RunStore(run_dir).read()
    damaged, upgraded = read.problems, read.upgraded
    summary["damaged_records"] = damaged
    summary["upgraded_records"] = upgraded
    summary["agent"] = config.agent
    if config.tasks or config.limit:  # a subset's numbers must not pass for the whole benchmark's
        summary["selection"] = {"tasks": list(config.tasks), "limit": config.limit,
                                "selected": len(config.selected_tasks()),
                                "of": len(_tasks(config.suite, config.bench))}
    cost = _cost(config, rows, price_table)
    if cost is not None:
        summary["cost"] = cost.to_dict()
    (run_dir / "summary.json").write_text(json.dumps(summary, sort_keys=True, indent=1))
    title = f"{config.suite}: agent {config.agent}, up to {config.rounds} rounds"
    if "selection" in summary:
        sel = summary["selection"]
        title += (f" (a subset: {sel['selected']} of {sel['of']} tasks"
                  + (f", matching {', '.join(sel['tasks'])}" if sel["tasks"] else "")
                  + (f", first {sel['limit']}" if sel["limit"] else "") + ")")
    md = summary_markdown(summary, title)
    if cost is not None:
        md += cost.markdown()
    if damaged:
        md += "\nDamaged records in the attempt log (ignored): " + "; ".join(damaged) + "\n"
    if upgraded:
        md += "\nRecords read after an upgrade: " + "; ".join(upgraded) + "\n"
    trajectories = trajectories_of(run_dir, config, rows)
    if trajectories:
        from simreflect.analysis.tables import analysis_markdown
        from simreflect.analysis.trajectory import dump_trajectories

        dump_trajectories(trajectories, run_dir / "trajectories.jsonl")
        k = min(2, config.runs)
        md += "\n" + analysis_markdown(trajectories, k=k, include_attempt0=False,
                                       title=f"Pass@{k} and Score@{k} (attempt 0, the unchanged source, not counted)")
    (run_dir / "summary.md").write_text(md)
    return md


def _cost(config: RunConfig, rows: list[dict[str, Any]], price_table: Path | None):
    """The run's RunCost when a model answered (an llm agent, or any row with tokens); else None."""
    from simreflect.analysis.cost import load_price_table, run_cost

    if config.agent != "llm" and not any(r["tokens"] for r in rows):
        return None
    return run_cost(rows, config.agent_options.get("model"), load_price_table(price_table))


def trajectories_of(run_dir: Path, config: RunConfig | None = None, rows: list[dict[str, Any]] | None = None) -> list:
    """The run's episodes as trajectories, when its suite follows an attempt-budget protocol.

    `config` and `rows` (from `rows_of`) may be passed in so the attempt log is not parsed again."""
    from simreflect.analysis.from_runs import trajectory_of

    store = RunStore(run_dir)
    if config is None or rows is None:
        config, rows = rows_of(run_dir)
    suite = config.suite_instance()
    tasks = _tasks(config.suite, config.bench)
    if not rows or not isinstance(suite, AttemptBudget):
        return []
    logs = store.episodes()
    model = config.agent_options.get("model") or config.agent
    out = []
    for row in rows:
        fields = suite.trajectory_fields(tasks[row["task"]])
        log = logs[episode_key(row["task"], row["level"], row.get("run", 0))]
        # evidence levels are separate conditions: with several, each is its own method label
        method = config.method if len(config.levels) == 1 else f"{config.method} {row['level']}"
        out.append(trajectory_of(row, fields, method, model, config.rounds, suite, log.rounds))
    return out


def rescore(run_dir: Path, workers: int = 1, progress: Callable[[int, int], None] | None = None) -> list[str]:
    """Re-run every recorded program on a fresh workspace and re-verify; list every round whose
    outcome differs from its record: acceptance, failed checks, score, and the whole verdict (every
    check's value, the report at every level, the suite's metrics) where the record keeps one.
    Episodes are re-run over `workers` processes; `progress(done, total)` after each."""
    store = RunStore(run_dir)
    config = store.config()
    run_config = RunConfig.from_dict(config)  # a damaged configuration is a StoreError here, not in a worker
    tasks = _tasks(run_config.suite, run_config.bench)
    args, differences = [], []
    for key, log in sorted(store.episodes().items()):  # the log is parsed once, here
        task_id, level = key.split("/")[:2]
        if task_id in tasks and level in run_config.levels:
            args.append((config, key, log.rounds))
        else:  # a record naming what the run never ran: nothing to re-run it on
            differences.append(f"{key}: recorded, but the run has no such task and level; not re-run")
    pool = worker_pool(workers) if workers > 1 else None
    try:
        results = pool.map(_rescore_episode, args) if pool else map(_rescore_episode, args)
        for i, found in enumerate(results):
            differences += found
            if progress:
                progress(i + 1, len(args))
    finally:
        if pool:
            pool.shutdown(cancel_futures=True)
    return differences


def _rescore_episode(args: tuple[dict[str, Any], str, list[RoundRecord]]) -> list[str]:
    """The differences of one episode's rounds (see `rescore`): (run config, episode key, its
    recorded rounds)."""
    cfg, key, rounds = args
    config = RunConfig.from_dict(cfg)
    suite = config.suite_instance()
    task_id, level = key.split("/")[:2]
    task = _tasks(config.suite, config.bench)[task_id]
    differences = []
    with tempfile.TemporaryDirectory(prefix="simreflect-rescore-") as tmp:
        state = Path(tmp) / "round0"
        suite.prepare_workspace(task, state)
        current = suite.verify(task, state)
        for rec in rounds:
            if rec.script is None:
                continue
            work = Path(tmp) / f"round{rec.round}"
            copy_workspace(state, work)
            outcome = attempt(suite, task, rec.script, work, config.timeout_s, EvidenceLevel.parse(level))
            verdict = current if outcome.verdict is None else outcome.verdict
            score = verdict.score if outcome.accepted else None
            what = _rescore_difference(rec, outcome.accepted, verdict, score, volatile_keys(suite),
                                       outcome.harness)
            if what:
                differences.append(f"{key} round {rec.round}: {what}")
            if outcome.accepted:
                state, current = work, verdict
    return differences


def _rescore_difference(rec: RoundRecord, accepted: bool, verdict: Any, score: float | None,
                        volatile: tuple[str, ...] = (), harness: HarnessFailure | None = None) -> str:
    """How a round re-run now differs from its record ("" when it does not); diagnostics named in
    `volatile` (the suite's `volatile_diagnostics`) are not compared, nor the wording of a harness
    failure's message (only its step and exception type)."""
    then_failed = rec.harness_error or {}
    now_failed = {} if harness is None else harness.to_dict()
    if (then_failed.get("stage"), then_failed.get("type")) != (now_failed.get("stage"), now_failed.get("type")):
        return (f"recorded harness failure {then_failed.get('stage')}/{then_failed.get('type')}, now "
                f"{now_failed.get('stage')}/{now_failed.get('type')}")
    if accepted != rec.accepted or list(verdict.errors) != list(rec.errors_after):
        return (f"recorded errors {list(rec.errors_after)} (accepted={rec.accepted}), now {verdict.errors} "
                f"(accepted={accepted})")
    if not same_record_values(rec.score, score):
        return f"recorded score {rec.score}, now {score}"
    if isinstance(rec.verdict, dict):
        now, then = json.loads(json.dumps(verdict.to_dict(), default=str)), dict(rec.verdict)
        for v in (now, then):
            if isinstance(v.get("diagnostics"), dict):
                v["diagnostics"] = {k: x for k, x in v["diagnostics"].items() if k not in volatile}
        if not same_record_values(now, then):
            fields = sorted(k for k in set(now) | set(then) if not same_record_values(now.get(k), then.get(k)))
            if fields == ["diagnostics"]:
                fields = [f"diagnostics.{k}" for k in sorted(set(now["diagnostics"]) | set(then["diagnostics"]))
                          if not same_record_values(now["diagnostics"].get(k), then["diagnostics"].get(k))]
            return f"the verdict differs from the recorded one in {', '.join(fields)}"
    return ""


#: How far a float of a re-run verdict may be from its record and still be the same measurement:
#: the last bits of a float sum move with the numpy and BLAS build (a 1-ulp change in gait's balance
#: margin between numpy releases), never by a part in a billion.
RESCORE_REL_TOL = 1e-9


def same_record_values(a: Any, b: Any, rel_tol: float = RESCORE_REL_TOL) -> bool:
    """`a == b` for JSON-shaped values, floats equal within `rel_tol` (and 1e-12 absolute); types,
    keys, lengths and everything else must match exactly."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, float) or isinstance(b, float):
        return (isinstance(a, (int, float)) and isinstance(b, (int, float))
                and math.isclose(a, b, rel_tol=rel_tol, abs_tol=1e-12))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_record_values(a[k], b[k], rel_tol) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_record_values(x, y, rel_tol) for x, y in zip(a, b))
    return type(a) is type(b) and a == b
