"""The `simreflect` command."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NoReturn, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from simreflect import __version__
from simreflect.core import registry
from simreflect.core.contract import HISTORY_MODES, RunProtocol, capabilities
from simreflect.core.evidence import EvidenceLevel
from simreflect.run import agents as _agents  # registers this package's agents and methods

class _App(typer.Typer):
    """The command line; a suite that cannot load here (SuiteUnavailable) is one line, not a traceback."""

    def __call__(self, *args, **kwargs):
        from simreflect.core.suite import SuiteUnavailable

        try:
            return super().__call__(*args, **kwargs)
        except SuiteUnavailable as e:
            console.print(f"[red]error:[/red] {escape(str(e))}", highlight=False)
            raise SystemExit(2) from None


app = _App(
    help="simreflect: benchmarks where a model must make a physical or scientific artefact work, "
    "and a deterministic simulator decides whether it does.",
    no_args_is_help=True,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},  # inherited by every subcommand
)


#: This package's suites' command groups (`simreflect pace validate`, ...): registry kind "commands";
#: a third-party package adds its group through the simreflect.commands entry points.
COMMANDS = {name: f"simreflect.suites.{name}.commands:app" for name in ("audit", "gait", "pace", "pacebench", "workshop")}
for _name, _target in COMMANDS.items():
    registry.register("commands", _name, _target)


def _mount_commands() -> None:
    for e in registry.entries("commands"):
        app.add_typer(e.load(), name=e.name)


def _suite_defaults(field: str, show=str) -> str:
    """Each registered suite's protocol default for `field`, read from its declaration (for help texts)."""
    parts = []
    for e in registry.entries("suite"):
        try:
            protocol = getattr(e.load(), "protocol", None)
        except Exception:  # noqa: BLE001 - a broken third-party suite does not take the help down
            continue
        if isinstance(protocol, RunProtocol):
            parts.append(f"{e.name} {show(getattr(protocol, field))}")
    return ", ".join(parts)


def _recorded(out: Path) -> dict[str, Any]:
    """The configuration of the run in `out` ({} when there is none yet, or it is damaged: the
    store's own open() reports that)."""
    from simreflect.run.store import RunStore, StoreError

    try:
        return RunStore(out).config() if (out / "config.json").is_file() else {}
    except StoreError:
        return {}


def _recorded_protocol(out: Path, suite_protocol: RunProtocol) -> dict[str, Any]:
    """What a resumed run keeps of the protocol it was recorded with, for what the command does not
    say: its program timeout (runs from before the suites declared their own recorded 60 s; None
    when there is no run yet), its history and its invalid retries (a run from before a suite's
    default changed, pace's history and retries, resumes as it began)."""
    old = _recorded(out)
    if not old:
        return {"timeout_s": None, "history": suite_protocol.history, "invalid_retries": suite_protocol.invalid_retries}
    timeout, history, retries = old.get("timeout_s"), old.get("history"), old.get("invalid_retries", 0)
    number = isinstance(timeout, (int, float)) and not isinstance(timeout, bool)
    return {"timeout_s": float(timeout) if number and timeout > 0 else None,
            "history": history if history in HISTORY_MODES else suite_protocol.history,
            "invalid_retries": retries if isinstance(retries, int) and not isinstance(retries, bool) and retries >= 0
            else 0}


def _seconds(value: float) -> str:
    return f"{value:g} s"


def _choices(kind: str) -> str:
    return " | ".join(registry.names(kind))


_mount_commands()
console = Console(width=max(Console().width, 120))


def _version(value: bool) -> None:
    if value:
        console.print(f"simreflect {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
) -> None:
    """simreflect command line."""


