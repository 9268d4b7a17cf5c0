"""Percentiles and the page's view of a dashboard."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime

import pytest

from benchmax.models import JobState
from benchmax.services.derived_text import RedactionCounts
from benchmax.services.jobs import JobCount
from benchmax.services.operations import (
    AuditSummary,
    Dashboard,
    DeadJob,
    Inventory,
    PrefixUsage,
    TimeToPublic,
    percentile,
)
from benchmax.state.views.operations import view

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("values", "fraction", "expected"),
    [([5.0], 0.95, 5.0), ([1.0, 2.0, 3.0, 4.0], 0.5, 2.5), ([0.0, 10.0], 0.95, 9.5)],
)
def test_percentile_interpolates_between_ranks(
    values: list[float], fraction: float, expected: float
) -> None:
    assert percentile(values, fraction) == pytest.approx(expected)


def test_percentile_of_nothing_is_an_error() -> None:
    with pytest.raises(ValueError, match="no values"):
        percentile([], 0.5)


def test_view_turns_the_dashboard_into_page_strings() -> None:
    data = Dashboard(
        generated_at=NOW,
        job_counts=(JobCount("safety_scan", JobState.DEAD, 2),),
        finished_counts_at=None,
        oldest_waiting_seconds=150.0,
        dead_jobs=(DeadJob(7, "safety_scan", "ev1", 5, "", NOW),),
        time_to_public=TimeToPublic(12.0, None, 3),
        ttp_series=(),
        open_reports=1,
        open_disputes=0,
        open_holds=2,
        open_appeals=0,
        job_series=(),
        ai_review="off",
        redactions=RedactionCounts(
            today={"preview": 2, "judge": 1}, total={"preview": 4, "judge": 1}
        ),
        inventory=Inventory(
            NOW, (PrefixUsage("evidence/", 3, 3 * 1024 * 1024),), 0, (), 1, ("evidence/x",)
        ),
        last_backup=None,
        recent_audit=(AuditSummary(9, "job.requeue", None, "job", "7", NOW),),
    )
    page = asdict(view(data))
    updated = page["dead_jobs"][0].pop("updated")
    assert page["dead_jobs"] == [
        {"id": "7", "kind": "safety_scan", "subject_id": "ev1", "attempts": "5", "error": "—"}
    ]
    # A moment is drawn as "… ago" with the exact time on hover, the feed's one component.
    assert (updated["exact"], updated["iso"]) == (
        "30 Nov 2026, 12:00 UTC",
        "2026-11-30T12:00:00+00:00",
    )
    assert page["finished_counts_at"] == {"relative": "", "exact": "", "iso": ""}  # not yet
    assert (page["oldest_waiting"], page["ttp_p50"], page["ttp_p95"]) == ("2.5 min", "12.0 s", "—")
    assert page["storage_rows"] == [{"prefix": "evidence/", "objects": "3", "bytes": "3.0 MiB"}]
    assert page["missing_objects"] == ["evidence/x"]
    assert page["redactions"] == "3 today (preview 2, AI judge 1); 5 in all"
    assert page["backup"]["present"] is False
    assert page["audit_rows"][0]["actor"] == "system"  # no account: the CLI or the scheduler
    assert (page["audit_rows"][0]["subject"], page["audit_rows"][0]["subject_href"]) == (
        "job 7",
        "",
    )
