"""Showcase snapshots on real databases: eligibility, scores, the seal, and immutability."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import Engine, text
from sqlalchemy.exc import DatabaseError
from sqlmodel import Session, select

from benchmax.db import make_engine
from benchmax.migrations import alembic_config
from benchmax.models import (
    PROMPT_KEY_VERSION,
    SHOWCASE_APPEND_ONLY_TABLES,
    CaseState,
    Job,
    LeaderboardSnapshot,
    LeaderboardSupersession,
    ModerationHold,
    ReviewerKind,
    ReviewState,
    Role,
    Test,
    TestState,
    prompt_key,
)
from benchmax.models._base import as_utc, utcnow
from benchmax.services.errors import ServiceError
from benchmax.services.jobs import JobContext, run_job
from benchmax.services.leaderboard import board, exports, jobs
from benchmax.services.leaderboard.policy import PolicyError, current_policy, set_policy
from benchmax.services.leaderboard.scoring import canonical_json, seal
from benchmax.services.leaderboard.signing import new_key_pair, private_key_from_hex
from benchmax.services.leaderboard.snapshots import (
    build_snapshot,
    canonical_row,
    current_snapshot,
    iter_rows,
    placement,
    verify_snapshot,
)
from tests.support.factories import make_review, make_test, make_user

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
KEY = private_key_from_hex(new_key_pair()[0])


def _reviewed(session: Session, scores: list[int], **overrides: Any) -> Test:
    test = make_test(session, **overrides)
    for score in scores:
        make_review(session, test, make_user(session, role=Role.REVIEWER), score=score)
    return test


def _rows(session: Session, snapshot: LeaderboardSnapshot) -> dict[str, Any]:
    """The snapshot's rows by Test id, as mappings whose columns read as attributes."""
    return {row["test_id"]: row for row in iter_rows(session, snapshot.id)}


def _publish(session: Session, key: str = "t") -> LeaderboardSnapshot:
    snapshot = build_snapshot(session, key, KEY)
    assert snapshot is not None
    session.commit()
    return snapshot


def test_worked_example_scores_and_the_recorded_prior(session: Session) -> None:
    # Counted scores: 100, 85 x3, 78 x10 and 0 x2 → C = 1135/16 = 70.9375 → 7094 bp, recorded.
    lucky = _reviewed(session, [100])
    steady = _reviewed(session, [85, 85, 85])
    many = _reviewed(session, [78] * 10)
    low = _reviewed(session, [0, 0])
    session.commit()
    snapshot = _publish(session)
    policy = json.loads(snapshot.policy_json)
    assert policy["prior_weight"] == 3
    assert policy["prior_mean_bp"] == snapshot.prior_mean_bp == 7094
    rows = _rows(session, snapshot)
    # (Σ s·100 + 3·7094) / (n + 3), rounded half up
    assert rows[lucky.id].score_bp == (10000 + 3 * 7094 + 2) // 4  # half up
    assert rows[steady.id].score_bp == round((25500 + 3 * 7094) / 6)
    assert rows[many.id].score_bp == round((78000 + 3 * 7094) / 13)
    assert rows[low.id].score_bp == round((0 + 3 * 7094) / 5)
    assert (rows[low.id].score_min, rows[low.id].score_max) == (0, 0)
    assert (rows[many.id].review_count, rows[steady.id].review_count) == (10, 3)
    assert [r["rank"] for r in iter_rows(session, snapshot.id)] == [1, 2, 3, 4]


def test_eligibility_edge_cases(session: Session) -> None:
    counted = _reviewed(session, [80])
    held = _reviewed(session, [95])
    session.add(ModerationHold(test_id=held.id, reason_code="injection_signals"))
    cleared = _reviewed(session, [90])
    session.add(
        ModerationHold(
            test_id=cleared.id, reason_code="injection_signals", state=CaseState.DISMISSED
        )
    )
    removed = _reviewed(session, [99], state=TestState.REMOVED)
    sample = _reviewed(session, [99], is_sample=True)
    private = _reviewed(session, [99], state=TestState.NEEDS_ATTENTION, published_at=None)
    unreviewed = make_test(session)
    session.commit()
    rows = _rows(session, _publish(session))
    assert set(rows) == {counted.id, cleared.id}
    for excluded in (held, removed, sample, private, unreviewed):
        assert excluded.id not in rows


