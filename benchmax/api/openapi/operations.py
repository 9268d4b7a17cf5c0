"""What each existing ``/api/v1`` route takes and answers, for routes built by factories
(the moderation table, the action endpoints) whose handlers cannot carry a decorator each.

Keyed by ``(METHOD, path)`` exactly as the route is declared. A new route either carries
its ``Operation`` on its handler (``spec.documented``) or gets one line here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from benchmax.api.openapi.spec import Answer, Body, Operation, Param
from benchmax.services.detail_view import EvidenceItem, TestView
from benchmax.services.feed import FeedPage
from benchmax.services.moderation.queues import Queues
from benchmax.services.moderation.reviews import ReviewEntry
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
    Param("status", description="awaiting, reviewed or ranked.", max_length=16),
    Param("q", description="Words that must all appear in the title, prompt or labels.",
          max_length=200),
    Param("compare", description="1: only Tests whose prompt two or more public Tests share.",
          max_length=8),
    Param("sort", description="newest, most_reviewed, top_score (reviewed Tests only) or "
          "relevance (with q; its default). A cursor only works with the sort it came from.",
          max_length=16, pattern=r"^(newest|most_reviewed|top_score|relevance)?$"),
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


class ReviewList(BaseModel):
    items: list[ReviewEntry]


class ReviewAdded(BaseModel):
    review: ReviewEntry


class ReviewCreate(BaseModel):
    score: int = Field(ge=0, le=100, description="A whole number from 0 to 100.")
    reasoning: str = Field(min_length=20, max_length=5000)
    corrects_review_id: str | None = Field(
        default=None, description="The review this one corrects (a new entry; none is edited)."
    )


class ReportCreate(BaseModel):
    reason: str = Field(description="Why the Test (or one of its files) should be looked at.")
    details: str = ""
    evidence_id: str | None = None


class ReportRef(BaseModel):
    id: str
    state: str


class ReportMade(BaseModel):
    report: ReportRef


class DisputeCreate(BaseModel):
    reason: str = Field(min_length=10, description="Why the review is wrong.")


class DisputeRef(BaseModel):
    id: str
    review_id: str
    state: str


class DisputeOpened(BaseModel):
    dispute: DisputeRef


class DecisionCreate(BaseModel):
    """Every decision needs a written reason; the other fields matter to some actions."""

    reason: str = Field(min_length=10, description="Why, in at least 10 characters.")
    report_id: str | None = Field(default=None, description="The report this decision settles.")
    label: str | None = Field(default=None, description="labels/*: the declared label.")
    kind: str | None = Field(default=None, description="labels/*: model or harness.")
    target: str | None = Field(default=None, description="labels/map: the catalog slug.")
    role: str | None = Field(default=None, description="users/{handle}/role: the new role.")
    score: int | None = Field(default=None, description="disputes/*/overturn: a new score.")


class Decision(BaseModel):
    id: str
    action: str
    target_type: str
    target_id: str
    previous_state: str
    next_state: str
    created_at: str


class DecisionMade(BaseModel):
    decision: Decision


class AccountRef(BaseModel):
    handle: str
    role: str
    status: str


class AccountChanged(BaseModel):
    user: AccountRef


_TEXT_FIELDS = {
    "prompt": "The prompt given to the model (required).",
    "model": "The declared model, free text (required).",
    "model_version": "The declared model version.",
    "harness": "The declared harness, free text (required).",
    "reasoning": "The declared reasoning level (required).",
    "output": "The pasted output, Markdown (this or at least one file is required).",
    "title": "An optional title.",
    "settings": "Declared settings, free text.",
    "attempts": "How many attempts this Test was picked from (a whole number).",
    "notes": "Notes.",
    "source_visibility": "public or private: who may download a source ZIP.",
}
SUBMISSION_FORM: dict[str, Any] = {
    "type": "object",
    "properties": {
        **{name: {"type": "string", "description": text} for name, text in _TEXT_FIELDS.items()},
        "files": {
            "type": "array",
            "items": {"type": "string", "contentMediaType": "application/octet-stream"},
            "description": "Evidence files: images, video, text or logs, a source ZIP.",
        },
    },
    "required": ["prompt", "model", "harness", "reasoning"],
}
_AUTH_ERRORS = (401, 403)
_DECISION_ERRORS = (400, *_AUTH_ERRORS, 404, 409, 413)


def _decision(summary: str, answer: Any = DecisionMade) -> Operation:
    return Operation(
        summary, "moderation", Answer(200, "The appended decision.", answer), _DECISION_ERRORS,
        body=Body(model=DecisionCreate), security="optional",
    )  # fmt: skip


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
    table = {("POST", path): _decision(summary) for path, summary in decisions.items()}
    table |= {("POST", path): _decision(summary, AccountChanged) for path, summary in users.items()}
    table[("GET", f"{base}/queues")] = Operation(
        "The moderation queues", "moderation", Answer(200, "Open cases, oldest first.", Queues),
        _AUTH_ERRORS, security="optional",
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
                    Param("limit", description="Tests per page, 1 to 100.", max_length=3)),
        ),
        ("GET", "/api/v1/tests/{test_id}"): Operation(
            "One public Test", "read",
            Answer(200, "The Test, its declared setup, evidence and reviews.", PublicTestView),
            (404,), params=(TEST_ID,),
        ),
    }  # fmt: skip


def _submission_table() -> dict[tuple[str, str], Operation]:
    id_key = Param(
        "Idempotency-Key", "header", "Makes a retried POST answer with the first Test.",
        max_length=200,
    )  # fmt: skip
    filename = Param(
        "X-Filename", "header", "The file's name, percent-encoded.", True, 1024, r"^[ -~]+$"
    )
    return {
        ("POST", "/api/v1/tests"): Operation(
            "Submit a Test", "submission",
            Answer(202, "Accepted; it is public once its files pass the safety scan.", Accepted),
            (400, 401, 403, 404, 408, 409, 413, 415, 429),
            params=(id_key,), body=Body("multipart/form-data", schema=SUBMISSION_FORM),
            security="token",
        ),
        ("GET", "/api/v1/tests/{test_id}/status"): Operation(
            "Where your Test stands", "submission",
            Answer(200, "Its state, plain status and each file's verdict.", StatusView),
            (401, 404), params=(TEST_ID,), security="token",
        ),
        ("POST", "/api/v1/tests/{test_id}/files"): Operation(
            "Add one evidence file to your draft", "submission",
            Answer(201, "Stored in quarantine; its scan starts now.", UploadedFile),
            (400, 401, 403, 404, 408, 409, 413, 429), params=(TEST_ID, filename),
            body=Body("application/octet-stream",
                      schema={"type": "string", "contentMediaType": "application/octet-stream"}),
            security="optional",
        ),
    }  # fmt: skip


def _review_table() -> dict[tuple[str, str], Operation]:
    writing = (400, 401, 403, 404, 409, 413, 429)
    return {
        ("GET", "/api/v1/tests/{test_id}/reviews"): Operation(
            "A Test's review history", "reviews",
            Answer(200, "Every review, oldest first; corrected ones marked superseded.",
                   ReviewList),
            (401, 403, 404), params=(TEST_ID,), security="optional",
        ),
        ("POST", "/api/v1/tests/{test_id}/reviews"): Operation(
            "Review a Test (reviewers, moderators, owners)", "reviews",
            Answer(201, "The appended review.", ReviewAdded), writing, params=(TEST_ID,),
            body=Body(model=ReviewCreate), security="optional",
        ),
        ("POST", "/api/v1/tests/{test_id}/reports"): Operation(
            "Report a Test to the moderators", "reviews",
            Answer(201, "The report, open.", ReportMade), writing, params=(TEST_ID,),
            body=Body(model=ReportCreate), security="optional",
        ),
        ("POST", "/api/v1/reviews/{review_id}/disputes"): Operation(
            "Dispute a review of your Test", "reviews",
            Answer(201, "The dispute, open.", DisputeOpened), writing,
            params=(path_id("review_id"),), body=Body(model=DisputeCreate), security="optional",
        ),
    }  # fmt: skip


_OBJECT: dict[str, Any] = {"type": "object"}


def _showcase_read(summary: str, what: str, media_type: str = "application/json") -> Operation:
    schema = {"type": "string"} if media_type == "text/csv" else _OBJECT
    return Operation(
        summary, "showcase", Answer(200, what, media_type=media_type, schema=schema), (400, 404)
    )


def _showcase_table() -> dict[tuple[str, str], Operation]:
    base = "/api/v1/leaderboard"
    snapshot = f"{base}/snapshots/{{snapshot_id}}"
    return {
        ("GET", base): _showcase_read(
            "The latest showcase snapshot", "Its policy, formula and first page of rows."
        ),
        ("GET", f"{base}/public-key"): _showcase_read(
            "The key that signs snapshot seals",
            "Ed25519 public key (raw, hex), its SHA-256 fingerprint and any key hand-over.",
        ),
        ("GET", f"{base}/snapshots"): _showcase_read(
            "Published showcase snapshots",
            "Newest first, each with its date, hash, previous hash and signature.",
        ),
        ("POST", f"{base}/snapshots"): Operation(
            "Ask for a new showcase snapshot now", "showcase",
            Answer(202, "Queued (or already queued for this slot).", schema=_OBJECT),
            (400, 401, 403, 409, 429), security="optional",
        ),
        ("GET", snapshot): _showcase_read("One showcase snapshot", "Its policy and rows."),
        ("GET", f"{snapshot}/verify"): _showcase_read(
            "Recompute and check a snapshot's seal",
            "Whether the stored rows match their hash, the signature holds and the chain is whole."
        ),
        ("GET", f"{snapshot}/download.json"): _showcase_read(
            "A snapshot as JSON", "Policy, rows, previous hash, hash and signature."
        ),
        ("GET", f"{snapshot}/download.csv"): _showcase_read(
            "A snapshot as CSV", "A header, then one CRLF line per ranked Test.", "text/csv"
        ),
        ("GET", "/api/v1/prompts"): _showcase_read(
            "The largest same-prompt groups", "Groups with the most public Tests first."
        ),
        ("GET", "/api/v1/prompts/{key}"): _showcase_read(
            "Every public Test for one prompt", "The group's Tests, side by side."
        ),
        ("GET", "/api/v1/judges/{judge_id}"): _showcase_read(
            "An AI judge's public card",
            "Model ids, prompt template and its hash, rubric and calibration results.",
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
    "judge_id": Param("judge_id", "path", "A judge snapshot's id.", True, 64),
    "snapshot_id": Param("snapshot_id", "path", "A showcase snapshot's id.", True, 64),
    "key": Param("key", "path", "A prompt key (SHA-256 hex).", True, 64, r"^[0-9a-f]{64}$"),
}
