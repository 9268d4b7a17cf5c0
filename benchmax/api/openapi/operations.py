"""What each existing ``/api/v1`` route takes and answers, for routes built by factories
(the moderation table, the action endpoints) whose handlers cannot carry a decorator each.

Keyed by ``(METHOD, path)`` exactly as the route is declared. **A new route** carries its
``Operation`` on its handler — ``Route(path, documented(Operation(...))(handler))`` — with
its parameters typed and bounded as the handler enforces them (``Param``: a length, a pattern,
an ``enum`` of the values it takes, or an integer's bounds), its answer the type the handler
builds its body from, ``security`` saying which credential it needs, and ``cached``,
``paged`` and ``limited`` for the headers it sends. ``tests/unit/test_openapi_document.py``
refuses a route without one, and the schemathesis test sends it generated requests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from benchmax.api.openapi.showcase_schemas import (
    BoardPageBody,
    LargestGroups,
    PublicKey,
    SnapshotDownload,
    SnapshotList,
    SnapshotRequested,
    Verification,
)
from benchmax.api.openapi.spec import Answer, Body, Operation, Param, label_text, written_text
from benchmax.api.submissions import API_FIELDS
from benchmax.models import ReportReason, ReviewState, Role, SourceVisibility
from benchmax.services.dates import IsoText
from benchmax.services.detail_view import EvidenceItem, TestView
from benchmax.services.feed import FeedPage
from benchmax.services.feed_order import SORTS
from benchmax.services.judge.card import JudgeCard
from benchmax.services.moderation.queues import Queues
from benchmax.services.moderation.reviews import ReviewEntry
from benchmax.services.prompts.groups import PromptGroup
from benchmax.services.safety import SafetyLimits
from benchmax.services.submissions.batch import MAX_SETUPS
from benchmax.services.submissions.fields import MAX_CALL_ID_CHARS, text_limits
from benchmax.services.submissions.files import UPLOAD_KEY_PATTERN
from benchmax.services.submissions.status import StatusView

ID_PATTERN = r"^[0-9a-hjkmnp-tv-z]{16}$"
HANDLE_PATTERN = r"^[a-z0-9][a-z0-9_-]{1,30}[a-z0-9]$"


def path_id(name: str) -> Param:
    return Param(name, "path", "A 16-character public id.", True, 16, ID_PATTERN)


TEST_ID = path_id("test_id")
HANDLE = Param("handle", "path", "The account's handle.", True, 32, HANDLE_PATTERN)
FEED_FILTERS = (
    Param("family", description="A model family's slug.", max_length=64),
    Param("model", description="A declared model label or catalog model.", max_length=200),
    Param("harness", description="A declared harness label or catalog harness.", max_length=200),
    Param("reasoning", description="A declared reasoning level.", max_length=100),
    Param("contributor", description="A contributor's handle (a leading @ is ignored).",
          max_length=32),
    Param("status", description="Where the Test stands with reviewers.",
          enum=tuple(ReviewState)),
    Param("q", description="Words that must all appear in the title, prompt or labels.",
          max_length=200),
    Param("compare", description="1: only Tests whose prompt two or more public Tests share.",
          enum=("1", "0")),
    Param("sort", description="top_score lists reviewed Tests only; relevance (with q) is its "
          "default. A cursor only works with the sort it came from.", enum=SORTS),
)  # fmt: skip


@dataclass(frozen=True)
class PublicEvidenceItem(EvidenceItem):
    url: str  # absolute, on the user-content origin


@dataclass(frozen=True)
class PublicTestView(TestView):
    evidence: list[PublicEvidenceItem]  # type: ignore[assignment]


class Accepted(BaseModel):
    id: str
    status: str = Field(description="Always processing: follow status_url.")
    status_url: str


class UploadedFile(BaseModel):
    id: str
    name: str
    state: str


class UploadCancelled(BaseModel):
    upload_key: str
    cancelled: bool


class ReviewList(BaseModel):
    items: list[ReviewEntry]


class ReviewAdded(BaseModel):
    review: ReviewEntry


class ReviewCreate(BaseModel):
    score: int = Field(ge=0, le=100, description="A whole number from 0 to 100.")
    reasoning: str = written_text(20, 5000, "Why this score, in at least 20 characters.")
    corrects_review_id: str | None = Field(
        default=None, description="The review this one corrects (a new entry; none is edited)."
    )


class ReportCreate(BaseModel):
    reason: ReportReason = Field(
        description="Why the Test (or one of its files) should be looked at."
    )
    details: str = Field(default="", max_length=2000)
    evidence_id: str | None = Field(default=None, pattern=ID_PATTERN)


class ReportRef(BaseModel):
    id: str
    state: str


class ReportMade(BaseModel):
    report: ReportRef


class DisputeCreate(BaseModel):
    reason: str = written_text(20, 2000, "Why the review is wrong, in at least 20 characters.")


class DisputeRef(BaseModel):
    id: str
    review_id: str
    state: str


class DisputeOpened(BaseModel):
    dispute: DisputeRef


class DecisionCreate(BaseModel):
    """Every decision needs a written reason (at least 10 characters; documented as 20, what
    overturning a review needs, since that reason becomes the correcting review)."""

    reason: str = written_text(20, 2000, "Why the decision was made.")
    report_id: str | None = Field(
        default=None, pattern=ID_PATTERN, description="The report this decision settles."
    )


class LabelDecision(DecisionCreate):
    label: str = label_text("The declared label.")
    kind: Literal["model", "harness"]


class LabelMapping(LabelDecision):
    target: str = Field(
        min_length=1, max_length=100, pattern=r"^[a-z0-9][a-z0-9-]*$",
        description="The catalog entry's slug.",
    )  # fmt: skip


class RoleDecision(DecisionCreate):
    role: Role = Field(description="The account's new role.")


class OverturnDecision(DecisionCreate):
    score: int = Field(ge=0, le=100, description="The score of the correcting review.")


class AliasDecision(DecisionCreate):
    other_key: str = Field(pattern=r"^[0-9a-f]{64}$", description="The prompt key to join.")


class Decision(BaseModel):
    id: str
    action: str
    target_type: str
    target_id: str
    previous_state: str
    next_state: str
    created_at: IsoText


class DecisionMade(BaseModel):
    decision: Decision


class AccountRef(BaseModel):
    handle: str
    role: str
    status: str


class AccountChanged(BaseModel):
    user: AccountRef


_TEXT_FIELDS = {
    "prompt": "The prompt given to the model.",
    "model": "The declared model, free text.",
    "model_version": "The declared model version.",
    "harness": "The declared harness, free text.",
    "reasoning": "The declared reasoning level.",
    "output": "The pasted output, Markdown (this or at least one file is required).",
    "title": "A title (the prompt's first line when none is given).",
    "settings": "Declared settings, free text.",
    "notes": "Notes.",
}
# What the wizard's field rules drop or refuse: control characters (line breaks and tabs are
# fine in prose), and any line break in a single-line field.
_PROSE = r"^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]*$"
_ONE_LINE = r"^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$"
_REQUIRED_TEXT = r"\S"  # a required field needs something besides spaces


def _text_field(api_name: str, required: bool) -> dict[str, Any]:
    most, single_line = text_limits()[API_FIELDS[api_name]]
    schema: dict[str, Any] = {
        "type": "string",
        "maxLength": most,
        "pattern": _ONE_LINE if single_line else _PROSE,
        "description": _TEXT_FIELDS[api_name],
    }
    if required:
        schema["allOf"] = [{"pattern": _REQUIRED_TEXT}]
        schema["minLength"] = 1
    return schema


_REQUIRED = ["prompt", "model", "harness", "reasoning"]
SUBMISSION_FORM: dict[str, Any] = {
    "type": "object",
    "properties": {
        **{name: _text_field(name, name in _REQUIRED) for name in _TEXT_FIELDS},
        "attempts": {
            "type": "string",
            "pattern": r"^([1-9][0-9]{0,5}|1000000)$",
            "description": "How many attempts this Test was picked from: 1 to 1,000,000.",
        },
        "source_visibility": {
            "type": "string",
            "enum": list(SourceVisibility),
            "description": "Who may download a source ZIP.",
        },
        "files": {
            "type": "array",
            "items": {
                "type": "string",
                "contentMediaType": "application/octet-stream",
                "minLength": 1,
            },
            "maxItems": SafetyLimits().test_max_files,
            "description": (
                "Evidence files: images, video, text or logs, a source ZIP. Each file's bytes "
                "must be of an accepted type (the server reads them, not the name's extension)."
            ),
        },
    },
    "required": _REQUIRED,
    # The model's output: pasted, or in at least one file.
    "anyOf": [
        {"required": ["output"], "properties": {"output": {"pattern": _REQUIRED_TEXT}}},
        {"required": ["files"], "properties": {"files": {"minItems": 1}}},
    ],
    "additionalProperties": False,
}
_ATTEMPTS_TEXT = {"type": "string", "pattern": r"^([1-9][0-9]{0,5}|1000000)$"}


def _batch_text(api_name: str, required: bool) -> dict[str, Any]:
    """A batch's JSON field: the same rules as the same field of the form."""
    if api_name == "attempts":
        return {**_ATTEMPTS_TEXT, "description": "How many attempts: 1 to 1,000,000, as text."}
    return _text_field(api_name, required)