def test_a_correction_replaces_what_it_corrects(session: Session) -> None:
    reviewer = make_user(session, role=Role.REVIEWER)
    admin = make_user(session, role=Role.MODERATOR)
    test = make_test(session)
    first = make_review(session, test, reviewer, score=100)
    make_review(session, test, admin, score=40, reviewer_kind=ReviewerKind.ADMIN,
                corrects_review_id=first.id)  # fmt: skip
    other = _reviewed(session, [60])
    session.commit()
    rows = _rows(session, _publish(session))
    assert rows[test.id].review_count == 1
    assert (rows[test.id].score_min, rows[test.id].score_max) == (40, 40)
    assert first.id not in rows[test.id].review_ids
    assert rows[other.id].rank == 1


def test_a_correction_that_does_not_count_still_removes_the_old_score(session: Session) -> None:
    set_policy(session, ["human"], [], 3, "test")
    reviewer = make_user(session, role=Role.REVIEWER)
    admin = make_user(session, role=Role.MODERATOR)
    test = make_test(session)
    first = make_review(session, test, reviewer, score=100)
    make_review(session, test, admin, score=10, reviewer_kind=ReviewerKind.ADMIN,
                corrects_review_id=first.id)  # fmt: skip
    _reviewed(session, [50])
    session.commit()
    assert test.id not in _rows(session, _publish(session))


def test_ai_reviews_count_only_from_judge_snapshots_the_policy_allows(session: Session) -> None:
    test = make_test(session)
    judged = make_review(session, test, make_user(session), score=90,
                         reviewer_kind=ReviewerKind.AI, judge_snapshot_id="judgeA")  # fmt: skip
    make_review(session, test, make_user(session), score=10,
                reviewer_kind=ReviewerKind.AI, judge_snapshot_id="judgeB")  # fmt: skip
    _reviewed(session, [50])
    session.commit()
    assert test.id not in _rows(session, _publish(session, "before"))
    set_policy(session, ["ai", "human", "admin"], ["judgeA"], 3, "test")
    session.commit()
    snapshot = _publish(session, "after")
    row = _rows(session, snapshot)[test.id]
    assert row.review_ids == judged.id
    assert row.review_count == 1
    assert json.loads(snapshot.policy_json)["judge_snapshot_ids"] == ["judgeA"]
    assert json.loads(snapshot.policy_json)["policy_version"] == 2


def test_policy_refuses_unknown_kinds_and_bad_parameters(session: Session) -> None:
    for kinds, judges, m in ((["robot"], [], 3), ([], [], 3), (["ai"], ["a b"], 3),
                             (["ai"], [], -1), (["ai"], [], 10**6)):  # fmt: skip
        with pytest.raises(PolicyError):
            set_policy(session, kinds, judges, m, "test")
    assert current_policy(session).version == 1


def test_nothing_is_published_without_an_eligible_test(session: Session) -> None:
    make_test(session)
    assert build_snapshot(session, "empty", KEY) is None
    assert current_snapshot(session) is None


