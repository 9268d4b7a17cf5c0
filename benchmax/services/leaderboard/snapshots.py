"""Building, publishing and verifying showcase snapshots.

``build_snapshot`` does all of it in the caller's transaction: it writes the snapshot as
``building``, inserts every row, seals policy and rows with a SHA-256, flips the snapshot to
``published``, records that it supersedes the previous one, and marks the ranked Tests
Ranked. Commit makes all of that visible at once; a failure anywhere rolls all of it back, so
a half-built snapshot is never seen. Once committed the database refuses to change it.

Canonical rows hold integers and strings only. An undeclared number of attempts is the
string "not declared", never 1 (and never 0 or null, which readers might take for a count).

Since migration 0017 every snapshot also records, per row, its score's 95% interval and its
rank band (``intervals``), and its seal also covers the previous snapshot's seal and is signed
(``signing``); its policy says so (``"seal": CHAINED_SEAL_ID``). Older snapshots are verified
as they were sealed: policy and rows only, unsigned.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from itertools import chain
from operator import itemgetter
from typing import Any, cast

from sqlalchemy import func, not_, text, update
from sqlalchemy import select as select_columns
from sqlmodel import Session, col, select

from benchmax.models import (
    LeaderboardRow,
    LeaderboardSnapshot,
    LeaderboardSupersession,
    ReviewState,
    SnapshotStatus,
    Test,
)
from benchmax.models._base import as_utc, is_public_id, utcnow
from benchmax.services.dates import iso
from benchmax.services.errors import NotFound
from benchmax.services.leaderboard.intervals import (
    INTERVAL_ID,
    RANK_BAND_ID,
    half_width_bp,
    interval,
    pooled_variance_bp2,
    rank_bands,
)
from benchmax.services.leaderboard.policy import Policy, counted_reviews, current_policy
from benchmax.services.leaderboard.policy import eligible_test_conditions as eligible
from benchmax.services.leaderboard.scoring import (
    Scored,
    bayesian_score_bp,
    canonical_json,
    mean_bp,
    ranked,
    seal,
)
from benchmax.services.leaderboard.signing import (
    SIGNATURE_ID,
    SigningKey,
    fingerprint,
    rotation_ok,
    signature_ok,
)

ATTEMPTS_NOT_DECLARED = "not declared"
# Rows per INSERT: 1,000 rows of 19 values stay under both SQLite's 32,766 and
# PostgreSQL's 65,535 bound parameters per statement.
_INSERT_BATCH = 1000
# pg_advisory_xact_lock key: one snapshot build at a time (SQLite's write lock does the same).
_BUILD_LOCK = 0x42_4D_58_4C_42  # "BMXLB"
CHAINED_SEAL_ID = "sha256-chained-ed25519-v1"
ROW_FIELDS = (
    "rank", "test_id", "score_bp", "review_count", "score_min", "score_max", "review_ids",
    "family_id", "catalog_model_id", "model_key", "harness_id", "harness_key",
    "reasoning_key", "attempts",
)  # fmt: skip
# Sealed only in chained snapshots (before 0017 they did not exist).
INTERVAL_FIELDS = ("score_low_bp", "score_high_bp", "band_first", "band_last")


class SnapshotNotFoundError(NotFound):
    """No published snapshot has this id (a draft or withdrawn one reads the same)."""

    def __init__(self) -> None:
        super().__init__("not_found", "No published snapshot has this id.")


def is_chained(policy: Mapping[str, Any]) -> bool:
    """Whether a snapshot's recorded policy says it has intervals, a chain and a signature."""
    return policy.get("seal") == CHAINED_SEAL_ID


def row_fields(chained: bool) -> tuple[str, ...]:
    return (*ROW_FIELDS, *INTERVAL_FIELDS) if chained else ROW_FIELDS


_CANONICAL_FIELDS = {chained: ("position", *row_fields(chained)) for chained in (True, False)}
# One C-level lookup of every sealed field: the seal reads 100,000 rows this way.
_CANONICAL_VALUES = {chained: itemgetter(*names) for chained, names in _CANONICAL_FIELDS.items()}


def canonical_row(row: Mapping[str, Any], chained: bool = True) -> dict[str, Any]:
    """A stored row (as ``iter_rows`` yields it, or as it is inserted) as the seal covers it."""
    values = dict(zip(_CANONICAL_FIELDS[chained], _CANONICAL_VALUES[chained](row), strict=True))
    if values["attempts"] is None:
        values["attempts"] = ATTEMPTS_NOT_DECLARED
    return values


