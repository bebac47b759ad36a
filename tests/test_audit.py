"""The audit suite end to end: cards, references through the sandbox, caps, CLI, determinism."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simreflect.core.evidence import EvidenceLevel
from simreflect.core.registry import get_suite
from simreflect.suites.audit.cards import KEYS_FILE, REFERENCE_FILE, load_card, load_cards, tasks_dir
from simreflect.suites.audit.commands import app
from simreflect.suites.audit.keys import canonical_json, keys_document
from simreflect.suites.audit.notes import CONTRACT_FILE, PARAMS_FILE, contract
from simreflect.suites.audit.suite import AuditSuite, grade_script, read_run_record, run_script, write_workspace
from simreflect.suites.audit.summary import find_summary

ROOT = Path(__file__).resolve().parents[1]
CARDS = load_cards()
FAST = ["ca-grokking-c4", "logistic-lyapunov"]  # the quickest references; the others are slow tests


def reference(task_id: str) -> str:
    return (tasks_dir() / task_id / REFERENCE_FILE).read_text()


# ----- the cards ---------------------------------------------------------------------------------

def test_at_least_20_claims_14_keyed():
    assert len(CARDS) >= 20
    assert sum(c.keyed for c in CARDS) >= 14
    strengths = {c.key_strength for c in CARDS}
    assert strengths == {"reference", "variant", "none"}
    ids = {c.id for c in CARDS}
    assert {"ca-grokking-c1", "ca-grokking-c2", "icl-bayes-c1", "icl-bayes-c2"} <= ids


def test_every_task_folder_has_the_same_shape():
    for c in CARDS:
        files = {p.name for p in c.directory.iterdir() if not p.name.startswith(("__", "."))}
        expected = {"card.toml", REFERENCE_FILE} | ({KEYS_FILE} if c.key_strength == "reference" else set())
        assert files == expected, (c.id, files)
        assert c.key_derivation and c.context and c.source and c.control_description
        assert c.raw, c.id
        for m in c.metrics.values():
            assert m.derivation and m.description
        assert c.has_variant, f"{c.id}: every task draws variant parameters against tables and forgeries"
        assert any(r.compare != "equal" for r in c.raw.values()), f"{c.id}: some raw array must carry the experiment"
        if c.keyed:
            for m in c.metrics:
                assert c.key(m) is not None, (c.id, m)


def test_task_data_is_package_data():
    spec = tomllib.loads((ROOT / "pyproject.toml").read_text())
    data = spec["tool"]["setuptools"]["package-data"]["simreflect"]
    assert any("suites/audit/tasks/" in g for g in data) and any("ladder.toml" in g for g in data)
    eps = spec["project"]["entry-points"]["simreflect.suites"]
    assert eps["audit"] == "simreflect.suites.audit.suite:AuditSuite"


def test_suite_interface(tmp_path):
    suite = get_suite("audit")
    assert isinstance(suite, AuditSuite) and suite.protocol.budget == 3
    tasks = suite.load_tasks(tasks_dir())
    assert [t.id for t in tasks] == sorted(t.id for t in tasks) and len(tasks) == len(CARDS)
    assert len(suite.load_tasks(tasks_dir() / "ols-risk")) == 1
    task = next(t for t in tasks if t.id == "ca-grokking-c2")
    assert "keyed" in suite.subsets(task) and "key: variant" in suite.subsets(task)
    assert any(s.startswith("domain: ") for s in suite.subsets(task))
    assert suite.oracle(task) == reference("ca-grokking-c2")
    text = suite.instruction(task)
    assert "nu" in text and "critical_exponent" in text and "positive control" in text.lower()
    notes = suite.interface_notes(EvidenceLevel.L1)
    assert "SUMMARY_JSON" in notes and "params.json" in notes and "raw.npz" in notes
    suite.prepare_workspace(task, tmp_path / "w")
    assert json.loads((tmp_path / "w" / PARAMS_FILE).read_text()) == task.params
    assert (tmp_path / "w" / CONTRACT_FILE).read_text().startswith("# Audit task ca-grokking-c2")
    v = suite.verify(task, tmp_path / "w")  # nothing has run yet
    assert not v.passed and v.score == 0.0 and not v.check("ran").passed


def test_contract_reveals_no_key():
    for c in CARDS:
        text = contract(c)
        lines = text.splitlines()
        for k, d in c.draws.items():
            shown = [ln for ln in lines if ln.startswith(f"- `{k}` = ")]
            assert shown and shown[0].startswith(f"- `{k}` = {json.dumps(c.params[k])}"), (c.id, shown)
            assert f"- `{k}`: {d.text()}" in lines, (c.id, k)  # the range it is drawn from
        assert "drawn anew" in text and "two-sample" in text
        for r in c.raw.values():
            assert f"Compared: {r.compare_text()}" in text, (c.id, r.name)
        for run in c.keys.values():
            for value in run.values():
                assert repr(value) not in text and f"{value:.6g}" not in text, (c.id, value)


# ----- references through the sandbox ------------------------------------------------------------

def grade_reference(task_id: str):
    return grade_script(task_id, reference(task_id))[1]


@pytest.mark.parametrize("task_id", FAST)
def test_reference_scores_full_marks(task_id):
    v = grade_reference(task_id)
    assert v.score == 1.0 and v.passed, (v.errors, v.diagnostics.get("flags"), v.diagnostics.get("output_tail"))
    assert all(c.passed for c in v.checks)
    names = {c.name for c in v.checks}
    assert {"ran", "summary_json", "positive_control", "verdict_consistency", "raw_recompute", "raw_samples",
            "variant_moves", "variant_samples"} <= names
    assert len(v.diagnostics["variant"]["draws"]) == 2


@pytest.mark.slow
@pytest.mark.parametrize("task_id", [c.id for c in CARDS if c.id not in FAST])
def test_every_reference_scores_full_marks(task_id):
    v = grade_reference(task_id)
    assert v.score == 1.0 and v.passed, (v.errors, v.diagnostics.get("flags"), v.diagnostics.get("output_tail"))


#: the seed's reported D = 2, 5, 10 series printed without running the experiment, with arrays that
#: recompute it: right at the base parameters, unmoved at the drawn dimensions
SEED_SERIES = {"nu_D2": 1.5001, "nu_D5": 3.0174, "nu_D10": 5.4117}
HARDCODED = f"""
import json
import numpy as np
tau = np.logspace(-6, -3, 30)
series = {SEED_SERIES!r}
arrays = {{"errors_D_" + level: 0.1 * np.linspace(0.5, 1.5, 20)[:, None] * tau**nu
          for level, nu in zip(("low", "mid", "high"), series.values())}}