def test_hash_is_reproducible_from_the_stored_rows_and_the_download(session: Session) -> None:
    for scores in ([70, 80], [55], [90, 91, 92]):
        _reviewed(session, scores, attempts=None)
    _reviewed(session, [88], attempts=4)
    session.commit()
    snapshot = _publish(session)
    rows = [canonical_row(row) for row in iter_rows(session, snapshot.id)]
    assert seal(json.loads(snapshot.policy_json), rows, "") == snapshot.sha256
    assert {row["attempts"] for row in rows} == {"not declared", 4}
    document = json.loads("".join(exports.json_chunks(session, snapshot.id)))
    assert document["sha256"] == snapshot.sha256
    assert document["previous_sha256"] == ""  # the first of the chain
    assert seal(document["policy"], document["rows"], "") == snapshot.sha256
    assert "".join(exports.json_chunks(session, snapshot.id)) == canonical_json(document)
    text_csv = "".join(exports.csv_chunks(session, snapshot.id))
    assert text_csv.startswith("position,rank,")
    assert text_csv.endswith("\r\n")
    assert text_csv.count("\r\n") == 5  # a header and four rows, CRLF like the exports
    assert "#" not in text_csv
    assert verify_snapshot(session, snapshot.id, KEY.public_hex).ok


def test_same_request_key_never_publishes_twice(session: Session) -> None:
    _reviewed(session, [70])
    session.commit()
    first = _publish(session, "scheduled:1")
    assert build_snapshot(session, "scheduled:1", KEY) == first
    assert len(session.exec(select(LeaderboardSnapshot)).all()) == 1


def test_a_new_snapshot_supersedes_without_touching_the_old(session: Session) -> None:
    a = _reviewed(session, [90])
    b = _reviewed(session, [60])
    session.commit()
    old = _publish(session, "one")
    before = [canonical_row(row) for row in iter_rows(session, old.id)]
    old_meta = (old.sha256, old.policy_json, old.row_count, as_utc(old.published_at))  # type: ignore[arg-type]
    session.expire_all()
    assert session.get(Test, a.id).review_state == ReviewState.RANKED  # type: ignore[union-attr]

    a.state = TestState.REMOVED  # removed after the first snapshot
    session.add(a)
    c = _reviewed(session, [75])
    session.commit()
    new = _publish(session, "two")
    session.expire_all()
    assert current_snapshot(session).id == new.id  # type: ignore[union-attr]
    reread = session.get(LeaderboardSnapshot, old.id)
    assert reread is not None
    assert reread.published_at is not None
    assert (
        reread.sha256,
        reread.policy_json,
        reread.row_count,
        as_utc(reread.published_at),
    ) == old_meta
    assert [canonical_row(row) for row in iter_rows(session, old.id)] == before
    assert verify_snapshot(session, old.id, KEY.public_hex).ok
    assert verify_snapshot(session, new.id, KEY.public_hex).ok
    assert session.get(LeaderboardSupersession, old.id).superseded_by_id == new.id  # type: ignore[union-attr]
    assert set(_rows(session, new)) == {b.id, c.id}
    assert session.get(Test, a.id).review_state == ReviewState.REVIEWED  # type: ignore[union-attr]
    assert session.get(Test, c.id).review_state == ReviewState.RANKED  # type: ignore[union-attr]
    ranked_b = placement(session, b.id)
    assert ranked_b is not None
    assert (ranked_b.rank, ranked_b.snapshot_id) == (2, new.id)
    assert placement(session, a.id) is None


def _published_pair(session: Session) -> LeaderboardSnapshot:
    _reviewed(session, [90])
    _reviewed(session, [50])
    session.commit()
    return _publish(session)


@BOTH
@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE leaderboard_snapshot SET sha256 = 'x'",
        "UPDATE leaderboard_snapshot SET status = 'building'",
        "DELETE FROM leaderboard_snapshot",
        "UPDATE leaderboard_row SET score_bp = 10000",
        "UPDATE leaderboard_row SET rank = rank",
        "DELETE FROM leaderboard_row",
        "INSERT INTO leaderboard_row (snapshot_id, position, rank, test_id, score_bp, "
        "review_count, score_min, score_max, review_ids, family_id, catalog_model_id, "
        "model_key, harness_id, harness_key, reasoning_key) SELECT snapshot_id, 3, 1, test_id, "
        "10000, 1, 100, 100, '', '', '', '', '', '', '' FROM leaderboard_row WHERE position = 1",
    ],
)
def test_triggers_refuse_changing_a_published_snapshot(
    engine: Engine, session: Session, statement: str
) -> None:
    snapshot = _published_pair(session)
    with engine.connect() as conn:
        with pytest.raises(DatabaseError, match="published leaderboard snapshot"):
            conn.execute(text(statement))
        conn.rollback()
    session.expire_all()
    assert verify_snapshot(session, snapshot.id, KEY.public_hex).ok


