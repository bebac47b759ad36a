"""vanilla: the plain loop. The model is shown the loop's chat unchanged (the task, the rounds the
history mode keeps, the latest report) and answers with a program; no auxiliary call, no state.

`--method vanilla` runs the agent itself (any agent, model or not); this class is the same loop
behind the method interface (it records only {"method": "vanilla"} and, in round 1, the starting
score), the baseline every other method is a change of.
"""

from __future__ import annotations

from typing import Any

from simreflect.agents.methods.base import Method


class VanillaMethod(Method):
    method = "vanilla"

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
