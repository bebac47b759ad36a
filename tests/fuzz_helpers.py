"""Hostile inputs for the property tests of everything that reads untrusted data.

`fuzz(n, inputs, check)` runs `check` on `n` generated inputs with a fixed seed (derandomized,
no example database) and returns how many it ran; `SIZES` is the quick size and the slow one.
Inputs come in batches: hypothesis' structured examples and seeded byte-level mutations of them.
The strategies make what an attacker would send: JSON with deep nesting, huge integers, NaN and
Infinity tokens, lone surrogates, invalid UTF-8, huge strings and wrong types, then byte-level
mutations of it; .npy and .npz files with mangled headers, absurd shapes, wrong dtypes, extra or
missing members, and cut or flipped bytes.
"""

from __future__ import annotations

import io
import json
import math
import random
import warnings
import zipfile
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

#: Hostile inputs per entry point: the default run, and the slow run (-m slow).
QUICK, SLOW = 2_000, 10_000
SIZES = [pytest.param(QUICK, id="quick"), pytest.param(SLOW, id="slow", marks=pytest.mark.slow)]


#: Inputs per generated example: hypothesis' cost is per example, so each carries a batch.
PER_EXAMPLE = 8


def fuzz(n: int, inputs: st.SearchStrategy[list], check: Callable[[Any], None]) -> int:
    """Run `check` on `n` inputs with a fixed seed (derandomized, no example database) and return
    how many it ran. `inputs` makes lists of inputs (`each`, `with_mutations`)."""
    calls = 0

    @settings(max_examples=-(-n // PER_EXAMPLE), derandomize=True, deadline=None, database=None,
              print_blob=False, suppress_health_check=list(HealthCheck))
    @given(inputs)
    def run(batch: list[Any]) -> None:
        nonlocal calls
        for example in batch:
            if calls < n:
                calls += 1
                check(example)

    run()
    return calls


def each(strategy: st.SearchStrategy) -> st.SearchStrategy[list]:
    """PER_EXAMPLE independent inputs of `strategy` to an example."""
    return st.lists(strategy, min_size=PER_EXAMPLE, max_size=PER_EXAMPLE)


def mutate(data: bytes, seed: int) -> bytes:
    """`data` with one to four byte-level edits chosen by `seed`: inserted junk or brackets, cut,
    duplicated or flipped bytes (a cheap mutation fuzzer on top of hypothesis' structured inputs)."""
    rng = random.Random(seed)
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.choice(("insert", "delete", "flip", "truncate", "duplicate", "brackets"))
        at = rng.randint(0, len(out))
        if op == "insert":
            out[at:at] = rng.randbytes(rng.randint(1, 8))
        elif op == "delete":
            del out[at:at + rng.randint(1, 8)]
        elif op == "flip" and out:
            i = min(at, len(out) - 1)
            out[i] = rng.choice((0xFF, 0x80, 0xC0, 0xED, 0x00, ord("["), ord('"'), ord("\\"), out[i] ^ 1))
        elif op == "truncate":
            del out[at:]
        elif op == "duplicate":
            out[at:at] = out[max(0, at - 16):at] * rng.randint(1, 50)
        elif op == "brackets":
            out[at:at] = rng.choice((b"[", b'{"k":')) * rng.randint(1, 3000)
    return bytes(out)


def paired(inputs: st.SearchStrategy[list], other: st.SearchStrategy) -> st.SearchStrategy[list[tuple]]:
    """Each input of a batch paired with one value of `other` (a limits object, say)."""
    return st.tuples(inputs, other).map(lambda t: [(x, t[1]) for x in t[0]])


def with_mutations(base: st.SearchStrategy[bytes]) -> st.SearchStrategy[list[bytes]]:
    """A base input of `base` and PER_EXAMPLE - 1 mutations of it."""
    return st.tuples(base, st.integers(0, 2 ** 32)).map(
        lambda t: [t[0]] + [mutate(t[0], t[1] + i) for i in range(PER_EXAMPLE - 1)])


# ----- JSON -----------------------------------------------------------------------------------------

SURROGATES = st.integers(0xD800, 0xDFFF).map(chr)
HOSTILE_TEXT = st.one_of(
    st.text(max_size=20),
    st.lists(st.one_of(st.characters(), SURROGATES), max_size=12).map("".join),
    st.sampled_from(["", "ground", "steel", "\x00", "\u2028", "\ufeff", "NaN", "1e999", "[[[[", '"', "\\"]),
    st.sampled_from([64, 65]).map(lambda n: "a" * n),  # at and past the small string limit
)
HUGE_INTS = st.one_of(st.integers(), st.integers(-(10 ** 600), 10 ** 600),
                      st.sampled_from([2 ** 63, -(2 ** 63) - 1, 2 ** 1024, 10 ** 400, -(10 ** 4000)]))
FLOATS = st.floats(allow_nan=True, allow_infinity=True)
SCALARS = st.one_of(st.none(), st.booleans(), HUGE_INTS, FLOATS, HOSTILE_TEXT)
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=6),
                                                       st.dictionaries(HOSTILE_TEXT, inner, max_size=6)),
                      max_leaves=40)


