"""RepairEnv keeps a task's opening (workspace and verdict) and copies it on the next resets."""

from __future__ import annotations

from simreflect.core.env import RepairEnv
from simreflect.suites.pace.suite import PaceSuite

TASK = "statics_bridge.stage1"


class CountingPace(PaceSuite):
    """The real pace suite, counting its verifications of a work directory alone."""

    verified = 0

    def verify(self, task, workdir, run=None):
        if run is None:
            type(self).verified += 1
        return super().verify(task, workdir, run)


def test_a_reset_after_an_accepted_round_restores_the_opening_without_verifying_again():
    env = RepairEnv("pace", level="L2", tasks=TASK, timeout_s=30)
    env.suite = CountingPace()
    try:
        first, info0 = env.reset(options={"task": TASK})
        source = (env._state / "program.py").read_text()
        files = sorted(p.name for p in env._state.iterdir())
        _, _, terminated, _, _ = env.step(env.suite.oracle(env._task))
        assert terminated and (env._state / "program.py").read_text() != source
        again, info1 = env.reset(options={"task": TASK})
        assert again == first and info1 == info0
        assert (env._state / "program.py").read_text() == source and sorted(p.name for p in env._state.iterdir()) == files
        assert CountingPace.verified == 1
        env._state.joinpath("program.py").write_text("changed")  # a round's workspace is a copy of the kept one
        assert env.reset(options={"task": TASK})[0] == first and (env._state / "program.py").read_text() == source
    finally:
        env.close()
    assert env._openings == {} and env._openings_dir is None
