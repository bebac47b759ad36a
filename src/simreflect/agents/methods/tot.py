"""tot: tree of thoughts (Yao et al. 2023, breadth-first with a beam), the simulator as the value.

Every verified attempt is one node of a tree whose root is the starting design. The search goes down
level by level: each node of the current frontier (at most `beam` nodes, default 2) is expanded
into `branch` children (default 2), one verified attempt each; when the level is done the next
frontier is the `beam` best-scoring children (the verified score is the node's value; a child that
did not run or was not accepted has no value and is never expanded). A level none of whose children
scored is expanded again from the same frontier.

An expansion's chat: the task (system prompt), then the design to expand (its program, or the
starting design the task gives), the verifier's report on it, and the thoughts already tried from it
(its other children: their diagnosis and score), asking for a different idea. The loop's chat of
earlier rounds is not used. No auxiliary call: the value is the simulator's. Recorded per round:
`notes["parent"]`, `notes["depth"]`, `notes["frontier"]`, and the report shown (`notes["feedback"]`,
so a later expansion of this node can show its report). The tree is rebuilt from those notes
(the scheduler is expansion.py's, shared with beam search).
"""

from __future__ import annotations

from typing import Any

from simreflect.agents.base import Observation
from simreflect.agents.methods.base import int_option, rank
from simreflect.agents.methods.expansion import ExpansionSearch
from simreflect.core.records import Attempt


class TreeOfThoughtsMethod(ExpansionSearch):
    method = "tot"
    tried_heading = "Ideas already tried from this design"
    ask = ("Propose one idea for this design that differs from the ideas already tried from it and addresses the "
           "main failure in the report; state the idea in the diagnosis, then give the complete new program.")

    def __init__(self, inner: Any, beam: int = 2, branch: int = 2) -> None:
        super().__init__(inner, beam=int_option(beam, "beam"), branch=int_option(branch, "branch"))
        self.beam, self.branch = self.options["beam"], self.options["branch"]
        self.per_parent = self.branch

    def setup(self, obs: Observation) -> None:
        super().setup(obs)
        self.depth_of: dict[int, int] = {0: 0}

    def added(self, attempt: Attempt, parent: int) -> None:
        self.depth_of[attempt.index] = self.depth_of[parent] + 1

    def next_parents(self, batch: list[Attempt]) -> list[int]:
        best = rank(batch)[:self.beam]
        return [b.index for b in best] if best else self.parents  # nothing scored: the same frontier again

    def proposal_notes(self, parent: int, tried: list[Attempt]) -> dict[str, Any]:
        return {"depth": self.depth_of[parent] + 1, "frontier": list(self.parents),
                "siblings": [c.index for c in tried]}
