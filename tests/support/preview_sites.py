"""Generated source ZIPs for the automated preview tests, and a published Test holding one."""

from __future__ import annotations

import io
import zipfile

from sqlmodel import Session

from benchmax.adapters.storage import ObjectStorage
from benchmax.models import EvidenceKind, SourceVisibility, Test
from tests.support.factories import make_stored_evidence, make_test

WORKING = {
    "index.html": (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Counter</title>"
        "<link rel='stylesheet' href='style.css'></head><body><main><h1>Counter</h1>"
        "<p id='n'>0</p><button id='b'>Add one</button></main><script src='app.js'></script>"
        "</body></html>"
    ),
    "style.css": "body{background:#123;color:#fff;font:20px sans-serif}main{padding:2rem}",
    "app.js": "document.getElementById('b').onclick=()=>{const n=document.getElementById('n');"
    "n.textContent=Number(n.textContent)+1};",
}
# Reaches for the network, registers a service worker and logs an error.
MISBEHAVING = {
    "index.html": (
        "<!doctype html><html lang='en'><head><title>Nosy</title></head><body><main>"
        "<h1>Nosy</h1><img src='https://tracker.invalid/pixel.gif' alt='pixel'></main><script>"
        "fetch('http://203.0.113.9/beacon?x=1').catch(()=>{});"
        "if (navigator.serviceWorker) navigator.serviceWorker.register('/sw.js').catch(()=>{});"
        "console.error('boom <b>not markup</b>');"
        "</script></body></html>"
    ),
    "sw.js": "self.addEventListener('fetch', () => {});",
}
INFINITE = {
    "index.html": "<!doctype html><html><body><h1>Busy</h1><script>while (true) {}</script>"
    "</body></html>"
}
NO_INDEX = {"site/index.html": "<!doctype html><p>one folder down</p>"}


def zip_of(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def publish_site(
    session: Session,
    storage: ObjectStorage,
    files: dict[str, str],
    visibility: SourceVisibility = SourceVisibility.PUBLIC,
) -> Test:
    """A committed public Test whose approved source ZIP holds ``files``."""
    test = make_test(session, source_visibility=visibility)
    make_stored_evidence(
        session,
        storage,
        test,
        zip_of(files),
        kind=EvidenceKind.SOURCE,
        content_type="application/zip",
        original_name="site.zip",
        safe_name="site.zip",
    )
    session.commit()
    return test
