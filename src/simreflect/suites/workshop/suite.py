"""The workshop suite behind the core Suite interface: tasks are builds x seeds.

An agent's program is a Python client script that talks to the workshop service at the URL in its
workspace ($WORKSHOP_URL, service_url.txt). run_program serves a fresh session in this process and
runs the program in the core sandbox (no network but its own loopback; see run_program for how it
reaches the service), where the only parts of simreflect it sees are the relay and the HTTP client:
the oracle is the reference controller with its skill library written into it
(reference/program.py), so no program can call the reference's skills. verify() grades the final
state its own service kept, handed over in the ProgramRun run_program returns, and without a run
reads it from the work directory's record (offline grading).
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from simreflect.core.cache import cache_dir
from simreflect.core.contract import RunProtocol, ScoreScale
from simreflect.core.evidence import EvidenceLevel, render_report
from simreflect.core.program import ProgramResult, ProgramRun, refuse_program
from simreflect.core.sandbox import (
    SANDBOX_WORKDIR,
    Limits,
    remove_workspace_file,
    run_sandboxed,
    write_workspace_file,
)
from simreflect.core.suite import Suite
from simreflect.core.task import Task
from simreflect.core.verdict import Verdict
from simreflect.suites.workshop import notes
from simreflect.suites.workshop.builds import BUILD_NAMES, get_build
from simreflect.suites.workshop.builds.spec import BuildSpec
from simreflect.suites.workshop.grader import grade

TASKS_FILE = "workshop.json"  # optional in a benchmark root: {"builds": [...], "seeds": [...]}
DEFAULT_SEEDS = (0, 1, 2)
RECORD_DIR = "record"
TASK_FILE = "task.json"
PROGRAM_TIMEOUT_S = 1800.0
PROGRAM_LIMITS = Limits(wall_s=PROGRAM_TIMEOUT_S, cpu_s=PROGRAM_TIMEOUT_S, memory_mb=2048, processes=128, file_mb=64,
                        output_kb=256, disk_mb=256)
#: What a program sees of simreflect: the relay that carries its connections and the HTTP client.
PROGRAM_MODULES = ("simreflect.core.relay", "simreflect.suites.workshop.client")


SOCKET_NAME = "service.sock"


def run_client(workdir: Path, script: str, socket_path: Path, timeout_s: float) -> ProgramResult:
    """Run the client script `script` of `workdir` in the sandbox, reaching the service that listens
    on `socket_path` (its directory is bound read-only into the sandbox) through a relay started in
    the sandbox: 127.0.0.1:PORT there, its URL in $WORKSHOP_URL and service_url.txt."""
    from simreflect.core import relay
    from simreflect.suites.workshop.service import free_socket

    # inside the sandbox any port is free; without bubblewrap the relay listens on the host, where
    # this one was free a moment ago
    with free_socket() as probe:
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    write_workspace_file(workdir, notes.URL_FILE, url + "\n")
    return run_sandboxed(
        [sys.executable, "-P", relay.__file__, "--port", str(port), "--socket", str(socket_path), "--",
         sys.executable, f"{SANDBOX_WORKDIR}/{script}"],
        workdir, replace(PROGRAM_LIMITS, wall_s=timeout_s, cpu_s=timeout_s), readonly_paths=[socket_path.parent],
        env={notes.URL_ENV: url}, package_modules=PROGRAM_MODULES)


def make_task(build: str, seed: int) -> Task:
    spec = get_build(build).spec(seed)
    return Task(id=f"{build}-{seed}", suite="workshop", seed=int(seed),
                params={"build": build, "spec": spec.to_dict()}, hidden={}, budget=WorkshopSuite.protocol.budget)


def reference_source(build: str) -> str:
    """The oracle program of a build: its reference controller with the skill library inlined."""
    from simreflect.suites.workshop.reference.program import reference_program

    return reference_program(build)


class WorkshopSuite(Suite):
    name = "workshop"
    summary = "drive a two-armed MuJoCo robot over HTTP to build with boards and screws"
    protocol = RunProtocol(budget=2, timeout_s=PROGRAM_TIMEOUT_S)  # rounds: each runs the program against a fresh session of the build
    scale = ScoreScale(0.0, 1.0, 0.0, 1.0, "1 when the build is complete and rigid, else 0")
    subset_order = BUILD_NAMES

    def load_tasks(self, root: Path | None = None) -> list[Task]:
        builds, seeds = BUILD_NAMES, DEFAULT_SEEDS
        if root is not None and (Path(root) / TASKS_FILE).is_file():
            cfg = json.loads((Path(root) / TASKS_FILE).read_text())
            builds = tuple(cfg.get("builds", builds))
            seeds = tuple(int(s) for s in cfg.get("seeds", seeds))
        return [make_task(b, s) for b in builds for s in seeds]

    program_filename = notes.PROGRAM_FILE

    def default_root(self, seed: int = 0) -> Path:
        """A benchmark directory in the user's cache: just the task list (every build at seeds
        seed, seed+1, seed+2); the builds themselves are generated from their seeds."""
        cache = cache_dir()
        root = cache / f"workshop-seed{seed}"
        root.mkdir(parents=True, exist_ok=True)
        cfg = {"builds": list(BUILD_NAMES), "seeds": [seed + k for k in range(len(DEFAULT_SEEDS))]}
        path = root / TASKS_FILE
        text = json.dumps(cfg, indent=1) + "\n"
        if not path.is_file() or path.read_text() != text:
            path.write_text(text)
        return root

    def save_task(self, task: Task, dest: Path) -> None:
        dest = Path(dest)
        dest.mkdir(parents=True, exist_ok=True)
        (dest / TASK_FILE).write_text(json.dumps(task.to_dict(), indent=1, sort_keys=True) + "\n")

    def load_task(self, path: Path) -> Task:
        return Task.from_dict(json.loads((Path(path) / TASK_FILE).read_text()))

    def spec(self, task: Task) -> BuildSpec:
        return BuildSpec.from_dict(task.params["spec"])

    def prepare_workspace(self, task: Task, workdir: Path) -> None:
        workdir = Path(workdir)
        workdir.mkdir(parents=True, exist_ok=True)
        (workdir / TASK_FILE).write_text(json.dumps({"build": task.params["build"], "seed": task.seed,
                                                     "spec": task.params["spec"]}, indent=1) + "\n")
        (workdir / "INTERFACE.md").write_text(notes.INTERFACE)

    def run_program(self, task: Task, program: str, workdir: Path, timeout_s: float = PROGRAM_TIMEOUT_S) -> ProgramRun:
        """Serve a fresh session of the build and run the program against it in the sandbox.

        The sandbox has a network namespace of its own, so the service listens on a Unix socket in
        a private directory bound read-only into the sandbox, and a relay inside the sandbox
        (simreflect.core.relay) carries 127.0.0.1:PORT there. The session records into a directory
        the program cannot reach; the record replaces the work directory's record/ after the run.
        An earlier round's record/ is removed before the program starts: no program reads another
        run's trajectory. The artefact of the run is the session's final state."""
        refused = refuse_program(program)
        if refused is not None:
            return ProgramRun(refused)
        from simreflect.suites.workshop.service import ServiceThread
        from simreflect.suites.workshop.session import Session

        workdir = Path(workdir)
        remove_workspace_file(workdir, RECORD_DIR)
        write_workspace_file(workdir, notes.PROGRAM_FILE, program)
        with tempfile.TemporaryDirectory(prefix="simreflect-workshop-") as private:
            private = Path(private)
            sockets = private / "sockets"
            sockets.mkdir()
            session = Session(self.spec(task), record_dir=private / RECORD_DIR)
            socket_path = sockets / SOCKET_NAME
            with ServiceThread(session, unix_socket=socket_path):
                result = run_client(workdir, notes.PROGRAM_FILE, socket_path, timeout_s)
                session.finish_quietly("the program ended without finishing" if result.ok else f"the program {result.status}")
            remove_workspace_file(workdir, RECORD_DIR)
            shutil.copytree(private / RECORD_DIR, workdir / RECORD_DIR)
        return ProgramRun(result, session.final_state)

    def verify(self, task: Task, workdir: Path, run: ProgramRun | None = None) -> Verdict:
        if run is not None:
            return grade(run.artefact, self.spec(task))
        from simreflect.suites.workshop.recording import load_final

        try:
            final = load_final(Path(workdir) / RECORD_DIR)
        except (OSError, ValueError) as e:
            return Verdict.invalid_artefact(f"unreadable final state: {e}")
        return grade(final["state"] if final else None, self.spec(task))

    def oracle(self, task: Task) -> str:
        return reference_source(task.params["build"])

    def observe(self, task: Task, verdict: Verdict, level: EvidenceLevel) -> str:
        return render_report(verdict, level, title=f"Workshop grade for {task.id}")

    def instruction(self, task: Task) -> str:
        return notes.instruction(self.spec(task))

    def interface_notes(self, level: EvidenceLevel) -> str:
        return notes.interface_notes(level)

    def subsets(self, task: Task) -> list[str]:
        return [task.params["build"]]

    # ----- interactive episodes (core.contract.InteractiveEpisodes) --------------------------------

    interactive_tools = ("http", "python", "finish")

    def open_world(self, task: Task, base: Path, level: EvidenceLevel, wall_used_s: float = 0.0):
        """The session's world; `level` is recorded with the episode, but changes nothing here: the
        agent reads the state itself (GET /state), at every level alike."""
        from simreflect.suites.workshop.interactive import WorkshopWorld

        task_json = json.dumps({"build": task.params["build"], "seed": task.seed, "spec": task.params["spec"]},
                               indent=1) + "\n"
        return WorkshopWorld(self.spec(task), base, task_json, wall_used_s)

    def grade_world(self, task: Task, world) -> Verdict:
        return grade(world.session.final_state, self.spec(task))

    def interactive_instruction(self, task: Task) -> str:
        return "\n".join([notes.interactive_instruction(self.spec(task)), notes.INTERFACE])

    def interactive_oracle(self, task: Task):
        from simreflect.suites.workshop.reference.turns import ReferenceTurnAgent

        return ReferenceTurnAgent(task.params["build"])
