"""What ``/me`` shows: the contributor's own Tests, with status and decisions, and API tokens."""

from __future__ import annotations

from dataclasses import dataclass

from benchmax.models import ApiToken
from benchmax.services import submissions
from benchmax.services.dates import Stamp, stamp
from benchmax.services.dto import from_row
from benchmax.services.moderation.records import DecisionOutcome

STATUS_COLORS = {
    "Draft": "gray",
    "Processing": "blue",
    "Needs attention": "amber",
    "Processing failed": "red",
    "Awaiting review": "amber",
    "Reviewed": "green",
    "Ranked": "iris",
    "Removed": "red",
}


@dataclass(frozen=True)
class MyTestView:
    """One of the contributor's Tests as a /me row, every value ready to render."""

    id: str
    title: str
    status: str
    color: str
    reason: str
    action: str  # resume, fix, retry, view or empty
    updated: Stamp
    expires: Stamp  # empty unless an untouched draft
    moderation: str  # the decisions about it, "outcome — reason", joined
    appeal: str  # removed Tests: "can", "open" or "answered"; others empty

    @classmethod
    def of(
        cls, row: submissions.MyTestRow, decisions: list[DecisionOutcome], appeal: str = ""
    ) -> MyTestView:
        return cls(
            id=row.id,
            title=row.title,
            status=row.plain_status,
            color=STATUS_COLORS.get(row.plain_status, "gray"),
            reason=row.reason,
            action=row.action,
            updated=stamp(row.updated_at),
            expires=stamp(row.expires_at),
            # Each decision once: the reason line may already state it (a removal does).
            moderation=" · ".join(
                f"{d.outcome} — {d.reason}"
                for d in decisions
                if not (d.outcome in row.reason and d.reason in row.reason)
            ),
            appeal=(appeal or "can") if row.plain_status == "Removed" else "",
        )


@dataclass(frozen=True)
class TokenView:
    id: str
    name: str
    last_four: str
    created: Stamp
    last_used: Stamp  # empty until first used

    @classmethod
    def of(cls, token: ApiToken) -> TokenView:
        return from_row(
            cls,
            token,
            created=stamp(token.created_at),
            last_used=stamp(token.last_used_at),
        )
