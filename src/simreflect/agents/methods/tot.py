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
so a later expansion of this node can show its report). The tree is rebuilt from those notes.
"""

from __future__ import annotations

from typing import Any

from simreflect.agents.base import Observation
from simreflect.agents.methods.base import Attempt, Method, Proposal, Step, design_chat, int_option, rank

ASK = ("Propose one idea for this design that differs from the ideas already tried from it and addresses the "
       "main failure in the report; state the idea in the diagnosis, then give the complete new program.")


class TreeOfThoughtsMethod(Method):
    method = "tot"
    records_feedback = True

    def __init__(self, inner: Any, beam: int = 2, branch: int = 2) -> None:
        super().__init__(inner, beam=int_option(beam, "beam"), branch=int_option(branch, "branch"))
        self.beam, self.branch = self.options["beam"], self.options["branch"]

    def setup(self, obs: Observation) -> None:
        self.nodes: dict[int, Attempt] = {0: self.root}
        self.children: dict[int, list[int]] = {0: []}
        self.depth_of: dict[int, int] = {0: 0}
        self.frontier: list[int] = [0]
        self.level: list[int] = []  # children made at this level so far
        self.pos = 0  # expansions done at this level

    def _scheduled_parent(self) -> int:
        return self.frontier[min(self.pos // self.branch, len(self.frontier) - 1)]

    def observe(self, attempt: Attempt) -> None:
        parent = attempt.notes.get("parent")
        if parent not in self.nodes:
            parent = self._scheduled_parent()
        self.nodes[attempt.round] = attempt
        self.children.setdefault(parent, []).append(attempt.round)
        self.children[attempt.round] = []
        self.depth_of[attempt.round] = self.depth_of[parent] + 1
        self.level.append(attempt.round)
        self.pos += 1
        if self.pos >= len(self.frontier) * self.branch:
            best = rank([self.nodes[i] for i in self.level])[:self.beam]
            if best:
                self.frontier = [b.round for b in best]
            self.level, self.pos = [], 0

    def propose(self, obs: Observation, step: Step) -> Proposal:
        parent = self._scheduled_parent()
        tried = [self.nodes[c] for c in self.children.get(parent, [])]
        lines = [f"- attempt {c.round} ({c.score_text()}): {c.diagnosis.strip()[:400] or '(no diagnosis)'}"
                 for c in tried]
        chat = design_chat(obs, self.nodes[parent], [("Ideas already tried from this design", "\n".join(lines))], ASK)
        return Proposal(chat, {"parent": parent, "depth": self.depth_of[parent] + 1, "frontier": list(self.frontier),
                               "siblings": [c.round for c in tried]})
