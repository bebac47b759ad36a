"""Reading what crosses from the untrusted side: bytes in, a bounded value or a `Refusal` out.

Everything a program or a model leaves for the trusted side (artefacts in a work directory, replies
on a session's pipe, SUMMARY_JSON lines, array files, model answers, HTTP bodies) is read through
these functions, never with a bare `json.loads` or `np.load`. Each reader takes typed limits (a
frozen dataclass) and either returns a value within them or raises `Refusal`, whose message is one
sentence naming what was refused and why ("design reply nests deeper than 64 levels"). Callers
turn it into a verdict or a failed program; no reader raises anything else, on any input (the
property tests in tests/test_untrusted.py and tests/test_untrusted_entry_points.py fuzz the
readers and every entry point).

JSON (`load_json`, `load_json_prefix`): at most `max_bytes` of strict UTF-8; at most `max_depth`
levels of arrays and objects, measured on the raw bytes before the parse so that json's recursion
never runs deep; at most `max_items` values in all; strings and keys of at most `max_string_chars`;
integers of at most `max_int_digits` digits and every number within +-`max_abs`. The NaN/Inf rule
is the caller's, stated in its limits: `nonfinite="refuse"` refuses NaN, Infinity, -Infinity and
float literals that overflow (1e999); `"allow"` reads them as float nan/inf for a caller that
judges them per field. Lone surrogates (a "\\ud800" escape; not text, and fatal to whoever later
encodes the string as UTF-8) follow `surrogates`: refused, replaced by U+FFFD, or kept for a
caller that refuses them itself.

Arrays (`load_npy`, `load_npz`): each .npy header is read and judged (version, dtype kind, no
objects, shape, number of values, bytes actually present) before anything is allocated; an npz
archive is a plain zip of .npy members whose central directory, member count and total number of
values are bounded first; nothing is unpickled. NaN/Inf in values follow `nonfinite`.

Text (`text_problem`, `clean_text`): whether a string can be written as UTF-8 (no lone surrogates)
within a length, and its normalised form (surrogates replaced, cut to the length) with notes.
"""

from __future__ import annotations

import io
import json
import math
import re
import struct
import sys
import warnings
import zipfile
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.lib import format as npy_format

NONFINITE_RULES = ("refuse", "allow")
SURROGATE_RULES = ("refuse", "replace", "keep")
_SURROGATE = re.compile("[\ud800-\udfff]")


class Refusal(ValueError):
    """Untrusted input that is not read. The message is the reason, fit for a verdict; `kind` names
    the rule that refused it: syntax (not JSON, not .npy/.npz), encoding (not UTF-8), type, size,
    depth, items, string, number, nonfinite, surrogate or format (a well-formed file with
    contents outside the limits)."""

    def __init__(self, reason: str, kind: str = "format"):
        super().__init__(reason)
        self.kind = kind

    @property
    def reason(self) -> str:
        return str(self)


@dataclass(frozen=True)
class JsonLimits:
    """How much of what a JSON document may hold (see the module docstring)."""

    max_bytes: int = 1 << 20  # UTF-8 bytes of the document (characters, when given text)
    max_depth: int = 64  # nesting of arrays and objects
    max_items: int = 100_000  # values in the whole document (containers, keys' values, scalars)
    max_string_chars: int = 100_000  # each string and each key
    max_int_digits: int = 32
    max_abs: float = 1e300  # largest magnitude of a finite number
    nonfinite: str = "refuse"  # NaN, Infinity, -Infinity, 1e999: "refuse" or "allow"
    surrogates: str = "refuse"  # lone surrogates in strings: "refuse", "replace" (U+FFFD) or "keep"

    def __post_init__(self) -> None:
        if self.nonfinite not in NONFINITE_RULES:
            raise ValueError(f"nonfinite must be one of {NONFINITE_RULES}, not {self.nonfinite!r}")
        if self.surrogates not in SURROGATE_RULES:
            raise ValueError(f"surrogates must be one of {SURROGATE_RULES}, not {self.surrogates!r}")


# ----- JSON -----------------------------------------------------------------------------------------

_SPECIAL = np.zeros(256, bool)
_SPECIAL[[0x5B, 0x5D, 0x7B, 0x7D, 0x22, 0x5C]] = True  # [ ] { } " and backslash
_STEP = np.zeros(256, np.int64)
_STEP[[0x5B, 0x7B]], _STEP[[0x5D, 0x7D]] = 1, -1