@BOTH
def test_a_building_snapshot_may_change_and_a_published_one_accepts_only_its_own_rows(
    engine: Engine, session: Session
) -> None:
    snapshot = _published_pair(session)
    rows = [canonical_row(row) for row in iter_rows(session, snapshot.id)]
    with engine.connect() as conn:
        conn.execute(
            text(
                "INSERT INTO leaderboard_snapshot (id, status, request_key, policy_id, "
                "policy_json, prior_mean_bp, cutoff_at, row_count, sha256, created_at) "
                "SELECT 'buildingbuilding', 'building', 'b', policy_id, policy_json, 0, "
                "cutoff_at, 0, '', created_at FROM leaderboard_snapshot"
            )
        )
        conn.execute(
            text("UPDATE leaderboard_snapshot SET row_count = 5 WHERE status = 'building'")
        )
        conn.execute(text("DELETE FROM leaderboard_snapshot WHERE status = 'building'"))
        conn.commit()
    assert [canonical_row(row) for row in iter_rows(session, snapshot.id)] == rows


@BOTH
@pytest.mark.parametrize("table", SHOWCASE_APPEND_ONLY_TABLES)
@pytest.mark.parametrize(
    "statement", ["UPDATE {table} SET created_at = created_at", "DELETE FROM {table}"]
)
def test_policies_supersessions_and_aliases_are_append_only(
    engine: Engine, session: Session, table: str, statement: str
) -> None:
    first = _published_pair(session)
    _reviewed(session, [70])
    session.commit()
    _publish(session, "second")
    moderator = make_user(session, role=Role.MODERATOR)
    session.execute(
        text(
            "INSERT INTO prompt_alias (id, key_a, key_b, moderator_id, reason, created_at) "
            "VALUES ('aliasaliasalias1', :a, :b, :m, 'same prompt, reworded', :now)"
        ),
        {"a": "a" * 64, "b": "b" * 64, "m": moderator.id, "now": utcnow()},
    )
    session.commit()
    assert first.id
    with engine.connect() as conn:
        with pytest.raises(DatabaseError, match="append-only"):
            conn.execute(text(statement.format(table=table)))
        conn.rollback()


def test_verify_catches_a_row_tampered_with_on_a_copy(
    session: Session, sqlite_url: str, tmp_path: Path
) -> None:
    snapshot = _published_pair(session)
    original = Path(sqlite_url.removeprefix("sqlite:///"))
    copy = tmp_path / "tampered.db"
    with sqlite3.connect(original) as source, sqlite3.connect(copy) as target:
        source.backup(target)  # includes what is still in the write-ahead log
    tampered = make_engine(f"sqlite:///{copy}")
    with tampered.begin() as conn:
        # Whoever holds the file can drop the trigger; the seal still gives them away.
        conn.execute(text("DROP TRIGGER leaderboard_row_frozen_update"))
        conn.execute(text("UPDATE leaderboard_row SET score_bp = score_bp + 1 WHERE position = 2"))
    with Session(tampered) as other:
        result = verify_snapshot(other, snapshot.id, KEY.public_hex)
        assert not result.ok
        assert result.stored_sha256 == snapshot.sha256
    tampered.dispose()
    assert verify_snapshot(session, snapshot.id, KEY.public_hex).ok