_SETUP_REQUIRED = ["model", "harness", "reasoning", "output"]
_GATEWAY_CALL_ID = {
    "type": "string",
    "pattern": rf"^[A-Za-z0-9._:-]{{0,{MAX_CALL_ID_CHARS}}}$",
    "description": "The bench gateway's call id: a declared reference, shown as text.",
}
# The batch body, built from the form's field rules (a setup's output is required: a batch
# carries no files), so the two cannot drift apart.
BATCH_FORM: dict[str, Any] = {
    "type": "object",
    "properties": {
        **{name: _batch_text(name, name == "prompt") for name in ("prompt", "title", "notes")},
        "setups": {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_SETUPS,
            "items": {
                "type": "object",
                "properties": {
                    **{
                        name: _batch_text(name, name in _SETUP_REQUIRED)
                        for name in (*_SETUP_REQUIRED, "model_version", "settings", "attempts")
                    },
                    "gateway_call_id": _GATEWAY_CALL_ID,
                },
                "required": _SETUP_REQUIRED,
                "additionalProperties": False,
            },
        },
    },
    "required": ["prompt", "setups"],
    "additionalProperties": False,
}
_AUTH_ERRORS = (401, 403)
_DECISION_ERRORS = (400, *_AUTH_ERRORS, 404, 409, 413)


