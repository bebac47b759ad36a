"""Rendering the workshop's review video: before and after, wall time and peak memory.

    .venv/bin/python benchmarks/workshop_render.py [--record DIR] [--before REV] [--skip-before]

The record is the lap build's reference run at seed 0 (made with the scripted reference controller
unless --record names one). "Before" is `simreflect workshop render` of revision REV (default: the
merge base of HEAD and main), run from a `git archive` of its src/ in a temporary folder with its
own defaults (four fixed cameras, 15 fps, 480x360, every frame held until the encoder runs);
"after" is this tree's (one tiled video, 10 fps of 320x240 tiles, frames streamed). Each runs in a
fresh process; reported: wall seconds, the peak resident memory of that process (ffmpeg's, a
process of its own, is not counted), the files written and their sizes. Then where a frame's
time goes: mj_kinematics, mj_forward (for comparison: a frame never needs it), Renderer.render at
the MJCF's tessellation and at the renderer's, and the caption strip.

Timings are measurements on this machine (a shared one: the load average is printed before and
after), never asserted in tests.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("MUJOCO_GL", "egl")  # before MuJoCo is first imported (making the record imports it)


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def make_record(out: Path) -> Path:
    from simreflect.suites.workshop.client import WorkshopClient
    from simreflect.suites.workshop.reference import lap
    from simreflect.suites.workshop.service import ServiceThread
    from simreflect.suites.workshop.session import Session

    with ServiceThread(Session.for_build("lap", 0, record_dir=out)) as svc:
        result = lap.run(WorkshopClient(svc.url))
    print(f"record: {out} (lap seed 0, {result.get('time', '?')} simulated s, ok={result.get('ok')})")
    return out


def _timed(cmd: list[str], env: dict) -> tuple[float, float]:
    """(wall s, peak RSS MiB of the process)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    peak = float(out.strip().splitlines()[-1]) / 1024 if proc.returncode == 0 and out.strip() else float("nan")
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[:4]} failed: {err[-2000:]}")
    return wall, peak


_RUN = r"""
import resource, sys, runpy
sys.argv = ["simreflect-workshop", "render", *sys.argv[1:]]
try:
    runpy.run_module("simreflect.suites.workshop.commands", run_name="__main__")
except SystemExit as e:
    if e.code not in (0, None):
        raise
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def run_render(src: Path, record: Path, out: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src), "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")}
    wall, peak = _timed([sys.executable, "-c", _RUN, str(record), "--out", str(out)], env)
    files = {p.name: p.stat().st_size for p in sorted(out.iterdir())}
    return {"wall_s": wall, "peak_mib": peak, "files": files}


def before_src(rev: str, into: Path) -> Path:
    archive = into / "src.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), rev, "src"], check=True)
    with tarfile.open(archive) as t:
        t.extractall(into, filter="data")
    return into / "src"


def phases(record: Path, frames: int = 200) -> None:
    import mujoco
    import numpy as np

    from simreflect.suites.workshop import render
    from simreflect.suites.workshop.recording import load_poses
    from simreflect.suites.workshop.review_events import load_timeline
    from simreflect.suites.workshop.review_overlay import STRIP_HEIGHT, draw_strip
    from simreflect.suites.workshop.review_views import FIXED_VIEWS, set_camera

    poses = load_poses(record)
    step = max(1, len(poses) // frames)
    t0 = time.perf_counter()
    timeline = load_timeline(record)
    print(f"  timeline of {len(timeline.ends)} commands read in {time.perf_counter() - t0:.2f} s")
    for label, quality, size in (("MJCF tessellation, 480x360 (before)", None, (480, 360)),
                                 (f"renderer tessellation {render.MESH_SLICES}/{render.MESH_STACKS}, 320x240 (after)",
                                  True, render.DEFAULT_TILE)):
        model = mujoco.MjModel.from_xml_path(str(record / "model.xml"))
        if quality:
            render._prepare_model(model, size)
        data = mujoco.MjData(model)
        r = render._renderer(model, *size)
        cam = mujoco.MjvCamera()
        set_camera(cam, FIXED_VIEWS[0])
        tk = tf = tr = 0.0
        for i in range(0, step * frames, step):
            data.qpos[:] = poses[min(i, len(poses) - 1), 1:]
            a = time.perf_counter()
            mujoco.mj_kinematics(model, data)
            b = time.perf_counter()
            r.update_scene(data, camera=cam)
            r.render()
            c = time.perf_counter()
            tk, tr = tk + b - a, tr + c - b
        a = time.perf_counter()
        for _ in range(20):
            mujoco.mj_forward(model, data)
        tf = (time.perf_counter() - a) / 20
        r.close()
        print(f"  {label}: mj_kinematics {tk / frames * 1e3:.3f} ms, mj_forward {tf * 1e3:.3f} ms, "
              f"update_scene+render {tr / frames * 1e3:.2f} ms per view")
    strip = np.zeros((STRIP_HEIGHT, 2 * render.DEFAULT_TILE[0], 3), np.uint8)
    a = time.perf_counter()
    for i in range(frames):
        draw_strip(strip, i * 0.1, timeline.at(i * 0.1))
    print(f"  caption strip {(time.perf_counter() - a) / frames * 1e3:.2f} ms per frame")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--record", type=Path, help="a record directory (default: make the lap reference's)")
    ap.add_argument("--before", default=None, help="revision to compare with (default: merge base of HEAD and main)")
    ap.add_argument("--skip-before", action="store_true")
    args = ap.parse_args()
    print(_load())
    with tempfile.TemporaryDirectory(prefix="workshop-render-") as tmp:
        tmp = Path(tmp)
        record = args.record or make_record(tmp / "lap0")
        results = {}
        if not args.skip_before:
            rev = args.before or subprocess.run(["git", "-C", str(ROOT), "merge-base", "HEAD", "main"], check=True,
                                                capture_output=True, text=True).stdout.strip()
            (tmp / "before").mkdir()
            src = before_src(rev, tmp / "before")
            (tmp / "out-before").mkdir()
            results[f"before ({rev[:10]})"] = run_render(src, record, tmp / "out-before")
        (tmp / "out-after").mkdir()
        results["after (this tree)"] = run_render(ROOT / "src", record, tmp / "out-after")
        for name, r in results.items():
            files = ", ".join(f"{k} {v / 1e6:.1f} MB" for k, v in r["files"].items())
            print(f"{name}: {r['wall_s']:.1f} s wall, peak RSS {r['peak_mib']:.0f} MiB (the renderer's process; "
                  f"ffmpeg's is its own); {files}")
        if len(results) == 2:
            (b, a) = results.values()
            print(f"speed-up {b['wall_s'] / a['wall_s']:.2f}x, peak memory {b['peak_mib'] / a['peak_mib']:.1f}x lower")
        print("where a frame's time goes:")
        phases(record)
    print(_load())


if __name__ == "__main__":
    main()
