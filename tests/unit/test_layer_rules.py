"""The layer rules of the architecture, read from the imports (see ``import_graph``).

Pages, states and components call services: they import no SQLAlchemy or SQLModel (no
``select``, ``Session``, ``text``…), no engine and no storage adapter. Services are plain
Python: no Reflex and nothing of the UI layer. The user-content service's own rule (no auth)
is in ``test_usercontent_imports``, on the same scan.
"""

from __future__ import annotations

import pytest

from tests.unit.import_graph import Import, all_imports

UI = ("benchmax/pages", "benchmax/state", "benchmax/components")
NOT_IN_UI = ("sqlalchemy", "sqlmodel", "benchmax.db", "benchmax.adapters.storage", "boto3")
NOT_IN_SERVICES = ("reflex", "benchmax.pages", "benchmax.state", "benchmax.components")


def _reaches(found: Import, roots: tuple[str, ...]) -> bool:
    return any(found.target == root or found.target.startswith(root + ".") for root in roots)


def _breaches(packages: tuple[str, ...], forbidden: tuple[str, ...]) -> list[str]:
    return [
        f"{found.where()} imports {found.target}"
        for found in all_imports(*packages)
        if _reaches(found, forbidden)
    ]


@pytest.mark.parametrize("package", UI)
def test_the_ui_layer_reaches_no_sql_and_no_storage(package: str) -> None:
    assert all_imports(package), f"the scan found nothing in {package}"
    assert _breaches((package,), NOT_IN_UI) == []


def test_services_import_no_reflex_and_no_ui() -> None:
    assert all_imports("benchmax/services")
    assert _breaches(("benchmax/services",), NOT_IN_SERVICES) == []


def test_the_rule_sees_a_breach() -> None:
    breach = Import("benchmax.state.x", "sqlmodel.sql.expression", ("select",), 3)

    assert _reaches(breach, NOT_IN_UI)
    assert not _reaches(Import("benchmax.state.x", "sqlmodelish", (), 3), NOT_IN_UI)