@app.command("suites")
def suites_cmd() -> None:
    """List the registered benchmark suites: what a task asks, the run defaults, the score, the capabilities."""
    for e in registry.entries("suite"):
        origin = "" if e.origin == "simreflect" else f" [from {e.origin}]"
        try:
            suite = registry.get_suite(e.name)
        except Exception as err:  # noqa: BLE001 - list a broken third-party suite with why
            reason = err.reason if isinstance(err, registry.EntryLoadError) else f"{type(err).__name__}: {err}"
            console.print(f"{e.name}{origin}: cannot be loaded ({reason})", markup=False)
            continue
        console.print(f"{e.name}{origin}: {e.describe()}", markup=False, highlight=False)
        console.print(f"    defaults: {suite.protocol.describe()}", markup=False, highlight=False)
        console.print(f"    score: {suite.scale.meaning} (in [{suite.scale.score_low:g}, {suite.scale.score_high:g}])",
                      markup=False, highlight=False)
        console.print(f"    capabilities: {', '.join(capabilities(suite)) or 'none'}", markup=False, highlight=False)


@app.command("agents")
def agents_cmd() -> None:
    """List the registered agents (--agent) and methods (--method) with what each does."""
    for kind in ("agent", "method"):
        console.print(f"{kind}s:")
        for e in registry.entries(kind):
            origin = "" if e.origin == "simreflect" else f" [from {e.origin}]"
            console.print(f"  {e.name}{origin}: {e.describe()}", markup=False, highlight=False)


def _suite_options(items: list[str]) -> dict[str, str]:
    """--suite-option KEY=VALUE items as a dict (exit 2 on an item without '=')."""
    options = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            _fail(f"--suite-option wants KEY=VALUE, got {item!r}")
        options[key.strip()] = value.strip()
    return options


def _interactive_config(config, agent: str, session: list[str], text_protocol: bool, tasks: dict,
                        history_turns: int | None = None):
    """The run's configuration for --mode interactive (ValueError for what it cannot run)."""
    from dataclasses import fields, replace

    from simreflect.core.interactive import SessionBudgets
    from simreflect.run.agents import make_turn_agent

    kinds = {f.name: f.type for f in fields(SessionBudgets)}
    budgets = {}
    for item in session:
        key, sep, value = item.partition("=")
        if not sep or key.strip() not in kinds:
            raise ValueError(f"--session takes KEY=VALUE with KEY one of {', '.join(kinds)}, not {item!r}")
        budgets[key.strip()] = float(value) if key.strip() == "wall_s" else int(value)
    SessionBudgets(**budgets)  # a value out of range is refused here, before the run starts
    options = {**config.agent_options, **({"text_protocol": True} if text_protocol else {}),
               **({"history_turns": history_turns} if history_turns is not None else {})}
    config = replace(config, mode="interactive", session=budgets, agent_options=options, rounds=1)
    if tasks:
        make_turn_agent(agent, config.suite_instance(), next(iter(tasks.values())), options)
    return config


def _task_patterns(tasks: str | None) -> tuple[str, ...]:
    """--tasks "a,b*" as its patterns."""
    return tuple(t.strip() for t in (tasks or "").split(",") if t.strip())


def _message(error: BaseException) -> str:
    """An error's text for the console (a KeyError's str() wraps its message in quotes)."""
    if isinstance(error, KeyError) and len(error.args) == 1:
        return str(error.args[0])
    return str(error)


def _fail(error: BaseException | str, code: int = 2) -> NoReturn:
    """A user's mistake: one line on the console and exit `code` (2: usage), never a traceback."""
    text = error if isinstance(error, str) else _message(error)
    console.print(f"[red]error:[/red] {escape(text)}", highlight=False)
    raise typer.Exit(code)


