"""The one registry: this package's suites, agents, methods, builds and command groups with help
texts, and a third-party distribution adding a suite, an agent and a method through real entry
points alone (a dist-info directory on the path of a fresh process, no code of ours changed)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from simreflect.core import registry
from simreflect.core.registry import first_sentence
from simreflect.testing.toy import env_with, plugin_site

THIRD_PARTY_MODULE = '''
"""A third-party package for simreflect: an agent and a method."""
from simreflect.agents.base import Action
from simreflect.agents.methods.vanilla import VanillaMethod


class Multiplier:
    """Answers with the product the toy task asks for."""

    name = "multiplier"

    def act(self, observation):
        a, b = observation.task.params["a"], observation.task.params["b"]
        program = f"open('answer.txt', 'w').write(str({a} * {b}))\\n"
        return Action(program=program, diagnosis="multiply", raw=program)


def make_multiplier(suite, **options):
    """Answers with the product the toy task asks for."""
    return Multiplier()


class Twice(VanillaMethod):
    """Twice: the plain loop under another name."""

    method = "twice"
'''

ENTRY_POINTS = """\
[simreflect.suites]
toy3p = simreflect.testing.toy:ToySuite
broken = no_such_module:Nothing
pace = simreflect.testing.toy:ToySuite

[simreflect.commands]
pace = thirdparty_simreflect:not_an_app

[simreflect.agents]
multiplier = thirdparty_simreflect:make_multiplier

[simreflect.methods]
twice = thirdparty_simreflect:Twice
"""


@pytest.fixture(scope="module")
def third_party(tmp_path_factory) -> Path:
    return plugin_site(tmp_path_factory.mktemp("site"), ENTRY_POINTS, "thirdparty_simreflect",
                       {"thirdparty_simreflect.py": THIRD_PARTY_MODULE})


def _run(site: Path, *argv: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, env=env_with(site), input=stdin, timeout=300)


def test_a_third_party_suite_agent_and_method_come_through_entry_points_alone(third_party, tmp_path):
    cli = [sys.executable, "-m", "simreflect.cli"]
    listed = _run(third_party, *cli, "suites")
    assert listed.returncode == 0, listed.stderr
    assert "toy3p [from thirdparty-simreflect]: write the product" in listed.stdout
    assert "broken [from thirdparty-simreflect]: cannot be loaded (ModuleNotFoundError" in listed.stdout
    assert "pace: adapt a working 2D design" in listed.stdout  # ours are still there, not shadowed
    assert "toy3p" not in listed.stdout.split("pace:")[1].split("\n")[0]
    agents = _run(third_party, *cli, "agents")
    assert "multiplier [from thirdparty-simreflect]: Answers with the product" in agents.stdout
    assert "twice [from thirdparty-simreflect]: Twice: the plain loop under another name." in agents.stdout
    pace_help = _run(third_party, *cli, "pace", "--help")  # the plugin's "pace" command group does not replace ours
    assert pace_help.returncode == 0 and "The pace suite" in pace_help.stdout, pace_help.stderr
    run_help = _run(third_party, *cli, "run", "--help")
    assert "multiplier" in run_help.stdout and "twice" in run_help.stdout  # the help is the registry's
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "toy_tasks.json").write_text(json.dumps({"tasks": 2, "seed": 1}))
    out = tmp_path / "run"
    ran = _run(third_party, *cli, "run", "toy3p", "--agent", "multiplier", "--bench", str(bench), "--out", str(out),
               "--levels", "L1")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    rows = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    assert len(rows) == 2 and all(r["solved_round"] == 1 for r in rows)  # the third-party agent solved them
    probe = textwrap.dedent("""
        import json
        from simreflect.core.registry import get_suite
        from simreflect.run.agents import make_agent
        agent = make_agent("llm", get_suite("toy3p"), {"model": "m", "base_url": "http://127.0.0.1:9"}, "twice")
        print(json.dumps([type(agent).__name__, type(agent).__module__]))
    """)
    made = _run(third_party, sys.executable, "-c", probe)
    assert made.returncode == 0, made.stderr
    assert json.loads(made.stdout.splitlines()[-1]) == ["Twice", "thirdparty_simreflect"]


def test_without_the_distribution_none_of_it_is_known():
    assert "toy3p" not in registry.suite_names() and "multiplier" not in registry.names("agent")


def test_every_entry_of_this_package_has_help():
    import simreflect.cli  # noqa: F401 - registers the command groups
    import simreflect.run.agents  # noqa: F401 - registers the agents and methods
    import simreflect.suites.workshop.builds  # noqa: F401 - registers the builds

    for kind, expected in (("suite", {"gait", "audit", "pace", "workshop"}),
                           ("agent", {"oracle", "reference", "noop", "baseline", "param-search", "llm"}),
                           ("method", {"vanilla", "review", "reflexion", "self-refine", "tot", "beam", "ace",
                                       "expel", "reasoningbank", "evolve"}),
                           ("build", {"place", "lap", "frame"}),
                           ("commands", {"gait", "audit", "pace", "workshop"})):
        found = {e.name: e for e in registry.entries(kind)}
        assert expected <= set(found), (kind, set(found))
        if kind != "commands":
            assert all(found[n].describe() and "cannot be loaded" not in found[n].describe() for n in expected), kind


def test_registering_in_code_and_forgetting():
    registry.register("agent", "probe-agent", "simreflect.agents.baselines:NoopAgent", "a probe")
    try:
        assert registry.entry("agent", "probe-agent").describe() == "a probe"
        assert registry.load("agent", "probe-agent").__name__ == "NoopAgent"
    finally:
        registry.unregister("agent", "probe-agent")
    with pytest.raises(KeyError, match="unknown agent 'probe-agent'"):
        registry.entry("agent", "probe-agent")
    with pytest.raises(KeyError, match="unknown registry kind"):
        registry.names("widget")


def test_help_is_the_first_sentence_and_et_al_ends_none():
    assert first_sentence("reflexion (Shinn et al. 2023): a reflection. More text.") == \
        "reflexion (Shinn et al. 2023): a reflection."
    assert first_sentence("  one\n  line  ") == "one line"


BROKEN_ENTRY_POINTS = """\
[simreflect.suites]
toyb = simreflect.testing.toy:ToySuite

