"""API tokens for harnesses and scripts; only a SHA-256 of the token is ever stored."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from benchmax.models._base import created_field, id_field, time_field


class ApiToken(SQLModel, table=True):
    __tablename__ = "api_token"

    id: str = id_field()
    user_id: str = Field(foreign_key="user.id", index=True, max_length=16)
    name: str = Field(max_length=80)
    token_hash: str = Field(max_length=64, unique=True, index=True)
    last_four: str = Field(max_length=4)
    created_at: datetime = created_field()
    last_used_at: datetime | None = time_field()
    revoked_at: datetime | None = time_field()


class ApiTokenUse(SQLModel, table=True):
    """One submission through a token: the account's rate limit counts these rows, so the
    limit holds across every web process. A ``refused`` row is a request the API refused
    (bad field, wrong format): those count against a separate, larger limit, so mistakes do
    not use up the submissions. Rows older than the window are pruned."""

    __tablename__ = "api_token_use"
    __table_args__ = (Index("ix_api_token_use_window", "token_id", "created_at"),)

    id: int | None = Field(default=None, primary_key=True)
    token_id: str = Field(foreign_key="api_token.id", max_length=16)
    created_at: datetime = created_field()
    refused: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
