"""`simreflect pacebench ...`: a typer sub-app (mounted by the CLI as `pacebench`)."""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import asdict
from typing import Optional

import typer

app = typer.Typer(help="The pacebench suite: PACE-Bench's own 36 tasks x 4 stages, run from its checkout "
                  "($SIMREFLECT_PACEBENCH).", no_args_is_help=True)


def _cell(score, expected: bool) -> str:
    """One control's cell: its score, and whether it came out as expected (pass or fail)."""
    if score is None:
        return "-"
    ok = score.success == expected
    return f"{score.score:g} {'ok' if ok else 'WRONG'}"


@app.command("validate")
def validate_cmd(
    tasks: Optional[list[str]] = typer.Option(None, "--tasks", help="Task ids or glob patterns, e.g. S_01 or 'C_*' "
                                                                    "(repeatable or comma-separated; default all 36)."),
    stages: Optional[list[str]] = typer.Option(None, "--stages", help="Only these target stages, 1-4 or Stage-1..4 "
                                                                      "(repeatable or comma-separated; the source "
                                                                      "on the source always runs; default all four)."),
    parity: bool = typer.Option(False, "--parity", help="Also run each control through PACE-Bench's own verifier "
                                                        "(its process, unsandboxed) and compare the scores."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON line per control instead of the table."),
) -> None:
    """Run the controls of `pace-bench validate` in the sandbox (parity.py): per task the source reference on the source, and
    for every stage the source reference on it (expected to fail) and the stage's reference (expected to pass).
    Prints one row per task; with --parity the scores PACE-Bench gives the same programs and the differences.
    Exits 1 if a control does not come out as expected or (with --parity) a score differs from PACE-Bench's."""
    from simreflect.suites.pacebench.parity import (TARGETS, compare, controls, expected_pass,
                                                    pacebench_controls, simreflect_controls, task_names)

    patterns = [p.strip() for t in tasks or [] for p in t.split(",") if p.strip()]
    try:
        names = task_names(patterns)
    except ValueError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2)
    wanted = [p.strip() for t in stages or [] for p in t.split(",") if p.strip()]
    chosen = tuple(f"Stage-{w}" if w in ("1", "2", "3", "4") else w for w in wanted) or TARGETS
    unknown = [w for w, s in zip(wanted, chosen) if s not in TARGETS]
    if unknown:
        typer.echo(f"error: no stage {', '.join(map(repr, unknown))} (stages: 1, 2, 3, 4)", err=True)
        raise typer.Exit(2)
    columns = ["source on source"] + [c for s in chosen for c in (f"source on {s[-1]}", f"ref {s[-1]} on {s[-1]}")]
    rows, wrong, differences, start = [], 0, [], time.perf_counter()
    for n, name in enumerate(names, 1):
        items = controls([name], chosen)
        ours = simreflect_controls(items)
        try:
            theirs = pacebench_controls(items) if parity else []
        except (subprocess.SubprocessError, OSError) as e:
            typer.echo(f"error: PACE-Bench's verifier did not run {name}: {e}", err=True)
            raise typer.Exit(1)
        same, diff = compare(ours, theirs) if parity else (0, [])
        differences += diff
        wrong += sum(c.success != expected_pass(c.reference, c.environment) for c in ours)
        if as_json:
            by_key = {c.key: c for c in theirs}
            for c in ours:
                line = {**asdict(c), "expected_pass": expected_pass(c.reference, c.environment)}
                if parity:
                    other = by_key.get(c.key)
                    line["pacebench"] = None if other is None else asdict(other)
                typer.echo(json.dumps(line, sort_keys=True))
        else:
            typer.echo(f"[{n}/{len(names)}] {name}: {sum(c.seconds or 0 for c in ours):.1f} s", err=True)
        rows.append((name, ours, theirs, same))
    wall = time.perf_counter() - start
    if not as_json:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"pacebench controls: {len(names)} task(s), {sum(len(r[1]) for r in rows)} evaluations, "
                            f"{wrong} not as expected, {wall:.1f} s wall")
        for col in ["task", *columns, *(["PACE-Bench parity"] if parity else [])]:
            table.add_column(col, overflow="fold")
        for name, ours, theirs, same in rows:
            cells = [_cell(c, expected_pass(c.reference, c.environment)) for c in ours]
            table.add_row(name, *cells, *([f"{same}/{len(ours)}"] if parity else []))
        Console(width=max(Console().width, 160)).print(table)
        if parity:
            total = sum(len(r[1]) for r in rows)
            typer.echo(f"parity with PACE-Bench: {total - len(differences)} of {total} identical")
    for d in differences:
        ours, theirs = d["simreflect"], d["pacebench"]
        typer.echo(f"different: {ours['task']} {ours['reference']} on {ours['environment']}: simreflect "
                   f"{ours['success']}/{ours['score']!r}, PACE-Bench "
                   + ("no result" if theirs is None else f"{theirs['success']}/{theirs['score']!r}"), err=True)
    if wrong:
        typer.echo(f"{wrong} control(s) did not come out as expected", err=True)
    if wrong or differences:
        raise typer.Exit(1)
