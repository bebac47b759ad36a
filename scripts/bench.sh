#!/usr/bin/env bash
# The main job, offline: set up, build the gait benchmark (controls verified, GIFs rendered), then run
# the three model-free agents (oracle, noop, baseline) at evidence levels L1-L3 and print their tables.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
OUT="${OUT:-out/gait}"
SEED="${SEED:-0}"
WORKERS="${WORKERS:-$(nproc)}"
.venv/bin/simreflect gait build --out "$OUT/bench" --seed "$SEED"
for agent in oracle noop baseline; do
  .venv/bin/simreflect run gait --agent "$agent" --bench "$OUT/bench" --out "$OUT/runs/$agent" --workers "$WORKERS"
done
