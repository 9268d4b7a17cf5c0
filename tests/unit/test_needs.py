"""``tests/support/needs.py`` marks tests by the services their fixtures reach, so the fast
run is true.

Run against a small suite whose service fixtures are stand-ins: the markers, not the services,
are under test.
"""

from __future__ import annotations

import pytest

CONFTEST = """
import pytest

pytest_plugins = ["tests.support.needs"]

@pytest.fixture
def postgres_url():
    return "postgresql://stand-in"

@pytest.fixture
def redis_url():
    return "redis://stand-in"

@pytest.fixture(scope="session")
def s3_endpoint():
    return "http://stand-in"

@pytest.fixture
def engine(postgres_url):
    return postgres_url

@pytest.fixture(params=["sqlite"])
def database_url(request):
    return request.getfixturevalue("postgres_url") if request.param == "postgres" else "sqlite"

@pytest.fixture(params=["local", "s3"])
def object_storage(request):
    return request.param
"""

TESTS = """
import pytest

def test_plain():
    pass

def test_through_another_fixture(engine):
    pass

def test_redis(redis_url):
    pass

@pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
def test_both_databases(database_url):
    pass

def test_both_storages(object_storage):
    pass

def test_s3_server(s3_endpoint):
    pass

def test_reaches_postgres_by_name(request):
    request.getfixturevalue("postgres_url")
"""


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini(
        "[pytest]\nasyncio_default_fixture_loop_scope = function\n"
        "markers =\n    postgres\n    redis\n    s3\n    e2e\n"
    )
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_suite=TESTS)
    return pytester


def selected(suite: pytest.Pytester, expression: str) -> set[str]:
    result = suite.runpytest_inprocess("--collect-only", "-q", "-m", expression)
    return {line.split("::", 1)[1] for line in result.outlines if "::" in line}


def test_fixtures_and_backend_parameters_decide_the_markers(suite: pytest.Pytester) -> None:
    assert selected(suite, "postgres") == {
        "test_through_another_fixture",
        "test_both_databases[postgres]",
    }
    assert selected(suite, "redis") == {"test_redis"}
    assert selected(suite, "s3") == {"test_both_storages[s3]", "test_s3_server"}


def test_the_fast_run_keeps_only_tests_that_need_nothing(suite: pytest.Pytester) -> None:
    assert selected(suite, "not (postgres or redis or s3 or e2e)") == {
        "test_plain",
        "test_both_databases[sqlite]",
        "test_both_storages[local]",
        "test_reaches_postgres_by_name",
    }


def test_an_unmarked_test_that_reaches_a_service_fails_and_says_why(
    suite: pytest.Pytester,
) -> None:
    result = suite.runpytest_inprocess("-k", "reaches_postgres_by_name")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*uses postgres_url but is not marked 'postgres'*"])
