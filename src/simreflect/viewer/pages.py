"""The pages of one run: index.html (the summary tables, the charts, the episode list a reader
filters, sorts and searches) and one page per episode x level (episodes.py)."""

from __future__ import annotations

from pathlib import Path

from rich.progress import track

from simreflect.analysis.plots import solved_by_level
from simreflect.run.runner import _tasks
from simreflect.run.store import episode_key
from simreflect.viewer.episodes import episode_page, page_stem
from simreflect.viewer.figures import TAXONOMY_HEADING, run_charts, taxonomy_charts
from simreflect.viewer.listing import LISTING_SCRIPT, episode_listing
from simreflect.viewer.markup import e, markdown_tables, page
from simreflect.viewer.pictures import PictureBudget, attempt_pictures, task_picture
from simreflect.viewer.runs import LoadedRun
from simreflect.viewer.session import session_section


def write_run_view(run: LoadedRun, out: Path, *, pictures: bool = True, back: str | None = None) -> Path:
    """Write a run's pages into `out`; `back` links its index to a page above it (a comparison).
    Returns the path of index.html."""
    config = run.config
    suite = config.suite_instance()  # with the run's options (gait's interface: how its programs run)
    tasks = _tasks(config.suite, config.bench)
    media = out / "media"
    (out / "episodes").mkdir(parents=True, exist_ok=True)
    media.mkdir(exist_ok=True)
    solved_by_level(run.summary, media / "solved", title=f"{config.suite}: agent {config.agent}")
    entries = []
    budget = PictureBudget()
    task_pictures: dict[str, str | None] = {}  # task id -> its picture's name in media/ (several rows share a task)
    # the first view of a run may render each task's picture (pace: a simulation per task) and the
    # pictures of its programs (the last and the best round of each episode)
    for row in track(run.rows, description="episode pages", transient=True):
        task = tasks[row["task"]]
        if task.id not in task_pictures:
            task_pictures[task.id] = task_picture(suite, task, media)
        stem = page_stem(row)
        link = f"episodes/{stem}.html"
        rounds = run.logs[episode_key(row["task"], row["level"], row.get("run", 0))].rounds
        interactive = any("interactive" in (r.method_notes or {}) for r in rounds)
        session = session_section(run.dir, out, row, stem) if interactive else ""
        drawn = attempt_pictures(suite, task, rounds, media, stem, config.timeout_s, budget) if pictures else []
        (out / link).write_text(episode_page(row, rounds, task_pictures[task.id], session, drawn))
        entries.append((row, link))
    subsets = list(run.summary.get("subsets", {}))
    body = ([f"<p><a href='{e(back)}'>&larr; the comparison</a></p>"] if back else []) + [
        f"<h1>simreflect run: {e(config.suite)}, agent {e(config.agent)}</h1>",
        f"<p>{e(run.description)}; benchmark {e(config.bench)}; levels {e(', '.join(config.levels))}; "
        f"up to {config.rounds} rounds</p>",
        markdown_tables(run.summary_md, {TAXONOMY_HEADING: taxonomy_charts(run.trajectories)}),
        "<img src='media/solved.png' alt='solved by evidence level'>",
        run_charts(run.rows, run.logs, config.levels, config.rounds, run.trajectories, config.runs),
        "<h2>Episodes</h2>", episode_listing(entries, config.levels, subsets)]
    index = out / "index.html"
    index.write_text(page(f"simreflect run {config.suite} {config.agent}", "\n".join(body), LISTING_SCRIPT))
    return index
