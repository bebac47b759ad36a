"""Every entry point from the untrusted side, fuzzed where the trusted side reads it.

Each test feeds thousands of hostile inputs (fuzz_helpers; more under -m slow) to the host-side
code that reads one kind of untrusted data, exactly as the suite reads it: a pace program's reply
line (session reader, reply check, design parse, design rules, the Box2D world built from it, a
controller's command), the audit SUMMARY_JSON line (through the grader), raw.npz, the audit run
record, a gait rig.json (and Blender's read-back), a workshop final_state.json (through the suite's
verify), a model's answer and an endpoint's response body, and a program's text before it is
written. Outcome for every input: a value within the stated limits, or a refusal with a reason that
ends as a verdict or a failed program; zero uncaught exceptions.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from fuzz_helpers import (
    FLOATS,
    HOSTILE_TEXT,
    HUGE_INTS,
    QUICK,
    SIZES,
    VALUES,
    assert_writable,
    dumps,
    each,
    fuzz,
    json_docs,
    npz_archives,
    paired,
    with_mutations,
)
from gait_helpers import normal_robot
from hypothesis import strategies as st

from simreflect.core.program import refuse_program
from simreflect.core.sandbox import write_workspace_file
from simreflect.core.untrusted import Refusal, load_json
from simreflect.core.verdict import Verdict

NUMBERS = st.one_of(st.floats(-10, 10), st.integers(-10, 10), HUGE_INTS, FLOATS, st.none(), st.booleans(),
                    HOSTILE_TEXT, st.lists(st.floats(-10, 10), max_size=3), st.just({}))


def _bytes(value) -> bytes:
    return dumps(value).encode("utf-8", "surrogatepass")


def documents(shaped: st.SearchStrategy) -> st.SearchStrategy[list[bytes]]:
    """Batches of documents of the expected shape with hostile values, or of any hostile JSON, each
    with byte-level mutations of it."""
    return with_mutations(st.one_of(shaped.map(_bytes), shaped.map(_bytes), json_docs()))


def _workdir(tmp_path_factory, name: str) -> Path:
    return tmp_path_factory.mktemp(name)


# ----- pace: what a sandboxed program sends back ------------------------------------------------------

def _pace_reply() -> st.SearchStrategy:
    ids = st.one_of(st.sampled_from(["p1", "p2", "p3", "ground", "j1"]), HOSTILE_TEXT)
    coords = {k: NUMBERS for k in ("x", "y", "x1", "y1", "x2", "y2", "thickness", "width", "height", "radius",
                                   "angle")}
    part = st.fixed_dictionaries({}, optional={"id": ids, "kind": st.sampled_from(["beam", "block", "wheel", "gear"]),
                                               "material": st.sampled_from(["steel", "wood", "rubber", "gold"]),
                                               **coords})
    sane = st.floats(-3, 3)
    real_part = st.one_of(
        st.fixed_dictionaries({"id": ids, "kind": st.just("beam"), "material": st.just("steel"), "x1": sane,
                               "y1": sane, "x2": sane, "y2": sane, "thickness": st.floats(0.01, 200)}),
        st.fixed_dictionaries({"id": ids, "kind": st.just("wheel"), "material": st.just("rubber"), "x": sane,
                               "y": sane, "radius": st.one_of(st.floats(0.01, 80), NUMBERS)}))
    joint = st.fixed_dictionaries({}, optional={
        "id": ids, "kind": st.sampled_from(["rigid", "pivot", "weld"]), "a": ids, "b": ids, "x": NUMBERS,
        "y": NUMBERS, "motor_speed": NUMBERS, "max_torque": NUMBERS,
        "limits": st.one_of(st.lists(NUMBERS, max_size=3), NUMBERS)})
    spring = st.fixed_dictionaries({}, optional={k: NUMBERS for k in ("ax", "ay", "bx", "by", "stiffness", "damping",
                                                                      "rest_length")} | {"id": ids, "a": ids,
                                                                                         "b": ids})
    design = st.fixed_dictionaries({}, optional={
        "parts": st.one_of(st.lists(st.one_of(part, real_part), max_size=5), NUMBERS),
        "joints": st.one_of(st.lists(joint, max_size=4), NUMBERS),
        "springs": st.one_of(st.lists(spring, max_size=3), NUMBERS),
        "placements": st.one_of(st.dictionaries(ids, st.lists(NUMBERS, max_size=3), max_size=3), NUMBERS)})
    command = st.dictionaries(st.sampled_from(["main", "side", "left", "x"]), NUMBERS, max_size=3)
    hostile = st.fixed_dictionaries({}, optional={
        "ok": st.one_of(st.booleans(), NUMBERS), "design": st.one_of(design, VALUES), "controller": NUMBERS,
        "cmd": st.one_of(command, VALUES), "error": st.one_of(HOSTILE_TEXT, VALUES), "where": VALUES})
    # designs that parse: sane parts (some of extreme but finite size), joints between them
    sane_joint = st.fixed_dictionaries({"id": st.sampled_from(["j1", "j2"]), "kind": st.sampled_from(["rigid", "pivot"]),
                                        "a": st.sampled_from(["p1", "ground"]), "b": st.sampled_from(["p2", "p1"]),
                                        "x": sane, "y": sane})
    buildable = st.fixed_dictionaries({
        "ok": st.just(True), "controller": st.booleans(),
        "design": st.fixed_dictionaries({"parts": st.lists(real_part, min_size=1, max_size=4).map(_renumber),
                                         "joints": st.lists(sane_joint, max_size=2)})})
    return st.one_of(hostile, buildable)


def _renumber(parts: list[dict]) -> list[dict]:
    return [dict(p, id=f"p{i + 1}") for i, p in enumerate(parts)]


@pytest.fixture(scope="module")
def rover():
    from simreflect.suites.pace.task import load_spec

    spec = load_spec("kinematics_rover")
    env = spec.environment("stage1")
    return spec, env, spec.rules(env)


@pytest.mark.parametrize("n", SIZES)
def test_pace_replies(n, rover):
    """A reply line as the session reads it, then as evaluate() uses it: the reply check, the
    design's parse and rules, the Box2D world built from it (a few steps), and a control command."""
    from simreflect.suites.pace import evaluate as ev
    from simreflect.suites.pace.design import DesignInvalid, check_design, parse_design
    from simreflect.suites.pace.engine import Sim

    spec, env, rules = rover
    limits = replace(ev.REPLY_LIMITS, max_bytes=ev.MAX_REPLY_BYTES)
    outcomes = {"refused": 0, "invalid": 0, "built": 0}

    def check(line: bytes) -> None:
        try:
            reply = load_json(line, limits, "it")
        except Refusal as e:
            assert str(e)
            outcomes["refused"] += 1
            return
        for where in ("build", "control"):
            problem = ev._program_failure(reply, where)
            assert problem is None or (isinstance(problem, str) and problem)
        if not isinstance(reply, dict):
            return
        try:
            ev._clean_command(reply.get("cmd"), {"main": (-1.0, 1.0), "side": (0.0, 5.0)}, {"main": 0.0}, {})
        except ValueError as e:
            assert str(e)
        try:
            design = parse_design(reply.get("design"))
        except DesignInvalid as e:
            assert str(e)
            outcomes["invalid"] += 1
            return
        constraints, summary = check_design(design, rules)
        assert len(constraints) == 3 and json.dumps(summary)
        if design.parts:
            sim = Sim(spec.engine_settings(env))
            world = spec.world_class(sim, env)
            world.build()
            sim.build_design(design, rules, spec.strength(env))
            world.place(design)
            sim.settle(3)
            outcomes["built"] += 1

    assert fuzz(n, documents(_pace_reply()), check) == n
    assert outcomes["refused"] and outcomes["invalid"] and outcomes["built"], outcomes


