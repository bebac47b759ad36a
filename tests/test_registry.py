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
                                       "expel", "evolve"}),
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
