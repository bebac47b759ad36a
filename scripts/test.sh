#!/usr/bin/env bash
# Set up and run every test, slow ones included (pass extra pytest arguments through).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# every test, the slow ones too (a plain `pytest` leaves them out; see pyproject.toml)
.venv/bin/python -m pytest -m "slow or not slow" --durations=30 "$@"
