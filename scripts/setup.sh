#!/usr/bin/env bash
# Set up simreflect from scratch on Debian 12 with Python 3.11: system packages, a virtual
# environment in .venv, and the package with its test extras. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(python3-venv python3-dev ffmpeg bubblewrap chromium libegl1 libegl-mesa0 libgl1-mesa-dri libgbm1)
if command -v apt-get >/dev/null 2>&1; then
  missing=()
  for p in "${APT_PACKAGES[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
fi

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[dev]'

# Harbor's own task and verifier models, for the tests of `simreflect export harbor`. The harbor
# package needs Python 3.12 to install, but its pydantic models import under 3.11: its wheel is
# unpacked whole (dist-info included) into .harbor-models, which those tests put on sys.path; their
# other imports come with the dev extras.
HARBOR_VERSION="0.26.0"
if [ ! -f ".harbor-models/harbor-$HARBOR_VERSION.dist-info/METADATA" ]; then
  harbor_tmp="$(mktemp -d)"
  .venv/bin/python -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
      "harbor==$HARBOR_VERSION" -d "$harbor_tmp"
  rm -rf .harbor-models
  .venv/bin/python -m zipfile -e "$harbor_tmp"/harbor-"$HARBOR_VERSION"-*.whl .harbor-models
  rm -rf "$harbor_tmp"
  echo "setup: harbor $HARBOR_VERSION models unpacked in .harbor-models"
fi

# Blender as a Python module (pip package bpy) for the gait suite's blender interface, in its own
# virtual environment: bpy pins numpy<2, which must not meet the main environment. The suite finds
# it at .venv-blender/bin/python (or SIMREFLECT_BLENDER_PYTHON). bpy 5.0 wheels are for Python 3.11.
BPY_VERSION="5.0.1"
if [ "${SIMREFLECT_SKIP_BLENDER:-0}" != "1" ]; then
  if ! .venv-blender/bin/python -c "import importlib.metadata as m, sys; sys.exit(m.version('bpy') != '$BPY_VERSION')" \
      >/dev/null 2>&1; then
    if { [ -x .venv-blender/bin/python ] || "$PYTHON" -m venv .venv-blender; } \
        && .venv-blender/bin/python -m pip install -q --upgrade pip \
        && .venv-blender/bin/python -m pip install -q "bpy==$BPY_VERSION"; then
      echo "setup: bpy $BPY_VERSION installed in .venv-blender"
    elif [ "${CI:-}" = "true" ]; then
      echo "setup: could not install bpy $BPY_VERSION into .venv-blender (needs Python 3.11)" >&2
      exit 1
    else
      echo "setup: warning: bpy $BPY_VERSION not installed (needs Python 3.11); the gait blender interface" \
           "and its tests are skipped" >&2
    fi
  fi
fi
