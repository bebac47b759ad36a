"""The improve loop: after a failed attempt a reviewer prompt drafts advisory feedback, and the agent
retries with it. The reviewer is the same endpoint asked a different question; its call is counted as
an auxiliary call, and its advice is recorded with the round.
"""

from __future__ import annotations

from simreflect.agents.base import Action, Observation

REVIEWER_SYSTEM = """\
You review a failed attempt. You are shown the task, and the verifier's report on the latest
program. In at most 150 words, say what most likely went wrong and what the next attempt should
check or change. Be specific to the report; do not write the program.
"""


class ReviewedAgent:
    def __init__(self, inner):
        self.inner = inner
        self.name = f"{inner.name}+review"

    def act(self, observation: Observation) -> Action:
        messages = list(observation.messages)
        if observation.round == 1:
            return self.inner.act(observation)
        system = messages[0]["content"]
        review_chat = [{"role": "system", "content": REVIEWER_SYSTEM},
                       {"role": "user", "content": f"## The task\n{system}\n\n## The latest report\n{messages[-1]['content']}"}]
        advice, review_usage = self.inner.complete(review_chat)
        advised = dict(messages[-1])
        advised["content"] = (messages[-1]["content"] + "\n\n## Advisory feedback from a reviewer (it may be wrong)\n"
                              + advice.strip())
        sent = tuple(messages[:-1] + [advised])
        action = self.inner.act(Observation(observation.task, observation.level, observation.round,
                                            observation.budget, sent, observation.verdict))
        aux = type(review_usage)(review_usage.prompt_tokens, review_usage.completion_tokens, 0,
                                 review_usage.latency_s, review_usage.cached, review_usage.calls or 1)
        return Action(program=action.program, diagnosis=action.diagnosis, raw=action.raw, usage=action.usage + aux,
                      error=action.error, messages=sent, notes={"review": advice, "review_prompt": review_chat})