np.savez("raw.npz", tau=tau, **arrays)
print("SUMMARY_JSON " + json.dumps({{"metrics": series,
      "positive_control": {{"name": "cap", "expected": 0.15625, "measured": 0.15625, "passed": True}},
      "verdict": "supported", "claim_quantity_computed": True}}))
"""


def test_printing_the_key_without_computing_it_is_capped():
    card, v = grade_script("ca-grokking-c2", HARDCODED)
    assert v.score == 0.25 and "hardcoded" in v.diagnostics["flags"]
    assert not v.check("variant_moves").passed
    assert all(v.check(f"metric_nu_D_{level}").passed for level in ("low", "mid", "high"))
    # the same numbers without the raw arrays cannot be verified either
    card, v = grade_script("ca-grokking-c2", HARDCODED.replace('np.savez("raw.npz", tau=tau, **arrays)', ""))
    assert v.score <= 0.25 and "raw_missing" in v.diagnostics["flags"]


def test_dropping_the_control_caps_at_half():
    src = reference("logistic-lyapunov").replace('"positive_control":', '"control_dropped":')
    card, v = grade_script("logistic-lyapunov", src)
    assert v.score == 0.5 and "control_missing" in v.diagnostics["flags"]
    assert v.check("metric_lyapunov").passed and not v.check("positive_control").passed


def test_a_falsified_verdict_on_metrics_that_reproduce_the_claim_is_under_claimed():
    """The seed's ladder: 0.7 = reference recovered but under-claimed (inconclusive/falsified)."""
    src = reference("logistic-lyapunov").replace('"supported" if abs(lam - k * np.log(2)) < 0.02 * k else "falsified"',
                                                  '"falsified"')
    card, v = grade_script("logistic-lyapunov", src)
    assert "under_claimed" in v.diagnostics["flags"] and "contradiction" not in v.diagnostics["flags"]
    assert v.score == 0.7 and not v.passed
    assert not v.check("verdict_consistency").passed and "under-claimed" in v.check("verdict_consistency").message


def test_aliases_accepted_and_unknown_names_reported():
    src = reference("logistic-lyapunov").replace('{"lyapunov": lam}', '{"lyapunov_exponent": lam, "my_lambda": lam}')
    suite = AuditSuite()
    task = suite.load_tasks(tasks_dir() / "logistic-lyapunov")[0]
    card, v = grade_script("logistic-lyapunov", src)
    assert v.check("metric_lyapunov").passed and v.score == 1.0
    assert "unknown_metric:my_lambda" in v.diagnostics["flags"]
    text = suite.observe(task, v, EvidenceLevel.L1)
    assert "my_lambda" in text and "lyapunov" in text