# ----- audit: SUMMARY_JSON, raw.npz, the run record ------------------------------------------------

@pytest.fixture(scope="module")
def msd_card():
    from simreflect.suites.audit.cards import load_card, tasks_dir

    return load_card(tasks_dir() / "random-walk-msd")


def _summary(card) -> st.SearchStrategy:
    names = [n for m in card.metrics.values() for n in (m.name, *m.aliases)] + ["x", "ALPHA", ""]
    metric = st.one_of(NUMBERS, st.fixed_dictionaries({"value": NUMBERS}))
    control = st.one_of(st.fixed_dictionaries({}, optional={"expected": NUMBERS, "measured": NUMBERS,
                                                            "passed": NUMBERS}), NUMBERS)
    return st.fixed_dictionaries({}, optional={
        "metrics": st.one_of(st.dictionaries(st.one_of(st.sampled_from(names), HOSTILE_TEXT), metric, max_size=4),
                             VALUES),
        "verdict": st.one_of(st.sampled_from(["supported", "falsified", "inconclusive", " Supported "]), NUMBERS),
        "claim_quantity_computed": NUMBERS, "positive_control": control})


@pytest.mark.parametrize("n", SIZES)
def test_audit_summary_lines_through_the_grader(n, msd_card):
    from simreflect.suites.audit.grader import RawData, RunRecord, grade

    t = np.arange(1.0, 50.0)
    raws = [RawData(arrays={"t": t, "msd": 2 * t}), RawData(error="no raw.npz"),
            RawData(arrays={"t": np.array([np.nan, np.inf]), "msd": np.array([])})]

    def check(example) -> None:
        doc, prefix, raw = example
        output = prefix + "SUMMARY_JSON " + doc.decode("utf-8", "replace")
        verdict = grade(msd_card, RunRecord("ok", 0, output, "", 0.1), raw, None)
        assert isinstance(verdict, Verdict) and 0.0 <= verdict.score <= 1.0
        assert_writable(json.dumps(verdict.to_dict(), default=str))

    examples = paired(paired(documents(_summary(msd_card)), st.sampled_from(["", "progress\n", "SUMMARY_JSON {}\n"])),
                      st.sampled_from(raws)).map(lambda batch: [(doc, prefix, raw) for (doc, prefix), raw in batch])
    assert fuzz(n, examples, check) == n


