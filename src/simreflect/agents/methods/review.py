"""review: after a failed attempt a reviewer prompt drafts advisory feedback, and the agent retries
with it. The reviewer is the same endpoint asked a different question (one auxiliary call per round
from round 2); its advice is appended to the round's last message and recorded with the round
(`notes["review"]`, and the reviewer's chat in `notes["review_prompt"]`). Only the latest advice is
shown: the method keeps no other state.
"""

from __future__ import annotations

from typing import Any

from simreflect.agents.base import Observation
from simreflect.agents.methods.base import Method, Proposal, Step, aux_text, last_user, task_text, with_section
from simreflect.core.records import Attempt

REVIEWER_SYSTEM = """\
You review a failed attempt. You are shown the task, and the verifier's report on the latest
program. In at most 150 words, say what most likely went wrong and what the next attempt should
check or change. Be specific to the report; do not write the program.
"""

ADVICE_TITLE = "Advisory feedback from a reviewer (it may be wrong)"


class ReviewedAgent(Method):
    method = "review"

    def setup(self, obs: Observation) -> None:
        self.advice = ""

    def learn(self, obs: Observation, latest: Attempt, step: Step) -> dict[str, Any] | None:
        chat = [{"role": "system", "content": REVIEWER_SYSTEM},
                {"role": "user", "content": f"## The task\n{task_text(obs)}\n\n## The latest report\n"
                                            f"{last_user(obs.messages)}"}]
        advice = aux_text(step.ask("review", chat))
        step.notes.update(review=advice, review_prompt=chat)
        if not advice:
            step.fail("empty review")
            return {"review": "", "error": "empty review"}
        return {"review": advice}

    def absorb(self, learned: dict[str, Any]) -> None:
        self.advice = str(learned.get("review") or "")

    def propose(self, obs: Observation, step: Step) -> Proposal:
        if obs.round == 1 or not self.advice:
            return Proposal(tuple(obs.messages))
        return Proposal(with_section(tuple(obs.messages), ADVICE_TITLE, self.advice))
