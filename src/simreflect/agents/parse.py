"""Reading a program out of a model's answer.

Preferred: a JSON object {"diagnosis": ..., "script": ...} (what structured output returns). Fallback:
the last fenced code block (```python ... ```), with the text around it as the diagnosis. Anything
else is an answer without a program, and the reason says why.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

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


def _json_object(text: str) -> dict | None:
    stripped = text.strip()
    if stripped.startswith("```"):
        inner = _FENCE.search(stripped + ("\n```" if stripped.count("```") == 1 else ""))
        stripped = inner.group(1).strip() if inner else stripped
    start = stripped.find("{")
    if start < 0:
        return None
    try:
        obj, _ = json.JSONDecoder().raw_decode(stripped[start:])
    except json.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) else None


def parse_answer(text: str | None) -> ParsedAnswer:
    if not text or not text.strip():
        return ParsedAnswer(None, "", "empty answer")
    obj = _json_object(text)
    if obj is not None and "script" in obj:
        script = obj.get("script")
        diagnosis = str(obj.get("diagnosis", ""))
        if isinstance(script, str) and script.strip():
            return ParsedAnswer(script if script.endswith("\n") else script + "\n", diagnosis)
        return ParsedAnswer(None, diagnosis, "the JSON answer has an empty or non-string 'script'")
    blocks = _FENCE.findall(text)
    blocks = [b for b in blocks if b.strip() and not b.lstrip().startswith("{")]
    if blocks:
        code = blocks[-1]
        diagnosis = _FENCE.sub("", text).strip()
        return ParsedAnswer(code if code.endswith("\n") else code + "\n", diagnosis)
    if obj is not None:
        return ParsedAnswer(None, str(obj.get("diagnosis", "")), "the JSON answer has no 'script' field")
    return ParsedAnswer(None, text.strip()[:2000], "no JSON object with a 'script' and no fenced code block")
