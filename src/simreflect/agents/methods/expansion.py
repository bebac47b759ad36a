"""The scheduler tree of thoughts and beam search share: expand a set of designs in turn.

Every verified attempt is a node; the root is the starting design. The current `parents` are
expanded one after another, `per_parent` children each, one verified attempt per child; when all of
them are expanded, `next_parents(batch)` (the subclass's selection rule) picks the next set from the
children just made and the nodes so far. A child's chat shows its parent (program and report) and
the children already made from it, under `tried_heading`, then asks `ask`. State is rebuilt from
`notes["parent"]` (a record without it is placed where the schedule would have put it).
"""

from __future__ import annotations

from typing import Any

from simreflect.agents.base import Observation
from simreflect.agents.methods.base import Method, Proposal, Step, design_chat, score_text
from simreflect.core.records import Attempt


class ExpansionSearch(Method):
    records_feedback = True  # a parent's report is shown again when it is expanded
    tried_heading = ""
    ask = ""
    per_parent = 1

    def setup(self, obs: Observation) -> None:
        self.nodes: dict[int, Attempt] = {0: self.root}
        self.children: dict[int, list[int]] = {0: []}
        self.parents: list[int] = [0]
        self.batch: list[int] = []  # children made from the current parents so far

    def scheduled_parent(self) -> int:
        return self.parents[min(len(self.batch) // self.per_parent, len(self.parents) - 1)]

    def observe(self, attempt: Attempt) -> None:
        parent = attempt.notes.get("parent")
        if parent not in self.nodes:
            parent = self.scheduled_parent()
        self.nodes[attempt.index] = attempt
        self.children.setdefault(parent, []).append(attempt.index)
        self.children[attempt.index] = []
        self.added(attempt, parent)
        self.batch.append(attempt.index)
        if len(self.batch) >= len(self.parents) * self.per_parent:
            self.parents = self.next_parents([self.nodes[i] for i in self.batch])
            self.batch = []

    def propose(self, obs: Observation, step: Step) -> Proposal:
        parent = self.scheduled_parent()
        tried = [self.nodes[c] for c in self.children.get(parent, [])]
        lines = [f"- attempt {c.index} ({score_text(c)}): {c.diagnosis.strip()[:400] or '(no diagnosis)'}"
                 for c in tried]
        chat = design_chat(obs, self.nodes[parent], [(self.tried_heading, "\n".join(lines))], self.ask)
        return Proposal(chat, {"parent": parent, **self.proposal_notes(parent, tried)})

    # --- what a search defines

    def added(self, attempt: Attempt, parent: int) -> None:
        """A child was added under `parent` (bookkeeping of the search's own)."""

    def next_parents(self, batch: list[Attempt]) -> list[int]:
        """The next set of parents, once every current parent has its children (`batch`)."""
        raise NotImplementedError

    def proposal_notes(self, parent: int, tried: list[Attempt]) -> dict[str, Any]:
        """What the search records with a proposal besides the parent."""
        return {}