# What a row copies from its Test: the declared setup at the cutoff, for the filters.
_SETUP_COLUMNS = (
    "family_id", "catalog_model_id", "model_key", "harness_id", "harness_key", "reasoning_key",
    "attempts",
)  # fmt: skip
_ROW_COLUMNS = tuple(
    col(getattr(LeaderboardRow, name)) for name in ("position", *ROW_FIELDS, *INTERVAL_FIELDS)
)
# Read in the same order; a Test's missing catalog ids are "" in its row, as SQL gives them.
_SETUP_SELECT = tuple(
    func.coalesce(col(getattr(Test, name)), "")
    if name in ("family_id", "catalog_model_id", "harness_id")
    else col(getattr(Test, name))
    for name in _SETUP_COLUMNS
)


def _take_build_lock(session: Session) -> None:
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _BUILD_LOCK})


def current_snapshot(session: Session) -> LeaderboardSnapshot | None:
    """The newest published snapshot that nothing has superseded."""
    superseded = select(LeaderboardSupersession.snapshot_id)
    return session.exec(
        select(LeaderboardSnapshot)
        .where(
            col(LeaderboardSnapshot.status) == SnapshotStatus.PUBLISHED,
            not_(col(LeaderboardSnapshot.id).in_(superseded)),
        )
        .order_by(col(LeaderboardSnapshot.published_at).desc(), col(LeaderboardSnapshot.id))
        .limit(1)
    ).first()


def _score_eligible(
    session: Session, policy: Policy, cutoff: datetime
) -> tuple[int, int, list[tuple[int, Scored]], dict[str, tuple[Any, ...]]]:
    """C, s2, the ranked entries, and each ranked Test's setup (``_SETUP_COLUMNS``' values)."""
    counted = counted_reviews(session, policy, cutoff=cutoff)
    prior_mean = mean_bp(score for entry in counted.values() for score in entry.scores)
    variance = pooled_variance_bp2(
        (score for entry in counted.values() for score in entry.scores), prior_mean
    )
    # Plain column rows, not ORM objects: at 100,000 Tests object loading would dominate.
    columns = select_columns(col(Test.id), col(Test.published_at), *_SETUP_SELECT)
    published: dict[str, datetime] = {}
    setups: dict[str, tuple[Any, ...]] = {}
    for test_id, published_at, *setup in session.execute(columns.where(*eligible(cutoff))):
        if test_id in counted:
            published[test_id] = as_utc(published_at or cutoff)
            setups[test_id] = tuple(setup)
    entries = [
        Scored(
            test_id=test_id,
            published_at=published_at,
            score_bp=bayesian_score_bp(counted[test_id].scores, policy.prior_weight, prior_mean),
            scores=counted[test_id].scores,
            review_ids=counted[test_id].review_ids,
        )
        for test_id, published_at in published.items()
    ]
    return prior_mean, variance, ranked(entries), setups


def _newest_published(session: Session) -> LeaderboardSnapshot | None:
    """The head of the chain: the snapshot published last (superseded or not)."""
    return session.exec(
        select(LeaderboardSnapshot)
        .where(col(LeaderboardSnapshot.status) == SnapshotStatus.PUBLISHED)
        .order_by(col(LeaderboardSnapshot.published_at).desc(), col(LeaderboardSnapshot.id))
        .limit(1)
    ).first()


def _rows(
    snapshot_id: str,
    ordered: list[tuple[int, Scored]],
    setups: Mapping[str, tuple[Any, ...]],
    variance_bp2: int,
    prior_weight: int,
) -> list[dict[str, Any]]:
    """The snapshot's rows as they are inserted (and then sealed), each built once with its
    95% interval and rank band: one half-width per number of reviews, and intervals and
    bands as plain integer lists, since a snapshot has 100,000 rows."""
    counts = [len(entry.scores) for _, entry in ordered]
    halves = {count: half_width_bp(variance_bp2, count, prior_weight) for count in set(counts)}
    spans = [
        interval(entry.score_bp, halves[count])
        for (_, entry), count in zip(ordered, counts, strict=True)
    ]
    lows = [low for low, _ in spans]
    highs = [high for _, high in spans]
    firsts, lasts = rank_bands(lows, highs)
    return [
        {
            "snapshot_id": snapshot_id,
            "position": position,
            "rank": rank,
            "test_id": entry.test_id,
            "score_bp": entry.score_bp,
            "review_count": count,
            "score_min": min(entry.scores),
            "score_max": max(entry.scores),
            "review_ids": ",".join(sorted(entry.review_ids)),
            "score_low_bp": low,
            "score_high_bp": high,
            "band_first": first,
            "band_last": last,
            **dict(zip(_SETUP_COLUMNS, setups[entry.test_id], strict=True)),
        }
        for position, ((rank, entry), count, low, high, first, last) in enumerate(
            zip(ordered, counts, lows, highs, firsts, lasts, strict=True), start=1
        )
    ]


