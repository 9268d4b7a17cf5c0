"""What /operations shows, on both engines: the audit log names people and Tests (never
raw ids where a name is known), and every chart is drawn on the server, as SVG, from the
recorded samples."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from benchmax.adapters.storage import build_storage
from benchmax.models import Job, JobState, Role, audit
from benchmax.models.audit import AuditAction
from benchmax.services.moderation import takedowns
from benchmax.services.operations import dashboard, record_sample
from benchmax.settings import Settings
from benchmax.state.views.operations import view
from tests.support.factories import make_test, make_user

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


@BOTH
def test_audit_rows_carry_handles_and_linked_titles(session: Session, settings: Settings) -> None:
    moderator = make_user(session, handle="mia", role=Role.MODERATOR)
    test = make_test(session, title="Spammy Test")
    takedowns.remove_test(session, moderator, test.id, "Spam pasted as the output.")
    target = make_user(session, handle="bob")
    audit(session, AuditAction.USER_ROLE_GRANTED, ("user", target.id), actor_id=None)
    audit(session, AuditAction.DISPUTE_OPENED, ("dispute", "d1"), actor_id=moderator.id,
          detail={"test_id": test.id})  # fmt: skip
    audit(session, AuditAction.JOB_DISCARD, ("job", "42"), actor_id="gone-user-id")
    session.commit()

    rows = {row.action: row for row in view(dashboard(session, build_storage(settings))).audit_rows}

    removal = rows["moderation.test.remove"]
    assert (removal.actor, removal.actor_href) == ("@mia", "/u/mia")
    assert (removal.subject, removal.subject_href) == ("Spammy Test", f"/tests/{test.id}")
    granted = rows["user.role_granted"]
    assert (granted.actor, granted.actor_href) == ("system", "")
    assert (granted.subject, granted.subject_href) == ("@bob", "/u/bob")
    dispute = rows["dispute.opened"]
    assert dispute.subject == "dispute on “Spammy Test”"
    assert dispute.subject_href == f"/tests/{test.id}"
    unknown = rows["job.discard"]
    assert (unknown.actor, unknown.subject, unknown.subject_href) == ("gone-user-id", "job 42", "")


@BOTH
def test_job_charts_are_drawn_from_samples(session: Session, settings: Settings) -> None:
    storage = build_storage(settings)
    empty = view(dashboard(session, storage))
    assert (empty.jobs_chart, empty.backlog_chart, empty.ttp_chart) == ("", "", "")
    session.add(Job(kind="publish_test", subject_id="t1", state=JobState.PENDING))
    session.add(Job(kind="publish_test", subject_id="t2", state=JobState.DEAD))
    record_sample(session, storage)
    session.commit()

    shown = view(dashboard(session, storage))

    assert shown.jobs_chart.startswith("<svg")
    assert 'aria-label="Jobs by state over the last 24 hours"' in shown.jobs_chart
    for state in ("pending", "running", "dead", "done"):
        assert f">{state}</text>" in shown.jobs_chart
    assert ">backlog</text>" in shown.backlog_chart
    assert shown.ttp_chart.startswith("<svg")
    assert ">p50 (s)</text>" in shown.ttp_chart
    assert ">p95 (s)</text>" in shown.ttp_chart
    assert "<script" not in shown.jobs_chart + shown.backlog_chart + shown.ttp_chart
    assert shown.dead_count == 1