def _decision(
    summary: str, answer: Any = DecisionMade, body: type[DecisionCreate] = DecisionCreate
) -> Operation:
    return Operation(
        summary, "moderation", Answer(200, "The appended decision.", answer), _DECISION_ERRORS,
        body=Body(model=body), security="signed_in",
    )  # fmt: skip


_BODIES: dict[str, type[DecisionCreate]] = {
    "disputes/{dispute_id}/overturn": OverturnDecision,
    "labels/map": LabelMapping,
    "labels/leave": LabelDecision,
    "prompts/{key}/alias": AliasDecision,
    "/api/v1/users/{handle}/role": RoleDecision,
}


def _body_of(path: str) -> type[DecisionCreate]:
    return next((body for end, body in _BODIES.items() if path.endswith(end)), DecisionCreate)


def _moderation_table() -> dict[tuple[str, str], Operation]:
    base = "/api/v1/moderation"
    decisions = {
        f"{base}/tests/{{test_id}}/remove": "Remove a Test from public view",
        f"{base}/tests/{{test_id}}/restore": "Restore a removed Test",
        f"{base}/tests/{{test_id}}/hold/keep": "Keep a moderation hold on a Test",
        f"{base}/tests/{{test_id}}/hold/clear": "Clear a Test's moderation hold",
        f"{base}/evidence/{{evidence_id}}/block": "Block one evidence file",
        f"{base}/reports/{{report_id}}/resolve": "Resolve a report",
        f"{base}/reports/{{report_id}}/dismiss": "Dismiss a report",
        f"{base}/disputes/{{dispute_id}}/uphold": "Uphold a disputed review",
        f"{base}/disputes/{{dispute_id}}/overturn": "Overturn a disputed review",
        f"{base}/labels/map": "Map a declared label to a catalog entry",
        f"{base}/labels/leave": "Leave a declared label as declared",
        f"{base}/prompts/{{key}}/alias": "Join two prompt keys into one comparison group",
        f"{base}/appeals/{{appeal_id}}/grant": "Grant an appeal: restore the removed Test",
        f"{base}/appeals/{{appeal_id}}/reject": "Reject an appeal: the removal stands",
    }
    users = {
        "/api/v1/users/{handle}/role": "Grant an account a role",
        "/api/v1/users/{handle}/suspend": "Suspend an account",
        "/api/v1/users/{handle}/reinstate": "Reinstate a suspended account",
    }
    table = {
        ("POST", path): _decision(summary, body=_body_of(path))
        for path, summary in decisions.items()
    }
    table |= {
        ("POST", path): _decision(summary, AccountChanged, _body_of(path))
        for path, summary in users.items()
    }
    table[("GET", f"{base}/queues")] = Operation(
        "The moderation queues", "moderation", Answer(200, "Open cases, oldest first.", Queues),
        _AUTH_ERRORS, security="signed_in",
    )  # fmt: skip
    return table