@app.command("run")
def run_cmd(
    suite: str = typer.Argument(..., help="Suite to run (see `simreflect suites`)."),
    agent: str = typer.Option(..., "--agent", help=f"{_choices('agent')} (see `simreflect agents`)"),
    method: str = typer.Option("vanilla", "--method", help=f"{_choices('method')} (llm only, except vanilla; see "
                               "`simreflect agents`), optionally with options as NAME:key=value,... e.g. "
                               "beam:width=3,children=2 (see docs/methods.md)."),
    suite_option: list[str] = typer.Option([], "--suite-option", help="KEY=VALUE suite settings, e.g. "
                                           "context_chars=20000 for audit (repeatable)."),
    interface: Optional[str] = typer.Option(None, "--interface", help="gait: python (default) or blender (fix "
                                            "scripts in bpy, run by Blender); short for --suite-option interface=..."),
    out: Path = typer.Option(..., "--out", help="Run directory; running the same command again resumes it."),
    bench: Optional[Path] = typer.Option(None, "--bench", help="A built benchmark (default: the suite's own, built once "
                                         "into ~/.cache/simreflect for gait)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the benchmark built when --bench is not given."),
    levels: Optional[str] = typer.Option(None, "--levels", help="Comma-separated evidence levels (default: the "
                                         f"suite's: {_suite_defaults('levels', ','.join)})."),
    rounds: Optional[int] = typer.Option(None, "--rounds", min=1, help="Rounds (verified attempts) per episode "
                                         f"(default: the suite's: {_suite_defaults('budget')})."),
    runs: Optional[int] = typer.Option(None, "--runs", min=1, help="Independent runs of every episode (default: "
                                       f"the suite's: {_suite_defaults('runs')})."),
    history: Optional[str] = typer.Option(None, "--history", help="What the agent sees of earlier rounds: full | "
                                          "last+best | previous+best (PACE's Previous-One + Best prompt) (default: the "
                                          f"suite's: {_suite_defaults('history')})."),
    invalid_retries: Optional[int] = typer.Option(None, "--invalid-retries", min=0, help="Ask an answer with no "
                                                  "program again this many times at no cost, then end the episode "
                                                  "(PACE's generation retries; 0: none; default: the suite's: "
                                                  f"{_suite_defaults('invalid_retries')})."),
    tasks: Optional[str] = typer.Option(None, "--tasks", help="Comma-separated task ids or glob patterns to run, e.g. "
                                        "'statics_*.stage1,control_lander.*' (default: every task)."),
    limit: int = typer.Option(0, "--limit", min=0, help="Run only the first N of the (selected) tasks (0: all)."),
    workers: Optional[int] = typer.Option(None, "--workers", min=1, help="Episodes run in parallel processes "
                                          "(default: one per core this process may use)."),
    progress_every: float = typer.Option(60.0, "--progress-every", min=0.0, help="Seconds between plain progress "
                                         "lines when the output is not a terminal (0: a line per episode)."),
    price_table: Optional[Path] = typer.Option(None, "--price-table", help="llm: per-token prices for the "
                                               "summary's cost (TOML; default: the shipped analysis/prices.toml)."),
    no_preflight: bool = typer.Option(False, "--no-preflight", help="llm: skip the request that checks the "
                                      "endpoint, key and model before the first episode (e.g. replaying a cache)."),
    executor: str = typer.Option("local", "--executor", help="local (a process pool) or ray (Ray tasks)."),
    address: Optional[str] = typer.Option(None, "--address", help="ray: cluster address (default: start a local one)."),
    timeout: Optional[float] = typer.Option(None, "--timeout", min=0.001, help="Seconds an agent's program may run "
                                            f"per round (default: the suite's: {_suite_defaults('timeout_s', _seconds)})."),
    model: Optional[str] = typer.Option(None, "--model", help="llm: provider/model (e.g. openai/gpt-4.1, vllm/Qwen/Qwen3-8B, "
                                        "ollama/llama3.1), or the endpoint's own model name with --base-url."),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="llm: OpenAI-compatible base URL, e.g. "
                                           "http://localhost:8000/v1 (default for provider/model: <PROVIDER>_BASE_URL)."),
    api_key_env: Optional[str] = typer.Option(None, "--api-key-env",
                                              help="llm: environment variable holding the API key (default "
                                              "<PROVIDER>_API_KEY, or SIMREFLECT_API_KEY without a provider)."),
    temperature: Optional[float] = typer.Option(None, "--temperature", help="llm: sampling temperature."),
    max_tokens: Optional[int] = typer.Option(None, "--max-tokens", help="llm: completion token limit."),
    reasoning_effort: Optional[str] = typer.Option(None, "--reasoning-effort", help="llm: low | medium | high."),
    request_timeout: float = typer.Option(300.0, "--request-timeout", help="llm: seconds per request."),
    retries: int = typer.Option(5, "--retries", help="llm: retries on 429/5xx/timeouts before an infrastructure error."),
    no_structured: bool = typer.Option(False, "--no-structured", help="llm: do not ask for JSON-schema output."),
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir", help="llm: on-disk response cache keyed by the full request."),
    mode: str = typer.Option("rounds", "--mode", help="rounds (a program per round) or interactive (one live session "
                             "driven through tool calls: suites that offer it, e.g. workshop; oracle, noop or llm)."),
    session: list[str] = typer.Option([], "--session", help="interactive budgets KEY=VALUE: wall_s (default 1200), "
                                      "max_turns (10000), max_tokens (20000000) (repeatable)."),
    text_protocol: bool = typer.Option(False, "--text-protocol", help="interactive llm: tool calls as ```tool blocks "
                                       "of the answer, for endpoints without tool support."),
    history_turns: Optional[int] = typer.Option(None, "--history-turns", min=0, help="interactive llm: the last N turns' "
                                                "tool results are sent in full, older ones cut to a head and a note "
                                                "(default 24; 0 sends every turn in full)."),
) -> None:
    """Run an agent on every episode x evidence level (resumable), then print the summary.

    Exit 0 when every episode finished, 2 on a usage error, 3 when the endpoint cannot serve the run
    (the pre-flight request failed) or episodes ended on infrastructure errors (their causes are
    printed, counted; running the same command again retries them)."""
    from simreflect.run.runner import RunConfig

    if agent not in registry.names("agent"):
        _fail(f"unknown agent {agent!r}; choose from {', '.join(registry.names('agent'))}")
    suite_obj, level_list = _suite_and_levels(suite, levels)
    options = _llm_options(model, base_url, api_key_env, temperature, max_tokens, reasoning_effort,
                           request_timeout, retries, no_structured, cache_dir) if agent == "llm" else {}
    bench = bench if bench is not None else _default_root(suite_obj, suite, seed)
    suite_options = _suite_options(suite_option)
    if interface is not None:
        suite_options["interface"] = interface
    recorded = _recorded_protocol(out, suite_obj.protocol)
    config = RunConfig(suite=suite, bench=str(Path(bench).resolve()), agent=agent, levels=level_list,
                       rounds=rounds or suite_obj.protocol.budget, timeout_s=timeout or recorded["timeout_s"] or suite_obj.protocol.timeout_s,
                       agent_options=options,
                       method=method, suite_options=suite_options, runs=runs or suite_obj.protocol.runs,
                       history=history or recorded["history"],
                       invalid_retries=recorded["invalid_retries"] if invalid_retries is None else invalid_retries,
                       invalid_streak=suite_obj.protocol.invalid_streak, tasks=_task_patterns(tasks), limit=limit)
    config = _check_config(config, mode, session, text_protocol, history_turns)
    if price_table is not None:
        _check_price_table(price_table)
    if agent == "llm" and not no_preflight:
        _preflight(options)
    tally = _play(out, config, workers or default_workers(), executor, address, progress_every)
    _finish(out, tally, price_table)


