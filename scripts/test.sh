#!/usr/bin/env bash
# Set up and run every test, slow ones included (pass extra pytest arguments through).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m pytest "$@"