def dumps(value: Any) -> str:
    """JSON as a careless or hostile writer makes it: NaN/Infinity tokens, any int, surrogates as
    \\u escapes. (json.dumps cannot print an int past Python's digit limit: those become a digit run.)"""
    try:
        return json.dumps(value, allow_nan=True)
    except ValueError:  # an int of more than 4300 digits
        return "1" * 5000


def deep(depth: int, opener: str) -> str:
    if opener == "[":
        return "[" * depth + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


DEEP_DOCS = st.builds(deep, st.integers(0, 20_000), st.sampled_from(["[", "{"]))  # Python's json dies at ~1000
LONG_DOCS = st.sampled_from([100_000, 100_001, 1 << 20]).flatmap(
    lambda n: st.sampled_from(['"' + "a" * n + '"', '{"' + "k" * n + '": 1}', "[" + "0," * (n // 2) + "0]",
                               " " * n + "1"]))
NUMBER_DOCS = st.one_of(
    st.integers(1, 5_000).map(lambda n: "1" * n),
    st.integers(1, 5_000).map(lambda n: "-" + "9" * n + ".5e" + str(n)),
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1e308", "1e-400", "0.0e99999",
                     "[NaN]", '{"x": Infinity}', "1E400", "-0"]),
)
ESCAPE_DOCS = st.lists(st.sampled_from(['"\\ud800"', '"\\udfff"', '"\\ud83d\\ude00"', '"\\u0000"', '"\\"', '"\\\\"',
                                        '"\\x"', '"\\u12"', '"\\"[[["']), min_size=1, max_size=8).map(
    lambda xs: "[" + ",".join(xs) + "]")


def json_docs(values: st.SearchStrategy = VALUES) -> st.SearchStrategy[bytes]:
    """Hostile JSON documents as bytes: values serialised carelessly, the special documents, noise."""
    plain = st.one_of(values.map(dumps), DEEP_DOCS, NUMBER_DOCS, ESCAPE_DOCS, LONG_DOCS).map(
        lambda s: s.encode("utf-8", "surrogatepass"))
    return st.one_of(plain, st.binary(max_size=300))


def hostile_json(values: st.SearchStrategy = VALUES) -> st.SearchStrategy[list[bytes]]:
    """Batches of hostile JSON: documents and byte-level mutations of them."""
    return with_mutations(json_docs(values))


# ----- what a reader accepted ---------------------------------------------------------------------

def assert_within_json(value: Any, limits: Any) -> None:
    """An accepted JSON value really is within `limits` (an independent walk of it)."""
    stack, items = [(value, 1)], 0
    while stack:
        v, depth = stack.pop()
        items += 1
        if isinstance(v, (list, dict)):
            assert depth <= limits.max_depth
            children = list(v.values()) if isinstance(v, dict) else v
            if isinstance(v, dict):
                for k in v:
                    assert isinstance(k, str)
                    _assert_text(k, limits)
            stack.extend((c, depth + 1) for c in children)
        elif isinstance(v, str):
            _assert_text(v, limits)
        elif isinstance(v, bool) or v is None:
            pass
        elif isinstance(v, int):
            assert len(str(abs(v))) <= limits.max_int_digits and abs(v) <= limits.max_abs
        else:
            assert isinstance(v, float)
            if limits.nonfinite == "refuse":
                assert math.isfinite(v)
            if math.isfinite(v):
                assert abs(v) <= limits.max_abs
    assert items <= limits.max_items


