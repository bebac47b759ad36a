"""The run store: an append-only log of attempts that survives kill -9.

Layout of a run directory:
    config.json      what was run (suite, benchmark, agent, levels, budget); a resumed run must match it
    episodes.jsonl, bench_manifest.json   copies of the benchmark it ran on
    attempts.jsonl   one JSON line per event, appended and fsynced before the loop moves on:
                     {"type": "round", ...}        a finished round (its record is final)
                     {"type": "infra_error", ...}  the agent could not be asked; the round is retried on resume
                     {"type": "end", ...}          the episode is over (solved or out of rounds)
    runs.jsonl       one row per episode x level, derived from attempts.jsonl (see rows.py)
    summary.md, summary.json
    work/            per-episode workspaces of unfinished episodes

A line cut short by a kill is ignored when the log is read (it was never a finished record); a
damaged line elsewhere is reported, never silently dropped.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simreflect.core.untrusted import JsonLimits, load_json

ATTEMPTS = "attempts.jsonl"
CONFIG = "config.json"
#: How a line of attempts.jsonl is read back: ours, but a run directory from elsewhere is data too (a
#: line nested 100,000 deep crashed resume and report with RecursionError). Records keep what they
#: hold (NaN, surrogates); only nesting, number sizes and the line's length are bounded.
RECORD_LIMITS = JsonLimits(max_bytes=256 << 20, max_depth=64, max_items=1 << 30, max_string_chars=1 << 30,
                           max_int_digits=sys.get_int_max_str_digits(), max_abs=math.inf, nonfinite="allow",
                           surrogates="keep")


class StoreError(RuntimeError):
    pass


def episode_key(task_id: str, level: str, run: int = 0) -> str:
    """One episode: a task at an evidence level, in one of the run's independent repetitions."""
    return f"{task_id}/{level}" + (f"/run{run}" if run else "")


@dataclass
class EpisodeLog:
    """What the store holds about one episode x level."""

    rounds: list[dict[str, Any]] = field(default_factory=list)
    infra_errors: list[dict[str, Any]] = field(default_factory=list)
    end: dict[str, Any] | None = None


class RunStore:
    def __init__(self, run_dir: Path):
        self.dir = Path(run_dir)
        self.path = self.dir / ATTEMPTS

    # ----- config --------------------------------------------------------------------------------
    def open(self, config: dict[str, Any]) -> bool:
        """Create the run, or check that an existing one has the same config. True when resuming."""
        self.dir.mkdir(parents=True, exist_ok=True)
        cfg_path = self.dir / CONFIG
        canonical = json.dumps(config, sort_keys=True, indent=1)
        if cfg_path.exists():
            old = json.loads(cfg_path.read_text())
            if old != json.loads(canonical):
                diff = sorted(k for k in set(old) | set(config) if old.get(k) != config.get(k))
                raise StoreError(f"{self.dir} holds a run with another configuration (differs in: {', '.join(diff)}); "
                                 "use a new --out or the same options")
            return True
        tmp = cfg_path.with_suffix(".tmp")
        tmp.write_text(canonical)
        os.replace(tmp, cfg_path)
        return False

    def config(self) -> dict[str, Any]:
        try:
            return json.loads((self.dir / CONFIG).read_text())
        except FileNotFoundError:
            raise StoreError(f"{self.dir} is not a run directory (no {CONFIG})") from None

    # ----- attempts ------------------------------------------------------------------------------
    def append(self, record: dict[str, Any]) -> None:
        """Append one record durably (flush + fsync, under an exclusive lock for parallel workers)."""
        line = (json.dumps(record, sort_keys=True) + "\n").encode()
        self.dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._repair_tail(fd)
            os.write(fd, line)
            os.fsync(fd)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _repair_tail(self, fd: int) -> None:
        """If a killed writer left a line without its newline, end it so the next record stands alone."""
        size = os.fstat(fd).st_size
        if size == 0:
            return
        with open(self.path, "rb") as f:
            f.seek(size - 1)
            if f.read(1) != b"\n":
                os.write(fd, b"\n")

    def records(self) -> tuple[list[dict[str, Any]], list[str]]:
        """All complete records, and a description of each damaged line."""
        if not self.path.exists():
            return [], []
        out, damaged = [], []
        for n, raw in enumerate(self.path.read_bytes().split(b"\n"), start=1):
            if not raw.strip():
                continue
            try:
                rec = load_json(raw, RECORD_LIMITS, f"{ATTEMPTS} line {n}")
                if not isinstance(rec, dict) or "type" not in rec:
                    raise ValueError("not a record")
                out.append(rec)
            except ValueError:
                damaged.append(f"{ATTEMPTS} line {n}: damaged record ({len(raw)} bytes) ignored")
        return out, damaged

    def episodes(self) -> dict[str, EpisodeLog]:
        logs: dict[str, EpisodeLog] = {}
        records, _ = self.records()
        for rec in records:
            log = logs.setdefault(episode_key(rec["task"], rec["level"], rec.get("run", 0)), EpisodeLog())
            if rec["type"] == "round":
                # a round is final once written; should a resumed run ever write it again, the first stands
                if not any(r["round"] == rec["round"] for r in log.rounds):
                    log.rounds.append(rec)
            elif rec["type"] == "infra_error":
                log.infra_errors.append(rec)
            elif rec["type"] == "end" and log.end is None:
                log.end = rec
        for log in logs.values():
            log.rounds.sort(key=lambda r: r["round"])
        return logs