def _nesting(raw: bytes, prefix: bool) -> int:
    """The deepest nesting of arrays and objects outside strings (the whole document, or with
    `prefix` only its first value). Vectorised and linear, on the structural bytes only: a quote
    opens or closes a string unless an odd run of backslashes precedes it (valid JSON has
    backslashes only inside strings; where a document is invalid, json stops at its first fault,
    before any place this count could be off)."""
    a = np.frombuffer(raw, np.uint8)
    at = np.flatnonzero(_SPECIAL[a])
    chars = a[at]
    quote = chars == 0x22
    if b"\\" in raw and quote.any():
        slash = at[chars == 0x5C]
        new_run = np.ones(slash.size, bool)
        new_run[1:] = slash[1:] != slash[:-1] + 1
        run_start = np.maximum.accumulate(np.where(new_run, np.arange(slash.size), 0))
        run_length = np.arange(slash.size) - run_start + 1
        q = at[quote]
        k = np.searchsorted(slash, q) - 1  # the last backslash before each quote
        before = np.where(k >= 0, slash[np.maximum(k, 0)], -2) == q - 1
        escaped = before & (run_length[np.maximum(k, 0)] % 2 == 1)
        quote[np.flatnonzero(quote)[escaped]] = False
    inside = (np.cumsum(quote, dtype=np.int64) % 2).astype(bool)  # a quote itself counts as inside or not: no step
    step = np.where(inside, 0, _STEP[chars])
    depth = np.cumsum(step)
    if prefix:
        body = raw.lstrip(b" \t\r\n")
        if not body[:1] or body[:1] not in b"[{":
            return 0  # the first value is a scalar: nothing after it is parsed
        closed = np.flatnonzero(depth <= 0)
        if closed.size:
            depth = depth[: int(closed[0]) + 1]
    return int(depth.max(initial=0))


def _decoder(limits: JsonLimits, what: str) -> json.JSONDecoder:
    if limits.nonfinite == "allow" and limits.max_abs == math.inf and limits.max_int_digits >= sys.get_int_max_str_digits():
        return json.JSONDecoder(strict=True)  # no number rule to apply: json's own (faster) number parsing
    top = min(limits.max_abs, sys.float_info.max)  # so that an infinity never passes as "within range"
    short_ints_fit = 10 ** limits.max_int_digits <= top

    def parse_int(s: str) -> int:
        if len(s) <= limits.max_int_digits and short_ints_fit:
            return int(s)  # the common case: few digits, within range
        if len(s.lstrip("-")) > limits.max_int_digits:
            raise Refusal(f"{what} holds an integer of more than {limits.max_int_digits} digits", "number")
        v = int(s)
        if abs(v) > top:
            raise Refusal(f"{what} holds a number beyond +-{top:g}", "number")
        return v

    def nonfinite(token: str) -> float:  # NaN, Infinity, -Infinity, or a float literal that overflows
        if limits.nonfinite == "refuse":
            raise Refusal(f"{what} holds {token[:40]}, which is not a finite number", "nonfinite")
        return float(token)

    def parse_float(s: str) -> float:
        v = float(s)
        if -top <= v <= top:  # false for NaN and the infinities too
            return v
        if not math.isfinite(v):
            return nonfinite(s)
        raise Refusal(f"{what} holds a number beyond +-{top:g}", "number")

    return json.JSONDecoder(parse_int=parse_int, parse_float=parse_float, parse_constant=nonfinite, strict=True)


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _needs_walk(text: str, raw: bytes, opens: int, limits: JsonLimits) -> bool:
    """Whether the parsed value could break the string, item or surrogate limits (else its walk is
    skipped): bounds read off the raw bytes (`opens` of them open an array or object), each an
    over-estimate."""
    n = len(raw)
    values = raw.count(b",") + opens + 1  # at least one separator per value
    if values > limits.max_items:
        return True
    if limits.max_string_chars < n:
        if b"\\" in raw:
            return True  # an escaped quote would split a string's span below
        quotes = np.flatnonzero(np.frombuffer(raw, np.uint8) == 0x22)
        if quotes.size and int(np.diff(quotes, prepend=0, append=n).max()) > limits.max_string_chars:
            return True
    if limits.surrogates != "keep":
        # bytes decoded as UTF-8 hold no surrogate: only a \uD800-\uDFFF escape makes one
        if _SURROGATE_ESCAPE.search(raw) or (not text.isascii() and _SURROGATE.search(text)):
            return True
    return False