@pytest.mark.parametrize("n", SIZES)
def test_audit_raw_arrays(n, tmp_path_factory, msd_card):
    from simreflect.suites.audit import notes
    from simreflect.suites.audit.grader import RawData, RunRecord, grade
    from simreflect.suites.audit.suite import RAW_LIMITS, read_raw

    work = _workdir(tmp_path_factory, "raw")
    line = 'SUMMARY_JSON {"metrics": {"alpha": 1.0, "msd_per_step": 2.0}, "verdict": "supported", ' \
           '"claim_quantity_computed": true, "positive_control": {"expected": 2, "measured": 2, "passed": true}}'

    def check(data: bytes) -> None:
        write_workspace_file(work, notes.RAW_FILE, data)
        raw = read_raw(work)
        assert isinstance(raw, RawData)
        if raw.error:
            assert not raw.arrays
        else:
            assert sum(a.size for a in raw.arrays.values()) <= RAW_LIMITS.max_total_values
            assert all(a.dtype == np.float64 for a in raw.arrays.values())
        assert isinstance(grade(msd_card, RunRecord("ok", 0, line, "", 0.1), raw, None), Verdict)

    assert fuzz(n, with_mutations(npz_archives()), check) == n


@pytest.mark.parametrize("n", SIZES)
def test_audit_run_records(n, tmp_path_factory):
    from simreflect.suites.audit.grader import RunRecord
    from simreflect.suites.audit.suite import RUN_RECORD, read_run_record, record_to_run

    work = _workdir(tmp_path_factory, "record")
    record = st.fixed_dictionaries({}, optional={k: NUMBERS for k in ("script", "timeout_s", "status", "exit_code",
                                                                      "output_tail", "reason", "seconds")})

    def check(data: bytes) -> None:
        write_workspace_file(work, RUN_RECORD, data)
        rec = read_run_record(work)
        run = record_to_run(rec)
        assert (rec is None) == (run is None)
        if run is not None:
            assert isinstance(run, RunRecord) and math.isfinite(run.seconds)
            assert 0 < float(rec.get("timeout_s", 60.0)) <= 3600

    assert fuzz(n, documents(record), check) == n