def _check_price_table(path: Path) -> None:
    from simreflect.analysis.cost import load_price_table

    try:
        load_price_table(path)
    except ValueError as e:
        _fail(e)


def default_workers() -> int:
    """The cores this process may use."""
    import os

    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def _suite_and_levels(suite: str, levels: str | None):
    """The suite and its evidence levels (--levels, or the suite's own); exit 2 on an unknown one."""
    try:
        suite_obj = registry.get_suite(suite)
        chosen = levels.split(",") if levels else suite_obj.protocol.levels
        return suite_obj, tuple(f"L{int(EvidenceLevel.parse(x))}" for x in chosen if x.strip())
    except (KeyError, ValueError) as e:
        _fail(e)


def _llm_options(model, base_url, api_key_env, temperature, max_tokens, reasoning_effort, request_timeout,
                 retries, no_structured, cache_dir) -> dict:
    """The llm agent's options from the command line; exit 2 without a model or with an unknown provider."""
    from simreflect.agents.providers import EndpointError, resolve

    if not model:
        _fail("--agent llm needs --model (provider/model, or a name with --base-url)")
    try:
        endpoint = resolve(model, base_url, api_key_env)
    except EndpointError as e:
        _fail(e)
    return {"model": endpoint.model, "base_url": endpoint.base_url, "api_key_env": endpoint.api_key_env,
            "temperature": temperature, "max_tokens": max_tokens, "reasoning_effort": reasoning_effort,
            "timeout_s": request_timeout, "max_retries": retries, "structured": not no_structured,
            "cache_dir": str(cache_dir.resolve()) if cache_dir else None}


