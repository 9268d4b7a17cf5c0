"""The catalog standardises model and harness names; it never restricts submissions."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import String, UniqueConstraint
from sqlmodel import Field, SQLModel

from benchmax.models._base import created_field, id_field


class ModelFamily(SQLModel, table=True):
    __tablename__ = "model_family"

    id: str = id_field()
    slug: str = Field(max_length=64, unique=True, index=True)
    name: str = Field(max_length=100)
    vendor: str = Field(default="", max_length=100)
    position: int = 0


class CatalogModel(SQLModel, table=True):
    __tablename__ = "catalog_model"

    id: str = id_field()
    family_id: str = Field(foreign_key="model_family.id", index=True, max_length=16)
    slug: str = Field(max_length=100, unique=True, index=True)
    name: str = Field(max_length=200)


class ModelVersion(SQLModel, table=True):
    __tablename__ = "model_version"
    __table_args__ = (UniqueConstraint("model_id", "slug"),)

    id: str = id_field()
    model_id: str = Field(foreign_key="catalog_model.id", index=True, max_length=16)
    slug: str = Field(max_length=100)
    name: str = Field(max_length=200)


class Harness(SQLModel, table=True):
    id: str = id_field()
    slug: str = Field(max_length=64, unique=True, index=True)
    name: str = Field(max_length=100)


class LabelKind(StrEnum):
    MODEL = "model"
    HARNESS = "harness"


class LabelMapping(SQLModel, table=True):
    """A normalised free-text label and the catalog entry it stands for."""

    __tablename__ = "label_mapping"
    __table_args__ = (UniqueConstraint("kind", "normalized_label"),)

    id: str = id_field()
    kind: LabelKind = Field(sa_type=String(16))
    normalized_label: str = Field(max_length=200)
    model_id: str | None = Field(default=None, foreign_key="catalog_model.id", max_length=16)
    model_version_id: str | None = Field(
        default=None, foreign_key="model_version.id", max_length=16
    )
    harness_id: str | None = Field(default=None, foreign_key="harness.id", max_length=16)
    created_at: datetime = created_field()
