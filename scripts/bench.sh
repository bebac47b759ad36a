#!/usr/bin/env bash
# The main job, offline: set up, build the gait benchmark, verify its controls, print its table.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/simreflect gait build --out "${OUT:-out/gait}" --seed "${SEED:-0}"