[simreflect.agents]
shaky = no_such_module_of_ours:make
halfway = thirdparty_broken:missing_factory
raising = thirdparty_broken_raises:make

[simreflect.methods]
wobbly = no_such_module_of_ours:Method
"""

BROKEN_MODULES = {"thirdparty_broken.py": '"""A plugin without the factory its entry point names."""\n',
                  "thirdparty_broken_raises.py": 'raise RuntimeError("the plugin fails at import")\n'}


@pytest.fixture(scope="module")
def broken_plugin(tmp_path_factory) -> Path:
    return plugin_site(tmp_path_factory.mktemp("broken"), BROKEN_ENTRY_POINTS, "thirdparty_broken", BROKEN_MODULES)


def test_the_builtin_agents_and_methods_are_this_distributions_entry_points():
    from importlib.metadata import entry_points

    import simreflect.run.agents as run_agents

    for kind, group in (("agent", "simreflect.agents"), ("method", "simreflect.methods")):
        declared = {ep.name: ep.value for ep in entry_points(group=group) if ep.dist and ep.dist.name == "simreflect"}
        found = {e.name: e for e in registry.entries(kind) if e.origin == registry.OWN_DISTRIBUTION}
        assert declared and set(declared) == set(found), kind
        assert all(found[n].target == declared[n] for n in declared), kind  # no code registration beside them
    assert set(run_agents.AGENT_NAMES) == {"oracle", "reference", "noop", "baseline", "param-search", "llm"}
    assert set(run_agents.METHOD_NAMES) == {"vanilla", "review", "reflexion", "self-refine", "tot", "beam", "ace",
                                            "expel", "reasoningbank", "evolve"}
    assert not hasattr(run_agents, "AGENTS") and not hasattr(run_agents, "METHODS")


def test_simreflect_agents_lists_the_same_names_and_help_as_before():
    listed = subprocess.run([sys.executable, "-m", "simreflect.cli", "agents"], capture_output=True, text=True,
                            timeout=300)
    assert listed.returncode == 0, listed.stderr
    text = " ".join(listed.stdout.split())  # the console wraps long lines
    for line in ("baseline: the suite's honest non-model baseline (gait)",
                 "llm: a model behind any OpenAI-compatible endpoint (--model)",
                 "noop: changes nothing (doing nothing must fail)",
                 "oracle: the suite's reference program (alias reference)",
                 "param-search: seeded search over the source design's numbers (suites with source programs: pace)",
                 "reference: the suite's reference program (alias of oracle)",
                 "ace: ace: an evolving playbook (Agentic Context Engineering, Zhang et al. 2025): generator, "
                 "reflector, curator.",
                 "beam: beam: beam search over programs (PACE-Bench's adaptation: keep the top b states, n "
                 "candidates each).",
                 "vanilla: vanilla: the plain loop.",
                 "tot: tot: tree of thoughts (Yao et al. 2023, breadth-first with a beam), the simulator as the "
                 "value."):
        assert line in text, line
    names = [ln.split(":")[0].strip() for ln in listed.stdout.splitlines() if ln.startswith("  ")]
    assert names == ["baseline", "llm", "noop", "oracle", "param-search", "reference",
                     "ace", "beam", "evolve", "expel", "reasoningbank", "reflexion", "review", "self-refine", "tot",
                     "vanilla"]


def test_a_broken_entry_point_is_named_and_the_others_still_load(broken_plugin, tmp_path):
    cli = [sys.executable, "-m", "simreflect.cli"]
    listed = _run(broken_plugin, *cli, "agents")
    assert listed.returncode == 0, listed.stderr
    text = " ".join(listed.stdout.split())
    assert "shaky [from thirdparty-broken]: (cannot be loaded: ModuleNotFoundError" in text
    assert "halfway [from thirdparty-broken]: (cannot be loaded: AttributeError" in text
    assert "raising [from thirdparty-broken]: (cannot be loaded: RuntimeError: the plugin fails at import)" in text
    assert "wobbly [from thirdparty-broken]: (cannot be loaded: ModuleNotFoundError" in text
    assert "oracle: the suite's reference program (alias reference)" in text  # the others are still there
    assert "vanilla: vanilla: the plain loop." in text
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "toy_tasks.json").write_text(json.dumps({"tasks": 1, "seed": 1}))
    for agent, named in (("shaky", "agent 'shaky' (no_such_module_of_ours:make, an entry point of thirdparty-broken)"),
                         ("raising", "agent 'raising' (thirdparty_broken_raises:make, an entry point of "
                                     "thirdparty-broken) cannot be loaded: RuntimeError: the plugin fails at import")):
        ran = _run(broken_plugin, *cli, "run", "toyb", "--agent", agent, "--bench", str(bench), "--out",
                   str(tmp_path / agent), "--levels", "L1")
        assert ran.returncode == 2, ran.stdout + ran.stderr
        assert named in " ".join(ran.stderr.split()) + " ".join(ran.stdout.split())
        assert "Traceback" not in ran.stderr
    ok = _run(broken_plugin, *cli, "run", "toyb", "--agent", "oracle", "--bench", str(bench),
              "--out", str(tmp_path / "ok"), "--levels", "L1")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    rows = [json.loads(line) for line in (tmp_path / "ok" / "runs.jsonl").read_text().splitlines()]
    assert [r["solved_round"] for r in rows] == [1]


def test_loading_a_broken_entry_raises_an_error_naming_it():
    registry.register("method", "probe-broken", "no_such_module_of_ours:Method")
    try:
        with pytest.raises(registry.EntryLoadError, match=r"method 'probe-broken' \(no_such_module_of_ours:Method\) "
                                                          r"cannot be loaded: ModuleNotFoundError"):
            registry.load("method", "probe-broken")
        assert registry.entry("method", "probe-broken").describe().startswith("(cannot be loaded: ModuleNotFound")
        from simreflect.run.agents import make_agent
        from simreflect.testing.toy import ToySuite

        with pytest.raises(ValueError, match="method 'probe-broken'.*cannot be loaded"):
            make_agent("llm", ToySuite(), {"model": "m", "base_url": "http://127.0.0.1:9"}, "probe-broken")
        assert type(make_agent("noop", ToySuite())).__name__ == "NoopAgent"  # the others still load
    finally:
        registry.unregister("method", "probe-broken")
