"""A fixture for tests/test_audit_ladder.py: the grader's ladder is exercised on synthetic
SUMMARY_JSONs and raw arrays, so this reference is never run. load_card requires the file."""
raise SystemExit("ladder fixture: not a runnable reference")
