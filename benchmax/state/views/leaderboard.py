"""What ``/leaderboard`` shows: the snapshot's recorded policy in words and its ranked entries."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from benchmax.presentation.formatting import attempts_text, count_text
from benchmax.services.dates import Stamp, stamp
from benchmax.services.leaderboard import board
from benchmax.services.leaderboard.scoring import points_text
from benchmax.state.views.listed import ListedView, ScoredView

KIND_WORDS = {"admin": "admins", "human": "approved reviewers", "ai": "AI judges"}


@dataclass(frozen=True)
class PolicyView:
    """The recorded policy as sentences a reader can check against the formula."""

    formula: str = ""
    # What the prior means, which reviews count and which Tests are eligible.
    rules: list[str] = field(default_factory=list)
    version: str = ""
    cutoff: Stamp = field(default_factory=Stamp)  # reviews after it wait for the next snapshot

    @classmethod
    def of(cls, policy: dict[str, Any]) -> PolicyView:
        kinds = [KIND_WORDS.get(kind, kind) for kind in policy["review_kinds"]]
        judges = policy["judge_snapshot_ids"]
        counted = "Reviews counted: current reviews by " + " and ".join(
            [", ".join(kinds[:-1]), kinds[-1]] if len(kinds) > 1 else kinds
        )
        if "ai" in policy["review_kinds"]:
            trusted = ", ".join(judges) if judges else "none yet, so no AI review counts"
            counted += f". AI judge versions trusted: {trusted}"
        m, c = policy["prior_weight"], points_text(policy["prior_mean_bp"])
        return cls(
            formula=f"score = (sum of counted scores + {m} \u00d7 {c}) "
            f"\u00f7 (number of counted scores + {m})",
            rules=[
                f"m = {m}: every Test starts with {m} imaginary reviews at C = {c}, the mean of "
                "every counted review score in this snapshot, so one lucky review cannot top it.",
                counted + ".",
                "Eligible: public, not removed, not a sample, no open moderation hold, and at "
                "least one current review. A correction replaces the review it corrects.",
            ],
            version=f"Policy version {policy['policy_version']} ({policy['formula']})",
            cutoff=stamp(policy["cutoff"]),
        )


@dataclass(frozen=True)
class SnapshotOption:
    """A published snapshot in the picker: when, in words with the exact time on hover."""

    id: str
    published: Stamp
    latest: bool


REMOVED_TITLE = "Removed by moderation after this snapshot"


@dataclass(frozen=True)
class BoardEntryView(ScoredView):
    """One ranked row; only its title when the Test was removed after the snapshot.

    ``model`` and ``harness`` are the catalog's names when the declared labels matched one,
    else the labels; ``declared`` is what the contributor typed, shown on hover.
    """

    score_range: str = ""
    model: str = ""
    harness: str = ""
    declared: str = ""

    @classmethod
    def of(cls, entry: board.BoardEntry) -> BoardEntryView:
        shown = ListedView.fields_of(entry.test) if entry.test else {"title": REMOVED_TITLE}
        setup: dict[str, str] = {}
        if entry.test:
            declared = " ".join(
                part for part in (entry.test.model_label, entry.test.model_version_label) if part
            )
            setup = {
                "model": entry.model_name or declared,
                "harness": entry.harness_name or entry.test.harness_label,
                "declared": f"Declared by the contributor: {shown['setup']}",
            }
        return cls(
            **{
                **shown,
                # The attempts the snapshot recorded, which is what was ranked.
                "attempts": attempts_text(entry.attempts),
            },
            **setup,
            **cls.interval_fields(entry.score, entry.score_low, entry.score_high),
            place=str(entry.rank),
            band=entry.band or f"#{entry.rank}",
            score=entry.score,
            reviews=count_text(entry.review_count, "review"),
            # One review has no range worth stating.
            score_range=""
            if entry.review_count == 1
            else f"range {entry.score_min} to {entry.score_max}",
        )
