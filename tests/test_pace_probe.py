"""`simreflect pace probe`: the adversarial design search finds what the rules leave open.

The default tests run a tiny budget on one pair through the real path (every candidate a
sandboxed program, as `pace verify` runs it). The chimney climber's spring launch (a pre-loaded
spring with an unbounded rest length threw the climber past its target height with no motor and
without the walls; the probe found it on all four stages before #17's pace rules) is now refused
by the rules on every stage, while the probe's generators still put springs at the pre-load and
stored-energy bounds; a found program must pass again through `simreflect pace verify`, a rerun
with the same seed must give the same bytes, and the mechanism comparison must tell a
reference-like design from a different one. The slow tests run every stage of the climber and a
sample of other pairs.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from simreflect.suites.pace.bounds import MIN_REST_LENGTH, bound_problems, spring_energy
from simreflect.suites.pace.commands import app
from simreflect.suites.pace.design import check_design
from simreflect.suites.pace.evaluate import InProcessChannel, _clean_command, evaluate
from simreflect.suites.pace.mechanism import ContactLog, Mechanism, compare, design_features, is_preloaded
from simreflect.suites.pace.probe import PairSearch, ProbeConfig, pairs_for, probe, start_readings
from simreflect.suites.pace.probe_controllers import FAMILIES, law_program, mutate_law, random_law
from simreflect.suites.pace.probe_designs import (DesignSpace, beam_ends, declare, design_program, extreme_design,
                                                  mutate_design, random_design, transform)
from simreflect.suites.pace.task import load_spec, load_specs

CLIMBER = "kinematics_wall_climber"
#: A budget and seed whose search passes with reference-like designs on stage 1.
QUICK = ProbeConfig(budget=12, population=4, seed=1, gifs=1)
LAUNCH = '''def build(api):
    a = api.block((0.0, 0.1), 0.3, 0.2, material="rubber")
    b = api.block((0.0, 0.4), 0.3, 0.2, material="rubber")
    api.spring(a, b, (0.0, 0.1), (0.0, 0.4), stiffness=5000.0, damping=0.0, rest_length=3.0)
'''


def is_launch(finding) -> bool:
    """The spring launch: a pre-loaded spring, no motor, success within the first second."""
    feats = finding.mechanism.features
    return "spring:preloaded" in feats and "motor" not in feats and finding.steps < 60 and \
        not finding.comparison.shares


@pytest.fixture(scope="module")
def climber_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("probe")
    results = probe([(CLIMBER, "stage1")], QUICK, out, workers=1)
    return out, results[0]


# ----- the search, through the real path ------------------------------------------------------------

@pytest.mark.parametrize("stage", ["stage1", "stage2", "stage3", "stage4"])
def test_the_spring_launch_is_refused_by_the_rules_on_every_climber_stage(stage):
    ev = evaluate(load_spec(CLIMBER), stage, LAUNCH)  # sandboxed, as `pace verify` runs it
    assert not ev.passed and ev.score < 0
    assert "design_rules" in ev.failure and "rest length 3 m is not within 25%" in ev.failure
    assert "the springs hold" in ev.failure  # the stored energy too, not only the rest length


def test_the_probe_reports_only_legal_passes_and_no_launch(climber_run):
    out, result = climber_run
    assert result.error == ""
    assert result.reference_passed
    assert result.evaluations == QUICK.budget
    assert result.findings
    assert not [f.program for f in result.findings if is_launch(f)]
    spec = load_spec(CLIMBER)
    rules = spec.rules(spec.environment("stage1"))
    for f in result.findings:
        design = declare((out / f.program).read_text(), spec.visible("stage1"))
        assert all(c.passed for c in check_design(design, rules)[0]), f.program
    data = json.loads((out / "findings.json").read_text())
    row = data["pairs"][0]
    assert row["task"] == CLIMBER and row["stage"] == "stage1" and row["reference_passed"] is True
    assert data["totals"]["passes"] == len(result.findings)
    summary = (out / "summary.md").read_text()
    assert f"{len(result.findings)} passes in 1 pairs" in summary
    assert all(f.program in summary for f in result.novel)


def test_found_program_passes_through_pace_verify(climber_run):
    out, result = climber_run
    finding = result.findings[0]
    r = CliRunner().invoke(app, ["verify", "--task", CLIMBER, "--stage", "1", "--program", str(out / finding.program),
                                 "--json"])
    assert r.exit_code == 0, r.output
    report = json.loads(r.output)
    assert report["passed"] is True and report["score"] == 100.0
    assert report["program"]["status"] == "ok"
    assert report["steps"] == finding.steps


def test_first_pass_of_each_mechanism_gets_a_reverified_gif(climber_run):
    out, result = climber_run
    with_gif = [f for f in result.findings if f.gif]
    assert len(with_gif) == min(QUICK.gifs, len({f.group for f in result.findings}))
    unlike = [f for f in result.findings if not f.comparison.shares]
    first = with_gif[0]
    assert first.comparison.shares == (not unlike)  # mechanisms unlike the reference's come first
    assert all(f.reproduced is True for f in with_gif)
    assert (out / first.gif).read_bytes()[:6] in (b"GIF87a", b"GIF89a")
    assert all(f.reproduced is None for f in result.findings if not f.gif)


def test_rerun_with_the_same_seed_gives_the_same_findings(climber_run, tmp_path):
    out, result = climber_run
    again = probe([(CLIMBER, "stage1")], QUICK, tmp_path, workers=1)[0]
    assert [f.to_dict() for f in again.findings] == [f.to_dict() for f in result.findings]
    for name in ("findings.json", "summary.md", f"{CLIMBER}/stage1/trials.jsonl", f"{CLIMBER}/stage1/pair.json"):
        assert (tmp_path / name).read_bytes() == (out / name).read_bytes(), name
    for f in result.findings:
        assert (tmp_path / f.program).read_bytes() == (out / f.program).read_bytes()
        if f.gif:
            assert (tmp_path / f.gif).read_bytes() == (out / f.gif).read_bytes()


def test_another_seed_searches_other_designs(climber_run, tmp_path):
    out, _ = climber_run
    other = probe([(CLIMBER, "stage1")], ProbeConfig(budget=4, population=4, seed=2, gifs=0), tmp_path)[0]
    assert other.evaluations == 4
    mine = (out / CLIMBER / "stage1" / "trials.jsonl").read_text().splitlines()[:4]
    theirs = (tmp_path / CLIMBER / "stage1" / "trials.jsonl").read_text().splitlines()
    assert [json.loads(t)["program_sha"] for t in mine] != [json.loads(t)["program_sha"] for t in theirs]


# ----- the mechanism signature ------------------------------------------------------------------------

def _run(spec, stage, program):
    log = ContactLog()
    ev = evaluate(spec, stage, program, trusted_inprocess=True, observe=log)  # our own programs only
    return ev, log.mechanism()


def test_mechanism_tells_a_reference_like_design_from_a_different_one():
    spec = load_spec(CLIMBER)
    ev, ref = _run(spec, "stage1", spec.reference("stage1"))
    assert ev.passed and {"motor", "spring", "joint:pivot", "part:wheel"} <= ref.features
    assert "spring:preloaded" not in ref.features  # the reference's 5 cm preload is no stored launch
    walls = {b for _, b in ref.touches}
    assert any(b.startswith("terrain[0.80") for b in walls) and any(b.startswith("terrain[-1.30") for b in walls)
    # the reference 2% larger (about the middle of the floor): the same mechanism
    design = declare(spec.reference("stage1"), spec.visible("stage1"))
    bigger = transform(design, lambda x, y: (1.02 * x, 1.02 * y), scale=1.02)
    like = design_program(bigger, "the reference, 2% larger")
    ev_like, m_like = _run(spec, "stage1", like)
    assert ev_like.passed, ev_like.failure
    same = compare(m_like, ref)
    assert same.shares and same.similarity > 0.8, same.describe()
    # the spring launch (refused by the rules now, its mechanism still told apart): no motor, a stored spring
    ev_launch, m_launch = _run(spec, "stage1", LAUNCH)
    assert not ev_launch.passed
    other = compare(m_launch, ref)
    assert not other.shares
    assert "spring:preloaded" in other.added and "motor" in other.removed
    assert other.similarity < 0.5
    assert m_launch.max_spring_energy == pytest.approx(0.5 * 5000.0 * (3.0 - 0.3) ** 2)
    assert compare(ref, ref).shares and compare(ref, ref).similarity == 1.0


def test_bodies_a_task_creates_during_the_run_are_named_by_their_tag():
    """The sequential catch drops its balls during the run: they are `payload:ball N`, never a
    box where they happened to be first touched (which would differ in every run)."""
    spec = load_spec("dynamics_sequential_catch")
    ev, mech = _run(spec, "stage1", spec.reference("stage1"))
    assert ev.passed
    names = {x for pair in mech.touches | mech.brief for x in pair}
    assert {"payload:ball 1", "payload:ball 2"} <= names, names
    statics = [n for n in names if n.startswith("terrain[")]
    assert statics == ["terrain[-10.00,40.00]x[-1.00,0.00]"] or not statics, statics


def test_core_features_ignore_part_kinds_but_not_drive_or_touches():
    base = Mechanism(frozenset({"part:block", "joint:pivot", "motor"}), frozenset({("design:block", "terrain[a]")}))
    beam = Mechanism(frozenset({"part:beam", "joint:pivot", "motor"}), frozenset({("design:beam", "terrain[a]")}))
    assert compare(beam, base).shares and compare(beam, base).similarity < 1.0
    unpowered = Mechanism(frozenset({"part:block", "joint:pivot"}), base.touches)
    assert compare(unpowered, base).removed == ("motor",)
    elsewhere = Mechanism(base.features, frozenset({("design:block", "terrain[b]")}))
    assert set(compare(elsewhere, base).added) == {"touched:terrain[b]"}
    controlled = Mechanism(frozenset({"controller:resonant"}))
    assert not compare(controlled, Mechanism(frozenset({"controller:own"}))).shares


def test_preload_threshold():
    spec = load_spec(CLIMBER)
    design = declare(LAUNCH, spec.visible("stage1"))
    (s,) = design.springs
    assert is_preloaded(s) and "spring:preloaded" in design_features(design)
    relaxed = declare(LAUNCH.replace("rest_length=3.0", "rest_length=0.32"), spec.visible("stage1"))
    assert not is_preloaded(relaxed.springs[0]) and "spring" in design_features(relaxed)


# ----- the generators -------------------------------------------------------------------------------

DESIGN_TASKS = [s.id for s in load_specs() if not s.controller]
CONTROL_TASKS = [s.id for s in load_specs() if s.controller]


def _same(a, b) -> bool:
    def close(u, v):
        return u == v if not isinstance(u, float) else math.isclose(u, v, rel_tol=1e-5, abs_tol=2e-6)

    def rows(d):
        out = []
        for p in d.parts:  # a beam by its ends, as the program writes it
            where = beam_ends(p) if p.kind == "beam" else ((p.x, p.y), (math.cos(p.angle), math.sin(p.angle)))
            out.append((p.id, p.kind, p.material, *where[0], *where[1], p.height, p.radius,
                        p.width if p.kind != "beam" else 0.0))
        out += [(j.id, j.kind, j.a, j.b, j.x, j.y, j.motor_speed, j.max_torque) + tuple(j.limits or ())
                for j in d.joints]
        out += [(s.id, s.a, s.b, s.ax, s.ay, s.bx, s.by, s.stiffness, s.damping, s.rest_length) for s in d.springs]
        out += list(d.placements)
        return out

    ra, rb = rows(a), rows(b)
    return len(ra) == len(rb) and all(len(x) == len(y) and all(close(u, v) for u, v in zip(x, y))
                                      for x, y in zip(ra, rb))


def test_rendered_programs_declare_exactly_their_design():
    """Seeded fuzz over every design task: random, extreme and mutated designs survive the round
    trip design -> program -> the design the program declares (to the 6 decimals written)."""
    rng = np.random.default_rng(20260101)
    checked = 0
    for task in DESIGN_TASKS:
        spec = load_spec(task)
        for stage in ("stage1", "stage4"):
            space = DesignSpace.of(spec.rules(spec.environment(stage)))
            ref = declare(spec.reference(stage), spec.visible(stage))
            for design in (random_design(space, rng), extreme_design(space, random_design(space, rng, True), rng),
                           mutate_design(space, ref, rng)[0]):
                back = declare(design_program(design, "fuzz"), spec.visible(stage))
                assert _same(design, back), (task, stage)
                checked += 1
    assert checked == 6 * len(DESIGN_TASKS)


def test_every_generator_reaches_legal_designs_on_every_design_task():
    for task in DESIGN_TASKS:
        spec = load_spec(task)
        search = PairSearch(spec, "stage1", ProbeConfig(budget=1), run=lambda *a: None)
        assert search.families
        for family in ("reference", "random", "extremes"):
            cand = search._draw(lambda: search._fresh(family))
            assert cand is not None, (task, family)
            assert all(c.passed for c in check_design(cand.design, search.rules)[0])
            assert cand.program.startswith('"""Found by `simreflect pace probe`')


