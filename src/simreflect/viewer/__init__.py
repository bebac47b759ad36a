"""The run viewer: static web pages of a run, or of several side by side (`simreflect view RUN [RUN ...]`).

One module a job: runs (reading a run, NotARun), pages (a run's index), episodes (an episode's page),
listing (the filter, sort and search of a list: one small inline script), charts (inline SVG),
figures (a run's charts), pictures (the task's and the agent's attempts'), session (an interactive
episode's turns), compare (several runs), markup (escaping, the page frame). Everything a model wrote
is escaped and a page's Content-Security-Policy lets run only the viewer's own script: a page never
runs model output, and nothing loads from the network.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from simreflect.viewer.compare import MAX_RUNS, write_compare
from simreflect.viewer.episodes import episode_page as _episode_page
from simreflect.viewer.markup import markdown_tables as _markdown_tables
from simreflect.viewer.pages import write_run_view
from simreflect.viewer.runs import LoadedRun, NotARun, load_run
from simreflect.viewer.session import turns_html as _turns_html

__all__ = ["LoadedRun", "NotARun", "load_run", "write_compare", "write_run_view", "write_viewer", "write_views",
           "_episode_page", "_markdown_tables", "_turns_html"]


def write_viewer(run_dir: Path, out: Path | None = None, *, pictures: bool = True) -> Path:
    """Write the viewer of one run into `out` (default RUN_DIR/view). Returns the path of index.html.
    `pictures`: draw what the agent's programs produced (the last and the best round of each episode)."""
    run = load_run(Path(run_dir))
    return write_run_view(run, Path(out) if out else run.dir / "view", pictures=pictures)


def write_views(run_dirs: Sequence[Path], out: Path | None = None, *, pictures: bool = True) -> Path:
    """One run's viewer, or the comparison of several (default out: the first run's directory's
    `compare/`). Every directory is read before anything is written (NotARun names the first that
    is not a run, or that there are too many). Returns the path of index.html."""
    if not run_dirs:
        raise NotARun("no run directory given")
    if len(run_dirs) == 1:
        return write_viewer(run_dirs[0], out, pictures=pictures)
    if len(run_dirs) > MAX_RUNS:
        raise NotARun(f"at most {MAX_RUNS} runs can be compared at once, got {len(run_dirs)}")
    runs = [load_run(Path(d)) for d in run_dirs]
    return write_compare(runs, Path(out) if out else runs[0].dir / "compare", pictures=pictures)
