"""The layer rules of the architecture, read from the imports (see ``import_graph``).

Pages, states and components call services: they import no SQLAlchemy or SQLModel (no
``select``, ``Session``, ``text``…), no engine and no storage adapter. Services are plain
Python: no Reflex and nothing of the UI layer. The user-content service's own rule (no auth)
is in ``test_usercontent_imports``, on the same scan.

The API's routes parse, call a service and render. A route opens the unit of work — ``with
ctx.session() as session:`` — and hands the session to the service, so the ``Session`` type
(from SQLModel) may be named there; nothing else of SQLAlchemy or SQLModel may (no
``select``, ``text``, ``func``, ``col``, ``update``…, no engine, no ``IntegrityError``), nor
the storage adapter or boto3, and no route calls a method of the session itself (no
``session.exec``, ``session.get``, ``session.add``…): that work is a service's.

The contributor client (``clients/python``) installs without the server: it imports the
standard library, httpx, the MCP SDK (and the anyio both run on) and itself, nothing else; and
the product never imports it.
"""

from __future__ import annotations

import ast
import sys

import pytest

from tests.unit.import_graph import PACKAGES, Import, all_imports, module_name, product_files

UI = ("benchmax/pages", "benchmax/state", "benchmax/components")
NOT_IN_UI = ("sqlalchemy", "sqlmodel", "benchmax.db", "benchmax.adapters.storage", "boto3")
NOT_IN_SERVICES = ("reflex", "benchmax.pages", "benchmax.state", "benchmax.components")
API = "benchmax/api"
NOT_IN_API = NOT_IN_UI
SESSION_TYPE = Import("", "sqlmodel", ("Session",), 0)  # the one name the API may import
CLIENT = "clients/python/benchmax_client"
CLIENT_MAY_IMPORT = ("benchmax_client", "httpx", "mcp", "anyio")


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


def _api_may_import(found: Import) -> bool:
    return (found.target, found.names) == (SESSION_TYPE.target, SESSION_TYPE.names)


def _session_calls(source: str, module: str) -> list[str]:
    """Each ``session.<method>(...)`` call in ``source``: SQL run by the code itself."""
    return [
        f"{module}:{node.lineno} calls session.{node.func.attr}"
        for node in ast.walk(ast.parse(source, module))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "session"
    ]


def test_the_api_reaches_no_sql_and_no_storage() -> None:
    found = all_imports(API)
    assert found, f"the scan found nothing in {API}"
    breaches = [
        f"{one.where()} imports {one.target} {list(one.names)}"
        for one in found
        if _reaches(one, NOT_IN_API) and not _api_may_import(one)
    ]
    assert breaches == []


def test_the_api_runs_no_sql_on_the_session_it_opens() -> None:
    files = product_files(API)
    assert files
    calls = [call for path in files for call in _session_calls(path.read_text(), module_name(path))]
    assert calls == []


def test_the_api_rules_see_a_breach() -> None:
    assert _api_may_import(Import("benchmax.api.x", "sqlmodel", ("Session",), 3))
    for breach in (
        Import("benchmax.api.x", "sqlmodel", ("Session", "select"), 3),
        Import("benchmax.api.x", "sqlalchemy.exc", ("IntegrityError",), 3),
        Import("benchmax.api.x", "benchmax.adapters.storage", ("ObjectStorage",), 3),
    ):
        assert _reaches(breach, NOT_IN_API)
        assert not _api_may_import(breach)
    route = "def read(ctx):\n    with ctx.session() as session:\n        return session.get(1)\n"
    assert _session_calls(route, "benchmax.api.x") == ["benchmax.api.x:3 calls session.get"]


def test_the_rule_sees_a_breach() -> None:
    breach = Import("benchmax.state.x", "sqlmodel.sql.expression", ("select",), 3)

    assert _reaches(breach, NOT_IN_UI)
    assert not _reaches(Import("benchmax.state.x", "sqlmodelish", (), 3), NOT_IN_UI)


def _outside_the_client(found: Import) -> bool:
    top = found.target.split(".")[0]
    return top not in sys.stdlib_module_names and not _reaches(found, CLIENT_MAY_IMPORT)


def test_the_client_imports_nothing_of_the_server() -> None:
    found = all_imports(CLIENT)
    assert found, f"the scan found nothing in {CLIENT}"
    assert [
        f"{one.where()} imports {one.target}" for one in found if _outside_the_client(one)
    ] == []
    assert _breaches(PACKAGES, ("benchmax_client",)) == []


def test_the_client_rule_sees_a_breach() -> None:
    assert _outside_the_client(Import("benchmax_client.cli", "benchmax.services", (), 1))
    assert _outside_the_client(Import("benchmax_client.cli", "pydantic", (), 1))
    assert not _outside_the_client(Import("benchmax_client.cli", "json", (), 1))
    assert not _outside_the_client(Import("benchmax_client.cli", "httpx", (), 1))
