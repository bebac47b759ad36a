"""Reading a program out of a model's answer.

Preferred: a JSON object {"diagnosis": ..., "script": ...} (what structured output returns). Fallback:
the last fenced code block (```python ... ```), with the text around it as the diagnosis. Anything
else is an answer without a program, and the reason says why.

An answer is untrusted text: one longer than MAX_ANSWER_CHARS, or holding a lone surrogate (not
text: it could not even be written as the program's file), gives no program and says so; the
answer as recorded and shown again (`ParsedAnswer.text`, `clean_answer`) is cut to that length
with its surrogates replaced by U+FFFD. Its JSON is read within ANSWER_JSON_LIMITS (core.untrusted).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from simreflect.core.untrusted import JsonLimits, Refusal, clean_text, load_json_prefix, text_problem

#: The longest answer read (about 100k tokens).
MAX_ANSWER_CHARS = 400_000
#: An answer's JSON object: a few levels, strings as long as the answer; a lone surrogate refused
#: (inside the script it would make a program that cannot be written).
ANSWER_JSON_LIMITS = JsonLimits(max_bytes=MAX_ANSWER_CHARS, max_depth=16, max_items=10_000,
                                max_string_chars=MAX_ANSWER_CHARS, nonfinite="allow", surrogates="refuse")

ANSWER_SCHEMA = {
    "type": "object",
    "properties": {
        "diagnosis": {"type": "string", "description": "What is wrong and what the script changes."},
        "script": {"type": "string", "description": "The complete Python program."},
    },
    "required": ["diagnosis", "script"],
    "additionalProperties": False,
}

_FENCE = re.compile(r"```[ \t]*(?:python|py|python3)?[ \t]*\n(.*?)```", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class ParsedAnswer:
    program: str | None
    diagnosis: str
    error: str = ""
    text: str = ""  # the answer as it is recorded and shown again (`clean_answer`)


def clean_answer(text: str | None) -> str:
    """A model's answer as text that can be recorded, shown and sent again: cut to MAX_ANSWER_CHARS,
    lone surrogates replaced by U+FFFD."""
    return clean_text(text or "", MAX_ANSWER_CHARS)[0]


def _json_object(text: str) -> tuple[dict | None, str]:
    """The JSON object the answer starts with (inside a fence or after prose), and why an object
    that is there was not read ("" when there is none or it was read)."""
    stripped = text.strip()
    if stripped.startswith("```"):
        inner = _FENCE.search(stripped + ("\n```" if stripped.count("```") == 1 else ""))
        stripped = inner.group(1).strip() if inner else stripped
    start = stripped.find("{")
    if start < 0:
        return None, ""
    try:
        obj, _ = load_json_prefix(stripped[start:], ANSWER_JSON_LIMITS, "the JSON answer")
    except Refusal as e:
        return None, "" if e.kind == "syntax" else str(e)
    return (obj if isinstance(obj, dict) else None), ""


def parse_answer(text: str | None) -> ParsedAnswer:
    if not isinstance(text, str) or not text.strip():
        return ParsedAnswer(None, "", "empty answer", clean_answer(text if isinstance(text, str) else ""))
    shown = clean_answer(text)
    problem = text_problem(text, MAX_ANSWER_CHARS, "the answer")
    if problem is not None:
        return ParsedAnswer(None, "", f"{problem}; no program was taken from it", shown)
    obj, refused = _json_object(text)
    if obj is not None and "script" in obj:
        script = obj.get("script")
        diagnosis = str(obj.get("diagnosis", ""))
        if isinstance(script, str) and script.strip():
            return ParsedAnswer(script if script.endswith("\n") else script + "\n", diagnosis, "", shown)
        return ParsedAnswer(None, diagnosis, "the JSON answer has an empty or non-string 'script'", shown)
    blocks = _FENCE.findall(text)
    blocks = [b for b in blocks if b.strip() and not b.lstrip().startswith("{")]
    if blocks:
        code = blocks[-1]
        diagnosis = _FENCE.sub("", text).strip()
        return ParsedAnswer(code if code.endswith("\n") else code + "\n", diagnosis, "", shown)
    if refused:
        return ParsedAnswer(None, "", f"{refused}, and there is no fenced code block", shown)
    if obj is not None:
        return ParsedAnswer(None, str(obj.get("diagnosis", "")), "the JSON answer has no 'script' field", shown)
    return ParsedAnswer(None, text.strip()[:2000], "no JSON object with a 'script' and no fenced code block", shown)
