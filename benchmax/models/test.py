"""A Test: one prompt, one declared setup, the evidence that came back, one contributor."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import DateTime, Index, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from benchmax.models._base import id_field, time_field, utcnow
from benchmax.models._columns import Stamped


class TestState(StrEnum):
    """Lifecycle of a submission. Only ``PUBLIC`` is visible to anyone but its contributor."""

    __test__ = False  # not a pytest class

    DRAFT = "draft"
    PROCESSING = "processing"
    NEEDS_ATTENTION = "needs_attention"
    FAILED = "failed"
    PUBLIC = "public"
    REMOVED = "removed"


class ReviewState(StrEnum):
    """Where a public Test stands with reviewers; never gates publication."""

    AWAITING = "awaiting"
    REVIEWED = "reviewed"
    RANKED = "ranked"


class SourceVisibility(StrEnum):
    PUBLIC = "public"
    PRIVATE = "private"


# The list pages with their own sort menu (a contributor's, a family's, a model's) -> the column
# they filter on; each has an index per keyed order (migration 0023), so every order of every
# such page is a range walk too.
LIST_PAGE_COLUMNS = {
    "contributor": "contributor_id",
    "family": "family_id",
    "model": "catalog_model_id",
}
# A keyed order's index suffix -> its leading key (as ``services.feed_order.KEY_ORDERS``).
ORDER_INDEX_KEYS = {"reviews": "review_count", "score": "review_score"}
# Feed filter -> the column its index leads with; the contributor's is ix_test_contributor_feed.
FILTER_INDEX_COLUMNS = {
    "family": "family_id",
    "model": "catalog_model_id",
    "model_key": "model_key",
    "harness": "harness_id",
    "harness_key": "harness_key",
    "reasoning": "reasoning_key",
    "status": "review_state",
}


class TestBase(SQLModel):
    __test__ = False

    title: str = Field(default="", max_length=200)
    prompt: str = Field(sa_type=Text)
    model_label: str = Field(max_length=200)
    model_version_label: str = Field(default="", max_length=200)
    harness_label: str = Field(max_length=200)
    reasoning_label: str = Field(max_length=100)
    settings_text: str = Field(default="", sa_type=Text)
    attempts: int | None = Field(default=None, ge=1)
    notes: str = Field(default="", sa_type=Text)
    output_text: str = Field(default="", sa_type=Text)
    source_visibility: SourceVisibility = Field(
        default=SourceVisibility.PRIVATE, sa_type=String(16)
    )


class Test(TestBase, Stamped, table=True):
    __test__ = False
    __table_args__ = (
        Index("ix_test_feed", "state", "published_at", "id"),
        Index("ix_test_contributor_feed", "contributor_id", "state", "published_at", "id"),
        # Same-prompt comparison groups: one group's public Tests, and group sizes.
        Index("ix_test_prompt_group", "prompt_key", "state"),
        # One per feed filter: equality on the filter, then the feed's order, so a filtered
        # page is a range scan too (see migration 0009).
        *(
            Index(f"ix_test_{name}_feed", column, "state", "published_at", "id")
            for name, column in FILTER_INDEX_COLUMNS.items()
        ),
        # The feed's other orders (migration 0015): most reviewed, highest reviewed score.
        Index("ix_test_reviews_feed", "state", "review_count", "published_at", "id"),
        Index("ix_test_score_feed", "state", "review_score", "published_at", "id"),
        *(
            Index(f"ix_test_{page}_{order}_feed", column, "state", key, "published_at", "id")
            for page, column in LIST_PAGE_COLUMNS.items()
            for order, key in ORDER_INDEX_KEYS.items()
        ),
        # The newest stamp is the public reads' cache validator (migration 0020): one seek.
        Index("ix_test_updated_at", "updated_at"),
        # A retried API submission finds the first one by its Idempotency-Key's digest; NULLs
        # (the wizard's drafts) never collide.
        UniqueConstraint("contributor_id", "idempotency_key", name="uq_test_idempotency"),
    )

    id: str = id_field()
    # Stamped by every ORM or Core UPDATE of a Test too (an explicit value wins), so the
    # public reads' cache validator (the newest stamp) sees each change without every
    # service remembering to set it.
    updated_at: datetime = Field(
        default_factory=utcnow,
        sa_type=DateTime(timezone=True),
        nullable=False,
        sa_column_kwargs={"onupdate": utcnow},
    )
    contributor_id: str = Field(foreign_key="user.id", index=True, max_length=16)
    family_id: str | None = Field(default=None, foreign_key="model_family.id")
    catalog_model_id: str | None = Field(default=None, foreign_key="catalog_model.id")
    model_version_id: str | None = Field(default=None, foreign_key="model_version.id")
    harness_id: str | None = Field(default=None, foreign_key="harness.id")
    model_key: str = Field(default="", max_length=200)
    harness_key: str = Field(default="", max_length=200)
    reasoning_key: str = Field(default="", max_length=100)
    state: TestState = Field(default=TestState.DRAFT, sa_type=String(24))
    review_state: ReviewState = Field(default=ReviewState.AWAITING, sa_type=String(16))
    failure_code: str = Field(default="", max_length=64)
    failure_reason: str = Field(default="", max_length=500)
    wizard_step: int = Field(default=1, ge=1, le=5)
    evidence_kinds: str = Field(default="", max_length=64)
    # Current reviews (none corrects them) and their mean score rounded half up; kept by
    # ``refresh_review_state`` so the feed can page by them.
    review_count: int = Field(default=0, ge=0, sa_column_kwargs={"server_default": "0"})
    review_score: int | None = Field(default=None, ge=0, le=100)
    thumbnail_evidence_id: str | None = Field(default=None, max_length=16)
    is_sample: bool = Field(default=False)
    # SHA-256 of the normalised prompt (benchmax.models.prompt_key sets it on every write).
    prompt_key: str = Field(default="", max_length=64)
    prompt_key_version: int = Field(default=0, ge=0)
    # The SHA-256 (hex) of the API's Idempotency-Key header, never the header itself.
    idempotency_key: str | None = Field(default=None, max_length=200, index=True)
    # SHA-256 of the request that used the key, so a different request reusing it is refused.
    idempotency_fingerprint: str = Field(default="", max_length=64)
    # A reference the contributor declared: the bench gateway's id for the call that produced
    # this output (a panel import fills it). Shown as plain text, never as a link.
    gateway_call_id: str = Field(default="", max_length=128)
    submitted_at: datetime | None = time_field()
    published_at: datetime | None = time_field()
    removed_at: datetime | None = time_field()

    @property
    def display_title(self) -> str:
        return display_title(self.title, self.prompt)


def display_title(title: str, prompt: str) -> str:
    """The title, or the prompt's first non-empty line when the contributor gave none.

    A function of two strings so the feed can pass just the head of a long prompt."""
    if title.strip():
        return title.strip()
    for line in prompt.splitlines():
        if line.strip():
            return line.strip()[:120]
    return "Untitled Test"
