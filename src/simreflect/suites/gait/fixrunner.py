"""Runs one fix script on a rig file, in its own process: `python -m simreflect.suites.gait.fixrunner WORKDIR SCRIPT`.

The script is executed with the rig in the global `rig` (plus `np` and `math`), and the edited rig is
written back to WORKDIR/rig.json. A script that raises leaves the rig file untouched and the process
exits with status 1 after printing the traceback.
"""

from __future__ import annotations

import math
import sys
import traceback
from pathlib import Path

import numpy as np

from simreflect.suites.gait.rig import Rig

RIG_FILE = "rig.json"


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m simreflect.suites.gait.fixrunner WORKDIR SCRIPT", file=sys.stderr)
        return 2
    workdir, script = Path(argv[0]), Path(argv[1])
    rig = Rig.load(workdir / RIG_FILE)
    source = script.read_text()
    try:
        code = compile(source, "fix.py", "exec")
    except SyntaxError:
        traceback.print_exc(limit=0)
        return 1
    namespace = {"__name__": "__main__", "rig": rig, "np": np, "math": math}
    try:
        exec(code, namespace)
    except SystemExit as e:
        if e.code not in (None, 0):
            print(f"fix script exited with status {e.code}", file=sys.stderr)
            return 1
    except BaseException:
        traceback.print_exc()
        return 1
    rig.save(workdir / RIG_FILE)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
