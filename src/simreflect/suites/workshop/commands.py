"""`simreflect workshop ...`: a typer sub-app (mounted by the CLI as `workshop`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

app = typer.Typer(help="The workshop suite: a simulated two-armed robot builds with boards, drills and screws "
                  "through a local HTTP command service; an offline grader scores the recorded final state.",
                  no_args_is_help=True)


@app.command("serve")
def serve_cmd(
    build: str = typer.Option(..., "--build", help="Build name: place, lap, frame or ell (bench: a spec, no reference yet)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the layout."),
    port: int = typer.Option(8765, "--port", min=0, max=65535, help="Port on 127.0.0.1 (0: any free port)."),
    record: Optional[Path] = typer.Option(None, "--record", help="Directory to record the session into."),
    exit_after_finish: bool = typer.Option(False, "--exit-after-finish", help="Stop serving once the session is finished."),
) -> None:
    """Serve one session of BUILD at SEED on http://127.0.0.1:PORT (localhost only)."""
    from simreflect.suites.workshop.builds import build_names
    from simreflect.suites.workshop.service import serve
    from simreflect.suites.workshop.session import Session

    if build not in build_names():
        typer.echo(f"error: unknown build {build!r}; builds are {', '.join(build_names())}", err=True)
        raise typer.Exit(2)
    session = Session.for_build(build, seed, record_dir=record)
    try:
        serve(session, port, exit_after_finish=exit_after_finish,
              on_ready=lambda url: typer.echo(f"workshop {build} seed {seed} serving on {url}"
                                              + (f", recording into {record}" if record else ""), err=True))
    except OSError as e:  # the port is busy (the socket is bound before anything is served)
        typer.echo(f"error: cannot serve on 127.0.0.1:{port} ({e.strerror or e}); choose another --port "
                   "(0: any free one)", err=True)
        raise typer.Exit(2)


@app.command("grade")
def grade_cmd(
    record: Path = typer.Argument(..., exists=True, file_okay=False, help="A record directory."),
    as_json: bool = typer.Option(False, "--json", help="Print the grade as JSON."),
) -> None:
    """Grade a recorded session from its final state (one point or none) and print the diagnostics."""
    from simreflect.core.evidence import EvidenceLevel, render_report
    from simreflect.suites.workshop.grader import grade
    from simreflect.suites.workshop.recording import load_final, load_spec

    spec = load_spec(record)
    try:
        final = load_final(record)
    except (OSError, ValueError) as e:
        raise typer.BadParameter(f"unreadable final state: {e}", param_hint="RECORD") from None
    verdict = grade(final["state"] if final else None, spec)
    if as_json:
        out = {"build": spec.name, "seed": spec.seed, "passed": verdict.passed, "score": verdict.score,
               "checks": [c.to_dict() for c in verdict.checks], "invalid": verdict.invalid,
               "diagnostics": verdict.diagnostics}
        typer.echo(json.dumps(out, indent=2, default=str))
    else:
        typer.echo(render_report(verdict, EvidenceLevel.L3, title=f"Workshop grade for {spec.name} seed {spec.seed}"))
    raise typer.Exit(0 if verdict.passed else 1)


@app.command("render")
def render_cmd(
    record: Path = typer.Argument(..., exists=True, file_okay=False, help="A record directory."),
    out: Optional[Path] = typer.Option(None, "--out", help="Output directory (default RECORD/videos)."),
    fps: int = typer.Option(10, "--fps", min=1, max=60),
    width: int = typer.Option(320, "--width", min=64, max=1920, help="Width of one of the four tiles."),
    height: int = typer.Option(240, "--height", min=64, max=1080, help="Height of one of the four tiles."),
    max_frames: Optional[int] = typer.Option(None, "--max-frames", min=1, help="Render at most this many frames."),
) -> None:
    """Render the review video of a record: four tiles (behind, top, left, the active hand up close)
    and a caption strip (time, command, event), headless (EGL or OSMesa)."""
    import os

    os.environ.setdefault("MUJOCO_GL", "egl")  # before MuJoCo is imported: the GL backend is chosen then
    from simreflect.suites.workshop.render import RenderRefused, RenderUnavailable, render_record

    try:
        paths = render_record(record, out, fps=fps, size=(width, height), max_frames=max_frames)
    except RenderUnavailable as e:
        typer.echo(f"error: no headless OpenGL backend: {e}", err=True)
        raise typer.Exit(2)
    except RenderRefused as e:
        typer.echo(f"error: the record cannot be rendered: {e}", err=True)
        raise typer.Exit(2)
    for p in paths:
        typer.echo(str(p))


@app.command("reference")
def reference_cmd(
    build: str = typer.Option(..., "--build", help="Build name: place, lap, frame or ell (bench: a spec, no reference yet)."),
    seed: int = typer.Option(0, "--seed"),
    record: Optional[Path] = typer.Option(None, "--record", help="Directory to record the session into."),
    url: Optional[str] = typer.Option(None, "--url", help="Drive a running service instead of starting one."),
) -> None:
    """Run the scripted reference controller of BUILD over HTTP (starting a service unless --url)."""
    import importlib

    from simreflect.suites.workshop.client import WorkshopClient

    mod = importlib.import_module(f"simreflect.suites.workshop.reference.{build}")
    if url:
        typer.echo(json.dumps(mod.run(WorkshopClient(url)), indent=2, default=str))
        return
    from simreflect.suites.workshop.service import ServiceThread
    from simreflect.suites.workshop.session import Session

    session = Session.for_build(build, seed, record_dir=record)
    with ServiceThread(session) as svc:
        typer.echo(json.dumps(mod.run(WorkshopClient(svc.url)), indent=2, default=str))


if __name__ == "__main__":  # python -m simreflect.suites.workshop.commands ... (before the CLI mounts it)
    app()
