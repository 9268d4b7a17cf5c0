"""Prompt-injection signals: recorded for moderation, never a reason to block.

Evidence is meant to contain model output, and model output legitimately talks about
instructions and system prompts, so these are hints for a human before anything is ranked,
not verdicts. As with secrets, cheap literal triggers pick the lines worth a closer look.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import re2

from benchmax.services.safety.hints import INJECTION_TRIGGERS, text_hints
from benchmax.services.safety.normalise import (
    LineCounter,
    first_invisible_offset,
    normalise_for_matching,
)

_MAX_SIGNALS = 100
_GRADER = r"(?:judge|grader|evaluator|reviewer|assessor|rater)s?"
_SIGNALS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "ignore_instructions",
        re.compile(
            r"\b(?:ignore|disregard|forget|override)\b.{0,40}?\b(?:previous|prior|above|"
            r"earlier|preceding|all|your|system)\b.{0,20}?\b(?:instructions?|prompts?|"
            r"directions?|rules|guidelines)\b"
        ),
    ),
    (
        "role_marker",
        re.compile(
            r"<\|im_start\|>\s*system|<\|start_header_id\|>\s*system|\[/?inst\]|<<sys>>|"
            r"^\s*(?:#{1,4}\s*)?system(?: prompt)?\s*:|^\s*</?system>"
        ),
    ),
    (
        "role_override",
        re.compile(
            r"\byou are now\b|\bfrom now on,? you\b|\bact as (?:an? )?(?:unrestricted|dan)\b"
        ),
    ),
    (
        "new_instructions",
        re.compile(r"\b(?:new|updated|real|hidden) (?:system )?instructions?\s*:"),
    ),
    (
        "grader_manipulation",
        re.compile(
            rf"\b(?:note|message|instructions?) (?:to|for) (?:the |any )?(?:ai )?{_GRADER}\b|"
            rf"\b{_GRADER}\b.{{0,60}}?\b(?:must|should|will|shall)\b.{{0,30}}?"
            r"\b(?:score|rate|grade|give|award|assign|mark)\b|"
            r"\b(?:give|assign|award|rate)\b.{0,30}?\b(?:score|rating|grade|marks?)\b.{0,20}?"
            r"(?:\b100\b|10\s*/\s*10|\bperfect\b|\bfull\b|\bmaximum\b|\bhighest\b)"
        ),
    ),
)
# Which of the trigger literals (``hints.INJECTIONINJECTION_TRIGGERS``, at least one of which every
# signal above contains) a text holds picks the lines worth a closer look; most texts hold
# none. For ASCII text the shared hint pass answers that. Other text is normalised and
# lower-cased first, then searched with one RE2 set over its UTF-8 bytes (Python has no fast
# multi-literal search: a pass of ``in`` per literal cost six times as much). Bytes are exact
# here: UTF-8 writes ASCII as itself and every other character without ASCII bytes, so an
# ASCII literal is in the bytes exactly when it is in the text. No signal needs more
# literals: "grade" also finds "grader", and a request for a perfect score always says
# "score" or names the grader.


def _trigger_set() -> Any:
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1  # plain bytes in, plain bytes compared
    options.literal = True  # "<|" is two characters, not an empty alternative
    triggers = re2.Set.SearchSet(options)
    for trigger in INJECTION_TRIGGERS:
        triggers.Add(trigger.encode())
    triggers.Compile()
    return triggers


_TRIGGER_SET = _trigger_set()


def _present_triggers(lowered: str) -> tuple[str, ...]:
    """The triggers that occur in ``lowered``, in ``INJECTION_TRIGGERS`` order so that the same ones
    always reuse the same cached pattern."""
    # surrogatepass: a str from JSON may hold lone surrogates; their bytes are never ASCII.
    found = _TRIGGER_SET.Match(lowered.encode("utf-8", "surrogatepass")) or ()
    return tuple(INJECTION_TRIGGERS[index] for index in sorted(found))


@functools.lru_cache(maxsize=256)
def _trigger_pattern(present: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(map(re.escape, present)))


def injection_signals(text: str) -> list[dict[str, Any]]:
    """``[{"code": ..., "line": n}, ...]`` in line order; never any of the text itself."""
    signals: list[dict[str, Any]] = []
    invisible = first_invisible_offset(text)
    if invisible is not None:
        invisible_line = LineCounter(text).locate(invisible)[0]
        signals.append({"code": "invisible_characters", "line": invisible_line})
    hints = text_hints(text)
    if hints is not None:
        present = hints.triggers
        if not present:
            return signals
        lowered = text.lower()
    else:
        lowered = normalise_for_matching(text).lower()
        present = _present_triggers(lowered)
        if not present:
            return signals
    lines = LineCounter(lowered)
    last_line_start = -1
    for hit in _trigger_pattern(present).finditer(lowered):
        line_start = lowered.rfind("\n", 0, hit.start()) + 1
        if line_start == last_line_start:
            continue
        last_line_start = line_start
        line_end = lowered.find("\n", hit.start())
        line = lowered[line_start : line_end if line_end >= 0 else len(lowered)]
        number = lines.locate(line_start)[0]
        signals.extend(
            {"code": code, "line": number} for code, pattern in _SIGNALS if pattern.search(line)
        )
        if len(signals) >= _MAX_SIGNALS:
            break
    return signals[:_MAX_SIGNALS]