def _default_root(suite_obj, suite: str, seed: int) -> Path:
    try:
        with console.status(f"preparing the default {suite} benchmark (seed {seed})"):
            return suite_obj.default_root(seed)
    except FileNotFoundError as e:
        _fail(e)


def _check_config(config, mode: str = "rounds", session: list[str] = (), text_protocol: bool = False,
                  history_turns: int | None = None):
    """Everything a run needs, checked before it starts: the bench, the selection, the mode, the agent
    (exit 2); the configuration to run (an interactive one for --mode interactive)."""
    from simreflect.run.agents import make_agent

    if not Path(config.bench).exists():
        _fail(f"--bench {config.bench} does not exist")
    try:
        if config.history not in HISTORY_MODES:
            raise ValueError(f"--history must be one of {', '.join(HISTORY_MODES)}, not {config.history!r}")
        chosen_tasks = config.selected_tasks()
        if history_turns is not None and (mode != "interactive" or config.agent != "llm"):
            raise ValueError("--history-turns is for --mode interactive with --agent llm")
        if mode == "interactive":
            config = _interactive_config(config, config.agent, session, text_protocol, chosen_tasks, history_turns)
        elif mode != "rounds":
            raise ValueError(f"--mode must be rounds or interactive, not {mode!r}")
        else:
            make_agent(config.agent, config.suite_instance(), config.agent_options, config.method)
    except (ValueError, TypeError, KeyError, OSError) as e:
        _fail(e)
    return config


def _preflight(options: dict) -> None:
    """One request to the endpoint before the first episode; exit 3 with its own message when it fails."""
    from simreflect.agents.llm import LLMConfig
    from simreflect.agents.preflight import PreflightError, preflight

    config = LLMConfig(**{k: v for k, v in options.items() if k != "cache_dir"})
    try:
        with console.status(f"checking the endpoint {config.base_url} (model {config.model})"):
            preflight(config)
    except PreflightError as e:
        _fail(f"{e}\n(nothing was run; --no-preflight skips this check)", code=3)


def _play(out: Path, config, workers: int, executor: str, address: str | None, progress_every: float):
    """Run the episodes with a progress bar on a terminal, plain progress lines otherwise."""
    from simreflect.run.runner import CircuitOpen, run
    from simreflect.run.store import StoreError
    from simreflect.run.tally import ProgressLog, RunTally

    tally = RunTally()
    title = f"{config.suite} x {config.agent}" + ("" if config.method == "vanilla" else f" ({config.method})")
    try:
        if console.is_terminal:
            with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                          TimeElapsedColumn(), TextColumn("{task.fields[stats]}"), console=console) as bar:
                job = bar.add_task(title, total=None, stats="")

                def on_bar(outcome, done, total):
                    tally.record(outcome)
                    bar.update(job, completed=done, total=total, stats=tally.stats())

                run(out, config, workers=workers, progress=on_bar, executor=executor, address=address)
        else:
            log = ProgressLog(tally, every_s=progress_every,
                              write=lambda line: console.print(line, markup=False, highlight=False, soft_wrap=True))
            console.print(f"running {title} with {workers} worker(s)", markup=False, highlight=False)

            def on_line(outcome, done, total):
                tally.record(outcome)
                log.update(done, total)

            run(out, config, workers=workers, progress=on_line, executor=executor, address=address)
    except CircuitOpen as e:
        console.print(f"[red]stopped:[/red] {escape(str(e))}", highlight=False, soft_wrap=True)
    except (StoreError, ValueError) as e:
        _fail(e)
    return tally