# ----- gait: the rig a fix script (or Blender) left ---------------------------------------------------

@pytest.fixture(scope="module")
def gait_rig():
    rig, ref, _ = normal_robot()
    return rig, ref, rig.to_dict()


def _hostile_rig(base: dict) -> st.SearchStrategy:
    """The episode's rig with a few of its fields (top level, or inside bones, parts, the action)
    replaced by hostile values."""
    @st.composite
    def rigs(draw):
        d = json.loads(json.dumps(base))
        for _ in range(draw(st.integers(1, 3))):
            where = draw(st.sampled_from(["top", "bone", "part", "action", "group"]))
            value = draw(st.one_of(NUMBERS, VALUES, st.sampled_from([10 ** 9, 10 ** 400, float("inf"), -1, 0])))
            if where == "top":
                d[draw(st.sampled_from(sorted(d)))] = value
                continue
            field = {"bone": ("bones", ["name", "parent", "head", "tail"]),
                     "part": ("parts", ["start", "stop", "mass", "color", "bone"]),
                     "action": ("action", ["location", "rotation_euler"]), "group": ("vertex_groups", None)}[where]
            container = d.get(field[0])
            if isinstance(container, list) and container and isinstance(container[0], dict):
                container[draw(st.integers(0, len(container) - 1))][draw(st.sampled_from(field[1]))] = value
            elif isinstance(container, dict) and container:
                key = draw(st.sampled_from(sorted(container)))
                if field[1] is None or not isinstance(container[key], dict):
                    container[key] = value
                else:
                    container[key][draw(st.sampled_from(field[1]))] = value
        return d
    return rigs()


def _extreme_keys(base: dict) -> st.SearchStrategy:
    """The episode's rig with a few keys set to finite extremes: still a repair of the episode, so
    the verifier runs in full on it (or the reader refuses a number beyond +-1e6)."""
    @st.composite
    def rigs(draw):
        d = json.loads(json.dumps(base))
        for _ in range(draw(st.integers(1, 4))):
            keys = d["action"][draw(st.sampled_from(sorted(d["action"])))][draw(st.sampled_from(["location",
                                                                                               "rotation_euler"]))]
            keys[draw(st.integers(0, len(keys) - 1))][draw(st.integers(0, 2))] = draw(
                st.one_of(st.floats(-1e6, 1e6), st.sampled_from([1e300, -1e300, 1e-300, 1e6, -0.0])))
        return d
    return rigs()


