#!/usr/bin/env bash
# Set up and run every test, slow ones included (pass extra pytest arguments through).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# PACE-Bench's snapshot beside the checkout (shared/peers, as on CI) for the pacebench suite's tests;
# they skip, saying why, without one. Its code runs from there; its deps (Box2D, pygame) are in '.[dev]'.
if [ -z "${SIMREFLECT_PACEBENCH:-}" ] && [ -d ../shared/peers/PACE-Bench/src/pace_bench ]; then
  SIMREFLECT_PACEBENCH="$(cd ../shared/peers/PACE-Bench && pwd)"
  export SIMREFLECT_PACEBENCH
fi
# every test, the slow ones too (a plain `pytest` leaves them out; see pyproject.toml), on every core
# (pytest-xdist; at most 4 workers, each test file on one worker so module fixtures are built once).
# Schemathesis's per-operation tests run in a process of their own: under xdist they report a pass
# without generating a single request.
SCHEMA_TESTS=tests/test_workshop_schemathesis.py
.venv/bin/python -m pytest -m "slow or not slow" -n auto --maxprocesses 4 --dist loadfile --durations=30 \
    --ignore="$SCHEMA_TESTS" "$@"
.venv/bin/python -m pytest -m "slow or not slow" "$SCHEMA_TESTS" "$@"