def _finish(out: Path, tally, price_table: Path | None) -> None:
    """The summary, then the infrastructure errors' causes, counted (exit 3 when there were any)."""
    from simreflect.run.report import write_report

    console.print(write_report(out, price_table), markup=False, highlight=False)
    if tally.infra:
        console.print(f"[yellow]{tally.infra} episode(s) stopped on infrastructure errors:[/yellow]")
        for line in tally.causes_text():
            console.print(f"  {line}", markup=False, highlight=False, soft_wrap=True)
        console.print("Fix the cause, then run the same command again to retry them.")
        raise typer.Exit(3)


@app.command("report")
def report_cmd(run_dir: Path = typer.Argument(..., help="A run directory."),
               price_table: Optional[Path] = typer.Option(None, "--price-table", help="Per-token prices for the "
                                                          "cost (TOML; default: the shipped analysis/prices.toml).")
               ) -> None:
    """Re-derive and print a run's summary from its attempt records (with tokens and cost for a model)."""
    from simreflect.run.report import write_report
    from simreflect.run.store import StoreError

    try:
        console.print(write_report(run_dir, price_table), markup=False, highlight=False)
    except (StoreError, ValueError) as e:
        _fail(e)


@app.command("rescore")
def rescore_cmd(run_dir: Path = typer.Argument(..., help="A run directory."),
                workers: int = typer.Option(1, "--workers", min=1, help="Episodes re-run in parallel processes.")) -> None:
    """Re-run every recorded program, re-verify, and report any verdict that differs (exit 1 if any)."""
    from simreflect.run.report import rescore
    from simreflect.run.store import RunStore, StoreError

    try:
        with Progress(TextColumn("[bold]re-running every recorded program"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=console, transient=True) as bar:
            job = bar.add_task("episodes", total=None)
            diffs = rescore(run_dir, workers=workers,
                            progress=lambda done, total: bar.update(job, completed=done, total=total))
    except StoreError as e:
        _fail(e)
    for d in diffs:
        console.print(d, markup=False)
    read = RunStore(run_dir).read()
    for note in read.problems + read.upgraded:  # lines skipped or upgraded: said, never silent
        console.print(f"note: {note}", markup=False)
    console.print(f"{len(diffs)} difference(s)")
    raise typer.Exit(1 if diffs else 0)


@app.command("check")
def check_cmd(
    suite: str = typer.Argument(..., help="Suite to check (see `simreflect suites`)."),
    bench: Optional[Path] = typer.Option(None, "--bench", help="A built benchmark (default: the suite's own)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the default benchmark and of the task sample."),
    sample: Optional[int] = typer.Option(None, "--sample", min=1, help="Check this many tasks drawn with --seed "
                                         "(default: every task)."),
    tasks: Optional[str] = typer.Option(None, "--tasks", help="Comma-separated task ids to check instead."),
    suite_option: list[str] = typer.Option([], "--suite-option", help="KEY=VALUE suite settings (repeatable)."),
    no_cross_process: bool = typer.Option(False, "--no-cross-process", help="Skip re-verifying in a fresh process."),
    no_hostile: bool = typer.Option(False, "--no-hostile", help="Skip the hostile programs."),
    no_oracle: bool = typer.Option(False, "--no-oracle", help="Skip running the oracle (quick; determinism and "
                                   "save/load then judge the untouched workspace)."),
    timeout: Optional[float] = typer.Option(None, "--timeout", help="Seconds per program run (default: the suite's)."),
) -> None:
    """Check a suite against the contract: the oracle passes, doing nothing fails, verdicts repeat (also in a
    fresh process), saved tasks load back, reports hide the hidden values, scores stay in the declared
    range, hostile programs get verdicts. Exit 1 on any finding."""
    from simreflect.core.registry import get_suite
    from simreflect.testing.check import check_suite

    options = _suite_options(suite_option)
    try:
        suite_obj = get_suite(suite)
        root = bench
        if root is None:
            try:
                root = suite_obj.default_root(seed)
            except FileNotFoundError:
                root = None  # a suite whose tasks need no benchmark directory
        with console.status(f"checking {suite}"):
            report = check_suite(suite_obj, root, sample=sample, seed=seed, options=options,
                                 tasks=_task_patterns(tasks),
                                 oracle=not no_oracle, cross_process=not no_cross_process, hostile=not no_hostile,
                                 timeout_s=timeout)
    except (KeyError, ValueError) as e:
        _fail(e)
    console.print(report.text(), markup=False, highlight=False)
    raise typer.Exit(0 if report.ok else 1)


export_app = typer.Typer(help="Write tasks in formats other harnesses run.", no_args_is_help=True)
app.add_typer(export_app, name="export")


@export_app.command("harbor")
def export_harbor_cmd(
    suite: str = typer.Option(..., "--suite", help="Suite to export."),
    out: Path = typer.Option(..., "--out", help="Directory for the task directories."),
    bench: Optional[Path] = typer.Option(None, "--bench", help="A built benchmark (default: the cached one for --seed)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the default benchmark."),
    level: str = typer.Option("L2", "--level", help="Evidence level of the report in instruction.md."),
    tasks: Optional[str] = typer.Option(None, "--tasks", help="Comma-separated task ids or glob patterns to export "
                                        "(default: every task)."),
    baseline_run: Optional[Path] = typer.Option(None, "--baseline-run", help="A run directory of this suite (e.g. of "
                                                "a baseline agent or a model) whose per-task pass rates set each "
                                                "task's difficulty (default: \"unmeasured\")."),
    wheel: Optional[Path] = typer.Option(None, "--wheel", help="A simreflect wheel to ship (default: built from source)."),
) -> None:
    """One Harbor task directory per task: instruction, task.toml, the agent's environment, the verifier's
    own image in tests/ (reward.json), solution."""
    from simreflect.core.env import default_bench
    from simreflect.export.harbor import export_harbor
    from simreflect.run.store import StoreError

    try:
        bench = bench or default_bench(suite, seed)
        with console.status(f"exporting {suite} to {out}"):
            written = export_harbor(suite, bench, out, level=level, wheel=wheel, tasks=_task_patterns(tasks),
                                    baseline_run=baseline_run)
    except (KeyError, FileNotFoundError, NotImplementedError, ValueError, LookupError, StoreError) as e:
        _fail(e)
    console.print(f"wrote {len(written)} Harbor task directories to {out}")


@app.command("view")
def view_cmd(
    run_dirs: list[Path] = typer.Argument(..., help="A run directory, or several to compare side by side."),
    out: Optional[Path] = typer.Option(None, "--out", help="Where to write the pages (default RUN_DIR/view; with "
                                       "several runs the first run's directory's compare/)."),
    pictures: bool = typer.Option(True, "--pictures/--no-pictures", help="Draw what the agent's programs produced "
                                  "(the last and the best round of each episode), where the suite can."),
    serve: bool = typer.Option(False, "--serve", help="Serve the pages on localhost after writing them."),
    port: int = typer.Option(8000, "--port", min=0, max=65535, help="Port for --serve (0: any free port)."),
) -> None:
    """Write (and optionally serve) a web page of a run: summary, charts, every episode and round; of several
    runs, a comparison on the tasks they share (paired differences with intervals) and each run's pages."""
    from simreflect.viewer import NotARun, write_views

    try:
        index = write_views(run_dirs, out, pictures=pictures)
    except NotARun as e:
        _fail(e)
    console.print(f"wrote {index}")
    if serve:
        import functools
        import http.server

        handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(index.parent))
        try:
            httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
        except OSError as e:  # busy, or a privileged port
            _fail(f"cannot serve on 127.0.0.1:{port} ({e.strerror or e}); choose another --port (0: any free one)")
        with httpd:
            console.print(f"serving on http://127.0.0.1:{httpd.server_address[1]}/ (Ctrl-C to stop)")
            try:
                httpd.serve_forever()
            except KeyboardInterrupt:
                pass


if __name__ == "__main__":
    app()