def test_the_snapshot_job_runs_once_per_slot_and_owners_may_ask(
    session: Session, job_ctx: JobContext
) -> None:
    _reviewed(session, [80])
    session.commit()
    first = jobs.request_snapshot(session, "scheduled:86400:7")
    session.commit()
    assert first is not None
    assert jobs.request_snapshot(session, "scheduled:86400:7") is None  # already queued
    assert run_job(first.id, job_ctx, "w1") == "done"  # type: ignore[arg-type]
    assert jobs.request_snapshot(session, "scheduled:86400:7") is None  # already published
    assert current_snapshot(session) is not None

    with pytest.raises(ServiceError) as refused:
        jobs.request_owner_snapshot(session, make_user(session, role=Role.MODERATOR))
    assert refused.value.status == 403
    owner = make_user(session, role=Role.OWNER)
    assert jobs.request_owner_snapshot(session, owner) is not None
    assert jobs.request_owner_snapshot(session, owner) is None  # one at a time
    assert jobs.scheduled_request_key(3600, 7200.5) == "scheduled:3600:2"


@BOTH
def test_migration_backfills_prompt_keys(
    database_url: str, engine: Engine, session: Session
) -> None:
    config = alembic_config(database_url)
    command.downgrade(config, "0004")
    user = make_user(session)
    session.commit()
    with engine.begin() as conn:
        for index, prompt in enumerate(["Write A  Haiku", "write a haiku\u200b", "Other"]):
            conn.execute(
                text(
                    "INSERT INTO test (id, title, prompt, model_label, model_version_label, "
                    "harness_label, reasoning_label, settings_text, notes, output_text, "
                    "source_visibility, contributor_id, model_key, harness_key, reasoning_key, "
                    "state, review_state, failure_code, failure_reason, wizard_step, "
                    "evidence_kinds, is_sample, idempotency_fingerprint, created_at, updated_at)"
                    " VALUES (:id, '', :prompt, 'm', '', 'h', 'r', '', '', 'o', 'private', :user,"
                    " '', '', '', 'public', 'awaiting', '', '', 1, '', false, '', :now, :now)"
                ),
                {
                    "id": f"backfill000000{index:02d}",
                    "prompt": prompt,
                    "user": user.id,
                    "now": utcnow() - timedelta(days=1),
                },
            )
    command.upgrade(config, "head")
    with engine.connect() as conn:
        keys: dict[str, str] = dict(conn.execute(text("SELECT prompt, prompt_key FROM test")).all())
        versions = {v for (v,) in conn.execute(text("SELECT prompt_key_version FROM test"))}
    assert keys["Write A  Haiku"] == keys["write a haiku\u200b"] == prompt_key("write a haiku")
    assert keys["Other"] == prompt_key("other")
    assert versions == {PROMPT_KEY_VERSION}


def test_the_scheduled_tick_enqueues_once_per_slot_and_not_when_off(
    session: Session, job_ctx: JobContext
) -> None:
    off = replace(
        job_ctx,
        settings=job_ctx.settings.model_copy(update={"leaderboard_snapshot_interval_seconds": 0}),
    )
    assert jobs.request_scheduled_snapshot(off) == 0
    assert jobs.request_scheduled_snapshot(job_ctx) == 1
    assert jobs.request_scheduled_snapshot(job_ctx) == 0  # the same slot is already queued
    assert len(session.exec(select(Job).where(Job.kind == jobs.SNAPSHOT_JOB)).all()) == 1


def test_a_test_removed_after_the_snapshot_keeps_its_row_but_shows_nothing(
    session: Session,
) -> None:
    removed = _reviewed(session, [90], title="Soon removed")
    kept = _reviewed(session, [50])
    session.commit()
    _publish(session)
    removed.state = TestState.REMOVED
    session.add(removed)
    session.commit()
    page = board.board_page(session, None, board.BoardFilters())
    assert [entry.rank for entry in page.items] == [1, 2]
    assert page.items[0].test is None
    assert page.items[1].test is not None
    assert page.items[1].test.id == kept.id
    assert "Soon removed" not in str(page.to_json())
