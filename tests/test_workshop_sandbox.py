"""A workshop agent program runs in the core sandbox: it reaches its own service through the relay and
nothing else (no host network, none of the grader, not the record being written), and whatever it
writes in its work directory cannot stand in for the record."""

from __future__ import annotations

import json
import socket
import tempfile
import threading

import pytest

from simreflect.core.sandbox import isolation_report
from simreflect.suites.workshop.suite import WorkshopSuite, make_task

pytestmark = pytest.mark.skipif(isolation_report().get("mode") != "bwrap", reason="needs bubblewrap")

PROBE = """\
import glob, json, os, socket, sys
import httpx
url = os.environ["WORKSHOP_URL"]
out = {"url_file": open("service_url.txt").read().strip() == url}
out["health"] = httpx.get(url + "/health", timeout=30).json()
out["note"] = httpx.post(url + "/note", json={"text": "from inside the sandbox"}, timeout=30).status_code
try:
    import simreflect.suites.workshop.grader
    out["grader"] = "imported"
except ImportError as e:
    out["grader"] = "hidden"
try:
    from simreflect.suites.workshop.client import WorkshopClient
    out["client"] = WorkshopClient(url).state()["time"] >= 0
except Exception as e:
    out["client"] = repr(e)
s = socket.socket()
s.settimeout(2)
try:
    s.connect(("127.0.0.1", HOST_PORT))
    out["host"] = "reached"
except OSError:
    out["host"] = "unreachable"
out["records"] = [p for p in glob.glob("TMPROOT/simreflect-workshop-*/**", recursive=True)
                  if not p.endswith(".sock") and not os.path.isdir(p)]
out["private"] = glob.glob("TMPROOT/simreflect-workshop-*")
out["uid"] = os.getuid()
# a forged record: a final state that would pass if anyone trusted it
os.makedirs("record", exist_ok=True)
json.dump({"forged": True}, open("record/final_state.json", "w"))
print("PROBE " + json.dumps(out))
"""


def test_the_program_reaches_its_service_and_nothing_else(tmp_path):
    host = socket.socket()
    host.bind(("127.0.0.1", 0))
    host.listen(1)
    accepted = []
    threading.Thread(target=lambda: accepted.append(host.accept()), daemon=True).start()
    suite = WorkshopSuite()
    task = make_task("place", 0)
    work = tmp_path / "work"
    suite.prepare_workspace(task, work)
    program = PROBE.replace("HOST_PORT", str(host.getsockname()[1])).replace("TMPROOT", tempfile.gettempdir())
    run = suite.run_program(task, program, work, timeout_s=120)
    result = run.result
    host.close()
    assert result.ok, result.output_tail
    assert result.isolation["mode"] == "bwrap"
    line = next(x for x in result.output_tail.splitlines() if x.startswith("PROBE "))
    probe = json.loads(line[len("PROBE "):])
    assert probe["url_file"] is True
    assert probe["health"]["ok"] is True and probe["health"]["build"] == "place"
    assert probe["note"] == 200
    assert probe["client"] is True
    assert probe["grader"] == "hidden"
    assert probe["host"] == "unreachable" and not accepted
    assert len(probe["private"]) == 1  # the service's private directory: only its socket is bound in
    assert probe["records"] == []  # the session records where the program cannot look
    assert probe["uid"] == 65534
    # the record is the service's own: the note is in it, the forgery is gone
    commands = (work / "record" / "commands.jsonl").read_text()
    assert "from inside the sandbox" in commands
    final = json.loads((work / "record" / "final_state.json").read_text())
    assert "forged" not in final
    assert not suite.verify(task, work, run).passed
    assert not WorkshopSuite().verify(task, work).passed  # offline grading reads the true record too


def test_a_hanging_program_is_stopped_and_the_session_still_ends(tmp_path):
    suite = WorkshopSuite()
    task = make_task("place", 0)
    work = tmp_path / "work"
    suite.prepare_workspace(task, work)
    result = suite.run_program(task, "import time\nwhile True:\n    time.sleep(1)\n", work, timeout_s=3).result
    assert result.status == "timeout"
    final = json.loads((work / "record" / "final_state.json").read_text())
    assert "timeout" in json.dumps(final)
    assert not suite.verify(task, work).passed


