"""Speed of the workshop: the realtime factor at 180 Hz with both hands active, and the per-command
HTTP overhead of the service.

    .venv/bin/python benchmarks/workshop_speed.py [--seconds 10] [--repeats 3] [--requests 200]

Scene: the lap build, the left hand holding board A in the hook grasp and the right hand holding the
drill (both grasped through the reference primitives), both arms then moving back and forth with
end-effector velocity segments of 1 s while the engine does all its per-step work (servo targets,
IK, holds and slip tracking, collision reports). The process is pinned to one core. Reported: the
engine's simulated seconds per wall second (best of `repeats`), the raw mj_step rate in the same
state, and, for a 1-step command and for a state read, the round trip over HTTP (uvicorn on
127.0.0.1, httpx client in the same process) minus the same call in-process, directly and through
the relay a sandboxed program uses (TCP to the relay, then the service's Unix socket).

With --reference BUILD (frame by default; "none" skips it): the whole scripted reference of that build,
recorded as the suite records it, run once through HTTP (uvicorn on 127.0.0.1, the reference's httpx
client in the same process, the same core) and once in-process (LocalTransport): simulated seconds
per wall second over the whole run, commands sent, and whether the recorded final state passes the
grader. Beside the wall-clock factor it reports simulated seconds per CPU second of the process (all
its threads): on a shared machine that is the steadier figure; and the CPU time spent inside mj_step
(the physics alone: what no Python change can cut). --profile FILE writes a cProfile of the in-process run (FILE.http of the HTTP one).

Timings are measurements on this machine (shared cores make them noisy), never asserted in tests.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import importlib
import os
import statistics
import tempfile
import time
from pathlib import Path

import mujoco
import numpy as np

from simreflect.core import relay
from simreflect.suites.workshop import recording
from simreflect.suites.workshop.client import LocalTransport, WorkshopClient
from simreflect.suites.workshop.grader import grade
from simreflect.suites.workshop.protocol import parse_act
from simreflect.suites.workshop.reference.common import Workshop
from simreflect.suites.workshop.service import ServiceThread
from simreflect.suites.workshop.session import Session


def both_hands_busy(seed: int = 0) -> Session:
    session = Session.for_build("lap", seed)
    w = Workshop(WorkshopClient(LocalTransport(session)))
    w.pick_drill("right", "drill0")
    w.hook_grasp("left", "A", (0.0, 1.0, 0.0))
    pp, pr = w.palm("left")
    w.move_to("left", pp + np.array([0, 0, 0.1]), pr, vmax=0.1, tol=0.003, rtol=0.02)
    s = w.state(fresh=True)
    held = {h["hand"]: h["object"] for h in s["holds"]}
    assert held == {"left": "A", "right": "drill0"}, held
    return session


def realtime_factor(session: Session, seconds: float, repeats: int) -> tuple[float, float, int]:
    e = session.engine
    swing = 0.03
    acts = [parse_act({"segments": [{"type": "move", "duration": 1.0,
                                     "left": {"ee": {"linear": [s * swing, 0.0, 0.0], "angular": [0, 0, s * 0.1]}},
                                     "right": {"ee": {"linear": [0.0, s * swing, 0.0]}},
                                     }]}) for s in (1, -1)]
    best = 0.0
    n = max(1, int(seconds))
    for _ in range(repeats):
        t = time.perf_counter()
        for k in range(n):
            e.execute(acts[k % 2])
        best = max(best, n / (time.perf_counter() - t))
    held = len([h for h in e.observe_now()["holds"]])
    raw = 0.0
    m, d = e.model, e.data
    for _ in range(repeats):
        snap = e.snapshot()
        t = time.perf_counter()
        for _ in range(180):
            mujoco.mj_step(m, d)
        raw = max(raw, 1.0 / (time.perf_counter() - t))
        e.restore(snap)
    return best, raw, held


def http_overhead(session: Session, requests: int, relayed: bool = False) -> dict[str, float]:
    """Round trips over HTTP minus in-process. With `relayed`, the path a sandboxed agent program
    takes: TCP to the relay (simreflect.core.relay), then the service's Unix socket."""
    local = WorkshopClient(LocalTransport(session))
    one = [{"type": "wait", "duration": 1 / 180}]
    out = {}
    with contextlib.ExitStack() as stack:
        if relayed:
            sock_dir = stack.enter_context(tempfile.TemporaryDirectory())
            path = os.path.join(sock_dir, "service.sock")
            stack.enter_context(ServiceThread(session, unix_socket=path))
            listener = relay.listen(0, path)
            stack.callback(listener.close)
            url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        else:
            url = stack.enter_context(ServiceThread(session)).url
        remote = WorkshopClient(url)
        for name, call in (("act 1 step", lambda c: c.act(one)), ("state", lambda c: c.state())):
            times = {}
            for label, client in (("http", remote), ("local", local)):
                call(client)
                samples = []
                for _ in range(requests):
                    t = time.perf_counter()
                    call(client)
                    samples.append(time.perf_counter() - t)
                times[label] = statistics.median(samples)
            out[name] = (times["http"] * 1000, times["local"] * 1000, (times["http"] - times["local"]) * 1000)
        remote.close()
    return out


