"""Markers that say what a test needs, derived from the fixtures it uses.

``make test-fast`` deselects ``postgres``, ``redis``, ``s3`` and ``e2e`` to run with no
services and no browser, so these markers must be true. Nobody writes them by hand: a test
that uses a fixture below (directly or through another fixture) is marked, and so is a test
whose parametrised backend is PostgreSQL or S3. A test that reaches one of these fixtures on
some other path (``request.getfixturevalue``) without the marker fails with a clear message
when the fixture is set up, instead of reaching for a server that is not there.
"""

from __future__ import annotations

import pytest

# fixture name -> what it needs. Fixtures built on these (engine on postgres_url, stack on
# redis_url, s3_storage on s3_endpoint…) are covered because pytest lists the whole closure.
FIXTURE_NEEDS = {
    "postgres_template": "postgres",
    "postgres_url": "postgres",
    "redis_url": "redis",
    "s3_endpoint": "s3",
    "s3_settings": "s3",
    "live_app": "e2e",
    "browser": "e2e",
    "production_stack": "stack",
    # Chromium drives it, but in the backend invocation (tests/stack/conftest.py says why),
    # which installs Chromium too: ``stack``, not ``e2e``, which is the browser suite's app.
    "frontend_stack": "stack",
    # Tests that start `benchmax dev` or `benchmax stack` themselves (tests/stack/test_shutdown.py).
    "stack_marked": "stack",
}
# (parametrised fixture, parameter) -> what that parameter needs; the fixture picks its backend
# at run time, so the fixture name alone says nothing.
PARAM_NEEDS = {
    ("database_url", "postgres"): "postgres",
    ("object_storage", "s3"): "s3",
}
SERVICE_MARKERS = ("postgres", "redis", "s3")


def needs_of(item: pytest.Item) -> set[str]:
    names = set(getattr(item, "fixturenames", ()))
    needs = {need for name, need in FIXTURE_NEEDS.items() if name in names}
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        needs |= {
            need
            for (name, value), need in PARAM_NEEDS.items()
            if callspec.params.get(name) == value
        }
    return needs


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for need in sorted(needs_of(item)):
            item.add_marker(need)


def pytest_fixture_setup(
    fixturedef: pytest.FixtureDef[object], request: pytest.FixtureRequest
) -> None:
    """Refuse a function-scoped service fixture in a test not marked for that service."""
    need = FIXTURE_NEEDS.get(fixturedef.argname)
    if need and fixturedef.scope == "function" and request.node.get_closest_marker(need) is None:
        pytest.fail(
            f"{request.node.nodeid} uses {fixturedef.argname} but is not marked {need!r}: "
            "add the fixture or parameter that reaches it to tests/support/needs.py",
            pytrace=False,
        )
