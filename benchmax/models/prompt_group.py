"""Same-prompt comparison groups: near-duplicate signatures and moderators' alias decisions.

A group is every Test sharing a prompt key (``Test.prompt_key``). Near duplicates are found
through MinHash signatures and their LSH band hashes, stored per prompt key so a lookup is an
indexed query, and are only ever *listed* as similar. Joining two keys into one group takes a
moderator's ``prompt_alias`` decision, which is append-only like every moderation decision.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, LargeBinary, Text
from sqlmodel import Field, SQLModel

from benchmax.models._base import created_field, id_field


class PromptSignature(SQLModel, table=True):
    """The MinHash signature of one normalised prompt (``num_perm`` unsigned 32-bit values)."""

    __tablename__ = "prompt_signature"

    prompt_key: str = Field(primary_key=True, max_length=64)
    signature: bytes = Field(sa_type=LargeBinary)
    created_at: datetime = created_field()


class PromptBand(SQLModel, table=True):
    """One LSH band of a signature: prompts sharing any (band, hash) are candidates."""

    __tablename__ = "prompt_band"
    __table_args__ = (Index("ix_prompt_band_lookup", "band", "band_hash"),)

    prompt_key: str = Field(primary_key=True, max_length=64)
    band: int = Field(primary_key=True, ge=0)
    band_hash: str = Field(max_length=40)


class PromptAlias(SQLModel, table=True):
    """A moderator's decision that two prompt keys are one prompt. Never updated or deleted."""

    __tablename__ = "prompt_alias"

    id: str = id_field()
    key_a: str = Field(max_length=64, index=True)
    key_b: str = Field(max_length=64, index=True)
    moderator_id: str = Field(foreign_key="user.id", max_length=16)
    reason: str = Field(sa_type=Text)
    created_at: datetime = created_field()
