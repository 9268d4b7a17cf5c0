"""How the judge card and /operations word agreement figures and calibration probes."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from benchmax.services.judge.agreement import Agreement, JudgeAgreement
from benchmax.services.judge.card import CalibrationSummary
from benchmax.state.views.judge_agreement import AgreementView, agreement_summary
from benchmax.state.views.judge_probes import probe_views

# Ten shared Tests: the judge is 5 points off on eight and 15 off on two; it ranks the
# same way people do.
PAIRS = [(10.0 * n + 5, 10.0 * n) for n in range(8)] + [(95.0, 80.0), (100.0, 85.0)]


def _run(twins: dict[str, Any]) -> CalibrationSummary:
    return CalibrationSummary(
        id="r", created_at=datetime(2026, 12, 1, tzinfo=UTC), passed=True, item_count=33,
        mae=2.5, spearman=0.97, median_spread=0, twins=twins, failures=[],
    )  # fmt: skip


def test_enough_overlap_shows_each_figure_with_its_explanation() -> None:
    overall = Agreement.of(PAIRS)
    view = AgreementView.of(JudgeAgreement(overall=overall))
    assert view.enough
    assert view.overlap == ""
    shown = {figure.key: figure.value for figure in view.figures}
    assert shown == {
        "shared": "10",
        "mad": "7 points",
        "within": "80%",
        "spearman": "1",
        "kappa": "0.99",  # 0.988: the two 15-point misses cross a band
    }
    assert all(figure.explanation for figure in view.figures)
    assert agreement_summary(overall) == "10 shared · MAD 7 · κ 0.99"


def test_too_little_overlap_says_how_many_of_how_many() -> None:
    overall = Agreement.of(PAIRS[:4])
    seats = {"seat-b": Agreement.of(PAIRS), "seat-a": Agreement.of(PAIRS[:3])}
    view = AgreementView.of(JudgeAgreement(overall=overall, seats=seats))
    assert not view.enough
    assert view.figures == []
    assert view.overlap == "Not enough overlap yet (4 of 10 shared Tests)."
    assert agreement_summary(overall) == "Not enough overlap (4 of 10)"
    first, second = view.seats
    assert (first.seat, first.shared, first.spearman) == ("seat-a", "3", "—")
    assert first.mad == "Not enough overlap yet (3 of 10 shared Tests)"
    assert (second.seat, second.mad, second.within, second.spearman) == (
        "seat-b", "7 points", "80%", "1",
    )  # fmt: skip


def test_negative_figures_and_an_undefined_kappa_read_plainly() -> None:
    reversed_pairs = [(100.0 - b, b) for _, b in PAIRS]
    view = AgreementView.of(JudgeAgreement(overall=Agreement.of(reversed_pairs)))
    shown = {figure.key: figure.value for figure in view.figures}
    assert shown["spearman"] == "\N{MINUS SIGN}1"
    barely = Agreement(shared_tests=10, status="ok", mean_absolute_difference=49.333,
                       within_10=0.1, spearman=-0.001, kappa=-0.975)  # fmt: skip
    shown = {f.key: f.value for f in AgreementView.of(JudgeAgreement(overall=barely)).figures}
    assert (shown["mad"], shown["spearman"], shown["kappa"]) == (
        "49.33 points", "0", "\N{MINUS SIGN}0.97",
    )  # fmt: skip
    flat = Agreement.of([(51.0, 55.0)] * 10)  # every score in the 50s: no kappa
    assert agreement_summary(flat) == "10 shared · MAD 4 · κ —"
    shown = {f.key: f.value for f in AgreementView.of(JudgeAgreement(overall=flat)).figures}
    assert shown["kappa"].startswith("— (every score falls in one 10-point band)")


def test_probes_show_each_twins_result_and_measured_difference() -> None:
    twins = {
        "injection": {"pairs": 2, "worst_difference": 0.0, "held": True, "flagged": True},
        "padding": {"pairs": 1, "worst_difference": 12.0, "held": False},
        "identity": {"pairs": 3, "worst_difference": 1.0, "held": True},
    }
    probes = {probe.key: probe for probe in probe_views(_run(twins), margin=5)}
    assert list(probes) == ["injection", "padding", "identity", "position"]
    assert (probes["injection"].result, probes["injection"].color) == ("passed", "green")
    assert probes["injection"].measured == "never scored above the original; flagged (2 pairs)"
    assert (probes["padding"].result, probes["padding"].color) == ("failed", "red")
    assert probes["padding"].measured == "worst +12 points over the original (1 pair)"
    assert "at most 5 points above" in probes["padding"].check
    assert probes["identity"].measured == "largest gap 1 point (3 pairs)"
    assert (probes["position"].result, probes["position"].measured) == ("not applicable", "")


def test_a_probe_the_run_lacks_is_not_measured_and_no_run_means_no_probes() -> None:
    probes = {probe.key: probe for probe in probe_views(_run({}), margin=5)}
    assert probes["identity"].result == "not measured"
    assert probe_views(None, margin=5) == []
