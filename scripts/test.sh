#!/usr/bin/env bash
# Set up and run every test, slow ones included (pass extra pytest arguments through).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# every test, the slow ones too (a plain `pytest` leaves them out; see pyproject.toml), on every core
# (pytest-xdist; at most 4 workers, each test file on one worker so module fixtures are built once).
# Schemathesis's per-operation tests run in a process of their own: under xdist they report a pass
# without generating a single request.
SCHEMA_TESTS=tests/test_workshop_schemathesis.py
.venv/bin/python -m pytest -m "slow or not slow" -n auto --maxprocesses 4 --dist loadfile --durations=30 \
    --ignore="$SCHEMA_TESTS" "$@"
.venv/bin/python -m pytest -m "slow or not slow" "$SCHEMA_TESTS" "$@"
