"""The audit suite: reproduce a scientific claim with a self-contained numerical script.

A task is a claim card (one folder under `tasks/`); the agent's script prints one SUMMARY_JSON
(metrics, a positive control, a verdict) and saves raw arrays; a deterministic grader scores it
on the ladder of `ladder.toml`, re-running the script with a changed parameter and recomputing
the metrics from the raw arrays to catch hardcoded or fabricated numbers.
"""
