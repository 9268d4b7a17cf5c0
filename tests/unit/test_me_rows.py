"""A /me row states each moderation decision once."""

from __future__ import annotations

from datetime import UTC, datetime

from benchmax.services.moderation.records import DecisionOutcome
from benchmax.services.submissions.status import MyTestRow
from benchmax.state.views.me import MyTestView

NOW = datetime(2026, 12, 1, tzinfo=UTC)


def _decision(outcome: str, reason: str) -> DecisionOutcome:
    return DecisionOutcome(
        id="d1", action="test.remove", outcome=outcome, reason=reason,
        previous_state="public", next_state="removed", created_at=NOW,
    )  # fmt: skip


def _row(reason: str) -> MyTestRow:
    return MyTestRow(
        id="t1", title="A Test", plain_status="Removed", reason=reason, action="view",
        updated_at=NOW,
    )  # fmt: skip


def test_a_removal_the_reason_line_states_is_not_repeated_but_other_decisions_are() -> None:
    removal = _decision("Removed by a moderator", "Looks like an advert.")
    earlier = _decision("Report dismissed", "A real benchmark run.")
    view = MyTestView.of(
        _row("Removed by a moderator. Reason: Looks like an advert."), [earlier, removal]
    )
    assert view.moderation == "Report dismissed — A real benchmark run."
    # With no reason line to state it, the removal is listed.
    assert MyTestView.of(_row(""), [removal]).moderation == (
        "Removed by a moderator — Looks like an advert."
    )