def _read_table() -> dict[tuple[str, str], Operation]:
    return {
        ("GET", "/api/v1/tests"): Operation(
            "List public Tests, newest first or in another order", "read",
            Answer(200, "One page; pass next_cursor back as cursor for the next.", FeedPage),
            (400,),
            params=(*FEED_FILTERS,
                    Param("cursor", description="next_cursor of the previous page.",
                          max_length=120),
                    Param("limit", description="Tests per page.", minimum=1, maximum=100)),
            cached=True, paged=True,
        ),
        ("GET", "/api/v1/tests/{test_id}"): Operation(
            "One public Test", "read",
            Answer(200, "The Test, its declared setup, evidence and reviews.", PublicTestView),
            (404,), params=(TEST_ID,), cached=True,
        ),
    }  # fmt: skip


# One header and one rule for the single and the batch submission, as
# ``api/submissions.idempotency_digest_of`` reads it for both.
IDEMPOTENCY_KEY = Param(
    "Idempotency-Key", "header",
    "Makes a retried POST answer with what it first made: 1 to 200 printable ASCII characters "
    "(spaces at the ends are trimmed), unique per account.",
    min_length=1, max_length=200, pattern=r"^ *[!-~][ -~]* *$",
)  # fmt: skip


def _submission_table() -> dict[tuple[str, str], Operation]:
    filename = Param(
        "X-Filename", "header", "The file's name, percent-encoded.", True, 1024, r"^[ -~]+$"
    )
    key_words = "16 to 64 letters, digits, hyphens or underscores, chosen at random by the client"
    upload_key = Param(
        "X-Upload-Key",
        "header",
        f"Names this upload so it can be cancelled: {key_words}.",
        False,
        64,
        UPLOAD_KEY_PATTERN,
        min_length=16,
    )
    cancelled_key = Param(
        "upload_key",
        "path",
        f"The upload's X-Upload-Key: {key_words}.",
        True,
        64,
        UPLOAD_KEY_PATTERN,
        min_length=16,
    )
    return {
        ("POST", "/api/v1/tests"): Operation(
            "Submit a Test", "submission",
            Answer(202, "Accepted; it is public once its files pass the safety scan.", Accepted),
            (400, 401, 403, 404, 408, 409, 413, 415, 429),
            params=(IDEMPOTENCY_KEY,), body=Body("multipart/form-data", schema=SUBMISSION_FORM),
            security="token", limited=True,
            description=(
                "status_url (and Location) is readable only with the submitter's token: the "
                "Test stays private until its files pass the safety scan and it is public. "
                "A refused submission (400, 413, 415) does not use up the submission limit."
            ),
        ),
        ("GET", "/api/v1/tests/{test_id}/status"): Operation(
            "Where your Test stands", "submission",
            Answer(200, "Its state, plain status and each file's verdict.", StatusView),
            (401, 404), params=(TEST_ID,), security="token",
        ),
        ("POST", "/api/v1/tests/{test_id}/files"): Operation(
            "Add one evidence file to your draft", "submission",
            Answer(201, "Stored in quarantine; its scan starts now.", UploadedFile),
            (400, 401, 403, 404, 408, 409, 413, 429), params=(TEST_ID, filename, upload_key),
            body=Body("application/octet-stream",
                      schema={"type": "string", "contentMediaType": "application/octet-stream"}),
            security="signed_in", limited=True,
            description="409 upload_cancelled: the upload's key was cancelled before it stored.",
        ),
        ("DELETE", "/api/v1/tests/{test_id}/uploads/{upload_key}"): Operation(
            "Cancel an upload to your draft", "submission",
            Answer(200, "Cancelled: its file is removed if it was stored, and is refused if it "
                        "is still on its way. Cancelling again answers the same.",
                   UploadCancelled),
            (400, 401, 403, 404, 409), params=(TEST_ID, cancelled_key), security="signed_in",
        ),
    }  # fmt: skip