def _assert_text(s: str, limits: Any) -> None:
    assert len(s) <= limits.max_string_chars
    if limits.surrogates != "keep":
        s.encode("utf-8")  # no lone surrogate left


def assert_writable(text: str) -> None:
    """Text that can go into a file, a record and an HTTP body (what failed with a lone surrogate)."""
    text.encode("utf-8")
    json.dumps(text, ensure_ascii=False).encode("utf-8")


# ----- arrays ---------------------------------------------------------------------------------------

DTYPES = st.sampled_from(["<f8", ">f8", "<f4", "<i4", ">i8", "|u1", "|b1", "<c16", "<U3", "|S2", "<m8[s]",
                          "<f2"])


@st.composite
def arrays(draw: st.DrawFn) -> np.ndarray:
    dtype = np.dtype(draw(DTYPES))
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=3)))
    n = int(np.prod(shape)) if shape else 1
    raw = draw(st.binary(min_size=n * dtype.itemsize, max_size=n * dtype.itemsize))
    return np.frombuffer(raw, dtype=dtype).reshape(shape) if n else np.zeros(shape, dtype)


def npy_bytes(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=False)
    return buf.getvalue()


@st.composite
def npy_headers(draw: st.DrawFn) -> bytes:
    """An .npy file whose header says anything: absurd or negative shapes, odd dtypes, junk."""
    shape = draw(st.one_of(st.lists(st.one_of(st.integers(-5, 10), st.integers(0, 10 ** 30)), max_size=40).map(tuple),
                           st.sampled_from(["(", "()", "(1,)*1000", "[3]", "None", "'x'", "(" * 300])))
    descr = draw(st.sampled_from(["'<f8'", "'|O'", "'<U5'", "[('a', '<f8')]", "('<f8', (1000000000,))", "'V8'",
                                  "'zz'", "1", "'<f8'*1000", "'>i4'"]))
    order = draw(st.sampled_from(["False", "True", "1", "'no'"]))
    text = "{'descr': %s, 'fortran_order': %s, 'shape': %s, }" % (descr, order, shape)
    if draw(st.booleans()):
        text = draw(st.text(max_size=200))
    header = text.encode("latin1", "replace")
    version = draw(st.sampled_from([b"\x01\x00", b"\x02\x00", b"\x03\x00", b"\x09\x09"]))
    length = len(header).to_bytes(2 if version == b"\x01\x00" else 4, "little")
    if draw(st.booleans()):
        length = draw(st.binary(min_size=len(length), max_size=len(length)))
    return b"\x93NUMPY" + version + length + header + draw(st.binary(max_size=64))


def zipped(members: list[tuple[str, bytes]], compressed: bool) -> bytes:
    """A zip of `members` under any names (empty, duplicated, with slashes) as an attacker writes it."""
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about duplicate names
        with zipfile.ZipFile(buf, "w") as z:
            for name, data in members:
                info = zipfile.ZipInfo(name)
                info.compress_type = zipfile.ZIP_DEFLATED if compressed else zipfile.ZIP_STORED
                z.writestr(info, data)
    return buf.getvalue()


NAMES = st.one_of(st.sampled_from(["x", "samples", "a.npy", "", "dir/", "../x", "x" * 100, "\x00", "é"]),
                  st.text(max_size=10))


@st.composite
def npz_archives(draw: st.DrawFn) -> bytes:
    """.npz bytes: real arrays, hostile headers and non-npy members under any names."""
    members = []
    for _ in range(draw(st.integers(0, 5))):
        name = draw(NAMES)
        body = draw(st.one_of(arrays().map(npy_bytes), npy_headers(), st.binary(max_size=64)))
        members.append((name + (".npy" if draw(st.booleans()) else ""), body))
    return zipped(members, draw(st.booleans()))
