"""The Ray executor: a run on a local Ray cluster gives the same records as a local run, and resumes."""

from __future__ import annotations

import shutil

import pytest

from simreflect.run.runner import RunConfig, run
from simreflect.run.store import RunStore

TIMING = {"agent_seconds", "verify_seconds", "seconds", "latency_s"}


def strip_timings(obj):
    if isinstance(obj, dict):
        return {k: strip_timings(v) for k, v in obj.items() if k not in TIMING}
    if isinstance(obj, list):
        return [strip_timings(v) for v in obj]
    return obj


def records(run_dir):
    recs, damaged = RunStore(run_dir).records()
    assert not damaged
    return sorted((strip_timings(r) for r in recs), key=lambda r: (r["task"], r["level"], r["type"], r.get("round", 0)))


@pytest.mark.slow
def test_ray_and_local_runs_give_identical_records(small_bench, tmp_path):
    ray = pytest.importorskip("ray")
    config = RunConfig(suite="gait", bench=str(small_bench), agent="baseline", levels=("L1", "L2"))
    local = tmp_path / "local"
    run(local, config, workers=2)
    # a run interrupted after its first three records, finished on Ray: resume works the same there
    on_ray = tmp_path / "ray"
    on_ray.mkdir()
    shutil.copyfile(local / "config.json", on_ray / "config.json")
    lines = (local / "attempts.jsonl").read_text().splitlines(keepends=True)
    (on_ray / "attempts.jsonl").write_text("".join(lines[:3]))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=128 * 1024 * 1024,
             _node_ip_address="127.0.0.1")  # loopback only
    try:
        seen = []
        outcomes = run(on_ray, config, executor="ray", progress=lambda o, done, total: seen.append((done, total)))
        assert outcomes and all(o.status == "finished" for o in outcomes)
        assert seen[-1] == (6, 6)
        assert run(on_ray, config, executor="ray") == []  # nothing left to do
    finally:
        ray.shutdown()
    assert records(local) == records(on_ray)


def test_a_shipped_episode_needs_no_run_directory(small_bench, tmp_path):
    """What a Ray task runs: the episode's earlier records in, the outcome and its new records out,
    the run directory never touched (it is on the driver's machine only)."""
    from simreflect.run.runner import _run_shipped

    config = RunConfig(suite="gait", bench=str(small_bench), agent="baseline", levels=("L1",), rounds=3)
    local = tmp_path / "local"
    run(local, config)
    whole, _ = RunStore(local).records()
    episode = [r for r in whole if r["task"] == "ep01"]
    outcome, new = _run_shipped(config.to_dict(), "ep01", "L1", 0, [])
    assert outcome.status == "finished" and strip_timings(new) == strip_timings(episode)
    # resumed from its first record: only the rest comes back
    outcome, rest = _run_shipped(config.to_dict(), "ep01", "L1", 0, episode[:1])
    assert strip_timings(rest) == strip_timings(episode[1:]) and outcome.status == "finished"