def _review_table() -> dict[tuple[str, str], Operation]:
    writing = (400, 401, 403, 404, 409, 413, 429)
    return {
        ("GET", "/api/v1/tests/{test_id}/reviews"): Operation(
            "A Test's review history", "reviews",
            Answer(200, "Every review, oldest first; corrected ones marked superseded.",
                   ReviewList),
            (404,), params=(TEST_ID,), cached=True,
        ),
        ("POST", "/api/v1/tests/{test_id}/reviews"): Operation(
            "Review a Test (reviewers, moderators, owners)", "reviews",
            Answer(201, "The appended review.", ReviewAdded), writing, params=(TEST_ID,),
            body=Body(model=ReviewCreate), security="signed_in",
        ),
        ("POST", "/api/v1/tests/{test_id}/reports"): Operation(
            "Report a Test to the moderators", "reviews",
            Answer(201, "The report, open.", ReportMade), writing, params=(TEST_ID,),
            body=Body(model=ReportCreate), security="signed_in",
        ),
        ("POST", "/api/v1/reviews/{review_id}/disputes"): Operation(
            "Dispute a review of your Test", "reviews",
            Answer(201, "The dispute, open.", DisputeOpened), writing,
            params=(path_id("review_id"),), body=Body(model=DisputeCreate), security="signed_in",
        ),
    }  # fmt: skip


def _showcase_read(
    summary: str,
    what: str,
    model: Any,
    params: tuple[Param, ...] = (),
    *,
    paged: bool = False,
    media_type: str = "application/json",
) -> Operation:
    schema = {"type": "string"} if media_type == "text/csv" else None
    return Operation(
        summary, "showcase", Answer(200, what, model, media_type=media_type, schema=schema),
        (400, 404), params=params, cached=True, paged=paged,
    )  # fmt: skip