def _insert_rows(session: Session, rows: list[dict[str, Any]]) -> None:
    """Multi-row INSERTs handed to the driver as they are, ``_INSERT_BATCH`` rows each.

    SQLite journals every statement on a table with triggers, so 100,000 one-row statements
    were most of a build; and SQLAlchemy's own multi-row path still builds a parameter dict
    per row, which cost more than the database's work. Every row has the same keys in the
    same order (``_rows`` builds them), so one placeholder group repeats and the values are
    one flat tuple per batch.
    """
    if not rows:
        return
    connection = session.connection()
    dialect = connection.dialect
    names = tuple(rows[0])
    values = itemgetter(*names)
    marker = "?" if dialect.paramstyle == "qmark" else "%s"
    group = "(" + ",".join([marker] * len(names)) + ")"
    # Identifiers are this module's own column names, quoted; every value is a bound parameter.
    table = dialect.identifier_preparer.quote(LeaderboardRow.__tablename__)
    head = (
        f"INSERT INTO {table} ("  # noqa: S608
        + ",".join(dialect.identifier_preparer.quote(name) for name in names)
        + ") VALUES "
    )
    for start in range(0, len(rows), _INSERT_BATCH):
        batch = rows[start : start + _INSERT_BATCH]
        parameters = tuple(chain.from_iterable(map(values, batch)))
        connection.exec_driver_sql(head + ",".join([group] * len(batch)), parameters)


def _described(policy: Policy, prior_mean: int, variance: int, cutoff: datetime) -> dict[str, Any]:
    """The policy as this snapshot applied it, with the schemes its rows and seal follow."""
    return policy.describe(prior_mean, cutoff.isoformat(timespec="microseconds")) | {
        "interval": INTERVAL_ID,
        "pooled_variance_bp2": variance,
        "rank_band": RANK_BAND_ID,
        "seal": CHAINED_SEAL_ID,
        "signature": SIGNATURE_ID,
    }


def build_snapshot(
    session: Session, request_key: str, key: SigningKey, *, cutoff: datetime | None = None
) -> LeaderboardSnapshot | None:
    """Build, seal, sign and publish a snapshot in the caller's transaction (see the module
    docstring); ``key`` is ``signing.signing_key(settings)``.

    ``request_key`` names what asked for it; asking again with the same key returns the
    snapshot already published for it, so a retried job never publishes twice. With no
    eligible Test there is nothing to show and nothing is published (None): an empty
    snapshot would only hide the last real one.
    """
    existing = session.exec(
        select(LeaderboardSnapshot).where(LeaderboardSnapshot.request_key == request_key)
    ).first()
    if existing is not None:
        return existing
    _take_build_lock(session)
    cutoff = as_utc(cutoff or utcnow())
    policy = current_policy(session)
    prior_mean, variance, ordered, setups = _score_eligible(session, policy, cutoff)
    if not ordered:
        return None
    described = _described(policy, prior_mean, variance, cutoff)
    snapshot = LeaderboardSnapshot(
        request_key=request_key[:64],
        policy_id=policy.id,
        policy_json=canonical_json(described),
        prior_mean_bp=prior_mean,
        cutoff_at=cutoff,
        row_count=len(ordered),
    )
    session.add(snapshot)
    session.flush()
    rows = _rows(snapshot.id, ordered, setups, variance, policy.prior_weight)
    _insert_rows(session, rows)
    _publish(session, snapshot, _seal_and_sign(session, snapshot, described, rows, key))
    return snapshot


def _seal_and_sign(
    session: Session,
    snapshot: LeaderboardSnapshot,
    policy: dict[str, Any],
    rows: list[dict[str, Any]],
    key: SigningKey,
) -> str:
    """Chain the snapshot to the head, sign its seal, and return the seal."""
    head = _newest_published(session)
    previous_sha256 = head.sha256 if head else ""
    sha256 = seal(policy, (canonical_row(row) for row in rows), previous_sha256)
    snapshot.previous_id = head.id if head else ""
    snapshot.previous_sha256 = previous_sha256
    snapshot.public_key = key.public_hex
    snapshot.signature = key.sign(sha256)
    if head is not None and head.public_key and head.public_key != key.public_hex:
        snapshot.key_rotation = key.rotation
    return sha256