@pytest.mark.parametrize("n", SIZES)
def test_gait_rig_files(n, tmp_path_factory, gait_rig):
    """rig.json as the verifier reads it (load_workspace_rig) and checks it against the episode
    (structure_mismatch); the first rigs that keep the episode's structure (20, or 200 in the slow
    run) are verified in full."""
    from simreflect.suites.gait.fixrunner import RIG_FILE
    from simreflect.suites.gait.rig import Rig, RigFormatError
    from simreflect.suites.gait.suite import load_workspace_rig
    from simreflect.suites.gait.verify import structure_mismatch, verify_rig

    trusted, ref, base = gait_rig
    work = _workdir(tmp_path_factory, "rig")
    outcomes = {"refused": 0, "foreign": 0, "verified": 0}

    def check(data: bytes) -> None:
        write_workspace_file(work, RIG_FILE, data)
        try:
            rig = load_workspace_rig(work)
        except RigFormatError as e:
            assert str(e)
            outcomes["refused"] += 1
            return
        assert isinstance(rig, Rig)
        if structure_mismatch(trusted, rig):
            outcomes["foreign"] += 1
        elif outcomes["verified"] < (20 if n <= QUICK else 200):  # a full verification costs a few 100 ms
            assert isinstance(verify_rig(rig, ref, trusted=trusted), Verdict)
            outcomes["verified"] += 1

    assert fuzz(n, documents(st.one_of(_hostile_rig(base), _extreme_keys(base))), check) == n
    assert all(outcomes.values()), outcomes


@pytest.mark.parametrize("n", SIZES)
def test_gait_blender_read_back(n, gait_rig):
    """What Blender wrote back from an agent's .blend, as interface.verify_data reads it: the bridge's
    JSON is read with the rig's limits, then checked and verified (always a Verdict)."""
    from simreflect.suites.gait.blender.interface import verify_data
    from simreflect.suites.gait.suite import RIG_JSON_LIMITS

    trusted, ref, base = gait_rig
    with_report = dict(base, blender={"problems": []})

    def check(data: bytes) -> None:
        try:
            value = load_json(data, RIG_JSON_LIMITS, "the rig Blender read")
        except Refusal:
            return
        if isinstance(value, dict):
            assert isinstance(verify_data(value, trusted, ref), Verdict)

    assert fuzz(n, documents(_hostile_rig(with_report)), check) == n


# ----- workshop: a record read offline ----------------------------------------------------------------

@pytest.fixture(scope="module")
def workshop_final(tmp_path_factory):
    from simreflect.suites.workshop.recording import FINAL_FILE
    from simreflect.suites.workshop.session import Session
    from simreflect.suites.workshop.suite import make_task

    record = tmp_path_factory.mktemp("final") / "record"
    session = Session.for_build("lap", 0, record_dir=record)
    session.finish({"summary": "done"})
    return make_task("lap", 0), json.loads((record / FINAL_FILE).read_text())


def _hostile_final(base: dict) -> st.SearchStrategy:
    @st.composite
    def finals(draw):
        d = json.loads(json.dumps(base))
        state = d["state"]
        for _ in range(draw(st.integers(1, 3))):
            value = draw(st.one_of(NUMBERS, VALUES))
            group = draw(st.sampled_from(["boards", "screws", "drills", "holds", "state", "top"]))
            if group == "top":
                d[draw(st.sampled_from(sorted(d)))] = value
            elif group == "state":
                state[draw(st.sampled_from(sorted(state)))] = value
            elif group == "holds":
                state["holds"] = draw(st.lists(st.dictionaries(st.sampled_from(["hand", "object"]), NUMBERS),
                                               max_size=2))
            elif isinstance(state.get(group), dict) and state[group]:
                entry = state[group][draw(st.sampled_from(sorted(state[group])))]
                entry[draw(st.sampled_from(sorted(entry) + ["anchor_top", "state"]))] = value
        return d
    return finals()


@pytest.mark.parametrize("n", SIZES)
def test_workshop_final_states(n, tmp_path_factory, workshop_final):
    """final_state.json of a work directory the suite did not run (a run directory from elsewhere),
    through WorkshopSuite.verify: a grade, or an invalid artefact with the reason."""
    from simreflect.suites.workshop.recording import FINAL_FILE
    from simreflect.suites.workshop.suite import RECORD_DIR, WorkshopSuite

    task, base = workshop_final
    work = _workdir(tmp_path_factory, "work")
    (work / RECORD_DIR).mkdir()
    suite = WorkshopSuite()
    outcomes = {"invalid": 0, "graded": 0}

    def check(data: bytes) -> None:
        write_workspace_file(work / RECORD_DIR, FINAL_FILE, data)
        verdict = suite.verify(task, work)
        assert isinstance(verdict, Verdict)
        outcomes["invalid" if verdict.invalid else "graded"] += 1

    assert fuzz(n, documents(_hostile_final(base)), check) == n
    assert all(outcomes.values()), outcomes


