"""Column bundles several tables declare alike, each written once.

A table takes a bundle as a base class; SQLModel gives every table its own copy of the
columns, so the constraint and index names stay those of the table.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from benchmax.models._base import created_field


class OfTest(SQLModel):
    """A row about one Test (a file, a review, a case, a preview), listed by the Test's id."""

    test_id: str = Field(foreign_key="test.id", index=True, max_length=16)


class Stamped(SQLModel):
    """A row that changes after it is written: when it was created and when last updated."""

    created_at: datetime = created_field()
    updated_at: datetime = created_field()


class DayCount(SQLModel):
    """A daily limit's counter (the AI judge's, the previews'): one row per UTC day, changed
    only by conditional UPDATEs, so the limit holds across every process."""

    day: str = Field(primary_key=True, max_length=10)  # YYYY-MM-DD
    used: int = 0


class ContributorDayCount(DayCount):
    """The same counted per contributor, so one account cannot spend everyone's day."""

    contributor_id: str = Field(primary_key=True, max_length=16)