def _publish(session: Session, snapshot: LeaderboardSnapshot, sha256: str) -> None:
    previous = current_snapshot(session)
    snapshot.sha256 = sha256
    snapshot.status = SnapshotStatus.PUBLISHED
    snapshot.published_at = utcnow()
    session.add(snapshot)
    session.flush()
    if previous is not None and previous.id != snapshot.id:
        session.add(LeaderboardSupersession(snapshot_id=previous.id, superseded_by_id=snapshot.id))
    ranked_ids = select(LeaderboardRow.test_id).where(LeaderboardRow.snapshot_id == snapshot.id)
    session.execute(
        update(Test)
        .where(col(Test.id).in_(ranked_ids), col(Test.review_state) != ReviewState.RANKED)
        .values(review_state=ReviewState.RANKED)
        .execution_options(synchronize_session=False)
    )
    session.execute(
        update(Test)
        .where(col(Test.review_state) == ReviewState.RANKED, not_(col(Test.id).in_(ranked_ids)))
        .values(review_state=ReviewState.REVIEWED)
        .execution_options(synchronize_session=False)
    )
    session.flush()


def published_snapshot(session: Session, snapshot_id: str) -> LeaderboardSnapshot:
    snapshot = session.get(LeaderboardSnapshot, snapshot_id) if is_public_id(snapshot_id) else None
    if snapshot is None or snapshot.status != SnapshotStatus.PUBLISHED:
        raise SnapshotNotFoundError()
    return snapshot


def iter_rows(session: Session, snapshot_id: str, batch: int = 5000) -> Iterator[Mapping[str, Any]]:
    """Every stored row of a snapshot as a mapping, in position order, a keyset batch at a time."""
    after = 0
    while True:
        rows = (
            session.execute(
                select_columns(*_ROW_COLUMNS)
                .where(
                    col(LeaderboardRow.snapshot_id) == snapshot_id,
                    col(LeaderboardRow.position) > after,
                )
                .order_by(col(LeaderboardRow.position))
                .limit(batch)
            )
            .mappings()
            .all()
        )
        yield from cast(list[Mapping[str, Any]], rows)
        if len(rows) < batch:
            return
        after = rows[-1]["position"]


@dataclass(frozen=True)
class Verification:
    """What ``verify_snapshot`` found; ``signed`` is False only for snapshots from before 0017.

    ``chain_broken_at`` names the first snapshot, walking back from the newest, whose stored
    seal no longer matches what its successor sealed as ``previous_sha256``, whose signature
    fails, or whose key was replaced without a valid hand-over ("" when the chain holds).
    """

    snapshot_id: str
    stored_sha256: str
    computed_sha256: str
    row_count: int
    stored_row_count: int
    signed: bool
    signature_ok: bool
    chain_broken_at: str

    @property
    def rows_ok(self) -> bool:
        return (
            self.stored_sha256 == self.computed_sha256 and self.row_count == self.stored_row_count
        )

    @property
    def ok(self) -> bool:
        return self.rows_ok and self.signature_ok and not self.chain_broken_at


def _signed_ok(snapshot: LeaderboardSnapshot) -> bool:
    return bool(snapshot.public_key) and signature_ok(
        snapshot.public_key, snapshot.sha256, snapshot.signature
    )


def _chain(session: Session, trusted_public_key: str) -> tuple[set[str], str]:
    """Walk the chain back from its head: the ids whose signature holds under a key trusted
    from ``trusted_public_key`` (through hand-overs), and where the chain breaks ("")."""
    newer = _newest_published(session)
    good: set[str] = set()
    trusted = newer is not None and newer.public_key == trusted_public_key
    broken = ""
    while newer is not None and newer.public_key:
        if not _signed_ok(newer):
            broken = broken or newer.id
        elif trusted:
            good.add(newer.id)
        older = session.get(LeaderboardSnapshot, newer.previous_id) if newer.previous_id else None
        if older is None:
            if newer.previous_sha256:  # it sealed a predecessor that is gone
                broken = broken or newer.previous_id
            break
        if older.sha256 != newer.previous_sha256:
            broken = broken or older.id
        if older.public_key and older.public_key != newer.public_key:
            handed_over = rotation_ok(newer.key_rotation, older.public_key, newer.public_key)
            trusted = trusted and handed_over
            if not handed_over:
                broken = broken or newer.id
        newer = older
    return good, broken