# ----- model answers and endpoint responses ----------------------------------------------------------

ANSWER_TEXT = st.one_of(
    HOSTILE_TEXT,
    st.builds(lambda d, s: json.dumps({"diagnosis": d, "script": s}), HOSTILE_TEXT, HOSTILE_TEXT),
    st.builds(lambda pre, doc: pre + doc.decode("utf-8", "replace"),
              st.sampled_from(["", "Here:\n", "```json\n", "```python\nx = 1\n```\n"]), json_docs()),
    st.builds(lambda code, tail: f"Fix:\n```python\n{code}\n```\n{tail}", HOSTILE_TEXT, HOSTILE_TEXT),
    st.sampled_from(["{" * 5000, "```\n" * 3000, "x" * 400_001, '{"script": "' + "\\ud800" * 3 + '"}']),
)


@pytest.mark.parametrize("n", SIZES)
def test_model_answers(n):
    from simreflect.agents.parse import MAX_ANSWER_CHARS, clean_answer, parse_answer

    def check(text: str) -> None:
        p = parse_answer(text)
        assert_writable(p.text)
        assert_writable(p.diagnosis)
        assert_writable(clean_answer(text))
        assert len(p.text) <= MAX_ANSWER_CHARS
        if p.program is None:
            assert p.error
        else:
            assert_writable(p.program)
            assert refuse_program(p.program) is None

    assert fuzz(n, each(ANSWER_TEXT), check) == n


@pytest.mark.parametrize("n", SIZES)
def test_endpoint_response_bodies(n):
    """A 200 response body as the LLM agent reads it (RESPONSE_LIMITS, then the message content)."""
    from simreflect.agents import llm
    from simreflect.agents.parse import parse_answer

    message = st.fixed_dictionaries({}, optional={"content": st.one_of(ANSWER_TEXT, VALUES,
                                                                         st.lists(st.dictionaries(
                                                                             st.sampled_from(["text", "type"]),
                                                                             st.one_of(HOSTILE_TEXT, VALUES)),
                                                                             max_size=3))})
    body = st.fixed_dictionaries({}, optional={
        "choices": st.one_of(st.lists(st.fixed_dictionaries({}, optional={"message": st.one_of(message, VALUES)}),
                                      max_size=2), VALUES),
        "usage": st.one_of(st.dictionaries(st.sampled_from(["prompt_tokens", "completion_tokens"]), NUMBERS),
                           VALUES)})

    def check(raw: bytes) -> None:
        try:
            data = load_json(raw, llm.RESPONSE_LIMITS, "the response")
            text = llm._content(data)
        except ValueError as e:  # a malformed body: retried, then an infrastructure error
            assert str(e)
            return
        assert isinstance(text, str)
        for key in ("prompt_tokens", "completion_tokens"):
            assert llm._tokens(data.get("usage"), key) >= 0
        p = parse_answer(text)
        assert_writable(p.text)

    assert fuzz(n, documents(body), check) == n


@pytest.mark.parametrize("n", SIZES)
def test_program_texts(n):
    """What any agent (or an RL policy) hands a suite as its program: refused, or writable as a file."""
    def check(program) -> None:
        refused = refuse_program(program)
        if refused is None:
            assert_writable(program)
        else:
            assert refused.status == "error" and refused.reason.startswith("invalid program: ")

    assert fuzz(n, each(st.one_of(ANSWER_TEXT, st.binary(max_size=20), st.none(), st.integers())), check) == n
