"""core/untrusted.py: the bounded readers, rule by rule, then fuzzed with hostile inputs.

Each known crash of the old readers is reproduced here against the bare library call it came from
(json.loads, float(), np.load, str.encode) and then shown refused with a reason. The property tests
run thousands of hostile inputs per reader (fuzz_helpers): every one is either a value within the
limits (checked by an independent walk) or a Refusal with a reason; nothing else is ever raised.
"""

from __future__ import annotations

import io
import json
import zipfile
import zlib

import numpy as np
import pytest
from fuzz_helpers import (
    HOSTILE_TEXT,
    QUICK,
    SIZES,
    VALUES,
    arrays,
    assert_within_json,
    assert_writable,
    dumps,
    each,
    fuzz,
    hostile_json,
    npy_bytes,
    npy_headers,
    npz_archives,
    paired,
    with_mutations,
    zipped,
)
from hypothesis import strategies as st

from simreflect.core.untrusted import (
    ArrayLimits,
    JsonLimits,
    Refusal,
    _nesting,
    clean_text,
    finite_float,
    load_json,
    load_json_prefix,
    load_npy,
    load_npz,
    text_problem,
)


def refused(fn, *args, kind: str | None = None) -> Refusal:
    with pytest.raises(Refusal) as e:
        fn(*args)
    assert str(e.value)
    if kind is not None:
        assert e.value.kind == kind, (e.value.kind, str(e.value))
    return e.value


# ----- the known crashes, then their refusal ---------------------------------------------------------

def test_deep_nesting_crashed_json_and_is_refused_before_the_parse():
    doc = "[" * 100_000 + "]" * 100_000
    with pytest.raises(RecursionError):
        json.loads(doc)
    e = refused(load_json, doc, kind="depth")
    assert "nests deeper than 64 levels" in str(e)
    assert "deeper than 5 levels" in str(refused(load_json, '{"a":' * 6 + "1" + "}" * 6, JsonLimits(max_depth=5)))
    assert load_json("[" * 64 + "]" * 64) == eval("[" * 64 + "]" * 64)


def test_hundreds_of_digits_crashed_float_and_are_refused():
    with pytest.raises(OverflowError):
        float(json.loads("1" + "0" * 400))
    with pytest.raises(ValueError, match="4300"):
        json.loads("1" * 5000)
    assert "more than 32 digits" in str(refused(load_json, "1" + "0" * 400, kind="number"))
    assert "more than 32 digits" in str(refused(load_json, "-" + "1" * 5000, kind="number"))
    assert load_json("-" + "9" * 32) == -int("9" * 32)
    assert "beyond +-1e+06" in str(refused(load_json, "[1e7]", JsonLimits(max_abs=1e6), kind="number"))


def test_nan_and_infinity_follow_the_stated_rule():
    for doc in ("NaN", "[Infinity]", '{"a": -Infinity}', "1e999", "-1E400"):
        assert refused(load_json, doc, kind="nonfinite")
    allowed = load_json("[NaN, Infinity, -Infinity, 1e999]", JsonLimits(nonfinite="allow"))
    assert np.isnan(allowed[0]) and allowed[1:] == [float("inf"), float("-inf"), float("inf")]


def test_a_lone_surrogate_crashed_the_writer_and_follows_the_stated_rule(tmp_path):
    from simreflect.core.sandbox import write_workspace_file

    text = json.loads('"x = \'\\ud800\'"')
    with pytest.raises(UnicodeEncodeError):
        write_workspace_file(tmp_path, "fix.py", text)
    e = refused(load_json, '{"name": ["ok", "\\ud800"]}', kind="surrogate")
    assert "U+D800" in str(e) and "$.name[1]" in str(e)
    fixed = load_json('{"\\udfff": "a\\ud800b", "k": ["\\ud801"]}', JsonLimits(surrogates="replace"))
    assert fixed == {"\ufffd": "a\ufffdb", "k": ["\ufffd"]}
    assert load_json('"\\ud800"', JsonLimits(surrogates="keep")) == "\ud800"
    assert load_json('"\\ud83d\\ude00"') == "\U0001F600"  # a pair is a character, not a lone surrogate


def test_sizes_strings_items_encoding_and_types_are_bounded():
    assert refused(load_json, b" " * (1 << 20 + 1), kind="size")
    assert refused(load_json, "x" * 11, JsonLimits(max_bytes=10), kind="size")
    assert refused(load_json, '"' + "a" * 101 + '"', JsonLimits(max_string_chars=100), kind="string")
    assert refused(load_json, '{"' + "k" * 101 + '": 1}', JsonLimits(max_string_chars=100), kind="string")
    assert refused(load_json, "[" + ",".join(["0"] * 11) + "]", JsonLimits(max_items=10), kind="items")
    assert load_json("[" + ",".join(["0"] * 9) + "]", JsonLimits(max_items=10)) == [0] * 9
    assert "at byte 1" in str(refused(load_json, b'"\xff"', kind="encoding"))
    assert refused(load_json, b"\xef\xbb\xbf{}", kind="syntax")  # a BOM is not JSON
    assert refused(load_json, 12, kind="type")
    assert "Extra data" in str(refused(load_json, "{} {}", kind="syntax"))


