"""`simreflect pace ...`: a typer sub-app (mounted by the CLI as `pace`)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Optional

import typer

app = typer.Typer(help="The pace suite: adapt a 2D physical design program (Box2D) from its source environment "
                  "to mutated target environments.", no_args_is_help=True)


ROOT_HELP = "A folder of task folders instead of the packaged tasks (a task being written elsewhere)."


def report_broken(broken) -> None:
    for b in broken:
        typer.echo(f"error: pace task {b.id} does not load: {b.reason}", err=True)


@app.command("list")
def list_cmd(root: Optional[Path] = typer.Option(None, "--root", help=ROOT_HELP)) -> None:
    """List the tasks: id, domain, title, mutated variables per stage. A task folder that does not load is
    named with its reason (exit 1) and the others are listed."""
    from simreflect.suites.pace.task import TARGETS, discover

    try:
        found = discover(root)
    except OSError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2)
    for s in found.specs:
        counts = "/".join(str(len(s.mutations(st))) for st in TARGETS)
        typer.echo(f"{s.id:22s} {s.domain:11s} {'controller' if s.controller else 'design':10s} "
                   f"mutations {counts:10s} {s.title}")
    report_broken(found.broken)
    if found.broken:
        raise typer.Exit(1)


@app.command("show")
def show_cmd(
    task: str = typer.Option(..., "--task", help="Task id."),
    stage: str = typer.Option("1", "--stage", help="source, 1, 2, 3 or 4."),
) -> None:
    """Print the task card of one environment, as the agent reads it."""
    from simreflect.suites.pace import prompt
    from simreflect.suites.pace.task import load_spec

    try:
        spec = load_spec(task)
        typer.echo(prompt.instruction(spec, stage))
    except (FileNotFoundError, ValueError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2)


@app.command("verify")
def verify_cmd(
    task: str = typer.Option(..., "--task", help="Task id (a folder under the tasks directory)."),
    stage: str = typer.Option(..., "--stage", help="source, 1, 2, 3 or 4."),
    program: Path = typer.Option(..., "--program", exists=True, dir_okay=False, help="The design program (.py)."),
    as_json: bool = typer.Option(False, "--json", help="Print passed, score, feedback and the metrics as JSON."),
    gif: Optional[Path] = typer.Option(None, "--gif", help="Write an animation of the run to this GIF."),
    level: int = typer.Option(3, "--level", min=1, max=3, help="Evidence level of the report (1-3)."),
    timeout: float = typer.Option(120.0, "--timeout", min=1.0, help="Wall and CPU seconds for the program."),
    root: Optional[Path] = typer.Option(None, "--root", help="A folder of task folders to look TASK up in instead of "
                                                             "the packaged tasks (a task being written elsewhere)."),
) -> None:
    """Run PROGRAM in the sandbox against one environment of TASK and print the report."""
    from simreflect.suites.pace.evaluate import evaluate
    from simreflect.suites.pace.task import TaskFormatError, load_spec, parse_stage

    try:
        spec = load_spec(task, root)
        st = parse_stage(stage)
    except (FileNotFoundError, ValueError, KeyError, TaskFormatError) as e:
        typer.echo(f"error: {e.args[0] if isinstance(e, KeyError) else e}", err=True)
        raise typer.Exit(2)
    ev = evaluate(spec, st, program.read_text(), timeout_s=timeout, gif=gif)
    report = ev.feedback_levels.get(str(level), ev.feedback)
    if as_json:
        out = {"task": spec.id, "stage": st, "passed": ev.passed, "score": ev.score, "feedback": report,
               "invalid": ev.invalid, "failure": ev.failure, "steps": ev.steps,
               "program": None if ev.program is None else ev.program.to_dict(), "metrics": ev.metrics(),
               "timings": ev.timings.to_dict()}
        if gif is not None:
            out["gif"] = str(gif)
        typer.echo(json.dumps(out, indent=2, default=str))
    else:
        typer.echo(report.rstrip())
        prog = ev.program
        if prog is not None and prog.status != "ok":
            typer.echo(f"\nProgram: {prog.status} ({prog.reason})")
        if gif is not None:
            typer.echo(f"GIF written to {gif}")
    raise typer.Exit(0 if ev.passed else 1)


@app.command("validate")
def validate_cmd(
    task: Optional[list[str]] = typer.Option(None, "--task", help="Only this task (repeatable)."),
    workers: Optional[int] = typer.Option(None, "--workers", min=1, help="Worker processes (default: one per core)."),
    as_json: bool = typer.Option(False, "--json", help="Print the rows as JSON lines instead of a table."),
    timeout: float = typer.Option(120.0, "--timeout", min=1.0, help="Wall and CPU seconds per program."),
    root: Optional[Path] = typer.Option(None, "--root", help="A folder of task folders to validate instead of the "
                                                             "packaged tasks (a task being written elsewhere)."),
    pin: bool = typer.Option(False, "--pin", help="Pin the metrics fingerprints of every control in its task folder "
                                                  "(only when every control comes out as expected)."),
) -> None:
    """Run the controls: each stage's reference passes it, the source design passes the source and fails every
    target. Prints a table with scores, steps, wall time and whether each control's metrics are the pinned ones;
    exits 1 if any control fails, its metrics changed from the pinned ones on this platform, or a task folder
    does not load (named with its reason; the other tasks are validated)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table

    from simreflect.suites.pace import pins
    from simreflect.suites.pace.task import TaskFormatError
    from simreflect.suites.pace.validate import broken_among, run_controls
    from simreflect.suites.pace.validate import pin as pin_controls

    start = time.perf_counter()
    columns = (TextColumn("pace controls"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    try:
        with Progress(*columns, transient=True, disable=as_json, console=Console(stderr=True)) as bar:
            job = bar.add_task("controls", total=None)
            rows = run_controls(task, root=root, workers=workers, timeout_s=timeout,
                                progress=lambda done, total: bar.update(job, completed=done, total=total))
        broken = broken_among(task, root)
    except (KeyError, TaskFormatError, FileNotFoundError, ValueError) as e:
        typer.echo(f"error: {e.args[0] if isinstance(e, KeyError) else e}", err=True)
        raise typer.Exit(2)
    wall = time.perf_counter() - start
    bad = [r for r in rows if not r.ok]
    if pin and not bad and not broken:
        written = pin_controls(rows, root)
        for r in rows:
            r.pinned = pins.SAME
    changed = [r for r in rows if r.pinned == pins.CHANGED]
    pin_style = {pins.SAME: "[green]pinned[/green]", pins.CHANGED: "[red]CHANGED[/red]", pins.UNPINNED: "unpinned",
                 pins.OTHER_PLATFORM: "other platform"}
    if as_json:
        for r in rows:
            typer.echo(json.dumps(r.to_dict(), sort_keys=True))
    else:
        console = Console(width=max(Console().width, 140))
        table = Table(title=f"pace controls: {len(rows)} evaluations, {len(rows) - len(bad)} as expected, "
                            f"{wall:.1f} s wall")
        for col in ("task", "env", "program", "expected", "result", "score", "steps", "wall s", "control", "metrics",
                    "failure"):
            table.add_column(col, overflow="fold")
        for r in rows:
            table.add_row(r.task, r.env, r.program, "pass" if r.expect_pass else "fail",
                          "pass" if r.passed else "fail", f"{r.score:g}", str(r.steps), f"{r.wall_s:.2f}",
                          "[green]ok[/green]" if r.ok else "[red]FAIL[/red]", pin_style[r.pinned],
                          (r.invalid or r.failure)[:70])
        console.print(table)
    if pin:
        if bad or broken:
            typer.echo("not pinned: a failing benchmark is never pinned", err=True)
        else:
            typer.echo(f"pinned the metrics of {len(rows)} controls in {len(written)} task folder(s) "
                       f"({pins.platform_tag()})", err=True)
    elif any(r.pinned == pins.OTHER_PLATFORM for r in rows):
        typer.echo(f"note: pins were made on another platform; not compared here ({pins.platform_tag()})", err=True)
    if changed:
        typer.echo(f"{len(changed)} control(s) give metrics other than the pinned ones on this platform: "
                   + ", ".join(f"{r.task}/{r.env}/{r.program}" for r in changed[:12])
                   + (" ..." if len(changed) > 12 else "")
                   + "\nThe benchmark changed. If that is deliberate, re-pin with `simreflect pace validate --pin`.",
                   err=True)
    if bad:
        typer.echo(f"{len(bad)} control(s) failed: " + ", ".join(f"{r.task}/{r.env}/{r.program}" for r in bad),
                   err=True)
    report_broken(broken)
    if bad or changed or broken:
        raise typer.Exit(1)


@app.command("probe")
def probe_cmd(
    task: Optional[list[str]] = typer.Option(None, "--task", help="Only this task (repeatable; default: every task)."),
    stage: Optional[list[str]] = typer.Option(None, "--stage", help="Only this stage: source, 1, 2, 3 or 4 "
                                                                    "(repeatable; default: the four targets)."),
    budget: int = typer.Option(200, "--budget", min=1, help="Sandboxed evaluations per (task, stage) pair."),
    population: int = typer.Option(8, "--population", min=1, help="Population of the evolutionary phase."),
    seed: int = typer.Option(0, "--seed", help="Seed of the search (the same seed gives the same findings)."),
    workers: Optional[int] = typer.Option(None, "--workers", min=1, help="Pairs searched in parallel "
                                                                         "(default: 2, or 1 on one core)."),
    out: Path = typer.Option(Path("probe-findings"), "--out", help="The findings directory (written over)."),
    gifs: int = typer.Option(3, "--gifs", min=0, help="GIFs per pair: the first pass of each distinct mechanism, "
                                                      "mechanisms unlike the reference's first."),
    timeout: float = typer.Option(60.0, "--timeout", min=1.0, help="Wall and CPU seconds per program."),
    root: Optional[Path] = typer.Option(None, "--root", help="A folder of task folders instead of the packaged tasks."),
    resume: bool = typer.Option(False, "--resume", help="Read back the pairs a previous run into OUT with the same "
                                                        "settings finished, instead of searching them again."),
) -> None:
    """Search each (task, stage) pair for designs that pass, built from the whole API (random structures, legal
    extremes, bang-bang and resonant controllers, mutations of the source and reference, evolutionary selection),
    every one run through the sandbox as `pace verify` runs it. Writes every pass (program, GIF, whether it shares
    the reference's mechanism) to OUT and prints a table of the pairs with passes."""
    import sys

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table

    from simreflect.suites.pace.probe import ProbeConfig, default_workers, pairs_for, probe, totals
    from simreflect.suites.pace.task import TaskFormatError

    try:
        pairs = pairs_for(task, stage, root)
        config = ProbeConfig(budget=budget, population=population, seed=seed, gifs=gifs, timeout_s=timeout)
    except (KeyError, ValueError, FileNotFoundError, TaskFormatError) as e:
        typer.echo(f"error: {e.args[0] if isinstance(e, KeyError) else e}", err=True)
        raise typer.Exit(2)
    workers = workers or default_workers()
    start = time.perf_counter()
    err = Console(stderr=True)
    interactive = sys.stderr.isatty()

    def line(r, done: int, total: int) -> str:
        return (f"{done}/{total} {r.task} {r.stage}: {r.evaluations} evaluations, {len(r.findings)} passes, "
                f"{len(r.novel)} unlike the reference" + (f", error: {r.error}" if r.error else ""))

    columns = (TextColumn("pace probe"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.description}"))
    with Progress(*columns, console=err, transient=True, disable=not interactive) as bar:
        job = bar.add_task("", total=len(pairs))

        def progress(r, done: int, total: int) -> None:
            if interactive:
                bar.update(job, completed=done, description=f"{r.task} {r.stage}")
            else:
                typer.echo(f"probe: {line(r, done, total)}", err=True)

        results = probe(pairs, config, out, workers=workers, root=root, progress=progress, resume=resume)
    wall = time.perf_counter() - start
    t = totals(results)
    console = Console(width=max(Console().width, 140))
    table = Table(title=f"pace probe: {t['pairs']} pairs, {t['evaluations']} evaluations, {t['passes']} passes, "
                        f"{t['passes_unlike_reference']} unlike the reference ({wall:.0f} s)")
    for col in ("task", "stage", "evals", "best", "passes", "unlike ref", "mechanisms",
                "first pass unlike the reference"):
        table.add_column(col, overflow="fold")
    for r in results:
        if not r.findings and not r.error:
            continue
        first = r.novel[0] if r.novel else None
        table.add_row(r.task, r.stage, str(r.evaluations), f"{r.best_score:g}", str(len(r.findings)),
                      f"[red]{len(r.novel)}[/red]" if r.novel else "0", str(len({f.group for f in r.findings})),
                      r.error or (f"{first.program}: {first.comparison.describe()}" if first else ""))
    console.print(table)
    typer.echo(f"findings: {out / 'findings.json'}, {out / 'summary.md'}", err=True)
