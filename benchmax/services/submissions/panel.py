"""Reading a bench gateway's panel reply into proposed setups for a batch.

A ``bench/<collection>`` call answers one prompt with every seat's answer: an OpenAI-compatible
chat completion whose ``bench`` field holds ``panel``, ``collection`` and ``seats[]``, each seat
``{call, seat, alias, status (ok|empty|error), seconds, answer, error}``. One line of the
gateway's calls log carries the same fields, under ``bench`` or on the line itself. The reply
does not carry the prompt: the contributor gives it, and the reasoning, before submitting.

Nothing in the reply is trusted. It is bounded before it is parsed; every seat whose status is
ok becomes a proposed setup only after its fields pass ``clean_fields`` — the checks typed text
passes, the secret check included — so an answer or alias holding a key, control characters
or a huge string is not proposed, and is listed with the reason instead. Text shown about a
skipped seat (its label, the gateway's error) is cut short, stripped of control characters and
withheld when it looks like a key. Parsing stores nothing.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from benchmax.services.errors import Invalid, ServiceError, TooLarge
from benchmax.services.safety import check_text_field
from benchmax.services.submissions.batch import MAX_SETUPS
from benchmax.services.submissions.fields import clean_fields

# Fits one message of the page's live connection (1 MB) with room to spare; longer answers
# belong in a file on their own Test.
MAX_REPLY_BYTES = 512 * 1024
HARNESS_PREFIX = "Benchwarmers"
STATUSES = ("ok", "empty", "error")
_SHOWN_CHARS = 80
_MAX_SECONDS = 7 * 24 * 3600  # a seat's time beyond a week is not a time
_WHAT_A_REPLY_IS = (
    "A panel reply is the gateway's answer to a bench/<collection> call (JSON with a bench "
    "field holding panel, collection and seats), or one line of its calls log."
)


@dataclass(frozen=True)
class ProposedSetup:
    """One ok seat as a setup, in the draft's field names; every field is the contributor's
    to edit before submitting."""

    position: int  # the seat's place in the reply, counted from 1
    seat: str
    seconds: float | None
    fields: dict[str, str]


@dataclass(frozen=True)
class SkippedSeat:
    position: int
    seat: str
    alias: str
    status: str
    reason: str


@dataclass(frozen=True)
class PanelProposal:
    panel: str
    collection: str
    setups: list[ProposedSetup] = field(default_factory=list)
    skipped: list[SkippedSeat] = field(default_factory=list)


def _not_a_reply(code: str, message: str) -> Invalid:
    return Invalid(code, f"{message} {_WHAT_A_REPLY_IS}", "panel_reply")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _load(text: str) -> Any:
    """The reply's one JSON value, or a message saying why there is none."""
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) > 1 and all(line.lstrip().startswith("{") for line in lines):
            raise _not_a_reply(
                "panel_reply_several_lines",
                f"This holds {len(lines)} lines of a calls log; paste just one of them.",
            ) from None
        raise _not_a_reply(
            "panel_reply_not_json",
            f"This is not valid JSON ({error.msg}, line {error.lineno}, column {error.colno}).",
        ) from None
    except (ValueError, RecursionError):
        # NaN or Infinity, a number too long to read, or nesting too deep to follow.
        raise _not_a_reply(
            "panel_reply_not_json", "This JSON holds values a reply never has."
        ) from None


def _bench(document: Any) -> Mapping[str, Any]:
    if not isinstance(document, dict):
        raise _not_a_reply("panel_reply_no_bench", "This JSON is not an object.")
    for holder in (document, document.get("response"), document.get("reply")):
        bench = holder.get("bench") if isinstance(holder, dict) else None
        if isinstance(bench, dict):
            return bench
    if "seats" in document:
        return document
    raise _not_a_reply("panel_reply_no_bench", "This JSON has no bench field.")


