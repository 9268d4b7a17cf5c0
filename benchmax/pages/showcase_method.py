"""The methodology page's sections on the showcase score, attempts and comparison groups.

The worked example is computed with the same function the snapshots use, so the page cannot
drift from what is published.
"""

from __future__ import annotations

from benchmax.services.leaderboard.intervals import (
    band_text,
    half_width_bp,
    interval,
    pooled_variance_bp2,
    rank_bands,
)
from benchmax.services.leaderboard.scoring import bayesian_score_bp, points_text

_M, _C = 3, 60
_TIMES = "\u00d7"


def _example(scores: list[int]) -> str:
    return points_text(bayesian_score_bp(scores, _M, _C * 100))


# The interval's worked example: one review of 100 against ten reviews of 78, so C = 80.
_ONE, _TEN = [100], [78] * 10
_C_BP = 8000


def _interval_example(scores: list[int]) -> tuple[str, tuple[int, int]]:
    """ "85.00 (78.81 to 91.19)" for these reviews in the two-Test example, and the bounds."""
    score = bayesian_score_bp(scores, _M, _C_BP)
    half = half_width_bp(pooled_variance_bp2(_ONE + _TEN, _C_BP), len(scores), _M)
    low, high = interval(score, half)
    return f"{points_text(score)} ({points_text(low)}\N{EN DASH}{points_text(high)})", (low, high)


def _band_example() -> str:
    (one, (one_low, one_high)), (ten, (ten_low, ten_high)) = map(_interval_example, (_ONE, _TEN))
    firsts, lasts = rank_bands([one_low, ten_low], [one_high, ten_high])
    return (
        f"Worked example: a snapshot of two Tests, one with a single review of 100 and one with "
        f"ten reviews of 78, m = {_M}. C is the mean of all eleven reviews, 80, and the spread "
        f"of reviews around it is 40 points squared. The single 100 scores {one}; the ten 78s "
        f"score {ten}. The intervals overlap, so both rows read "
        f"{band_text(firsts[0], lasts[0])}: the lucky review is first on its point score, but "
        "nothing says it is better."
    )


SHOWCASE_SECTIONS = [
    (
        "How the showcase score works",
        "Each ranked Test's score is a Bayesian average of its counted review scores (0 to 100): "
        f"score = (sum of scores + m {_TIMES} C) ÷ (number of scores + m). Every Test starts as "
        "if it had m imaginary reviews at C, the mean of every counted review in the snapshot. "
        f"With m = {_M} and C = {_C}: one lucky 100 gives (100 + {_M} {_TIMES} {_C}) ÷ "
        f"(1 + {_M}) = {_example([100])}; "
        f"three 85s give {_example([85] * 3)}; ten 78s give {_example([78] * 10)}. So ten steady "
        "reviews outrank one perfect review, and one review cannot top the board. Scores are "
        "computed in whole hundredths, so anyone can reproduce them exactly. Equal scores share a "
        "rank; among them, more reviews come first, then the earlier publication.",
    ),
    (
        "How sure a score is: the 95% interval",
        "Next to each score the leaderboard shows a 95% interval from the same model: the "
        "normal approximation to the posterior of the shrunk score. Review scores are taken to "
        "scatter around a Test's true score as much as all counted reviews in the snapshot "
        "scatter around C (the pooled variance s\u00b2), so a Test with n counted reviews has "
        f"score \u00b1 1.96 {_TIMES} \u221a(s\u00b2 \u00f7 (n + m)), clamped to 0\u2013100. More "
        "reviews give a narrower interval. " + _band_example(),
    ),
    (
        "Rank bands: which places are statistically tied",
        "A row ranks above another only when its interval's lower bound clears the other's "
        "upper bound. Its band runs from 1 + the number of rows whose lower bound is above its "
        "upper bound to the number of rows whose upper bound reaches its lower bound (itself "
        "included). \u201c#3\u2013#7\u201d means the snapshot cannot tell this row apart from "
        "places 3 to 7; \u201c#1\u201d alone means no other interval overlaps it. Intervals and "
        "bands are computed when a snapshot is built and sealed with it, and a filtered view of "
        "the leaderboard shows them as they were sealed for the whole snapshot. A comparison "
        "group computes its own, among its members.",
    ),
    (
        "What counts, and what is never changed",
        "Only public Tests that are not removed, not samples, not under an open moderation hold, "
        "and have at least one current review are ranked. A correction replaces the review it "
        "corrects; an AI review counts once (the median of its samples), and only from judge "
        "versions the recorded policy trusts. Each snapshot records its policy, m, C and cutoff "
        "and a SHA-256 of its rows; once published the database refuses any change to it, a newer "
        "snapshot only supersedes it, and every snapshot can be downloaded as JSON or CSV and "
        "checked against its hash.",
    ),
    (
        "Best of N, and declared attempts",
        "A contributor may have run a prompt many times and submitted the best result. BenchMax "
        "cannot see the attempts that were not submitted, so a Test shows how many attempts it was "
        "picked from only when the contributor declared it — otherwise it reads “attempts not "
        "declared”, which is never read as a single attempt. The leaderboard can be filtered to "
        "Tests that declared a single attempt.",
    ),
    (
        "Reviews assess the evidence, not a reproduction",
        "A review scores the submitted output and files. Nobody re-ran the prompt, so a score is "
        "not a reproduced pass@1 and says nothing about how often the setup succeeds.",
    ),
    (
        "Same prompt, different setups",
        "Tests whose prompts are identical apart from letter case, spacing, line endings and "
        "invisible characters form a comparison group, shown side by side and ordered by the same "
        "shrunk score within the group. Near-duplicate prompts are listed as similar, never merged "
        "automatically; a moderator may join two prompts with a recorded reason. Groups are not "
        "compared with each other.",
    ),
]
