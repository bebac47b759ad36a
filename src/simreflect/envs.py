"""Gymnasium registration: importing this module registers `simreflect/<suite>-v0` for every suite.

    import gymnasium as gym
    env = gym.make("simreflect.envs:simreflect/gait-v0", level="L2")
or
    import simreflect
    env = simreflect.make("gait", level="L2")
"""

from __future__ import annotations

import gymnasium as gym

from simreflect.core.registry import suite_names


def env_id(suite: str) -> str:
    return f"simreflect/{suite}-v0"


def register_all() -> None:
    for name in suite_names():
        if env_id(name) not in gym.registry:
            gym.register(id=env_id(name), entry_point="simreflect.core.env:RepairEnv", kwargs={"suite": name},
                         disable_env_checker=True)


register_all()