def test_nesting_is_counted_outside_strings_only():
    assert load_json('["' + "[" * 1000 + '"]') == ["[" * 1000]
    assert load_json('["\\\\", "\\"' + "[" * 100 + '"]') == ["\\", '"' + "[" * 100]
    assert _nesting(b'{"a": [1, {"b": "]]]]"}], "c": "\\"[["}', prefix=False) == 3
    # a value embedded in prose: only that value's nesting counts
    assert load_json_prefix('{"a": 1} and then ' + "[" * 500) == ({"a": 1}, 8)
    assert load_json_prefix("5 " + "[" * 500) == (5, 1)
    assert refused(load_json_prefix, '{"a": ' + "[" * 500, kind="depth")


def test_finite_float_never_raises():
    assert finite_float(3) == 3.0 and finite_float(2.5) == 2.5
    for v in (10 ** 400, float("nan"), float("inf"), True, "1", None, [1], {"v": 1}):
        assert finite_float(v) is None
    assert finite_float(2e6, max_abs=1e6) is None and finite_float(-1e6, max_abs=1e6) == -1e6


def test_limits_reject_unknown_rules():
    with pytest.raises(ValueError):
        JsonLimits(nonfinite="maybe")
    with pytest.raises(ValueError):
        JsonLimits(surrogates="drop")
    with pytest.raises(ValueError):
        ArrayLimits(nonfinite="sometimes")


# ----- arrays -----------------------------------------------------------------------------------------

def absurd_npy(shape: str = "(100000000000,)", descr: str = "'<f8'") -> bytes:
    header = ("{'descr': %s, 'fortran_order': False, 'shape': %s, }" % (descr, shape)).encode()
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + b"\0" * 16


def test_an_absurd_declared_shape_crashed_numpy_and_is_refused_before_allocating():
    blob = zipped([("x.npy", absurd_npy())], compressed=True)
    with pytest.raises(MemoryError):
        with np.load(io.BytesIO(blob)) as npz:
            npz["x"]
    e = refused(load_npz, blob)
    assert "declares 100000000000 values" in str(e)
    assert "declares 100000000000 values" in str(refused(load_npy, absurd_npy()))


def test_a_member_that_is_not_an_array_crashed_the_old_reader_and_is_refused():
    blob = zipped([("notes.txt", b"hello")], compressed=False)
    with np.load(io.BytesIO(blob)) as npz:
        assert isinstance(npz["notes.txt"], bytes)  # what read_raw then asked .dtype of
    assert "not a .npy array" in str(refused(load_npz, blob))
    assert "not a .npy array" in str(refused(load_npz, zipped([("x.npy", b"hello")], compressed=False)))


def test_real_archives_read_as_numpy_reads_them():
    buf = io.BytesIO()
    arrays = {"a": np.arange(6.0).reshape(2, 3), "b": np.asfortranarray(np.arange(6, dtype=">i4").reshape(3, 2)),
              "c": np.array([True, False]), "e": np.zeros((0, 4), np.float32), "n": np.array([np.nan, np.inf])}
    np.savez_compressed(buf, **arrays)
    got = load_npz(buf.getvalue())
    assert sorted(got) == sorted(arrays)
    for k, a in arrays.items():
        np.testing.assert_array_equal(got[k], a)
        assert got[k].dtype == a.dtype and got[k].shape == a.shape
    assert "NaN or infinite" in str(refused(load_npz, buf.getvalue(), ArrayLimits(nonfinite="refuse")))
    np.testing.assert_array_equal(load_npy(npy_bytes(arrays["b"])), arrays["b"])


