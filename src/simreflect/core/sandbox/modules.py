"""The simreflect modules a sandbox may see: their source files and fresh bytecode."""

from __future__ import annotations

import os
from typing import Iterable


def _module_files(modules: Iterable[str]) -> list[str]:
    """The source (and cached bytecode) files of modules and of the packages above them."""
    import importlib.util

    files: list[str] = []
    for name in modules:
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            spec = importlib.util.find_spec(".".join(parts[:i]))
            if spec is None or not spec.origin or not os.path.isfile(spec.origin):
                raise ModuleNotFoundError(f"no source file for module {'.'.join(parts[:i])}")
            files.append(os.path.abspath(spec.origin))
            try:
                cached = importlib.util.cache_from_source(spec.origin)
            except (NotImplementedError, ValueError):
                continue
            if _ensure_bytecode(spec.origin, cached):
                files.append(cached)
    return list(dict.fromkeys(files))


_COMPILED: set[str] = set()


def _ensure_bytecode(source: str, cached: str) -> bool:
    """Write a module's bytecode next to its source unless a valid one is there (with
    PYTHONDONTWRITEBYTECODE nothing else writes it, and the sandbox cannot): otherwise every
    sandboxed start compiles the module again. False when there is none and it cannot be written
    (a read-only installation): the sandbox then compiles, as before."""
    if source not in _COMPILED:
        import py_compile

        try:
            if not _bytecode_is_current(source, cached):
                py_compile.compile(source, cfile=cached, doraise=True)
        except (OSError, py_compile.PyCompileError):
            pass
        _COMPILED.add(source)
    return os.path.isfile(cached)


def _bytecode_is_current(source: str, cached: str) -> bool:
    """Whether `cached` is what the import system would accept for `source`: this Python's magic
    number and the source's modification time and size in its header."""
    import importlib.util

    try:
        with open(cached, "rb") as f:
            header = f.read(16)
    except OSError:
        return False
    st = os.stat(source)
    return (len(header) == 16 and header[:4] == importlib.util.MAGIC_NUMBER
            and int.from_bytes(header[4:8], "little") == 0
            and int.from_bytes(header[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(header[12:16], "little") == st.st_size & 0xFFFFFFFF)
