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
damaged line elsewhere is reported, never silently dropped. Records and config.json carry the
store's format version (records.py): a record of an older format is upgraded as it is read, one
that is damaged, of a newer format or without a field a reader needs is skipped, and each is
named with its line number (`read().problems`, `read().upgraded`; the summary lists them).
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simreflect.core.records import (FORMAT, FORMAT_KEY, LEGACY_FORMAT, EndRecord, EpisodeLog, InfraErrorRecord,
                                     RoundRecord)
from simreflect.core.untrusted import JsonLimits, load_json
from simreflect.run.records import check_record, line_ranges, stamp

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


@dataclass(frozen=True)
class StoreRead:
    """The attempt log as read: the records the readers may use, the lines skipped (damaged, of a
    newer format, without a field a reader needs) and the lines read after an upgrade."""

    records: list[dict[str, Any]]
    problems: list[str]
    upgraded: list[str]


class RunStore:
    def __init__(self, run_dir: Path):
        self.dir = Path(run_dir)
        self.path = self.dir / ATTEMPTS

    # ----- config --------------------------------------------------------------------------------
    def open(self, config: dict[str, Any]) -> bool:
        """Create the run, or check that an existing one has the same config. True when resuming."""
        self.dir.mkdir(parents=True, exist_ok=True)
        cfg_path = self.dir / CONFIG
        canonical = json.loads(json.dumps(config, sort_keys=True))
        if cfg_path.exists():
            old = self.config()  # a run recorded before config.json had a version compares as the same
            if old != canonical:
                diff = sorted(k for k in set(old) | set(config) if old.get(k) != config.get(k))
                raise StoreError(f"{self.dir} holds a run with another configuration (differs in: {', '.join(diff)}); "
                                 "use a new --out or the same options")
            return True
        tmp = cfg_path.with_suffix(".tmp")
        tmp.write_text(json.dumps({**canonical, FORMAT_KEY: FORMAT}, sort_keys=True, indent=1))
        os.replace(tmp, cfg_path)
        return False

    def config(self) -> dict[str, Any]:
        """The run's configuration as recorded (without the format version). StoreError when there is
        none, it is damaged, or it was written by a newer simreflect."""
        path = self.dir / CONFIG
        try:
            data = json.loads(path.read_bytes())
        except FileNotFoundError:
            raise StoreError(f"{self.dir} is not a run directory (no {CONFIG})") from None
        except (OSError, ValueError, RecursionError) as e:
            raise StoreError(f"{path} is damaged ({type(e).__name__}: {str(e)[:200]})") from None
        if not isinstance(data, dict):
            raise StoreError(f"{path} is damaged (not a JSON object)")
        version = data.pop(FORMAT_KEY, LEGACY_FORMAT)
        if not isinstance(version, int) or isinstance(version, bool) or not LEGACY_FORMAT <= version <= FORMAT:
            raise StoreError(f"{path} is in store format {version!r}; this simreflect reads formats "
                             f"{LEGACY_FORMAT}-{FORMAT}")
        return data

    # ----- attempts ------------------------------------------------------------------------------
    def append(self, record: dict[str, Any]) -> None:
        """Append one record durably (flush + fsync, under an exclusive lock for parallel workers)."""
        line = (json.dumps(stamp(record), sort_keys=True) + "\n").encode()
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
        """All records the readers may use, and a description of each line skipped."""
        read = self.read()
        return read.records, read.problems

    def read(self) -> StoreRead:
        """The attempt log, every line checked (and upgraded) by records.check_record."""
        if not self.path.exists():
            return StoreRead([], [], [])
        out, problems, legacy, older, filled = [], [], [], {}, {}
        for n, raw in enumerate(self.path.read_bytes().split(b"\n"), start=1):
            if not raw.strip():
                continue
            try:
                checked = check_record(load_json(raw, RECORD_LIMITS, f"{ATTEMPTS} line {n}"))
            except ValueError:  # not JSON, not UTF-8, or past the reader's bounds (core.untrusted.Refusal)
                problems.append(f"{ATTEMPTS} line {n}: damaged record ({len(raw)} bytes) ignored")
                continue
            if checked.record is None:
                problems.append(f"{ATTEMPTS} line {n}: {checked.problem}; skipped")
                continue
            out.append(checked.record)
            if checked.legacy:
                legacy.append(n)
            elif checked.upgraded_from is not None:
                older.setdefault(checked.upgraded_from, []).append(n)
            for name in checked.filled:
                filled.setdefault(name, []).append(n)
        upgraded = []
        if legacy:
            upgraded.append(f"{ATTEMPTS} lines {line_ranges(legacy)}: {len(legacy)} record(s) of the legacy format "
                            f"(no {FORMAT_KEY}) read as format {FORMAT}")
        upgraded += [f"{ATTEMPTS} lines {line_ranges(lines)}: {len(lines)} record(s) of store format {version} read as "
                     f"format {FORMAT}" for version, lines in sorted(older.items())]
        upgraded += [f"{ATTEMPTS} lines {line_ranges(lines)}: no {name!r}, read with its default"
                     for name, lines in sorted(filled.items())]
        return StoreRead(out, problems, upgraded)

    def episodes(self) -> dict[str, EpisodeLog]:
        logs: dict[str, EpisodeLog] = {}
        for rec in self.read().records:
            log = logs.setdefault(episode_key(rec["task"], rec["level"], rec["run"]), EpisodeLog())
            if rec["type"] == "round":
                # a round is final once written; should a resumed run ever write it again, the first stands
                if not any(r.round == rec["round"] for r in log.rounds):
                    log.rounds.append(RoundRecord.from_dict(rec))
            elif rec["type"] == "infra_error":
                log.infra_errors.append(InfraErrorRecord.from_dict(rec))
            elif rec["type"] == "end" and log.end is None:
                log.end = EndRecord.from_dict(rec)
        for log in logs.values():
            log.rounds.sort(key=lambda r: r.round)
        return logs
