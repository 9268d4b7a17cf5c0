"""Near-duplicate prompts: MinHash over word 5-gram shingles, LSH bands kept in the database.

Two prompts whose word 5-grams overlap with an estimated Jaccard similarity of at least
``THRESHOLD`` are listed under each other's group as *similar*. They are never merged: only a
moderator's alias decision joins two groups (a prompt with one changed constraint can be
"similar" and still ask for something else).

``datasketch`` computes the signatures and chooses the band layout for the threshold; the
bands themselves live in ``prompt_band`` so a lookup is one indexed query rather than an
in-memory index rebuilt in every process. Signatures are added by a periodic pass
(``index_prompts``) for prompts that have a public Test; a group page also computes its own
signature on the fly, so a new prompt sees older similar ones at once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from datasketch import MinHash, MinHashLSH
from sqlalchemy import func, insert, tuple_
from sqlmodel import Session, col, select

from benchmax.models import PromptBand, PromptSignature, Test, TestState, normalise_prompt

THRESHOLD = 0.8
NUM_PERM = 128
SHINGLE_WORDS = 5
_SEED = 1
# Stored signatures are only comparable with signatures of the same permutation scheme.
_SCHEME = "affine32"
_INDEX_BATCH = 500


@lru_cache(maxsize=1)
def _template() -> MinHash:
    return MinHash(num_perm=NUM_PERM, seed=_SEED, scheme=_SCHEME)


@lru_cache(maxsize=1)
def band_layout() -> tuple[int, int]:
    """(bands, rows per band) that datasketch picks for ``THRESHOLD`` and ``NUM_PERM``."""
    lsh = MinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM)
    return lsh.b, lsh.r


def shingles(normalised: str) -> set[bytes]:
    """Word 5-grams; a prompt shorter than five words is one shingle of all its words."""
    words = normalised.split()
    if len(words) <= SHINGLE_WORDS:
        return {" ".join(words).encode("utf-8")}
    return {
        " ".join(words[i : i + SHINGLE_WORDS]).encode("utf-8")
        for i in range(len(words) - SHINGLE_WORDS + 1)
    }


def signature(prompt: str) -> np.ndarray:
    """The MinHash signature (``NUM_PERM`` uint32 values) of a prompt's normalised text."""
    template = _template()
    minhash = MinHash(
        num_perm=NUM_PERM, seed=_SEED, scheme=_SCHEME, permutations=template.permutations
    )
    minhash.update_batch(sorted(shingles(normalise_prompt(prompt))))
    return np.asarray(minhash.hashvalues, dtype="<u4")


def band_hashes(values: np.ndarray) -> list[str]:
    bands, rows = band_layout()
    return [
        hashlib.sha1(values[i * rows : (i + 1) * rows].tobytes(), usedforsecurity=False).hexdigest()
        for i in range(bands)
    ]


def similarity(a: np.ndarray, b: np.ndarray) -> float:
    """Estimated Jaccard similarity of two signatures."""
    return float(np.count_nonzero(a == b)) / NUM_PERM


def _store(session: Session, key: str, values: np.ndarray) -> None:
    session.add(PromptSignature(prompt_key=key, signature=values.tobytes()))
    session.execute(
        insert(PromptBand),
        [
            {"prompt_key": key, "band": band, "band_hash": digest}
            for band, digest in enumerate(band_hashes(values))
        ],
    )


def index_prompts(session: Session, limit: int = 10_000) -> int:
    """Sign up to ``limit`` prompt keys that have a public Test but no signature yet."""
    done = 0
    while done < limit:
        missing = session.exec(
            select(Test.prompt_key, func.min(Test.id))
            .outerjoin(PromptSignature, col(PromptSignature.prompt_key) == Test.prompt_key)
            .where(col(Test.state) == TestState.PUBLIC, col(PromptSignature.prompt_key).is_(None))
            .group_by(col(Test.prompt_key))
            .limit(min(_INDEX_BATCH, limit - done))
        ).all()
        if not missing:
            break
        prompts = dict(
            session.exec(
                select(Test.id, Test.prompt).where(col(Test.id).in_([i for _k, i in missing]))
            ).all()
        )
        for key, test_id in missing:
            _store(session, key, signature(prompts[test_id]))
        session.flush()
        done += len(missing)
    return done


@dataclass(frozen=True)
class Similar:
    prompt_key: str
    similarity_percent: int


def similar_keys(
    session: Session, key: str, prompt: str, exclude: Iterable[str] = ()
) -> list[Similar]:
    """Indexed prompts whose estimated similarity to ``prompt`` reaches ``THRESHOLD``."""
    stored = session.get(PromptSignature, key)
    values = (
        np.frombuffer(stored.signature, dtype="<u4") if stored is not None else signature(prompt)
    )
    pairs = list(enumerate(band_hashes(values)))
    candidates = set(
        session.exec(
            select(PromptBand.prompt_key).where(
                tuple_(PromptBand.band, PromptBand.band_hash).in_(pairs)
            )
        ).all()
    ) - {key, *exclude}
    if not candidates:
        return []
    found = []
    for other in session.exec(
        select(PromptSignature).where(col(PromptSignature.prompt_key).in_(candidates))
    ).all():
        score = similarity(values, np.frombuffer(other.signature, dtype="<u4"))
        if score >= THRESHOLD:
            found.append(Similar(other.prompt_key, round(score * 100)))
    return sorted(found, key=lambda s: (-s.similarity_percent, s.prompt_key))