def test_dtypes_and_shapes_outside_the_limits_are_refused():
    buf = io.BytesIO()
    np.save(buf, np.array([{"x": 1}], dtype=object), allow_pickle=True)
    assert "type object" in str(refused(load_npy, buf.getvalue()))  # never unpickled
    assert refused(load_npy, npy_bytes(np.array(["a"])))
    assert refused(load_npy, npy_bytes(np.zeros(3, np.complex128)))
    assert refused(load_npy, absurd_npy("(-1,)"))
    assert refused(load_npy, absurd_npy("(1,)" * 1 + "*3"))
    assert refused(load_npy, absurd_npy("(" + "1," * 9 + ")"))  # 9 dimensions
    assert "holds 16" in str(refused(load_npy, absurd_npy("(3,)")))  # declares 24 bytes, holds 16
    assert refused(load_npy, absurd_npy("(2,)", "('<f8', (1000000000,))"))
    assert "bytes after" in str(refused(load_npy, npy_bytes(np.zeros(2)) + b"x"))
    with pytest.raises(Exception) as crash:  # found by the fuzz test: numpy's own header parser
        np.load(io.BytesIO(absurd_npy("(")))
    assert not isinstance(crash.value, (ValueError, OSError))
    assert "unreadable .npy header" in str(refused(load_npy, absurd_npy("(")))
    header = b"\x93NUMPY\x02\x00" + (1 << 30).to_bytes(4, "little")
    assert "header of 1073741824 bytes" in str(refused(load_npy, header))  # never read


def test_archive_members_counts_names_and_totals_are_bounded():
    one = npy_bytes(np.zeros(10))
    assert "holds 3 members" in str(refused(load_npz, zipped([(f"a{i}.npy", one) for i in range(3)], False),
                                            ArrayLimits(max_members=2)))
    assert "two arrays named" in str(refused(load_npz, zipped([("a.npy", one), ("a.npy", one)], False)))
    assert refused(load_npz, zipped([(".npy", one)], False))
    assert refused(load_npz, zipped([("x" * 65 + ".npy", one)], False))
    limits = ArrayLimits(max_values=10, max_total_values=25)
    assert load_npz(zipped([("a.npy", one), ("b.npy", one)], False), limits).keys() == {"a", "b"}
    e = refused(load_npz, zipped([("a.npy", one), ("b.npy", one), ("c.npy", one)], False), limits)
    assert "more than the 5 read" in str(e)
    assert refused(load_npz, b"not a zip at all")
    assert refused(load_npz, zipped([("a.npy", one)], False)[:-40])
    assert refused(load_npz, "text")


def _bomb(shape: str, zeros: int) -> bytes:
    """A one-member npz whose member declares 1 GiB unpacked: an .npy header saying `shape`, then
    `zeros` zero bytes, deflated (a few KB)."""
    header = absurd_npy(shape)[:-16]
    body = zlib.compressobj(1, zlib.DEFLATED, -15)
    deflated = body.compress(header) + body.compress(bytes(zeros)) + body.flush()
    return _with_member(deflated, len(header) + (1 << 30))


@pytest.mark.parametrize("shape, zeros, words", [
    ("(134217728,)", 1 << 20, "declares 134217728 values"),  # the header asks for 1 GiB
    ("(10,)", 8 << 20, "bytes after its values"),  # a small header on top of a long stream
])
def test_a_zip_bomb_is_refused_without_being_inflated(shape, zeros, words):
    import tracemalloc

    bomb = _bomb(shape, zeros)
    assert len(bomb) < 64 << 10
    tracemalloc.start()
    try:
        e = refused(load_npz, bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert words in str(e)
    assert peak < 4 << 20  # the stream was not inflated into memory


def _with_member(deflated: bytes, size: int) -> bytes:
    """A one-member deflated zip whose member is `deflated`, declared `size` bytes unpacked."""
    import struct

    name = b"x.npy"
    crc = 0
    local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 8, 0, 0, crc, len(deflated), size, len(name), 0) + name
    central = struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 8, 0, 0, crc, len(deflated), size, len(name),
                          0, 0, 0, 0, 0, 0) + name
    offset = len(local) + len(deflated)
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 1, 1, len(central), offset, 0)
    return local + deflated + central + end


def test_a_huge_central_directory_is_refused_before_zipfile_reads_it():
    one = npy_bytes(np.zeros(1))
    many = zipped([(f"{i}.npy", one) for i in range(200)], False)  # 200 entries: about 8 KB of directory
    assert "directory too large" in str(refused(load_npz, many, ArrayLimits(max_members=2)))


# ----- text -------------------------------------------------------------------------------------------

def test_text_problems_and_their_clean_form():
    assert text_problem("print(1)\n", 100) is None
    assert "lone surrogate" in text_problem("x = '\ud800'", 100, "the program")
    assert "2 lone surrogates" in text_problem("\udfff\ud800", 100)
    assert "more than the 5" in text_problem("x" * 6, 5)
    assert "not text" in text_problem(b"x", 5)
    assert clean_text("ok", 10) == ("ok", [])
    text, notes = clean_text("a\ud800" * 4, 5)
    assert text == "a\ufffda\ufffda" and len(notes) == 2
    assert_writable(text)


# ----- property tests: thousands of hostile inputs per reader ---------------------------------------

