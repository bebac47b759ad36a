"""Adapters that hand simreflect's suites to other frameworks, each behind its own optional extra.

verifiers.py      PrimeIntellect's `verifiers` (extra `verifiers`): `load_environment(suite=...)`, a
                  multi-turn environment whose rollout is one episode of the suite's rounds and whose
                  reward is the suite's episode return
inspect_tasks.py  Inspect AI (extra `inspect`): `inspect eval simreflect/<suite>`, a task per suite
                  (dataset of its tasks, a solver that plays the rounds, a scorer of the verdict)
"""
