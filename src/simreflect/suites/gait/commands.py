"""The gait suite's commands: `simreflect gait build` and `simreflect gait verify`."""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

app = typer.Typer(help="The gait suite: repair broken walk cycles of rigged humanoid robots.", no_args_is_help=True)
console = Console(width=max(Console().width, 120))


@app.command("build")
def gait_build(
    out: Path = typer.Option(..., "--out", help="Directory to write the benchmark into."),
    seed: int = typer.Option(0, "--seed", help="Master seed; the same seed gives the same bytes."),
    episodes: int = typer.Option(30, "--episodes", min=1, help="Number of episodes (the plan is scaled to it)."),
    workers: Optional[int] = typer.Option(None, "--workers", min=1, help="Worker processes (default: one per core)."),
    gifs: bool = typer.Option(True, "--gifs/--no-gifs", help="Render a GIF per episode."),
) -> None:
    """Generate the episodes, verify their controls, write the files and print the episode table."""
    from simreflect.suites.gait.build import build_benchmark

    start = time.perf_counter()
    with Progress(TextColumn("[bold]building gait episodes"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as bar:
        task = bar.add_task("build", total=episodes)
        summaries = build_benchmark(out, seed=seed, episodes=episodes, workers=workers, gifs=gifs,
                                    progress=lambda done, total: bar.update(task, completed=done))
    elapsed = time.perf_counter() - start
    table = Table(title=f"gait benchmark: {len(summaries)} episodes, seed {seed} -> {out}")
    for col in ("episode", "defects", "errors with no fix", "controls", "regenerations"):
        table.add_column(col)
    for s in summaries:
        table.add_row(s.id, ", ".join(s.kinds), ", ".join(s.noop_errors),
                      "[green]ok[/green]" if s.controls_ok else f"[red]FAIL[/red] {'; '.join(s.problems)}",
                      str(s.regenerations))
    console.print(table)
    failed = [s.id for s in summaries if not s.controls_ok]
    regen = sum(s.regenerations for s in summaries)
    console.print(f"controls: {len(summaries) - len(failed)}/{len(summaries)} ok; "
                  f"{regen} regeneration(s) in {sum(1 for s in summaries if s.regenerations)} episode(s); "
                  f"built in {elapsed:.1f} s")
    if failed:
        raise typer.Exit(1)


@app.command("verify")
def gait_verify(
    episode_dir: Path = typer.Argument(..., help="An episode folder of a built benchmark (episodes/epXX)."),
    script: Optional[Path] = typer.Option(None, "--script", help="A fix script to run on the episode's rig first."),
    level: str = typer.Option("L2", "--level", help="Evidence level of the report: L1, L2 or L3."),
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as one JSON object."),
    timeout: float = typer.Option(60.0, "--timeout", help="Seconds the fix script may run."),
    interface: str = typer.Option("python", "--interface", help="python (a fix script on the rig object) or blender "
                                  "(a bpy script run by Blender on the episode's .blend; needs bpy)."),
) -> None:
    """Verify an episode as it is, or after a fix script; exit status 0 only on PASS."""
    from simreflect.core.evidence import EvidenceLevel
    from simreflect.suites.gait.suite import GaitSuite, load_episode

    try:
        lvl = EvidenceLevel.parse(level)
        task = load_episode(episode_dir)
        suite = GaitSuite().with_options(interface=interface)
    except (ValueError, FileNotFoundError) as e:
        console.print(f"[red]error:[/red] {e}")
        raise typer.Exit(2)
    program = run = None
    with tempfile.TemporaryDirectory(prefix="simreflect-verify-") as tmp:
        workdir = Path(tmp) / "work"
        suite.prepare_workspace(task, workdir)
        if script is not None:
            try:
                source = script.read_text()
            except (OSError, UnicodeDecodeError) as e:
                console.print(f"[red]error:[/red] cannot read {script}: {e}")
                raise typer.Exit(2)
            run = suite.run_program(task, source, workdir, timeout_s=timeout)
            program = run.result
        if program is not None and not program.ok:
            from simreflect.core.verdict import Verdict

            verdict = Verdict.invalid_artefact(f"the fix script failed ({program.status}: {program.reason})")
        else:
            verdict = suite.verify(task, workdir, run)
    if as_json:
        out = verdict.to_dict()
        out["episode"] = task.id
        out["interface"] = suite.interface
        out["script"] = None if program is None else program.to_dict()
        sys.stdout.write(json.dumps(out) + "\n")
    else:
        if program is not None:
            console.print(f"fix script: {program.status} in {program.seconds:.2f} s {program.reason}")
            if program.output_tail.strip():
                console.print(program.output_tail.rstrip(), markup=False, highlight=False)
        console.print(suite.observe(task, verdict, lvl), markup=False, highlight=False)
    raise typer.Exit(0 if verdict.passed else 1)
