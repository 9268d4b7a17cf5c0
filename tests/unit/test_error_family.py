"""Every exception a route can see is a ``ServiceError``, and anything else is a bare 500.

A service refuses with a ``ServiceError`` and the API maps it once (``benchmax.api.errors``),
so a new exception class in a service would be a refusal the API answers as a crash. Every
exception class defined under ``benchmax/services`` is therefore one, except the few below,
which are a service's internal signalling and are caught before they leave it. An exception
no one foresaw (a bug, an adapter's failure) reaches the API's last handler: a JSON 500 that
says nothing of the exception.
"""

from __future__ import annotations

import importlib
import pkgutil

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route
from starlette.testclient import TestClient

import benchmax.services
from benchmax.api.errors import EXCEPTION_HANDLERS
from benchmax.services.errors import ServiceError

INTERNAL = {
    "benchmax.services.jobs.registry.JobError": (
        "a job handler's failure code for its job row; only job handlers raise it and the "
        "runner records it (error_code); no route runs a job handler"
    ),
    "benchmax.services.safety.result.BlockedError": (
        "a safety check's verdict on a file; scan_file returns it as a ScanResult"
    ),
    "benchmax.services.safety.filenames.FilenameError": (
        "a file name normalise_filename refuses; add_file turns it into Invalid on the files "
        "field, scan_file into a blocked ScanResult"
    ),
    "benchmax.services.safety.video.MalformedError": (
        "the video walkers' signal; check_video turns it into a BlockedError and the rebuilt "
        "copy's proof (video_rebuild) into a refused file"
    ),
    "benchmax.services.safety.video_rebuild._NotCleanError": (
        "private to the allow-list walk; holds_only_playback turns it into False"
    ),
    "benchmax.services.safety.ocr.OcrTimeoutError": (
        "raised inside the scanning child when OCR passes its wall-clock net; the child "
        "reports its name and scan_in_child raises a JobError, which the job runner retries"
    ),
    "benchmax.services.judge.verdict.VerdictError": (
        "a judge reply that is not a verdict; sampling records its code on the failed sample"
    ),
    "benchmax.services.scan_child.ScanTooExpensiveError": (
        "raised by SIGXCPU inside the scanning child process and caught there"
    ),
}


def _service_exceptions() -> dict[str, type[BaseException]]:
    for module in pkgutil.walk_packages(benchmax.services.__path__, "benchmax.services."):
        importlib.import_module(module.name)
    found: dict[str, type[BaseException]] = {}
    pending: list[type[BaseException]] = [BaseException]
    while pending:
        cls = pending.pop()
        pending += cls.__subclasses__()
        if cls.__module__.startswith("benchmax.services."):
            found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return found


def _outside_the_family(found: dict[str, type[BaseException]]) -> list[str]:
    return sorted(
        name
        for name, cls in found.items()
        if not issubclass(cls, ServiceError) and name not in INTERNAL
    )


def test_every_exception_a_service_defines_is_a_service_error() -> None:
    found = _service_exceptions()
    assert "benchmax.services.atom.UnknownFeedError" in found  # the scan sees the services
    assert _outside_the_family(found) == []
    assert sorted(set(INTERNAL) - set(found)) == []  # an entry for a class gone is stale


def test_the_rule_sees_a_breach() -> None:
    class StrayError(LookupError):
        pass

    found = {**_service_exceptions(), "benchmax.services.stray.StrayError": StrayError}
    assert _outside_the_family(found) == ["benchmax.services.stray.StrayError"]


def test_an_exception_outside_the_family_is_a_json_500_without_detail() -> None:
    async def broken(_request: Request) -> None:
        raise LookupError("tests/row-42 in /srv/secret.db")

    app = Starlette(routes=[Route("/broken", broken)], exception_handlers=EXCEPTION_HANDLERS)
    response = TestClient(app, raise_server_exceptions=False).get("/broken")

    assert response.status_code == 500
    assert response.headers["cache-control"] == "no-store"
    assert response.json() == {
        "error": {
            "code": "internal_error",
            "message": "Something went wrong on our side. Try again later.",
            "field": None,
        }
    }
    assert "secret" not in response.text