def test_extremes_put_motors_and_springs_at_their_bounds():
    spec = load_spec(CLIMBER)
    rules = spec.rules(spec.environment("stage2"))
    space = DesignSpace.of(rules)
    rng = np.random.default_rng(3)
    design = extreme_design(space, random_design(space, rng, extreme=True), rng)
    for j in design.joints:
        if j.motor_speed is not None:
            assert abs(j.motor_speed) == rules.max_motor_speed and j.max_torque == rules.max_motor_torque
    assert design.springs
    for s in design.springs:
        assert s.stiffness in rules.spring_stiffness and s.damping == rules.spring_damping[0]


def test_extreme_springs_reach_the_preload_and_energy_bounds_and_stay_inside():
    """The generators still try what the launch tried (a spring storing energy), at the most the
    rules allow: one spring holding 99% x 99% of the climber's 10 J budget, never a rest length outside."""
    spec = load_spec(CLIMBER)
    rules = spec.rules(spec.environment("stage1"))
    space = DesignSpace.of(rules)
    rng = np.random.default_rng(11)
    stored = []
    for _ in range(40):
        design = extreme_design(space, random_design(space, rng, extreme=True), rng)
        for s in design.springs:
            dist = math.dist((s.ax, s.ay), (s.bx, s.by))
            if dist * (1 + rules.spring_preload) < MIN_REST_LENGTH:
                continue  # anchors closer than the shortest spring: no legal rest length, screened
            assert not bound_problems(replace(design, springs=(s,)), rules), s
            stored.append(spring_energy(s.stiffness, max(MIN_REST_LENGTH, s.rest_length), dist))
    assert sum(e > 0.5 * rules.spring_energy for e in stored) >= 5
    assert max(stored) == pytest.approx(0.99 ** 2 * rules.spring_energy, rel=1e-6)
    assert max(stored) <= rules.spring_energy