def test_observation_of_a_crash_shows_exit_code_and_tail(tmp_path):
    suite = AuditSuite()
    task = suite.load_tasks(tasks_dir() / "ols-risk")[0]
    suite.prepare_workspace(task, tmp_path)
    res = suite.run_program(task, "print('starting')\nraise SystemExit(3)\n", tmp_path, 30)
    assert not res.ok
    v = suite.verify(task, tmp_path)
    text = suite.observe(task, v, EvidenceLevel.L1)
    assert v.score == 0.0 and "Exit code: 3" in text and "starting" in text and "summary_json" in text


def test_reference_is_deterministic(tmp_path):
    outs = []
    for i in range(2):
        card = load_card(tasks_dir() / "ca-grokking-c4")
        work = tmp_path / f"w{i}"
        write_workspace(card, work, dict(card.params))
        run_script(reference(card.id), work)
        outs.append(find_summary(read_run_record(work)["output_tail"]).line)
    assert outs[0] == outs[1] and outs[0].startswith("SUMMARY_JSON")


@pytest.mark.slow
def test_reference_keys_regenerate_to_the_same_values():
    """The keys captured from the references come back: the same bytes on the numpy that captured
    them; elsewhere the last bits of a float may move (icl-bayes-c2's key moved 5e-12 relative
    between numpy releases), never by a part in a billion, and nothing else may change."""
    from simreflect.run.report import same_record_values

    for c in CARDS:
        if c.key_strength == "reference":
            now, pinned = canonical_json(keys_document(c)), (c.directory / KEYS_FILE).read_text()
            assert now == pinned or same_record_values(json.loads(now), json.loads(pinned)), c.id


def test_cli_grade_json(tmp_path):
    script = tmp_path / "audit.py"
    script.write_text(reference("logistic-lyapunov"))
    res = CliRunner().invoke(app, ["grade", "--task", "logistic-lyapunov", "--script", str(script), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["score"] == 1.0 and out["flags"] == [] and out["passed"] is True
    assert {c["name"] for c in out["checks"]} >= {"metric_lyapunov", "positive_control", "variant_moves",
                                                  "variant_samples", "raw_samples"}
    res = CliRunner().invoke(app, ["grade", "--task", "no-such-task", "--script", str(script)])
    assert res.exit_code == 2


def test_episode_runs_with_stale_raw_removed(tmp_path):
    """A later round's script that saves no arrays must not be graded on an earlier round's raw.npz."""
    suite = AuditSuite()
    task = suite.load_tasks(tasks_dir() / "wigner-semicircle")[0]
    suite.prepare_workspace(task, tmp_path)
    suite.run_program(task, reference(task.id), tmp_path, 60)
    assert (tmp_path / "raw.npz").exists()
    src = re.sub(r'np\.savez\("raw\.npz".*\n', "", reference(task.id))
    suite.run_program(task, src, tmp_path, 60)
    assert not (tmp_path / "raw.npz").exists()
    v = suite.verify(task, tmp_path)
    assert "raw_missing" in v.diagnostics["flags"] and v.score <= 0.25


def test_episode_loop_oracle_and_noop(tmp_path):
    """The suite driven by the generic episode loop: the oracle solves in one round, noop never."""
    from simreflect.agents.baselines import NoopAgent, OracleAgent
    from simreflect.run.episode import run_episode
    from simreflect.run.store import EpisodeLog, RunStore

    suite = get_suite("audit")
    task = suite.load_tasks(tasks_dir() / "logistic-lyapunov")[0]
    for name, agent, solved, rounds in (("oracle", OracleAgent(), True, 1), ("noop", NoopAgent(), False, 2)):
        store = RunStore(tmp_path / name)
        store.open({"suite": "audit"})
        log = EpisodeLog()
        out = run_episode(suite, agent, task, EvidenceLevel.L1, 2, store, log, timeout_s=60)
        assert out.solved is solved and out.rounds == rounds, name
    prompt = log.rounds[-1].prompt[-1]["content"]
    assert "Round 2 of 2" in prompt and "summary_json" in prompt


def test_answer_keys_are_invisible_inside_the_sandbox():
    """The package's task folders (cards, keys.json) are not mounted in the sandbox."""
    probe = ("import glob\nprint('SEEN', len(glob.glob(%r)))\n" % str(tasks_dir() / "*" / "card.toml"))
    _, v = grade_script("ols-risk", probe)
    assert "SEEN 0" in v.diagnostics["output_tail"]