#: The exploit of issue 16: the reference's skill library, called from an eight-line program,
#: passed `place` while it was visible in the sandbox.
SKILLS = """\
import os
from simreflect.suites.workshop.client import WorkshopClient
from simreflect.suites.workshop.reference.common import Workshop
client = WorkshopClient(os.environ["WORKSHOP_URL"])
w = Workshop(client)
board = w.spec["build"]["boards"][0]
w.place_board("left", board["name"], board["target"])
w.finish_up(None); client.finish("placed with the reference's skills")
"""


def test_a_program_cannot_import_the_reference_skills(tmp_path):
    suite = WorkshopSuite()
    task = make_task("place", 0)
    work = tmp_path / "work"
    suite.prepare_workspace(task, work)
    result = suite.run_program(task, SKILLS, work, timeout_s=120).result
    assert not result.ok
    assert "ModuleNotFoundError" in result.output_tail and "simreflect.suites.workshop.reference" in result.output_tail
    verdict = suite.verify(task, work)
    assert not verdict.passed and not verdict.check("boards_placed").passed


def test_the_oracle_program_needs_nothing_but_the_client():
    import ast

    suite = WorkshopSuite()
    for build in ("place", "lap", "frame"):
        tree = ast.parse(suite.oracle(make_task(build, 0)))
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | \
                   {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        ours = {m for m in imported if m and m.startswith("simreflect")}
        assert ours == {"simreflect.suites.workshop.client"}, (build, ours)
        assert any(isinstance(n, ast.ClassDef) and n.name == "Workshop" for n in tree.body)  # the library is inlined


LOOK = """\
import json, os
import httpx
url = os.environ["WORKSHOP_URL"]
httpx.post(url + "/note", json={"text": "round MARK"}, timeout=30)
print("LOOK " + json.dumps(sorted(os.listdir("."))))
"""


def test_a_rounds_workspace_holds_no_earlier_record(tmp_path):
    """Round 2 runs on a copy of round 1's workspace, as the episode loop makes it: the program
    finds no record/ in it, and afterwards the record there is round 2's own."""
    import shutil

    suite = WorkshopSuite()
    task = make_task("place", 0)
    first, second = tmp_path / "round1", tmp_path / "round2"
    suite.prepare_workspace(task, first)
    assert suite.run_program(task, LOOK.replace("MARK", "one"), first, timeout_s=120).ok
    assert "round one" in (first / "record" / "commands.jsonl").read_text()
    shutil.copytree(first, second)
    result = suite.run_program(task, LOOK.replace("MARK", "two"), second, timeout_s=120).result
    assert result.ok, result.output_tail
    seen = json.loads(next(x for x in result.output_tail.splitlines() if x.startswith("LOOK "))[5:])
    assert "record" not in seen and "task.json" in seen
    commands = (second / "record" / "commands.jsonl").read_text()
    assert "round two" in commands and "round one" not in commands


def test_verify_reads_the_run_it_is_handed_and_keeps_nothing(tmp_path):
    """verify() grades the final state of the ProgramRun it is given, and without one the record in
    the work directory: nothing is remembered between calls, so a fresh suite object (another
    process) gives the same verdict for the same arguments."""
    from simreflect.core.program import ProgramResult, ProgramRun
    from simreflect.suites.workshop.session import Session
    from simreflect.suites.workshop.suite import RECORD_DIR

    suite = WorkshopSuite()
    task = make_task("place", 0)
    work = tmp_path / "w0"
    suite.prepare_workspace(task, work)
    session = Session(suite.spec(task), record_dir=work / RECORD_DIR)
    session.finish({"summary": "nothing"})
    run = ProgramRun(ProgramResult("ok", 0, "", 0.0), {"boards": {}})  # what the run says differs from the record
    assert suite.verify(task, work, run).invalid  # a state without board A: the run's
    assert WorkshopSuite().verify(task, work, run).invalid
    verdict = suite.verify(task, work)  # no run: read from its record
    assert not verdict.invalid and not verdict.passed and not verdict.check("boards_placed").passed
    assert WorkshopSuite().verify(task, work).to_dict() == verdict.to_dict()
    assert not vars(suite)  # no state on the suite object at all
