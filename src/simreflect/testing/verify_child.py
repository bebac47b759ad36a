"""`python -m simreflect.testing.verify_child`: one verification in a fresh interpreter.

Reads {"suite": "module:Class", "options": {...}, "task": Task.to_dict(), "work": path} on stdin and
prints the verdict as one JSON line: how `check_suite` proves a verdict does not depend on what an
earlier call left in the process (caches, module state).
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

from simreflect.core.attempt import check_and_verify
from simreflect.core.task import Task


def main() -> int:
    request = json.loads(sys.stdin.read())
    module, _, name = request["suite"].partition(":")
    suite = getattr(importlib.import_module(module), name)().with_options(**request["options"])
    verdict, _ = check_and_verify(suite, Task.from_dict(request["task"]), Path(request["work"]))
    print(json.dumps(verdict.to_dict(), default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