@pytest.mark.parametrize("task", CONTROL_TASKS)
def test_control_laws_answer_within_the_actuator_ranges(task):
    spec = load_spec(task)
    env = spec.environment("stage1")
    search = PairSearch(spec, "stage1", ProbeConfig(budget=1), run=lambda *a: None)
    space = search.controls
    assert {n for n, _, _ in space.commands} == set(spec.world_class.commands)
    readings = start_readings(spec, env)
    rng = np.random.default_rng(7)
    for family in FAMILIES:
        law = random_law(space, family, rng)
        for candidate in (law, mutate_law(space, law, rng)):
            program = law_program(space, candidate, f"test {family}")
            channel = InProcessChannel(program)  # our own law around the task's own program
            assert channel.request({"op": "build", "env": spec.visible("stage1")}, 5)["controller"] is True
            for _ in range(3):
                reply = channel.request({"op": "control", "sensors": readings}, 5)
                assert reply["ok"], (family, reply)
                saturation: dict[str, int] = {}
                cmd = _clean_command(reply["cmd"], dict(spec.world_class.commands), {}, saturation)
                if family not in ("literals", "dithered"):
                    assert not saturation, (family, reply["cmd"])
                assert set(cmd) <= set(spec.world_class.commands)


# ----- the command ------------------------------------------------------------------------------------

