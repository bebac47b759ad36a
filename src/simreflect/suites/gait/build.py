"""Building the gait benchmark on disk: episodes, their controls, files and pictures.

Layout of a built benchmark directory:
    manifest.json            format, seed, plan, counts and the sha256 of every file below
    episodes.jsonl           one row per episode: defects, parameters, ground truth, oracle fix, walk check, controls
    episodes/epXX/rig.json   the broken rig the agent starts from
    episodes/epXX/episode.json, oracle_fix.py, walk.gif
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from simreflect.core.lifetime import worker_pool
from simreflect.suites.gait.defects import defect_kinds
from simreflect.suites.gait.episodes import Episode, build_episode, episode_plan
from simreflect.suites.gait.suite import EPISODE_FILE, EPISODES_DIR, ORACLE_FILE, GaitSuite, load_episode
from simreflect.suites.gait.fixrunner import RIG_FILE

BENCH_FORMAT = "simreflect.gait.bench/1"


@dataclass(frozen=True)
class EpisodeSummary:
    id: str
    kinds: tuple[str, ...]
    regenerations: int
    noop_errors: tuple[str, ...]
    controls_ok: bool
    problems: tuple[str, ...]


def run_controls(episode_dir: Path) -> dict[str, Any]:
    """The controls through the real path: files on disk, the fix script in its own process."""
    suite = GaitSuite()
    task = load_episode(episode_dir)
    problems = []
    with tempfile.TemporaryDirectory(prefix="simreflect-controls-") as tmp:
        noop_dir = Path(tmp) / "noop"
        suite.prepare_workspace(task, noop_dir)
        noop = suite.verify(task, noop_dir)
        kinds = defect_kinds(noop)
        if noop.passed or kinds != set(task.hidden["kinds"]):
            problems.append(f"no fix fails with {sorted(kinds)}, planted {sorted(task.hidden['kinds'])}")
        oracle_dir = Path(tmp) / "oracle"
        suite.prepare_workspace(task, oracle_dir)
        run = suite.run_program(task, suite.oracle(task), oracle_dir)
        oracle = suite.verify(task, oracle_dir, run) if run.ok else None
        if oracle is None or not oracle.passed:
            problems.append(f"oracle fix does not pass: {run.result.reason or (oracle.errors if oracle else '')}")
    return {"noop_errors": noop.errors, "noop_kinds": sorted(kinds), "oracle_passes": not any("oracle" in p for p in problems),
            "problems": problems}


def _write_episode(ep: Episode, episode_dir: Path) -> None:
    episode_dir.mkdir(parents=True, exist_ok=True)
    ep.rig.save(episode_dir / RIG_FILE)
    (episode_dir / ORACLE_FILE).write_text(ep.oracle)
    (episode_dir / EPISODE_FILE).write_text(json.dumps(ep.record(), sort_keys=True, indent=1))


def _episode_job(args: tuple[int, int, tuple[str, ...], str, bool]) -> dict[str, Any]:
    index, seed, kinds, out, gifs = args
    ep = build_episode(index, seed, kinds)
    episode_dir = Path(out) / EPISODES_DIR / ep.id
    _write_episode(ep, episode_dir)
    controls = run_controls(episode_dir)
    ep.controls = {**ep.controls, **{k: v for k, v in controls.items() if k != "problems"},
                   "ok": not controls["problems"]}
    (episode_dir / EPISODE_FILE).write_text(json.dumps(ep.record(), sort_keys=True, indent=1))
    if gifs:
        from simreflect.suites.gait.pictures import episode_picture

        episode_picture(ep, episode_dir / "walk.gif")
    return {"record": ep.record(), "problems": controls["problems"]}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build_benchmark(
    out: Path,
    seed: int = 0,
    episodes: int = 30,
    workers: int | None = None,
    gifs: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> list[EpisodeSummary]:
    """Generate, check and write the benchmark. Returns one summary per episode, in order."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    plan = episode_plan(episodes, seed)
    jobs = [(i, seed, kinds, str(out), gifs) for i, kinds in enumerate(plan)]
    workers = workers or min(len(jobs), os.cpu_count() or 1)
    results: list[dict[str, Any]] = []
    if workers <= 1:
        for k, job in enumerate(jobs):
            results.append(_episode_job(job))
            if progress:
                progress(k + 1, len(jobs))
    else:
        with worker_pool(workers) as pool:
            for k, res in enumerate(pool.map(_episode_job, jobs)):
                results.append(res)
                if progress:
                    progress(k + 1, len(jobs))
    rows = [r["record"] for r in results]
    (out / "episodes.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    files = sorted(p for p in out.rglob("*") if p.is_file() and p.name != "manifest.json")
    manifest = {
        "format": BENCH_FORMAT,
        "suite": "gait",
        "seed": seed,
        "episodes": len(rows),
        "plan": {f"{n} defect(s)": sum(1 for r in rows if len(r["kinds"]) == n) for n in (1, 2, 3)},
        "kinds": {k: sum(1 for r in rows if k in r["kinds"]) for k in ("leak", "balance", "knee")},
        "regenerations": {r["id"]: r["regenerations"] for r in rows if r["regenerations"]},
        "files": {str(p.relative_to(out)): _sha256(p) for p in files},
    }
    (out / "manifest.json").write_text(json.dumps(manifest, sort_keys=True, indent=1))
    return [
        EpisodeSummary(r["record"]["id"], tuple(r["record"]["kinds"]), r["record"]["regenerations"],
                       tuple(r["record"]["controls"]["noop_errors"]), not r["problems"], tuple(r["problems"]))
        for r in results
    ]
