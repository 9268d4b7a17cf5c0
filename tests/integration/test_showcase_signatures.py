"""Intervals, bands, the chain and the signature on real databases, and the offline recipe.

The tampering tests work on a copy of the SQLite file, the way someone holding it would:
drop the triggers, change a score, recompute the seal. Only the signing key gives them away.
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr
from sqlalchemy import Engine, text
from sqlmodel import Session

from benchmax.db import make_engine
from benchmax.models import LeaderboardSnapshot, Role, Test
from benchmax.services.errors import ServiceError
from benchmax.services.leaderboard import exports
from benchmax.services.leaderboard.board import BoardFilters, board_page
from benchmax.services.leaderboard.scoring import seal
from benchmax.services.leaderboard.signing import (
    SigningKey,
    new_key_pair,
    private_key_from_hex,
    rotation_statement,
    signing_key,
)
from benchmax.services.leaderboard.snapshots import (
    build_snapshot,
    canonical_row,
    iter_rows,
    verify_snapshot,
)
from benchmax.services.prompts.groups import prompt_group
from benchmax.settings import Settings
from tests.support.factories import make_review, make_test, make_user

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
ROOT = Path(__file__).resolve().parents[2]


def _key() -> SigningKey:
    return private_key_from_hex(new_key_pair()[0])


def _reviewed(session: Session, scores: list[int], **overrides: Any) -> Test:
    test = make_test(session, **overrides)
    reviewer = make_user(session, role=Role.REVIEWER)
    for score in scores:
        make_review(session, test, reviewer, score=score)
    return test


def _publish(session: Session, key: SigningKey, request_key: str) -> LeaderboardSnapshot:
    snapshot = build_snapshot(session, request_key, key)
    assert snapshot is not None
    session.commit()
    return snapshot


@BOTH
def test_a_snapshot_seals_intervals_and_bands_computed_by_hand(session: Session) -> None:
    lucky = _reviewed(session, [100])
    steady = _reviewed(session, [78] * 10)
    session.commit()
    key = _key()
    snapshot = _publish(session, key, "by-hand")
    policy = json.loads(snapshot.policy_json)
    assert (policy["prior_mean_bp"], policy["pooled_variance_bp2"]) == (8000, 400_000)
    rows = {row["test_id"]: row for row in iter_rows(session, snapshot.id)}
    values = ("score_bp", "score_low_bp", "score_high_bp", "band_first", "band_last")
    assert tuple(rows[lucky.id][name] for name in values) == (8500, 7881, 9119, 1, 2)
    assert tuple(rows[steady.id][name] for name in values) == (7846, 7503, 8189, 1, 2)
    assert verify_snapshot(session, snapshot.id, key.public_hex).ok
    (first, second) = board_page(session, None, BoardFilters()).items
    assert (first.rank, first.band, first.score_low, first.score_high) == (
        1,
        "#1\N{EN DASH}#2",
        "78.81",
        "91.19",
    )
    assert second.rank == 2
    assert first.test is not None
    assert first.test.group_url == f"/prompts/{first.test.prompt_key}"


def test_a_comparison_group_ranks_with_bands_of_its_own(session: Session) -> None:
    prompt = "The same prompt for every member."
    _reviewed(session, [100], prompt=prompt)
    _reviewed(session, [78] * 10, prompt=prompt)
    last = _reviewed(session, [], prompt=prompt)
    session.commit()
    group = prompt_group(session, last.prompt_key)
    assert group is not None
    bands = [(m.score, m.score_low, m.score_high, m.band) for m in group.members]
    assert bands == [
        ("85.00", "78.81", "91.19", "#1\N{EN DASH}#2"),
        ("78.46", "75.03", "81.89", "#1\N{EN DASH}#2"),
        ("", "", "", ""),
    ]


def _copy(sqlite_url: str, tmp_path: Path) -> Iterator[Engine]:
    original = Path(sqlite_url.removeprefix("sqlite:///"))
    copy = tmp_path / "tampered.db"
    with sqlite3.connect(original) as source, sqlite3.connect(copy) as target:
        source.backup(target)  # includes what is still in the write-ahead log
    engine = make_engine(f"sqlite:///{copy}")
    with engine.begin() as conn:
        for name in ("snapshot_frozen_update", "row_frozen_update"):
            conn.execute(text(f"DROP TRIGGER leaderboard_{name}"))
    yield engine
    engine.dispose()


def _rewrite(engine: Engine, snapshot_id: str, resign: SigningKey | None = None) -> None:
    """Raise a row's score and store the seal recomputed over the changed rows (signed with
    ``resign``, when the forger holds a key)."""
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE leaderboard_row SET score_bp = 9999 WHERE snapshot_id = :id"),
            {"id": snapshot_id},
        )
    with Session(engine) as session:
        snapshot = session.get(LeaderboardSnapshot, snapshot_id)
        assert snapshot is not None
        rows = [canonical_row(row) for row in iter_rows(session, snapshot_id)]
        forged = seal(json.loads(snapshot.policy_json), rows, snapshot.previous_sha256)
        signature = resign.sign(forged) if resign else snapshot.signature
        session.execute(
            text("UPDATE leaderboard_snapshot SET sha256 = :s, signature = :g WHERE id = :id"),
            {"s": forged, "g": signature, "id": snapshot_id},
        )
        session.commit()


def test_a_recomputed_seal_fails_on_the_signature(
    session: Session, sqlite_url: str, tmp_path: Path
) -> None:
    _reviewed(session, [90])
    _reviewed(session, [50])
    session.commit()
    key = _key()
    snapshot = _publish(session, key, "one")
    for tampered in _copy(sqlite_url, tmp_path):
        _rewrite(tampered, snapshot.id)
        with Session(tampered) as other:
            result = verify_snapshot(other, snapshot.id, key.public_hex)
        assert result.rows_ok  # the rows match the recomputed seal...
        assert not result.signature_ok  # ...which the key never signed
        assert not result.ok
        assert result.chain_broken_at == snapshot.id
    assert verify_snapshot(session, snapshot.id, key.public_hex).ok


def test_rewriting_an_old_snapshot_breaks_the_chain_at_it(
    session: Session, sqlite_url: str, tmp_path: Path
) -> None:
    key = _key()
    _reviewed(session, [90])
    session.commit()
    first = _publish(session, key, "one")
    _reviewed(session, [60])
    session.commit()
    second = _publish(session, key, "two")
    _reviewed(session, [70])
    session.commit()
    third = _publish(session, key, "three")
    assert (second.previous_id, second.previous_sha256) == (first.id, first.sha256)
    assert third.previous_sha256 == second.sha256
    for tampered in _copy(sqlite_url, tmp_path):
        _rewrite(tampered, second.id)
        with Session(tampered) as other:
            newest = verify_snapshot(other, third.id, key.public_hex)
            rewritten = verify_snapshot(other, second.id, key.public_hex)
        assert newest.rows_ok
        assert newest.signature_ok
        assert newest.chain_broken_at == second.id
        assert not newest.ok
        assert not rewritten.signature_ok
    assert verify_snapshot(session, third.id, key.public_hex).ok


def test_even_the_key_holder_cannot_rewrite_history_without_breaking_the_chain(
    session: Session, sqlite_url: str, tmp_path: Path
) -> None:
    key = _key()
    _reviewed(session, [90])
    session.commit()
    first = _publish(session, key, "one")
    _reviewed(session, [60])
    session.commit()
    second = _publish(session, key, "two")
    for tampered in _copy(sqlite_url, tmp_path):
        _rewrite(tampered, first.id, resign=key)
        with Session(tampered) as other:
            rewritten = verify_snapshot(other, first.id, key.public_hex)
            newest = verify_snapshot(other, second.id, key.public_hex)
        assert rewritten.rows_ok
        assert rewritten.signature_ok  # a valid signature over the forged seal...
        assert rewritten.chain_broken_at == first.id  # ...that its successor never sealed
        assert newest.chain_broken_at == first.id


def test_verify_trusts_only_the_configured_key_and_follows_a_signed_hand_over(
    session: Session,
) -> None:
    old, new, stranger = _key(), _key(), _key()
    _reviewed(session, [90])
    session.commit()
    first = _publish(session, old, "one")
    assert verify_snapshot(session, first.id, old.public_hex).ok
    assert not verify_snapshot(session, first.id, stranger.public_hex).signature_ok

    handed = SigningKey(new.private, rotation_statement(old, new.public_hex))
    _reviewed(session, [60])
    session.commit()
    second = _publish(session, handed, "two")
    assert second.key_rotation == handed.rotation
    for snapshot in (first, second):
        assert verify_snapshot(session, snapshot.id, new.public_hex).ok
    # The old key no longer anchors the chain: its newest snapshot is signed by another key.
    assert not verify_snapshot(session, second.id, old.public_hex).ok


def test_a_key_change_without_a_hand_over_breaks_the_chain(session: Session) -> None:
    old, new = _key(), _key()
    _reviewed(session, [90])
    session.commit()
    first = _publish(session, old, "one")
    forged = SigningKey(new.private, rotation_statement(new, new.public_hex))  # self-signed
    second = _publish(session, forged, "two")
    result = verify_snapshot(session, first.id, new.public_hex)
    assert result.chain_broken_at == second.id
    assert not result.signature_ok
    assert verify_snapshot(session, second.id, new.public_hex).signature_ok


def test_production_refuses_to_publish_without_a_key(settings: Settings) -> None:
    production = settings.model_copy(update={"env": "production"})
    with pytest.raises(ServiceError) as refused:
        signing_key(production)
    assert refused.value.code == "signing_key_missing"
    assert "BENCHMAX_LEADERBOARD_SIGNING_KEY" in refused.value.message
    # Elsewhere a key is generated once into the data directory and reused.
    generated = signing_key(settings)
    assert (settings.data_dir / "keys" / "leaderboard-signing.key").exists()
    assert signing_key(settings).public_hex == generated.public_hex
    seed, public = new_key_pair()
    configured = settings.model_copy(update={"leaderboard_signing_key": SecretStr(seed)})
    assert signing_key(configured).public_hex == public


def _recipe() -> str:
    document = (ROOT / "docs" / "showcase.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- verify-recipe -->\n```python\n(.*?)```", document, re.S)
    assert found is not None
    return found.group(1)


def test_the_offline_recipe_in_the_docs_checks_a_real_download(
    session: Session, tmp_path: Path
) -> None:
    for scores in ([70, 80], [55], [90, 91, 92]):
        _reviewed(session, scores)
    session.commit()
    key = _key()
    _publish(session, key, "one")
    _reviewed(session, [66])
    session.commit()
    snapshot = _publish(session, key, "two")
    script = tmp_path / "check.py"
    script.write_text(_recipe(), encoding="utf-8")
    download = tmp_path / "download.json"
    download.write_text("".join(exports.json_chunks(session, snapshot.id)), encoding="utf-8")

    def check(public_key: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(script), str(download), public_key],
            capture_output=True,
            text=True,
            check=False,
        )

    passed = check(key.public_hex)
    assert passed.returncode == 0, passed.stderr
    assert passed.stdout.split() == ["OK", snapshot.id, snapshot.sha256]
    assert check(_key().public_hex).returncode != 0  # another key: InvalidSignature

    document = json.loads(download.read_text(encoding="utf-8"))
    document["rows"][0]["score_bp"] += 1
    download.write_text(json.dumps(document), encoding="utf-8")
    tampered = check(key.public_hex)
    assert tampered.returncode != 0
    assert "do not match the seal" in tampered.stderr
