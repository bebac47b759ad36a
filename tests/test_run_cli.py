"""`simreflect run`, `report` and `rescore` from the command line."""

from __future__ import annotations

import json
import subprocess
import sys

CLI = [sys.executable, "-m", "simreflect.cli"]


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(CLI + list(args), capture_output=True, text=True, timeout=300)


def test_run_report_rescore(small_bench, tmp_path):
    out = tmp_path / "run"
    res = cli("run", "gait", "--agent", "oracle", "--bench", str(small_bench), "--out", str(out), "--levels", "L1,L2")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Solved within 3" in res.stdout and "3/3" in res.stdout
    assert {p.name for p in out.iterdir()} >= {"config.json", "attempts.jsonl", "runs.jsonl", "summary.md",
                                              "summary.json", "episodes.jsonl"}
    rows = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    assert len(rows) == 6 and all(r["solved_round"] == 1 for r in rows)
    report = cli("report", str(out))
    assert report.returncode == 0 and report.stdout.strip() == (out / "summary.md").read_text().strip()
    rescore = cli("rescore", str(out))
    assert rescore.returncode == 0 and "0 difference(s)" in rescore.stdout

    # a tampered record is caught by rescore
    lines = (out / "attempts.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["errors_after"] = ["balance"]
    lines[0] = json.dumps(first)
    (out / "attempts.jsonl").write_text("\n".join(lines) + "\n")
    rescore = cli("rescore", str(out))
    assert rescore.returncode == 1 and "1 difference(s)" in rescore.stdout


def test_bad_options_are_clear_errors(small_bench, tmp_path):
    res = cli("run", "gait", "--agent", "telepathy", "--bench", str(small_bench), "--out", str(tmp_path / "x"))
    assert res.returncode == 2 and "unknown agent" in res.stdout
    res = cli("run", "gait", "--agent", "llm", "--bench", str(small_bench), "--out", str(tmp_path / "y"))
    assert res.returncode == 2 and "needs --model" in res.stdout
    res = cli("run", "gait", "--agent", "llm", "--model", "some-model", "--bench", str(small_bench), "--out", str(tmp_path / "w"))
    assert res.returncode == 2 and "pass --base-url" in res.stdout
    res = cli("run", "gait", "--agent", "noop", "--bench", str(small_bench), "--out", str(tmp_path / "z"), "--levels", "L9")
    assert res.returncode == 2
    res = cli("report", str(tmp_path / "nothing"))
    assert res.returncode == 2 and "not a run directory" in res.stdout
