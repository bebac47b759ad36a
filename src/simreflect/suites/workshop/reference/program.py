"""A reference controller as one self-contained program: the build's module with the skill library
(common.py) written into it, so the oracle runs in the sandbox with nothing of simreflect but the
HTTP client, exactly as an agent's program does. The library keeps one source of truth: the program
text is made from the two modules' sources every time.
"""

from __future__ import annotations

import ast
from importlib import resources

PACKAGE = "simreflect.suites.workshop.reference"
LIBRARY = "common"


def _source(module: str) -> str:
    return resources.files(PACKAGE).joinpath(f"{module}.py").read_text()


def _without(source: str, drop) -> str:
    """`source` without the top-level statements for which `drop(node)` is true."""
    tree = ast.parse(source)
    lines = source.splitlines()
    gone = set()
    for node in tree.body:
        if drop(node):
            gone.update(range(node.lineno - 1, node.end_lineno))
    return "\n".join(line for k, line in enumerate(lines) if k not in gone).strip("\n")


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _is_future(node: ast.stmt) -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == "__future__"


def _is_library_import(node: ast.stmt) -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == f"{PACKAGE}.{LIBRARY}"


def reference_program(build: str) -> str:
    """The reference controller of `build` with its skill library inlined: a program that imports
    nothing of simreflect but the client."""
    main = _source(build)
    doc = ast.get_docstring(ast.parse(main)) or f"Reference controller of the {build} build."
    library = _without(_source(LIBRARY), lambda n: _is_docstring(n) or _is_future(n))
    body = _without(main, lambda n: _is_docstring(n) or _is_future(n) or _is_library_import(n))
    header = f'"""{doc}\n\n(One program: reference/{LIBRARY}.py and reference/{build}.py, joined.)\n"""'
    return "\n\n".join([header, "from __future__ import annotations", f"# ----- reference/{LIBRARY}.py", library,
                        f"# ----- reference/{build}.py", body]) + "\n"
