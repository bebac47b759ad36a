"""The figures behind the gait balance check's upper-body limits (verify.py, LIMITS).

Builds the normal walk of every episode of master seeds 0..SEEDS-1 (30 episodes, regenerations 0-2,
as episodes.build_episode seeds them) and prints the largest joint separation and the largest
upper-body offset from the hips any of them reaches.

    .venv/bin/python scripts/gait_upper_body_limits.py [SEEDS]      # default 100: 9,000 walks
"""

from __future__ import annotations

import sys

import numpy as np

from simreflect.suites.gait.robot import build_robot
from simreflect.suites.gait.verify import LIMITS, joint_separations, upper_body_offsets


def main(seeds: int) -> None:
    separations, offsets = [], []
    for seed in range(seeds):
        for episode in range(30):
            for regeneration in range(3):
                rig, *_ = build_robot(np.random.default_rng(np.random.SeedSequence([seed, episode, regeneration])))
                pose = rig.pose_matrices()
                separations.append(float(joint_separations(rig, pose).max()))
                offsets.append(float(upper_body_offsets(rig, pose).max()))
    off = np.array(offsets)
    print(f"{len(off)} normal walks")
    print(f"joint separation: max {max(separations)!r} m (limit {LIMITS['joint_separation_m']} m)")
    print(f"upper-body offset: max {off.max():.4f} m, p99 {np.quantile(off, 0.99):.4f} m, "
          f"median {np.median(off):.4f} m (limit {LIMITS['upper_body_offset_m']} m, "
          f"margin {(LIMITS['upper_body_offset_m'] - off.max()) * 100:.2f} cm)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
