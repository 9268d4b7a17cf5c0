"""The judge in public: the JSON API shows an AI review's samples and the judge card, and the
card and /operations word its agreement with people."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlmodel import Session
from starlette.testclient import TestClient

from benchmax.models import (
    JudgeCalibrationRun,
    JudgeReviewSample,
    JudgeSample,
    Review,
    ReviewerKind,
    SamplePurpose,
    SampleStatus,
)
from benchmax.services.judge.card import judge_card
from benchmax.services.judge.status import judge_status
from benchmax.settings import Settings
from benchmax.state.views.judge import JudgeView
from benchmax.state.views.judge_agreement import AgreementView
from benchmax.state.views.judge_probes import probe_views
from tests.support.factories import make_test
from tests.support.fake_judge import FakeJudge
from tests.support.judge_helpers import (
    SEATS,
    TEMPLATE,
    judge_settings,
    make_active_snapshot,
    seed_agreement,
)


def test_the_test_json_and_the_judge_card_show_the_ai_review(
    api_client: TestClient, engine: Engine, settings: Settings, fake_judge: FakeJudge
) -> None:
    on = judge_settings(settings, fake_judge, "e" * 64)
    with Session(engine) as session:
        snapshot = make_active_snapshot(session, on)
        run = JudgeCalibrationRun(snapshot_id=snapshot.id, set_sha256="e" * 64, item_count=33,
                                  mae=2.5, spearman=0.97, median_spread=0, passed=True,
                                  twins={"injection": {"held": True}})  # fmt: skip
        session.add(run)
        test = make_test(session)
        review = Review(test_id=test.id, reviewer_kind=ReviewerKind.AI, score=72,
                        reasoning="Mostly right.", judge_snapshot_id=snapshot.id)  # fmt: skip
        session.add(review)
        session.flush()
        for round_, score in enumerate((70, 72, 75)):
            sample = JudgeSample(snapshot_id=snapshot.id, purpose=SamplePurpose.REVIEW,
                                 test_id=test.id, round=round_, requested_model="m-2026-01-01",
                                 reported_model="m-2026-01-01-served", status=SampleStatus.OK,
                                 score=score)  # fmt: skip
            session.add(sample)
            session.flush()
            session.add(JudgeReviewSample(review_id=review.id, sample_id=sample.id))
        session.commit()
        test_id, snapshot_id, review_id = test.id, snapshot.id, review.id
    body = api_client.get(f"/api/v1/tests/{test_id}").json()
    (entry,) = body["reviews"]
    assert entry["reviewer_kind"] == "ai"
    assert entry["judge_snapshot_id"] == snapshot_id
    summary = body["ai_reviews"][review_id]
    assert (summary["median"], summary["spread"], summary["samples"]) == (72, 5, 3)
    assert summary["models"] == ["m-2026-01-01-served"]
    card = api_client.get(f"/api/v1/judges/{snapshot_id}").json()
    assert card["prompt_template"] == TEMPLATE
    assert len(card["prompt_template_sha256"]) == 64
    assert card["model_ids"] == ["fake-judge-2026-11-20"]
    (calibration,) = card["calibrations"]
    assert calibration["passed"]
    assert calibration["spearman"] == 0.97
    assert "items" not in calibration
    assert api_client.get("/api/v1/judges/0000000000000000").status_code == 404
    assert api_client.get("/api/v1/judges/..%2F..").status_code == 404


def _judged(
    session: Session, snapshot_id: str, judge: int, people: list[int]
) -> tuple[str, str, int]:
    test = make_test(session)
    review = Review(test_id=test.id, reviewer_kind=ReviewerKind.AI, score=judge,
                    reasoning="Judged.", judge_snapshot_id=snapshot_id)  # fmt: skip
    session.add(review)
    for score in people:
        session.add(Review(test_id=test.id, reviewer_kind=ReviewerKind.HUMAN, score=score,
                           reasoning="Read it."))  # fmt: skip
    session.flush()
    return review.id, test.id, judge


def test_the_judge_card_publishes_agreement_with_people_and_per_seat(
    api_client: TestClient, engine: Engine, settings: Settings, fake_judge: FakeJudge
) -> None:
    on = judge_settings(settings, fake_judge, "e" * 64)
    with Session(engine) as session:
        snapshot = make_active_snapshot(
            session, on, panel=True, model_ids=["seat-a-2026-01-01", "seat-b-2026-01-01"]
        )
        snapshot_id = snapshot.id
        reviews = [_judged(session, snapshot_id, 10 * n, [10 * n]) for n in range(9)]
        _judged(session, snapshot_id, 50, [])  # no person reviewed it: not shared
        session.commit()
    overall = api_client.get(f"/api/v1/judges/{snapshot_id}").json()["agreement"]["overall"]
    assert overall["status"] == "not_enough_overlap"
    assert (overall["shared_tests"], overall["minimum_shared"], overall["kappa"]) == (9, 10, None)

    with Session(engine) as session:
        # The tenth shared Test: people say 95 and 85 (mean 90), the judge 90.
        reviews.append(_judged(session, snapshot_id, 90, [95, 85]))
        for review_id, test_id, judged in reviews:
            for seat, score in (("seat-a", judged), ("seat-b", 100 - judged)):
                sample = JudgeSample(snapshot_id=snapshot_id, purpose=SamplePurpose.REVIEW,
                                     test_id=test_id, round=0, requested_model=seat,
                                     seat=seat, status=SampleStatus.OK, score=score)  # fmt: skip
                session.add(sample)
                session.flush()
                session.add(JudgeReviewSample(review_id=review_id, sample_id=sample.id))
        session.commit()
    agreement = api_client.get(f"/api/v1/judges/{snapshot_id}").json()["agreement"]
    overall = agreement["overall"]
    assert overall["status"] == "ok"
    assert overall["shared_tests"] == 10
    assert (overall["mean_absolute_difference"], overall["within_10"]) == (0, 1)
    assert (overall["spearman"], overall["kappa"]) == (1, 1)
    seats = agreement["seats"]
    assert set(seats) == {"seat-a", "seat-b"}
    assert seats["seat-a"]["spearman"] == 1
    assert seats["seat-b"]["spearman"] == -1  # the seat that reverses the order
    assert seats["seat-b"]["kappa"] < 0


def test_the_card_and_operations_views_word_the_agreement(
    session: Session, settings: Settings, fake_judge: FakeJudge
) -> None:
    on = judge_settings(settings, fake_judge, "e" * 64)
    panel, fresh = seed_agreement(session, on)
    session.commit()

    card = judge_card(session, panel)
    assert card is not None
    view = AgreementView.of(card.agreement)
    assert {f.key: f.value for f in view.figures} == {
        "shared": "12", "mad": "5 points", "within": "100%", "spearman": "1", "kappa": "0.99",
    }  # fmt: skip
    assert [(seat.seat, seat.spearman) for seat in view.seats] == [
        (SEATS[0], "1"), (SEATS[1], "\N{MINUS SIGN}1"),
    ]  # fmt: skip
    probes = {probe.key: probe for probe in probe_views(card.calibrations[0], margin=5)}
    assert (probes["padding"].result, probes["padding"].measured) == (
        "failed", "worst +12 points over the original (1 pair)",
    )  # fmt: skip
    assert probes["identity"].result == "passed"
    fresh_card = judge_card(session, fresh)
    assert fresh_card is not None
    assert AgreementView.of(fresh_card.agreement).overlap == (
        "Not enough overlap yet (4 of 10 shared Tests)."
    )

    rows = {row.id: row for row in JudgeView.of(judge_status(session, on)).snapshots}
    assert rows[panel].agreement == "12 shared · MAD 5 · κ 0.99"
    assert rows[panel].calibration.startswith("failed")
    assert rows[fresh].agreement == "Not enough overlap (4 of 10)"