def test_probe_command_writes_findings_and_logs_plain_lines(tmp_path):
    r = CliRunner().invoke(app, ["probe", "--task", CLIMBER, "--stage", "2", "--budget", "3", "--gifs", "0",
                                 "--workers", "1", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert f"probe: 1/1 {CLIMBER} stage2: 3 evaluations" in r.output  # not a terminal: plain log lines
    data = json.loads((tmp_path / "findings.json").read_text())
    assert data["totals"]["pairs"] == 1 and data["totals"]["evaluations"] == 3
    assert json.loads((tmp_path / "timing.json").read_text())["evaluations"] == 3
    assert len((tmp_path / CLIMBER / "stage2" / "trials.jsonl").read_text().splitlines()) == 3


@pytest.mark.parametrize("args, words", [
    (["--task", "nope"], "unknown pace task"),
    (["--task", CLIMBER, "--stage", "7"], "unknown stage"),
    (["--task", CLIMBER, "--budget", "0"], "budget"),
])
def test_probe_command_refuses_bad_input(args, words, tmp_path):
    r = CliRunner().invoke(app, ["probe", *args, "--out", str(tmp_path / "out")])
    assert r.exit_code == 2
    assert words in r.output
    assert not (tmp_path / "out").exists()


def test_pairs_default_to_every_target_stage():
    pairs = pairs_for()
    assert len(pairs) == 144 and len(set(pairs)) == 144
    assert pairs_for([CLIMBER], ["source", "4"]) == [(CLIMBER, "source"), (CLIMBER, "stage4")]


def test_parallel_pairs_give_the_same_findings(tmp_path):
    pairs = [(CLIMBER, "stage3"), ("control_cartpole", "stage1")]
    cfg = ProbeConfig(budget=3, population=2, seed=5, gifs=0)
    probe(pairs, cfg, tmp_path / "one", workers=1)
    probe(pairs, cfg, tmp_path / "two", workers=2)
    assert (tmp_path / "one" / "findings.json").read_bytes() == (tmp_path / "two" / "findings.json").read_bytes()


# ----- slow: every stage of the climber, a sample of other pairs -----------------------------------------

@pytest.mark.slow
def test_probe_finds_no_spring_launch_on_any_climber_stage(tmp_path):
    """The budget with which the probe found the launch on every stage under the old rules (at
    candidates 42, 27, 12, 2): now no pass without the motor, and every pass legal."""
    cfg = ProbeConfig(budget=100, population=6, seed=0, gifs=1)
    results = probe([(CLIMBER, s) for s in ("stage1", "stage2", "stage3", "stage4")], cfg, tmp_path, workers=2)
    spec = load_spec(CLIMBER)
    for r in results:
        assert r.error == "" and r.reference_passed and r.evaluations == cfg.budget, r.stage
        assert not [f.program for f in r.findings if is_launch(f)], r.stage
        rules = spec.rules(spec.environment(r.stage))
        for f in r.findings:
            assert "motor" in f.mechanism.features, (r.stage, f.program)
            design = declare((tmp_path / f.program).read_text(), spec.visible(r.stage))
            assert all(c.passed for c in check_design(design, rules)[0]), (r.stage, f.program)


SAMPLE = [("statics_bridge", "stage2"), ("kinematics_rover", "stage3"), ("dynamics_launcher", "stage1"),
          ("granular_dam", "stage4"), ("control_lander", "stage2"), ("exotic_egg_cradle", "stage3")]


@pytest.mark.slow
def test_probe_over_a_sample_of_pairs(tmp_path):
    cfg = ProbeConfig(budget=24, population=6, seed=0, gifs=2)
    results = probe(SAMPLE, cfg, tmp_path, workers=2)
    for r in results:
        assert r.error == "" and r.reference_passed, (r.task, r.stage, r.error)
        assert r.evaluations == cfg.budget
        assert set(r.families) <= set(PairSearch(load_spec(r.task), r.stage, cfg, run=lambda *a: None).families)
        for f in r.findings:
            assert (tmp_path / f.program).is_file()
            if f.gif:
                assert f.reproduced is True, (r.task, r.stage, f.name)


def test_resume_reads_finished_pairs_back(tmp_path):
    cfg = ProbeConfig(budget=2, population=2, seed=0, gifs=0)
    first = probe([(CLIMBER, "stage2")], cfg, tmp_path)
    before = (tmp_path / "findings.json").read_bytes()
    again = probe([(CLIMBER, "stage2")], cfg, tmp_path, resume=True)
    assert (tmp_path / "findings.json").read_bytes() == before
    assert json.loads((tmp_path / "timing.json").read_text())["pairs_searched"] == 0
    assert again[0].to_dict() == first[0].to_dict()
    other = probe([(CLIMBER, "stage2")], ProbeConfig(budget=3, population=2, seed=0, gifs=0), tmp_path, resume=True)
    assert other[0].evaluations == 3  # another configuration is searched again


@pytest.mark.parametrize("junk", ["not json", "[]", '{"format": 1}', "CONFIG_BUT_BAD_FINDINGS"])
def test_resume_searches_again_when_the_record_is_not_one(junk, tmp_path):
    cfg = ProbeConfig(budget=2, population=2, seed=0, gifs=0)
    folder = tmp_path / CLIMBER / "stage2"
    folder.mkdir(parents=True)
    if junk == "CONFIG_BUT_BAD_FINDINGS":
        junk = json.dumps({"format": 1, "config": cfg.to_dict(), "task": CLIMBER, "stage": "stage2",
                           "findings": "abc", "error": ""})
    (folder / "pair.json").write_text(junk)
    result = probe([(CLIMBER, "stage2")], cfg, tmp_path, resume=True)[0]
    assert result.evaluations == 2 and result.reference_passed
    assert json.loads((folder / "pair.json").read_text())["evaluations"] == 2
