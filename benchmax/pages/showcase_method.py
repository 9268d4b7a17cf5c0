"""The methodology page's sections on the showcase score, attempts and comparison groups.

The worked example is computed with the same function the snapshots use, so the page cannot
drift from what is published.
"""

from __future__ import annotations

from benchmax.services.leaderboard.scoring import bayesian_score_bp, points_text

_M, _C = 3, 60
_TIMES = "\u00d7"


def _example(scores: list[int]) -> str:
    return points_text(bayesian_score_bp(scores, _M, _C * 100))


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