_BOARD_PARAMS = (
    Param("family", description="A model family's slug.", max_length=64),
    Param("model", description="A declared model label or catalog model.", max_length=200),
    Param("harness", description="A declared harness label or catalog harness.", max_length=200),
    Param("reasoning", description="A declared reasoning level.", max_length=100),
    Param("single", description="1: only Tests declared as a single attempt.", enum=("1", "0")),
    Param("cursor", description="next_cursor of the previous page.", pattern=r"^[1-9][0-9]{0,8}$"),
    Param("limit", description="Rows per page.", minimum=1, maximum=100),
)


def _showcase_table() -> dict[tuple[str, str], Operation]:
    base = "/api/v1/leaderboard"
    snapshot = f"{base}/snapshots/{{snapshot_id}}"
    return {
        ("GET", base): _showcase_read(
            "The latest showcase snapshot", "Its policy, formula and first page of rows.",
            BoardPageBody, _BOARD_PARAMS, paged=True,
        ),
        ("GET", f"{base}/public-key"): _showcase_read(
            "The key that signs snapshot seals",
            "Ed25519 public key (raw, hex), its SHA-256 fingerprint and any key hand-over.",
            PublicKey,
        ),
        ("GET", f"{base}/snapshots"): _showcase_read(
            "Published showcase snapshots",
            "Newest first, each with its date, hash, previous hash and signature.",
            SnapshotList,
        ),
        ("POST", f"{base}/snapshots"): Operation(
            "Ask for a new showcase snapshot now (owners)", "showcase",
            Answer(202, "Queued (or already queued for this slot).", SnapshotRequested),
            (400, 401, 403, 409, 429), security="signed_in",
        ),
        ("GET", snapshot): _showcase_read(
            "One showcase snapshot", "Its policy and rows.", BoardPageBody, _BOARD_PARAMS,
            paged=True,
        ),
        ("GET", f"{snapshot}/verify"): _showcase_read(
            "Recompute and check a snapshot's seal",
            "Whether the stored rows match their hash, the signature holds and the chain is whole.",
            Verification,
        ),
        ("GET", f"{snapshot}/download.json"): _showcase_read(
            "A snapshot as JSON (sealed: immutable)",
            "Policy, rows, previous hash, hash and signature.", SnapshotDownload,
        ),
        ("GET", f"{snapshot}/download.csv"): _showcase_read(
            "A snapshot as CSV (sealed: immutable)",
            "A header, then one CRLF line per ranked Test.", None, media_type="text/csv",
        ),
        ("GET", "/api/v1/prompts"): _showcase_read(
            "The largest same-prompt groups", "Groups with the most public Tests first.",
            LargestGroups,
        ),
        ("GET", "/api/v1/prompts/{key}"): _showcase_read(
            "Every public Test for one prompt", "The group's Tests, side by side.", PromptGroup,
        ),
        ("GET", "/api/v1/judges/{judge_id}"): _showcase_read(
            "An AI judge's public card",
            "Model ids, prompt template and its hash, rubric and calibration results.",
            JudgeCard,
        ),
    }  # fmt: skip


def known_operations() -> dict[tuple[str, str], Operation]:
    """Every table entry; routes that carry their own ``Operation`` are not listed here."""
    return (
        _read_table()
        | _submission_table()
        | _review_table()
        | _moderation_table()
        | _showcase_table()
    )


PATH_PARAMS = {
    "test_id": TEST_ID,
    "review_id": path_id("review_id"),
    "evidence_id": path_id("evidence_id"),
    "report_id": path_id("report_id"),
    "dispute_id": path_id("dispute_id"),
    "appeal_id": path_id("appeal_id"),
    "handle": HANDLE,
    "judge_id": path_id("judge_id"),
    "snapshot_id": path_id("snapshot_id"),
    "key": Param("key", "path", "A prompt key (SHA-256 hex).", True, 64, r"^[0-9a-f]{64}$"),
}