JSON_LIMITS = [JsonLimits(), JsonLimits(max_bytes=4096, max_depth=8, max_items=50, max_string_chars=64,
                                        max_int_digits=6, max_abs=1e6, nonfinite="allow", surrogates="replace"),
               JsonLimits(surrogates="keep", nonfinite="allow")]


@pytest.mark.parametrize("n", SIZES)
def test_load_json_returns_a_bounded_value_or_refuses(n):
    def check(example):
        doc, limits = example
        try:
            value = load_json(doc, limits)
        except Refusal as e:
            assert str(e) and e.kind
            return
        assert_within_json(value, limits)

    assert fuzz(n, paired(hostile_json(), st.sampled_from(JSON_LIMITS)), check) == n


@pytest.mark.parametrize("n", SIZES)
def test_load_json_prefix_returns_a_bounded_value_or_refuses(n):
    def check(example):
        doc, tail = example
        text = doc.decode("utf-8", "replace") + tail
        try:
            value, end = load_json_prefix(text)
        except Refusal as e:
            assert str(e)
            return
        assert 0 < end <= len(text)
        assert_within_json(value, JsonLimits())

    assert fuzz(n, paired(hostile_json(), st.sampled_from(["", " and then [[[[[" * 40, "}", '"'])), check) == n


def test_the_nesting_count_is_the_true_depth_of_any_value():
    def depth(v) -> int:
        if isinstance(v, list):
            return 1 + max((depth(x) for x in v), default=0)
        if isinstance(v, dict):
            return 1 + max((depth(x) for x in v.values()), default=0)
        return 0

    def check(value):
        raw = dumps(value).encode("utf-8", "surrogatepass")
        assert _nesting(raw, prefix=False) == depth(value)
        assert _nesting(raw, prefix=True) == depth(value)

    assert fuzz(QUICK // 8, each(VALUES), check) == QUICK // 8


ARRAY_LIMITS = [ArrayLimits(), ArrayLimits(max_bytes=4096, max_members=3, max_ndim=2, max_values=20,
                                           max_total_values=30, kinds="f", nonfinite="refuse")]


def _assert_within_arrays(arrays: dict, limits: ArrayLimits) -> None:
    assert len(arrays) <= limits.max_members
    assert sum(a.size for a in arrays.values()) <= limits.max_total_values
    for name, a in arrays.items():
        assert isinstance(a, np.ndarray) and a.dtype.kind in limits.kinds and not a.dtype.hasobject
        assert a.ndim <= limits.max_ndim and a.size <= limits.max_values and 0 < len(name) <= limits.max_name_chars
        if limits.nonfinite == "refuse" and a.dtype.kind == "f":
            assert np.isfinite(a).all()


@pytest.mark.parametrize("n", SIZES)
def test_load_npz_returns_bounded_arrays_or_refuses(n):
    def check(example):
        data, limits = example
        try:
            arrays = load_npz(data, limits)
        except Refusal as e:
            assert str(e)
            return
        _assert_within_arrays(arrays, limits)

    assert fuzz(n, paired(with_mutations(npz_archives()), st.sampled_from(ARRAY_LIMITS)), check) == n


@pytest.mark.parametrize("n", SIZES)
def test_load_npy_returns_a_bounded_array_or_refuses(n):
    def check(example):
        data, limits = example
        try:
            a = load_npy(data, limits)
        except Refusal as e:
            assert str(e)
            return
        _assert_within_arrays({"x": a}, limits)

    docs = with_mutations(st.one_of(npy_headers(), arrays().map(npy_bytes)))
    assert fuzz(n, paired(docs, st.sampled_from(ARRAY_LIMITS)), check) == n


@pytest.mark.parametrize("n", SIZES)
def test_text_checks_never_raise_and_clean_text_is_writable(n):
    def check(text):
        problem = text_problem(text, 1000, "the answer")
        cleaned, notes = clean_text(text, 1000)
        assert_writable(cleaned)
        assert len(cleaned) <= 1000
        if problem is None:
            assert cleaned == text and not notes
        else:
            assert notes or not isinstance(text, str)

    texts = st.one_of(HOSTILE_TEXT, st.binary(max_size=10), st.integers(), st.none())
    assert fuzz(n, each(texts), check) == n


def test_an_empty_array_with_huge_sizes_is_refused_not_raised():
    """Found by the fuzz: a shape of (0, 2**62, 2**62) declares no values, so it passed the count, and
    numpy's reshape raised ValueError; every size is bounded on its own now."""
    import numpy.lib.format as npy_format

    header = io.BytesIO()
    npy_format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (0, 2**62, 2**62)})
    with pytest.raises(Refusal, match="a size above"):
        load_npy(header.getvalue(), ArrayLimits())