def _as_text(data: bytes | bytearray | memoryview | str, limits: JsonLimits, what: str) -> tuple[str, bytes]:
    """The document as text and as UTF-8 bytes (for the nesting count), or a Refusal."""
    if isinstance(data, str):
        if len(data) > limits.max_bytes:
            raise Refusal(f"{what} is longer than {limits.max_bytes} characters", "size")
        return data, data.encode("utf-8", "surrogatepass")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise Refusal(f"{what} is not text or bytes but {type(data).__name__}", "type")
    raw = bytes(data)
    if len(raw) > limits.max_bytes:
        raise Refusal(f"{what} is larger than {limits.max_bytes} bytes", "size")
    try:
        return raw.decode("utf-8"), raw
    except UnicodeDecodeError as e:
        raise Refusal(f"{what} is not UTF-8 text ({e.reason} at byte {e.start})", "encoding") from None


def _path(parts: tuple[Any, ...]) -> str:
    out = "$"
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif p.isidentifier() and len(p) <= 40:
            out += "." + p
        else:
            out += f"[{p[:40]!r}]"
    return out


def _check_string(s: str, limits: JsonLimits, what: str, where: tuple[Any, ...]) -> str:
    if len(s) > limits.max_string_chars:
        raise Refusal(f"{what} holds a string longer than {limits.max_string_chars} characters at {_path(where)}",
                      "string")
    if limits.surrogates != "keep" and not s.isascii():
        m = _SURROGATE.search(s)
        if m is not None:
            if limits.surrogates == "refuse":
                raise Refusal(f"{what} holds a lone surrogate (U+{ord(m.group()):04X}), which is not text, "
                              f"at {_path(where)}", "surrogate")
            return _SURROGATE.sub("\ufffd", s)
    return s


def _check_value(value: Any, limits: JsonLimits, what: str) -> Any:
    """Walk the parsed value without recursion (depth, number of values, strings), replacing
    surrogates in place when asked to. Returns the value (a new string when it is one)."""
    if isinstance(value, str):
        return _check_string(value, limits, what, ())
    items = 0
    stack: list[tuple[Any, int, tuple[Any, ...]]] = [(value, 1, ())]
    while stack:
        node, depth, where = stack.pop()
        items += 1
        if not isinstance(node, (list, dict)):
            continue
        if depth > limits.max_depth:
            raise Refusal(f"{what} nests deeper than {limits.max_depth} levels", "depth")
        if isinstance(node, dict):
            keys = [(k, _check_string(k, limits, what, where + (k,))) for k in node]
            if any(new is not old for old, new in keys):  # a key's surrogate replaced: rebuild in place
                pairs = [(new, node[old]) for old, new in keys]
                node.clear()
                node.update(pairs)
            entries = node.items()
        else:
            entries = enumerate(node)
        for k, v in entries:
            if isinstance(v, str):
                items += 1
                fixed = _check_string(v, limits, what, where + (k,))
                if fixed is not v:
                    node[k] = fixed
            elif isinstance(v, (list, dict)):
                stack.append((v, depth + 1, where + (k,)))
            else:
                items += 1
        if items + len(stack) > limits.max_items:
            raise Refusal(f"{what} holds more than {limits.max_items} values", "items")
    return value


def _load(data: bytes | str, limits: JsonLimits, what: str, prefix: bool) -> tuple[Any, int]:
    text, raw = _as_text(data, limits, what)
    opens = raw.count(b"[") + raw.count(b"{")
    if opens > limits.max_depth and _nesting(raw, prefix) > limits.max_depth:
        raise Refusal(f"{what} nests deeper than {limits.max_depth} levels", "depth")
    decoder = _decoder(limits, what)
    try:
        if prefix:
            value, end = decoder.raw_decode(text)
        else:
            value, end = decoder.decode(text), len(text)
    except json.JSONDecodeError as e:
        raise Refusal(f"{what} is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}", "syntax") from None
    except Refusal:
        raise
    except ValueError:  # only without number hooks: an integer past Python's own digit limit
        raise Refusal(f"{what} holds an integer of more than {sys.get_int_max_str_digits()} digits", "number") from None
    except RecursionError:  # cannot happen after the nesting count; kept as the last line of defence
        raise Refusal(f"{what} nests deeper than {limits.max_depth} levels", "depth") from None
    return (_check_value(value, limits, what) if _needs_walk(text, raw, opens, limits) else value), end


