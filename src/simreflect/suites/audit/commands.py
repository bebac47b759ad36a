"""`simreflect audit ...`: a typer sub-app (mounted by the CLI as `audit`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

app = typer.Typer(help="The audit suite: reproduce scientific claims with self-contained numpy scripts, "
                  "graded against answer keys with a mandatory positive control.", no_args_is_help=True)


@app.command("grade")
def grade_cmd(
    task: str = typer.Option(..., "--task", help="Task id (a folder under the tasks directory)."),
    script: Path = typer.Option(..., "--script", exists=True, dir_okay=False, help="The audit script to grade."),
    as_json: bool = typer.Option(False, "--json", help="Print the grade as JSON."),
    tasks: Optional[Path] = typer.Option(None, "--tasks", help="Tasks directory (default: the packaged one)."),
    timeout: float = typer.Option(60.0, "--timeout", min=1.0, help="Wall and CPU seconds per script run."),
) -> None:
    """Run SCRIPT on TASK in the sandbox (and once more with the changed parameter) and grade it.
    Exit 0 on PASS, 1 on FAIL, 2 on a usage error."""
    from simreflect.core.evidence import EvidenceLevel
    from simreflect.suites.audit.cards import CARD_FILE, CardError, tasks_dir
    from simreflect.suites.audit.suite import grade_script, observation

    root = tasks if tasks is not None else tasks_dir()
    if not (root / task / CARD_FILE).is_file():
        known = sorted(p.parent.name for p in root.glob(f"*/{CARD_FILE}")) if root.is_dir() else []
        typer.echo(f"error: no audit task {task!r} in {root}; tasks: {', '.join(known) or 'none'}", err=True)
        raise typer.Exit(2)
    try:
        card, verdict = grade_script(task, script.read_text(), root=tasks, timeout_s=timeout)
    except (CardError, FileNotFoundError) as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2)
    if as_json:
        out = {"task": card.id, "score": verdict.score, "reward": verdict.reward, "passed": verdict.passed,
               "level": verdict.diagnostics.get("level"), "flags": verdict.diagnostics.get("flags", []),
               "checks": [c.to_dict() for c in verdict.checks], "diagnostics": verdict.diagnostics}
        typer.echo(json.dumps(out, indent=2, default=str))
    else:
        typer.echo(observation(card, verdict, EvidenceLevel.L2))
    raise typer.Exit(0 if verdict.passed else 1)  # as every verify/grade command: 0 pass, 1 fail, 2 usage


@app.command("list")
def list_cmd(tasks: Optional[Path] = typer.Option(None, "--tasks", help="Tasks directory.")) -> None:
    """List the claims: id, key strength, domain, metrics."""
    from simreflect.suites.audit.cards import load_cards

    for c in load_cards(tasks):
        typer.echo(f"{c.id:28s} {c.key_strength:9s} {c.domain:24s} {', '.join(c.metrics)}")


@app.command("regenerate-keys")
def regenerate_keys_cmd(
    tasks: Optional[Path] = typer.Option(None, "--tasks", help="Tasks directory."),
    only: Optional[list[str]] = typer.Option(None, "--only", help="Only these task ids."),
    check: bool = typer.Option(False, "--check", help="Do not write; exit 1 if a keys.json would change."),
) -> None:
    """Re-run the reference implementation of every `reference` task and rewrite its keys.json."""
    from simreflect.suites.audit.cards import KEYS_FILE, load_cards
    from simreflect.suites.audit.keys import canonical_json, regenerate_keys

    docs = regenerate_keys(tasks, only=only, write=not check)
    stale = []
    for card in load_cards(tasks):
        if card.id in docs:
            current = (card.directory / KEYS_FILE).read_text() if (card.directory / KEYS_FILE).is_file() else ""
            if current != canonical_json(docs[card.id]):
                stale.append(card.id)
            typer.echo(f"{card.id}: " + json.dumps({k: docs[card.id][k] for k in ("base",) if k in docs[card.id]}))
    if check and stale:
        typer.echo("stale keys: " + ", ".join(stale), err=True)
        raise typer.Exit(1)