def shown(value: object, limit: int = _SHOWN_CHARS) -> str:
    """A reply's string as it may be shown beside a seat: one short line with no control
    characters, or nothing when it looks like a key."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return ""
    text = unicodedata.normalize("NFC", str(value))
    text = "".join(
        " " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in text
    )
    text = " ".join(text.split())
    if check_text_field("reply", text) is not None:
        return ""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _harness(bench: Mapping[str, Any]) -> tuple[str, str]:
    collection = bench.get("collection")
    if not isinstance(collection, str) or not collection.strip():
        raise _not_a_reply(
            "panel_reply_missing_collection",
            "bench.collection is missing: it names the harness (Benchwarmers <collection>).",
        )
    harness = f"{HARNESS_PREFIX} {collection.strip()}"
    try:
        clean_fields({"harness_label": harness})
    except ServiceError as refusal:
        raise _not_a_reply(
            "panel_reply_bad_collection", f"bench.collection cannot name the harness: {refusal}"
        ) from None
    return collection.strip(), harness


def _seats(bench: Mapping[str, Any]) -> list[Any]:
    seats = bench.get("seats")
    if not isinstance(seats, list):
        raise _not_a_reply("panel_reply_missing_seats", "bench.seats is missing or not a list.")
    if not seats:
        raise _not_a_reply("panel_reply_missing_seats", "bench.seats is empty.")
    if len(seats) > MAX_SETUPS:
        raise Invalid(
            "too_many_setups",
            f"This reply has {len(seats)} seats; a batch holds at most {MAX_SETUPS}.",
            "panel_reply",
        )
    return seats


def reply_too_large(size: int | None = None) -> TooLarge:
    measured = f"The reply is {size:,} bytes" if size else "The reply is too large"
    return TooLarge(
        "panel_reply_too_large",
        f"{measured}; at most {MAX_REPLY_BYTES:,} bytes can be imported. Put long answers in "
        "files on their own Tests.",
        "panel_reply",
    )


def read_panel_reply(raw: str | bytes) -> PanelProposal:
    """Proposed setups for each ok seat, and the seats left out with why; ``Invalid`` (or
    ``TooLarge``) naming what is missing when ``raw`` is not a panel reply."""
    size = len(raw) if isinstance(raw, bytes) else len(raw.encode("utf-8", "surrogatepass"))
    if size > MAX_REPLY_BYTES:
        raise reply_too_large(size)
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise _not_a_reply("panel_reply_not_json", "This is not UTF-8 text.") from None
    if not raw.strip():
        raise _not_a_reply("panel_reply_empty", "Paste or upload a panel reply.")
    bench = _bench(_load(raw))
    collection, harness = _harness(bench)
    proposal = PanelProposal(panel=shown(bench.get("panel")), collection=shown(collection))
    for position, seat in enumerate(_seats(bench), start=1):
        outcome = _seat(position, seat, harness)
        if isinstance(outcome, ProposedSetup):
            proposal.setups.append(outcome)
        else:
            proposal.skipped.append(outcome)
    return proposal


def _seconds(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if 0 <= value <= _MAX_SECONDS else None


def _seat(position: int, seat: Any, harness: str) -> ProposedSetup | SkippedSeat:
    if not isinstance(seat, dict):
        return SkippedSeat(position, "", "", "", "This seat is not a JSON object.")
    label, alias = shown(seat.get("seat")), shown(seat.get("alias"))
    status = seat.get("status")

    def skip(reason: str) -> SkippedSeat:
        return SkippedSeat(position, label, alias, shown(status, 16), reason)

    if status not in STATUSES:
        return skip("Its status is not one of ok, empty or error.")
    if status == "empty":
        return skip("The seat returned an empty answer (status empty).")
    if status == "error":
        error = shown(seat.get("error"), 200)
        return skip(
            f"The gateway reported an error: {error}" if error else "The gateway reported an error."
        )
    answer, model, call = seat.get("answer"), seat.get("alias"), seat.get("call", "")
    if not isinstance(model, str) or not model.strip():
        return skip("It has no alias, so the model is unknown.")
    if not isinstance(answer, str) or not answer.strip():
        return skip("Its status is ok but it holds no answer.")
    if not isinstance(call, str):
        return skip("Its call id is not text.")
    fields = {
        "model_label": model,
        "harness_label": harness,
        "reasoning_label": "",
        "output_text": answer,
        "gateway_call_id": call,
    }
    try:
        cleaned = clean_fields(fields)
    except ServiceError as refusal:
        return skip(f"Not proposed: {refusal.message}")
    return ProposedSetup(
        position,
        label,
        _seconds(seat.get("seconds")),
        {name: str(cleaned[name]) for name in fields},
    )