def load_json(data: bytes | str, limits: JsonLimits = JsonLimits(), what: str = "the input") -> Any:
    """One JSON document (nothing but whitespace around it) within `limits`, or Refusal."""
    return _load(data, limits, what, prefix=False)[0]


def load_json_prefix(text: str, limits: JsonLimits = JsonLimits(), what: str = "the input") -> tuple[Any, int]:
    """The JSON value at the start of `text` and where it ends (json.JSONDecoder.raw_decode, bounded):
    for a value embedded in prose, such as a model's answer. Refusal when there is none within `limits`."""
    return _load(text, limits, what, prefix=True)


def finite_float(value: Any, max_abs: float = math.inf) -> float | None:
    """`value` as a float if it is a number (not a bool) that is finite and within +-max_abs, else
    None. Never raises (an int too large for a float is None, not OverflowError)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, int) and value.bit_length() > 1000:
        return None
    v = float(value)
    return v if math.isfinite(v) and abs(v) <= max_abs else None


# ----- arrays ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ArrayLimits:
    """How much an array file (.npy) or archive of them (.npz) may hold."""

    max_bytes: int = 64 << 20  # the file as stored
    max_members: int = 64  # arrays in an archive
    max_ndim: int = 8
    max_values: int = 16 << 20  # values in one array
    max_total_values: int = 32 << 20  # values in all arrays of an archive
    kinds: str = "biuf"  # numpy dtype kinds accepted: bool, signed, unsigned, float
    max_name_chars: int = 64  # an archive member's name, without ".npy"
    nonfinite: str = "allow"  # NaN or infinite values: "refuse" or "allow"

    def __post_init__(self) -> None:
        if self.nonfinite not in NONFINITE_RULES:
            raise ValueError(f"nonfinite must be one of {NONFINITE_RULES}, not {self.nonfinite!r}")


#: Errors a damaged zip or npy stream can raise from the standard library and numpy.
_STREAM_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, struct.error, EOFError, OSError, ValueError,
                  RuntimeError, KeyError, OverflowError, SyntaxError, TypeError, IndexError, MemoryError)
_EOCD = struct.Struct("<4s4H2LH")
_EOCD_SIGNATURE, _ZIP64_LOCATOR = b"PK\x05\x06", b"PK\x06\x07"
#: Central-directory bytes allowed per member (numpy writes about 100: a 46-byte entry, the name, a zip64 extra).
_CD_BYTES_PER_MEMBER = 1024


def _central_directory_size(data: bytes, what: str) -> int:
    """The central directory's size as zipfile will read it (it finds the end record the same way),
    so that a huge directory is refused before zipfile makes an object of every entry."""
    n = len(data)
    if n >= _EOCD.size and data[-_EOCD.size:-_EOCD.size + 4] == _EOCD_SIGNATURE and data[-2:] == b"\0\0":
        at = n - _EOCD.size
    else:
        at = data.rfind(_EOCD_SIGNATURE, max(0, n - (1 << 16) - _EOCD.size))
        if at < 0 or n - at < _EOCD.size:
            raise Refusal(f"{what} is not a zip archive (no end-of-directory record)", "syntax")
    if at >= 20 and data[at - 20:at - 16] == _ZIP64_LOCATOR:
        raise Refusal(f"{what} is a zip64 archive, which is not read")
    return _EOCD.unpack_from(data, at)[5]


def _read_exact(fp: Any, n: int) -> bytearray:
    """Up to `n` bytes of `fp` (fewer at its end), read in bounded chunks."""
    out = bytearray()
    while len(out) < n:
        chunk = fp.read(min(n - len(out), 1 << 22))
        if not chunk:
            break
        out += chunk
    return out


_NPY_MAGIC = b"\x93NUMPY"
_NPY_LENGTH_BYTES = {(1, 0): 2, (2, 0): 4}
#: Longest .npy header read (numpy's own default bound for headers it parses with literal_eval).
MAX_NPY_HEADER = 10_000


def _npy_header(fp: Any, what: str) -> tuple[tuple[int, ...], bool, np.dtype, int]:
    """Shape, Fortran order, dtype and header size of the .npy stream at `fp`. The header is read
    here (at most MAX_NPY_HEADER bytes) before numpy parses it, so a declared length never makes a
    large read."""
    magic = bytes(_read_exact(fp, len(_NPY_MAGIC) + 2))
    if len(magic) < len(_NPY_MAGIC) + 2 or not magic.startswith(_NPY_MAGIC):
        raise Refusal(f"{what} is not a .npy array (no .npy signature)", "syntax")
    version = (magic[-2], magic[-1])
    if version not in _NPY_LENGTH_BYTES:
        raise Refusal(f"{what} is in .npy format version {version[0]}.{version[1]}, which is not read")
    length = bytes(_read_exact(fp, _NPY_LENGTH_BYTES[version]))
    size = int.from_bytes(length, "little")
    if len(length) < _NPY_LENGTH_BYTES[version] or size > MAX_NPY_HEADER:
        raise Refusal(f"{what} has a .npy header of {size} bytes, more than the {MAX_NPY_HEADER} read")
    header = bytes(_read_exact(fp, size))
    if len(header) < size:
        raise Refusal(f"{what} is cut short inside its .npy header", "syntax")
    reader = npy_format.read_array_header_1_0 if version == (1, 0) else npy_format.read_array_header_2_0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numpy warns about headers written by Python 2
            shape, fortran, dtype = reader(io.BytesIO(length + header), max_header_size=MAX_NPY_HEADER)
    except Exception as e:  # noqa: BLE001 - numpy parses these bytes with literal_eval and tokenize, which
        # raise what they like on junk (tokenize.TokenError for "(, }" crashed numpy.load itself)
        raise Refusal(f"{what} has an unreadable .npy header ({type(e).__name__}: {str(e)[:200]})", "syntax") from None
    return shape, fortran, dtype, len(magic) + len(length) + size


def _read_npy(fp: Any, available: int, limits: ArrayLimits, what: str, budget: int) -> np.ndarray:
    """One .npy stream from `fp` holding `available` bytes; at most `budget` values may be read."""
    shape, fortran, dtype, header = _npy_header(fp, what)
    if dtype.hasobject or dtype.kind not in limits.kinds or dtype.itemsize == 0:
        raise Refusal(f"{what} holds values of type {str(dtype)[:60]}; only {_kinds_text(limits.kinds)} are read")
    if len(shape) > limits.max_ndim or any(d < 0 for d in shape):
        raise Refusal(f"{what} declares the shape {str(shape)[:80]}, not one of at most {limits.max_ndim} "
                      "non-negative sizes")
    count = math.prod(shape)
    allowed = min(limits.max_values, budget)
    if count > allowed:
        raise Refusal(f"{what} declares {count} values, more than the {allowed} read", "items")
    if any(d > limits.max_values for d in shape):  # (0, 2**62, 2**62) holds no values, but numpy cannot shape it
        raise Refusal(f"{what} declares the shape {str(shape)[:80]}: a size above {limits.max_values}", "items")
    nbytes = count * dtype.itemsize
    if nbytes > available - header:
        raise Refusal(f"{what} declares {nbytes} bytes of values but holds {max(0, available - header)}")
    try:
        buf = _read_exact(fp, nbytes)
    except _STREAM_ERRORS as e:
        raise Refusal(f"{what} cannot be read ({type(e).__name__}: {str(e)[:200]})", "syntax") from None
    if len(buf) != nbytes:
        raise Refusal(f"{what} is cut short: {len(buf)} of {nbytes} bytes of values", "syntax")
    arr = np.frombuffer(buf, dtype=dtype).reshape(shape, order="F" if fortran else "C")
    if limits.nonfinite == "refuse" and arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise Refusal(f"{what} holds NaN or infinite values", "nonfinite")
    return arr


def _kinds_text(kinds: str) -> str:
    names = {"b": "booleans", "i": "integers", "u": "unsigned integers", "f": "floats", "c": "complex numbers"}
    return ", ".join(names.get(k, k) for k in kinds)


def load_npy(data: bytes, limits: ArrayLimits = ArrayLimits(), what: str = "the array file") -> np.ndarray:
    """The array in .npy bytes (header judged before anything is allocated), or Refusal."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise Refusal(f"{what} is not bytes but {type(data).__name__}", "type")
    if len(data) > limits.max_bytes:
        raise Refusal(f"{what} is larger than {limits.max_bytes} bytes", "size")
    fp = io.BytesIO(bytes(data))
    arr = _read_npy(fp, len(data), limits, what, limits.max_values)
    if fp.read(1):
        raise Refusal(f"{what} has bytes after its values", "syntax")
    return arr


