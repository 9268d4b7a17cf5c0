"""Which of a Test's files its readers may see: the one rule the Test page, the JSON API and
reports apply to a file row.

A file is seen once the safety scan approved it (and no moderator blocked it since); a
source ZIP only while its contributor keeps the source public. The contributor sees every
file of their own Test regardless. The user-content origin applies the same rule in its own
query (it may not import services), and the open-data export in SQL.
"""

from __future__ import annotations

from benchmax.models import EvidenceFile, EvidenceKind, EvidenceState, SourceVisibility, Test


def readers_see(file: EvidenceFile, test: Test) -> bool:
    """Whether anyone reading ``test`` may see ``file`` (one of its files)."""
    return file.state == EvidenceState.APPROVED and (
        file.kind != EvidenceKind.SOURCE or test.source_visibility == SourceVisibility.PUBLIC
    )
