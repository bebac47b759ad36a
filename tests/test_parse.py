"""Reading programs out of model answers."""

from __future__ import annotations

import json

import pytest

from simreflect.agents.parse import parse_answer


def test_json_answer():
    p = parse_answer(json.dumps({"diagnosis": "knee", "script": "x = 1"}))
    assert p.program == "x = 1\n" and p.diagnosis == "knee" and not p.error


def test_json_inside_a_fence_and_prose():
    text = 'Here you go:\n```json\n{"diagnosis": "d", "script": "print(1)\\n"}\n```'
    assert parse_answer(text).program == "print(1)\n"


def test_fenced_code_fallback_takes_the_last_block():
    text = "First idea:\n```python\na = 1\n```\nBetter:\n```py\nb = 2\n```\n"
    p = parse_answer(text)
    assert p.program == "b = 2\n" and "Better" in p.diagnosis


@pytest.mark.parametrize(
    "text, reason",
    [
        ("", "empty answer"),
        ("   ", "empty answer"),
        ("The shin is bent; restore it.", "no JSON object"),
        ('{"diagnosis": "only words"}', "no 'script' field"),
        ('{"diagnosis": "d", "script": ""}', "empty or non-string"),
        ('{"diagnosis": "d", "script": 5}', "empty or non-string"),
        ('{"diagnosis": "d", "script": "x = 1"', "no JSON object"),  # cut off
    ],
)
def test_answers_without_a_program_say_why(text, reason):
    p = parse_answer(text)
    assert p.program is None and reason in p.error