def load_npz(data: bytes, limits: ArrayLimits = ArrayLimits(), what: str = "the archive") -> dict[str, np.ndarray]:
    """The arrays of .npz bytes by name (".npy" dropped, as numpy.load names them), or Refusal.
    Every member must be a .npy array within `limits`; nothing is unpickled."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise Refusal(f"{what} is not bytes but {type(data).__name__}", "type")
    data = bytes(data)
    if len(data) > limits.max_bytes:
        raise Refusal(f"{what} is larger than {limits.max_bytes} bytes", "size")
    if _central_directory_size(data, what) > limits.max_members * _CD_BYTES_PER_MEMBER:
        raise Refusal(f"{what} has a directory too large for {limits.max_members} arrays")
    out: dict[str, np.ndarray] = {}
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            infos = z.infolist()
            if len(infos) > limits.max_members:
                raise Refusal(f"{what} holds {len(infos)} members, more than the {limits.max_members} read")
            budget = limits.max_total_values
            for info in infos:
                name = info.filename
                if not name.endswith(".npy"):
                    raise Refusal(f"{what} holds {name[:80]!r}, which is not a .npy array")
                key = name[:-4]
                if not key or len(key) > limits.max_name_chars or not key.isprintable():
                    raise Refusal(f"{what} holds an array named {key[:80]!r}: names are 1-{limits.max_name_chars} "
                                  "printable characters")
                if key in out:
                    raise Refusal(f"{what} holds two arrays named {key[:80]!r}")
                with z.open(info) as fp:
                    arr = _read_npy(fp, info.file_size, limits, f"array {key[:80]!r} in {what}", budget)
                    if fp.read(1):
                        raise Refusal(f"array {key[:80]!r} in {what} has bytes after its values", "syntax")
                budget -= arr.size
                out[key] = arr
    except Refusal:
        raise
    except _STREAM_ERRORS as e:
        raise Refusal(f"{what} is not a readable .npz archive ({type(e).__name__}: {str(e)[:200]})", "syntax") from None
    return out


# ----- text -----------------------------------------------------------------------------------------

def text_problem(text: Any, max_chars: int, what: str = "the text") -> str | None:
    """Why `text` cannot be taken as text to write as UTF-8 (not a string, longer than `max_chars`,
    a lone surrogate), or None when it can."""
    if not isinstance(text, str):
        return f"{what} is not text but {type(text).__name__}"
    if len(text) > max_chars:
        return f"{what} is {len(text)} characters long, more than the {max_chars} accepted"
    if not text.isascii():
        m = _SURROGATE.search(text)
        if m is not None:
            n = len(_SURROGATE.findall(text))
            return (f"{what} is not valid text: it holds {n} lone surrogate{'s' if n > 1 else ''} "
                    f"(U+{ord(m.group()):04X} at character {m.start()})")
    return None


def clean_text(text: Any, max_chars: int) -> tuple[str, list[str]]:
    """`text` as writable text: lone surrogates replaced by U+FFFD and cut to `max_chars`, with a
    note for each change (no notes: unchanged)."""
    notes: list[str] = []
    if not isinstance(text, str):
        notes.append(f"not text but {type(text).__name__}: read as empty")
        return "", notes
    if len(text) > max_chars:
        notes.append(f"cut from {len(text)} to {max_chars} characters")
        text = text[:max_chars]
    if not text.isascii():
        n = len(_SURROGATE.findall(text))
        if n:
            notes.append(f"{n} lone surrogate{'s' if n > 1 else ''} (not text) replaced by U+FFFD")
            text = _SURROGATE.sub("\ufffd", text)
    return text, notes
