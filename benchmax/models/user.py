"""Accounts: who signed in, what they may do, and whether they may write."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import String
from sqlmodel import Field, SQLModel

from benchmax.models._base import created_field, id_field


class Role(StrEnum):
    CONTRIBUTOR = "contributor"
    REVIEWER = "reviewer"
    MODERATOR = "moderator"
    OWNER = "owner"


class AccountStatus(StrEnum):
    ACTIVE = "active"
    SUSPENDED = "suspended"


class UserBase(SQLModel):
    handle: str = Field(max_length=32, unique=True, index=True)
    display_name: str = Field(default="", max_length=80)


class User(UserBase, table=True):
    id: str = id_field()
    auth_subject: str = Field(max_length=255, unique=True, index=True)
    role: Role = Field(default=Role.CONTRIBUTOR, sa_type=String(16))
    status: AccountStatus = Field(default=AccountStatus.ACTIVE, sa_type=String(16))
    created_at: datetime = created_field()

    @property
    def can_write(self) -> bool:
        return self.status == AccountStatus.ACTIVE


class UserPublic(UserBase):
    id: str