class _TimedMujoco:
    """The mujoco module as sim.py sees it, with the CPU time spent inside mj_step added up."""

    def __init__(self) -> None:
        self.step_cpu = 0.0

    def __getattr__(self, name: str):
        return getattr(mujoco, name)

    def mj_step(self, *args) -> None:
        t = time.thread_time()
        mujoco.mj_step(*args)
        self.step_cpu += time.thread_time() - t


def reference_run(build: str, seed: int, http: bool, profile: str | None = None) -> dict[str, float]:
    """The build's whole reference run, recorded; its realtime factor (simulated seconds of the
    session, the finish settle included, per wall second of the run), commands and verdict."""
    from simreflect.suites.workshop import sim

    module = importlib.import_module(f"simreflect.suites.workshop.reference.{build}")
    timed = sim.mujoco = _TimedMujoco()
    with contextlib.ExitStack() as outer:
        outer.callback(setattr, sim, "mujoco", mujoco)
        tmp = outer.enter_context(tempfile.TemporaryDirectory())
        record = Path(tmp) / "record"
        session = Session.for_build(build, seed, record_dir=record)
        prof = cProfile.Profile() if profile else None
        with contextlib.ExitStack() as stack:
            if http:
                client = WorkshopClient(stack.enter_context(ServiceThread(session)).url)
                stack.callback(client.close)
            else:
                client = WorkshopClient(LocalTransport(session))
            t, cpu = time.perf_counter(), time.process_time()
            if prof is not None:
                prof.enable()
            module.run(client)
            if prof is not None:
                prof.disable()
            wall, cpu = time.perf_counter() - t, time.process_time() - cpu
        if prof is not None:
            prof.dump_stats(profile)
        final = recording.load_final(record)
        passed = grade(final["state"], recording.load_spec(record)).passed
    return {"sim_s": session.engine.time, "wall_s": wall, "rtf": session.engine.time / wall, "cpu_s": cpu,
            "rtf_cpu": session.engine.time / cpu, "step_cpu_s": timed.step_cpu,
            "rtf_step": session.engine.time / timed.step_cpu, "commands": session.commands, "passed": passed}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="simulated seconds per repeat")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--reference", default="frame", help="the build whose reference run is timed (none: skip)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--profile", default=None, help="write cProfile stats of the reference runs here")
    ap.add_argument("--only-reference", action="store_true", help="time the reference runs only")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        cpu = sorted(os.sched_getaffinity(0))[0]
        os.sched_setaffinity(0, {cpu})
    if args.reference != "none":
        for http in (True, False):
            prof = None if args.profile is None else args.profile + (".http" if http else "")
            r = reference_run(args.reference, args.seed, http, prof)
            how = "through HTTP" if http else "in-process  "
            print(f"{args.reference} reference {how}: {r['rtf']:.1f}x realtime ({r['sim_s']:.1f} s simulated in "
                  f"{r['wall_s']:.1f} s wall; {r['rtf_cpu']:.1f}x per CPU second of this process, {r['cpu_s']:.1f} s; "
                  f"{r['commands']} commands, passes: {r['passed']})\n"
                  f"    mj_step alone {r['step_cpu_s']:.1f} CPU s ({r['rtf_step']:.1f}x): "
                  f"{100 * r['step_cpu_s'] / r['cpu_s']:.0f}% of the run's CPU time", flush=True)
    if args.only_reference:
        return
    t = time.perf_counter()
    session = both_hands_busy()
    print(f"set-up (grasp the drill and a board): {time.perf_counter() - t:.1f} s wall, "
          f"{session.engine.time:.1f} s simulated")
    rtf, raw, held = realtime_factor(session, args.seconds, args.repeats)
    print(f"realtime factor at 180 Hz, both hands holding and moving: {rtf:.1f}x  (target >= 25x on one core)")
    print(f"raw mj_step alone in the same state:                    {raw:.1f}x  ({held} holds kept)")
    for relayed, path in ((False, "direct"), (True, "via the sandbox relay")):
        for name, (http, local, over) in http_overhead(session, args.requests, relayed).items():
            print(f"{name:12s} median round trip ({path}): HTTP {http:.2f} ms, in-process {local:.2f} ms, "
                  f"overhead {over:.2f} ms")


if __name__ == "__main__":
    main()