def verify_snapshot(session: Session, snapshot_id: str, trusted_public_key: str) -> Verification:
    """Recompute a published snapshot's seal from its stored policy, rows and predecessor's
    seal; check its signature under ``trusted_public_key`` (the configured key's, or an
    earlier key that handed over to it) and the whole chain (see ``Verification``)."""
    snapshot = published_snapshot(session, snapshot_id)
    policy = json.loads(snapshot.policy_json)
    chained = is_chained(policy)
    rows = [canonical_row(row, chained) for row in iter_rows(session, snapshot.id)]
    good, broken = _chain(session, trusted_public_key)
    return Verification(
        snapshot_id=snapshot.id,
        stored_sha256=snapshot.sha256,
        computed_sha256=seal(policy, rows, snapshot.previous_sha256 if chained else None),
        row_count=len(rows),
        stored_row_count=snapshot.row_count,
        signed=chained,
        signature_ok=snapshot.id in good if chained else True,
        chain_broken_at=broken,
    )


@dataclass(frozen=True)
class SnapshotSummary:
    id: str
    published_at: datetime
    row_count: int
    sha256: str
    policy_version: int
    prior_mean_bp: int
    prior_weight: int
    superseded_by: str | None
    policy: dict[str, Any]
    previous_id: str
    previous_sha256: str
    public_key: str
    signature: str
    key_rotation: str

    def to_json(self) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "id": self.id,
            "published_at": iso(self.published_at),
            "row_count": self.row_count,
            "sha256": self.sha256,
            "policy_version": self.policy_version,
            "prior_mean_bp": self.prior_mean_bp,
            "prior_weight": self.prior_weight,
            "superseded_by": self.superseded_by,
            "status": "superseded" if self.superseded_by else "current",
            "previous_id": self.previous_id,
            "previous_sha256": self.previous_sha256,
            "public_key": self.public_key,
            "key_fingerprint": fingerprint(self.public_key) if self.public_key else "",
            "signature": self.signature,
            "key_rotation": self.key_rotation,
        }


def summary(snapshot: LeaderboardSnapshot, superseded_by: str | None) -> SnapshotSummary:
    policy = json.loads(snapshot.policy_json)
    return SnapshotSummary(
        id=snapshot.id,
        published_at=as_utc(snapshot.published_at or snapshot.created_at),
        row_count=snapshot.row_count,
        sha256=snapshot.sha256,
        policy_version=int(policy["policy_version"]),
        prior_mean_bp=snapshot.prior_mean_bp,
        prior_weight=int(policy["prior_weight"]),
        superseded_by=superseded_by,
        policy=policy,
        previous_id=snapshot.previous_id,
        previous_sha256=snapshot.previous_sha256,
        public_key=snapshot.public_key,
        signature=snapshot.signature,
        key_rotation=snapshot.key_rotation,
    )


def list_snapshots(session: Session, limit: int = 50) -> list[SnapshotSummary]:
    """Published snapshots, newest first, each saying what superseded it."""
    rows = session.exec(
        select(LeaderboardSnapshot, LeaderboardSupersession.superseded_by_id)
        .outerjoin(
            LeaderboardSupersession,
            col(LeaderboardSupersession.snapshot_id) == LeaderboardSnapshot.id,
        )
        .where(col(LeaderboardSnapshot.status) == SnapshotStatus.PUBLISHED)
        .order_by(col(LeaderboardSnapshot.published_at).desc(), col(LeaderboardSnapshot.id))
        .limit(limit)
    ).all()
    return [summary(snapshot, by) for snapshot, by in rows]


@dataclass(frozen=True)
class Placement:
    rank: int
    published_at: datetime
    snapshot_id: str


def placement(session: Session, test_id: str) -> Placement | None:
    """Where a Test stands in the current snapshot, if it is ranked there."""
    snapshot = current_snapshot(session)
    if snapshot is None:
        return None
    rank = session.exec(
        select(LeaderboardRow.rank).where(
            LeaderboardRow.test_id == test_id, LeaderboardRow.snapshot_id == snapshot.id
        )
    ).first()
    if rank is None:
        return None
    published = as_utc(snapshot.published_at or snapshot.created_at)
    return Placement(rank=rank, published_at=published, snapshot_id=snapshot.id)
