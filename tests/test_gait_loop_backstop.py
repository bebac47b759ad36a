"""The gait suite's readers refuse hostile artefacts at the source, before the loop's backstop is
needed (the loop's backstop itself is tested on the toy suite: test_loop_backstop.py).

Before, each of these killed the whole run and recorded nothing.
"""

from __future__ import annotations

from simreflect.suites.gait.suite import GaitSuite
from test_loop_backstop import SURROGATE, play

#: rig.json the verifier chokes on (it reads JSON with the standard library): nesting and a 400-digit number
NESTED_RIG = "import os\nopen('rig.json', 'w').write('[' * 100000 + ']' * 100000)\nos._exit(0)\n"
HUGE_NUMBER_RIG = ("import json, os\nd = json.load(open('rig.json'))\nd['bones'][0]['head'] = [10 ** 400, 0, 0]\n"
                   "json.dump(d, open('rig.json', 'w'))\nos._exit(0)\n")


def test_gait_hostile_answers_and_rigs_are_refused_at_the_source_and_cost_their_round_only(one_bench, tmp_path):
    """A lone surrogate, JSON nested 100,000 deep and a 400-digit number: each once killed the run
    (UnicodeEncodeError, RecursionError, OverflowError). Now the program or the reader refuses each
    with its reason, before the backstop is needed."""
    suite = GaitSuite()
    task = suite.load_tasks(one_bench)[0]
    outcome, rounds = play(suite, task, [SURROGATE, NESTED_RIG, HUGE_NUMBER_RIG, suite.oracle(task)], tmp_path)
    assert (outcome.status, outcome.solved, outcome.rounds) == ("finished", True, 4)
    assert all(rec.get("harness_error") is None for rec in rounds)
    assert rounds[0]["program"]["status"] == "error" and "invalid program" in rounds[0]["program"]["reason"]
    assert rounds[0]["errors_after"] == rounds[0]["errors_before"]
    assert rounds[1]["rejected"] and "nests deeper than" in rounds[1]["verdict"]["invalid"]
    assert rounds[2]["rejected"] and "digits" in rounds[2]["verdict"]["invalid"]
    shown = rounds[2]["prompt"][-1]["content"]
    assert "nests deeper than" in shown  # the model is told why its artefact was refused
