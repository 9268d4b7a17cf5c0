"""browser-web-v1: open a contributor's static site in headless Chromium and record what it does.

Runs INSIDE the sandbox (bubblewrap locally, an E2B microVM in production), as an
unprivileged user, with no network but loopback. It uses only the standard library,
Playwright (driving the system Chromium) and, when present, Pillow and Debian's ffmpeg.

    python evaluate.py --zip site.zip --out DIR [--timeout 120] [--probe HOST:PORT ...]

It always writes ``DIR/result.json`` (the versioned result below) and, when the page
loaded, ``screenshot.png`` and a short recording (``video.webm``, or ``video.webp`` frames
when no ffmpeg is installed). The exit status is 0 whenever a result was written: a failing
*site* is a result, not an error of the evaluator.

Order matters: the egress self-test runs first (a connection out that succeeds stops
everything, fail closed), then the ZIP is extracted with its own checks, then the page runs.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import errno
import functools
import http.server
import json
import os
import re
import secrets
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

TEMPLATE = "browser-web-v1"
RESULT_SCHEMA = "benchmax.preview.result/1"
HERE = Path(__file__).resolve().parent
AXE_PATH = HERE / "node_modules" / "axe-core" / "axe.min.js"
# Debian's browser binary itself, not its /usr/bin shell launcher: the launcher adds flags
# (extensions, GPU rasterization) and environment this run has no use for.
CHROMIUM = os.environ.get("BENCHMAX_PREVIEW_CHROMIUM") or next(
    (path for path in ("/usr/lib/chromium/chromium", "/usr/bin/chromium") if os.path.exists(path)),
    "/usr/bin/chromium",
)
FFMPEG = "/usr/bin/ffmpeg"

MAX_PACKED = 20 * 1024 * 1024
MAX_UNPACKED = 64 * 1024 * 1024
MAX_ENTRIES = 2000
VIEWPORT = {"width": 1440, "height": 1000}
MAX_SHOT_HEIGHT = 8000
# Well under what the worker accepts for screenshot.png (16 MiB).
MAX_SHOT_BYTES = 12 * 1024 * 1024
# 2025-01-01T00:00:00Z: every preview sees the same date.
FIXED_TIME_MS = 1735689600000
RANDOM_SEED = 20250101
VIDEO_SECONDS = 5.0
FPS_SECONDS = 1.0
# The recording keeps at most ten frames a second.
FRAME_GAP = 0.1
IDLE_WAIT_MS = 3000
KEEP_MESSAGES = 20
# Generous on purpose: BenchMax removes credentials from every string of the result and only
# then cuts it shorter, so a cut here must not leave part of a key where nothing can see it.
MESSAGE_CHARS = 2000
# Elements quoted per failed accessibility rule (selector and markup).
KEEP_NODES = 3
VERSION = re.compile(r"\d{1,3}\.\d{1,3}\.\d{1,3}")
# The sandbox's disk and file-size limits, as the worker names them.
LIMIT_ERRORS = {errno.ENOSPC: "disk_limit", errno.EFBIG: "file_size_limit"}
DEFAULT_PROBES = ("1.1.1.1:443", "8.8.8.8:53", "[2606:4700:4700::1111]:443")

# Runs before any page script, in every frame. Replaces Math.random with a seeded generator
# (mulberry32), and refuses service-worker registrations, reporting each attempt through a
# binding whose random name is removed from the page's globals before the page runs: the
# page can neither read the count nor reset it, and the refusal is fixed on the prototype
# (not writable, not configurable), so it cannot be deleted or replaced, from any frame.
INIT_SCRIPT = """
(() => {
  let a = SEED >>> 0;
  Math.random = function () {
    a |= 0; a = (a + 0x6D2B79F5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const report = globalThis.BINDING;
  try { delete globalThis.BINDING; } catch (e) {}
  const Container = globalThis.ServiceWorkerContainer;
  if (!Container || typeof report !== 'function') return;
  const register = function () {
    report(1);
    const refusal = new DOMException('service workers are off in previews', 'SecurityError');
    return Promise.reject(refusal);
  };
  Object.defineProperty(Container.prototype, 'register',
    {value: register, writable: false, configurable: false});
})();
""".replace("SEED", str(RANDOM_SEED))

FPS_SCRIPT = """
new Promise((resolve) => {
  let frames = 0; const start = performance.now();
  const tick = () => { frames += 1;
    if (performance.now() - start < SECONDS * 1000) requestAnimationFrame(tick);
    else resolve(frames / ((performance.now() - start) / 1000)); };
  requestAnimationFrame(tick);
})
""".replace("SECONDS", str(FPS_SECONDS))
HEIGHT_SCRIPT = "Math.max(document.documentElement.scrollHeight, innerHeight)"

AXE_SCRIPT = """
(async () => {
  const r = await axe.run(document, {resultTypes: ['violations']});
  const quote = (node) => ({target: node.target.map(String).join(' '), html: String(node.html)});
  return {version: axe.version, passes: r.passes.length, incomplete: r.incomplete.length,
    violations: r.violations.map(v => ({id: v.id, impact: v.impact || '', help: v.help,
      nodes: v.nodes.length, sample: v.nodes.slice(0, KEEP).map(quote)}))};
})()
""".replace("KEEP", str(KEEP_NODES))


class Refused(Exception):  # noqa: N818 (a refusal, not an error of the evaluator)
    """The ZIP cannot be previewed; ``code`` says why in a word, never quoting content."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


# ---------------------------------------------------------------------------------------
# Egress self-test


def egress_open(probes: list[str], timeout: float = 1.5) -> str | None:
    """The first probe a TCP connection reached, or None when every one failed."""
    for probe in probes:
        host, _, port = probe.rpartition(":")
        host = host.strip("[]")
        try:
            with socket.create_connection((host, int(port)), timeout=timeout):
                return probe
        except OSError:
            continue
    return None


# ---------------------------------------------------------------------------------------
# Safe extraction


def _safe_parts(name: str) -> tuple[str, ...]:
    if "\\" in name or "\x00" in name or name.startswith("/") or ":" in name.split("/")[0]:
        raise Refused("unsafe_path")
    parts = tuple(part for part in PurePosixPath(name).parts if part not in ("", "."))
    if not parts or any(part == ".." for part in parts):
        raise Refused("unsafe_path")
    return parts


def _check_entry(info: zipfile.ZipInfo) -> None:
    if info.flag_bits & 0x1:
        raise Refused("encrypted_entry")
    kind = stat.S_IFMT(info.external_attr >> 16)
    if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
        raise Refused("special_entry")  # symlinks, devices, fifos


def extract(zip_path: Path, target: Path) -> int:
    """Unpack ``zip_path`` into ``target``; refuses anything that would land outside it.

    Sizes are counted as bytes are written (a header's declared size can lie), every path is
    resolved and checked against ``target``, files are created exclusively and never through
    a link. Returns the number of files written.
    """
    if zip_path.stat().st_size > MAX_PACKED:
        raise Refused("too_large_packed")
    root = target.resolve()
    written = total = 0
    try:
        archive = zipfile.ZipFile(zip_path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise Refused("not_a_zip") from exc
    with archive:
        entries = archive.infolist()
        if len(entries) > MAX_ENTRIES:
            raise Refused("too_many_entries")
        seen: set[str] = set()
        for info in entries:
            _check_entry(info)
            parts = _safe_parts(info.filename)
            key = "/".join(parts).casefold()
            if key in seen:
                raise Refused("duplicate_entry")
            seen.add(key)
            destination = root.joinpath(*parts)
            if os.path.commonpath([root, destination.resolve()]) != str(root):
                raise Refused("unsafe_path")
            if info.is_dir():
                destination.mkdir(parents=True, exist_ok=True)
                continue
            destination.parent.mkdir(parents=True, exist_ok=True)
            total = _copy_entry(archive, info, destination, total)
            written += 1
    return written


def _copy_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path, total: int) -> int:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        with archive.open(info) as source, os.fdopen(os.open(path, flags, 0o444), "wb") as out:
            while chunk := source.read(1 << 16):
                total += len(chunk)
                if total > MAX_UNPACKED:
                    raise Refused("too_large_unpacked")
                out.write(chunk)
    except (zipfile.BadZipFile, EOFError, NotImplementedError, RuntimeError) as exc:
        raise Refused("corrupt_entry") from exc
    except FileExistsError as exc:
        raise Refused("duplicate_entry") from exc
    return total


# ---------------------------------------------------------------------------------------
# Loopback static server


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """GET and HEAD of the extracted files; nothing is logged (paths are site content)."""

    def log_message(self, format: str, *args: Any) -> None:
        return

    def list_directory(self, path: Any) -> None:  # type: ignore[override]
        self.send_error(404)
        return None


def serve(root: Path) -> http.server.ThreadingHTTPServer:
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# ---------------------------------------------------------------------------------------
# The browser run


class Recorder:
    """Everything the page did that the result reports, gathered from Playwright's events."""

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.console_errors: list[str] = []
        self.console_error_count = 0
        self.failed: list[dict[str, str]] = []
        self.blocked: list[str] = []
        self.blocked_count = 0
        self.service_worker_attempts = 0
        self.registrations: set[str] = set()

    def service_worker(self, source: Any, *args: Any) -> None:
        """A refused registration, reported by the init script's binding."""
        self.service_worker_attempts += 1

    def registration(self, event: dict[str, Any]) -> None:
        """A registration the browser itself saw: one that got past the refusal somehow."""
        for registration in event.get("registrations") or []:
            self.registrations.add(str(registration.get("registrationId")))

    def route(self, route: Any) -> None:
        url = route.request.url
        parts = urlsplit(url)
        if f"{parts.scheme}://{parts.netloc}" == self.origin or parts.scheme in ("data", "blob"):
            route.continue_()
            return
        self.blocked_count += 1
        if len(self.blocked) < KEEP_MESSAGES:
            self.blocked.append(_clip(url))
        route.abort("blockedbyclient")

    def console(self, message: Any) -> None:
        # Our own blocks show up as "Failed to load resource: ERR_BLOCKED_BY_CLIENT"; they are
        # reported as blocked requests, not as the page's errors.
        if message.type == "error" and "ERR_BLOCKED_BY_CLIENT" not in message.text:
            self._error(message.text)

    def page_error(self, error: Any) -> None:
        self._error(f"Uncaught {error}")

    def request_failed(self, request: Any) -> None:
        failure = request.failure or ""
        if "BLOCKED_BY_CLIENT" in failure:
            return  # already recorded as blocked
        if len(self.failed) < KEEP_MESSAGES:
            self.failed.append({"url": _clip(request.url), "error": _clip(failure)})

    def _error(self, text: str) -> None:
        self.console_error_count += 1
        if len(self.console_errors) < KEEP_MESSAGES:
            self.console_errors.append(_clip(text))


def _clip(text: str) -> str:
    text = str(text)
    return text if len(text) <= MESSAGE_CHARS else text[: MESSAGE_CHARS - 1] + "…"


def launch_options() -> dict[str, Any]:
    """How Chromium is started. Its own sandbox is on: Playwright turns it off unless asked,
    and the evaluator runs unprivileged precisely so that it works
    (``BENCHMAX_PREVIEW_NO_CHROMIUM_SANDBOX`` is for a host where it cannot).

    The switches come on top of Playwright's own, which already turn off background
    networking, component updates and more. No ``--disable-features`` here: Chromium keeps
    only the last one given, and it would switch Playwright's list back on.
    """
    return {
        "executable_path": CHROMIUM,
        # Belt and braces: the sandbox has no network anyway; no name resolves but loopback.
        "args": ["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--disable-sync"],
        "chromium_sandbox": not os.environ.get("BENCHMAX_PREVIEW_NO_CHROMIUM_SANDBOX"),
    }


def run_page(site_url: str, origin: str, out: Path, deadline: float) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    recorder = Recorder(origin)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(**launch_options(), timeout=_ms_left(deadline, 30))
        try:
            context = browser.new_context(
                viewport=VIEWPORT,
                device_scale_factor=1,
                service_workers="block",
                locale="en-US",
                timezone_id="UTC",
                accept_downloads=False,
            )
            # Only requests off the site come to this process: the site's own continue in
            # the browser's driver without a round trip here (a URL pattern is matched there).
            off_site = re.compile("^(?!" + re.escape(origin + "/") + ")")
            context.route(off_site, recorder.route)
            context.route_web_socket("**/*", _refuse_socket(recorder))
            binding = f"__benchmax_{secrets.token_hex(12)}"
            context.expose_binding(binding, recorder.service_worker)
            context.add_init_script(INIT_SCRIPT.replace("BINDING", binding))
            page = context.new_page()
            watcher = context.new_cdp_session(page)
            watcher.on("ServiceWorker.workerRegistrationUpdated", recorder.registration)
            watcher.send("ServiceWorker.enable")
            page.clock.install(time=FIXED_TIME_MS / 1000)
            page.on("console", recorder.console)
            page.on("pageerror", recorder.page_error)
            page.on("requestfailed", recorder.request_failed)
            observed, video = _observe(page, context, site_url, recorder, out, deadline)
        finally:
            browser.close()
    # The recording was encoded while the browser closed.
    observed["video"] = video.result() if video is not None else None
    return observed


def _refuse_socket(recorder: Recorder) -> Any:
    def handle(socket_route: Any) -> None:
        recorder.blocked_count += 1
        if len(recorder.blocked) < KEEP_MESSAGES:
            recorder.blocked.append(_clip(socket_route.url))
        socket_route.close()

    return handle


def _ms_left(deadline: float, cap_seconds: float) -> float:
    return max(1000.0, min(cap_seconds, deadline - time.monotonic()) * 1000)


def _observe(
    page: Any, context: Any, site_url: str, recorder: Recorder, out: Path, deadline: float
) -> tuple[dict[str, Any], Future[dict[str, Any] | None] | None]:
    """Load, then measure while the recording runs; each step bounded by what is left.

    The recording starts as the page has loaded and runs alongside the checks (idle wait,
    screenshot, axe-core, the fps sample), so they cost no time of their own; frames taken
    while the screenshot froze the page's animations are left out of it.
    """
    started = time.monotonic()
    page.goto(site_url, wait_until="load", timeout=_ms_left(deadline, 30))
    load_ms = round((time.monotonic() - started) * 1000)
    seconds = min(VIDEO_SECONDS, deadline - time.monotonic() - 10)
    recording = Recording(context, page, seconds) if seconds >= 1 else None
    try:
        page.wait_for_load_state("networkidle", timeout=min(IDLE_WAIT_MS, _ms_left(deadline, 5)))
        idle = True
    except Exception:
        idle = False
    world = IsolatedWorld(context, page)
    with recording.left_out() if recording else contextlib.nullcontext():
        screenshot = _screenshot(page, world, out, deadline)
    axe = _axe(world)
    fps = round(_number(world.evaluate(FPS_SCRIPT, wait=True)), 1)
    title = str(world.evaluate("document.title") or "")
    video = recording.finish(page, out) if recording else None
    attempts = recorder.service_worker_attempts + len(recorder.registrations)
    return {
        "load_ms": load_ms,
        "network_idle": idle,
        "title": _clip(title),
        "screenshot": screenshot,
        "fps": fps,
        "axe": axe,
        "service_worker_attempts": attempts,
        "console_error_count": recorder.console_error_count,
        "console_errors": recorder.console_errors,
        "failed_requests": recorder.failed,
        "blocked_request_count": recorder.blocked_count,
        "blocked_requests": recorder.blocked,
    }, video


def _screenshot(page: Any, world: IsolatedWorld, out: Path, deadline: float) -> dict[str, Any]:
    """The page, at most ``MAX_SHOT_HEIGHT`` tall and ``MAX_SHOT_BYTES`` big.

    The picture is BenchMax's own artifact, so a page that makes it huge (noise over a tall
    canvas does not compress) gets a smaller picture, never a failed preview: it is scaled
    down until it fits, or, without Pillow, taken again shorter.
    """
    height = int(_number(world.evaluate(HEIGHT_SCRIPT)))
    height = max(VIEWPORT["height"], min(height, MAX_SHOT_HEIGHT))
    path = out / "screenshot.png"
    width = VIEWPORT["width"]
    while True:
        page.screenshot(
            path=str(path),
            full_page=True,
            clip={"x": 0, "y": 0, "width": VIEWPORT["width"], "height": height},
            timeout=_ms_left(deadline, 20),
            animations="disabled",
        )
        size = path.stat().st_size
        if size <= MAX_SHOT_BYTES:
            break
        shrunk = _shrink(path, size)
        if shrunk is not None:
            width, height = shrunk
            break
        height = max(1, int(height * MAX_SHOT_BYTES / size * 0.9))
    return {"file": path.name, "width": width, "height": height, "blank": _blank(path)}


def _shrink(path: Path, size: int) -> tuple[int, int] | None:
    """Scale the PNG at ``path`` down until it is at most ``MAX_SHOT_BYTES``; its new size,
    or None without Pillow."""
    try:
        from PIL import Image
    except ImportError:
        return None
    with Image.open(path) as image:
        original = image.convert("RGB")
    scale = 1.0
    while size > MAX_SHOT_BYTES:
        scale *= min(0.9, (MAX_SHOT_BYTES / size) ** 0.5 * 0.95)
        box = (max(1, round(original.width * scale)), max(1, round(original.height * scale)))
        original.resize(box, Image.Resampling.LANCZOS).save(path, optimize=True)
        size = path.stat().st_size
    with Image.open(path) as image:
        return image.width, image.height


def _blank(path: Path) -> bool | None:
    """Whether every pixel is the same colour; None when Pillow is not available."""
    try:
        from PIL import Image
    except ImportError:
        return None
    with Image.open(path) as image:
        extrema = image.convert("RGB").getextrema()
    return all(low == high for low, high in extrema)


class IsolatedWorld:
    """A JavaScript world of BenchMax's own in the page's main frame (CDP
    ``Page.createIsolatedWorld``): it sees the same DOM but none of the page's globals,
    prototypes or fake clock, so nothing the page defines (a pinned ``window.axe``, a patched
    ``Array.prototype``, a counter it resets) can answer in its place. A fresh world per
    measurement: one the page navigated away from is gone, and that is a failed run."""

    def __init__(self, context: Any, page: Any) -> None:
        self.session = context.new_cdp_session(page)

    def evaluate(self, expression: str, *, wait: bool = False, world: int | None = None) -> Any:
        context_id = world if world is not None else self.create()
        reply = self.session.send(
            "Runtime.evaluate",
            {
                "expression": expression,
                "contextId": context_id,
                "returnByValue": True,
                "awaitPromise": wait,
            },
        )
        if reply.get("exceptionDetails"):
            raise RuntimeError("a measurement failed in the isolated world")
        return reply.get("result", {}).get("value")

    def create(self) -> int:
        tree = self.session.send("Page.getFrameTree")
        created = self.session.send(
            "Page.createIsolatedWorld",
            {"frameId": tree["frameTree"]["frame"]["id"], "worldName": "benchmax-measure"},
        )
        return int(created["executionContextId"])


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RuntimeError("a measurement returned something other than a number")
    return float(value)


def _axe(world: IsolatedWorld) -> dict[str, Any]:
    """axe-core run in a world of its own; its figures checked for shape before they count."""
    context_id = world.create()
    world.evaluate(AXE_PATH.read_text(encoding="utf-8"), world=context_id)
    raw = world.evaluate(AXE_SCRIPT, wait=True, world=context_id)
    if not isinstance(raw, dict) or not VERSION.fullmatch(str(raw.get("version"))):
        raise RuntimeError("the accessibility check returned an unexpected shape")
    violations = [
        {
            "id": _clip(str(v.get("id"))),
            "impact": _clip(str(v.get("impact") or "")),
            "help": _clip(str(v.get("help"))),
            "nodes": int(_number(v.get("nodes"))),
            "sample": [
                {"target": _clip(str(n.get("target"))), "html": _clip(str(n.get("html")))}
                for n in (v.get("sample") or [])[:KEEP_NODES]
            ],
        }
        for v in (raw.get("violations") or [])[:KEEP_MESSAGES]
    ]
    return {
        "version": raw["version"],
        "passes": int(_number(raw.get("passes"))),
        "incomplete": int(_number(raw.get("incomplete"))),
        "violations": violations,
    }


class Recording:
    """About ``seconds`` of CDP screencast frames, gathered as Playwright delivers them.

    Times are the frames' own capture times (wall clock, as CDP gives them). At most one
    frame per ``FRAME_GAP`` is kept (a newer frame replaces the kept one's picture), and a
    still page sends one frame only, which is then shown for the whole recording.
    """

    def __init__(self, context: Any, page: Any, seconds: float) -> None:
        self.frames: list[tuple[float, bytes]] = []
        self.skipped: list[tuple[float, float]] = []
        self.started = time.time()
        self.end = self.started + seconds
        self.session = context.new_cdp_session(page)
        self.session.on("Page.screencastFrame", self._frame)
        self.session.send(
            "Page.startScreencast",
            {"format": "jpeg", "quality": 70, "maxWidth": 720, "maxHeight": 500},
        )

    def _frame(self, event: dict[str, Any]) -> None:
        self.session.send("Page.screencastFrameAck", {"sessionId": event["sessionId"]})
        taken = float(event.get("metadata", {}).get("timestamp") or time.time())
        if taken > self.end or any(low <= taken <= high for low, high in self.skipped):
            return
        data = base64.b64decode(event["data"])
        if self.frames and taken - self.frames[-1][0] < FRAME_GAP:
            self.frames[-1] = (self.frames[-1][0], data)
        else:
            self.frames.append((max(taken, self.started), data))

    @contextlib.contextmanager
    def left_out(self) -> Iterator[None]:
        """Frames captured inside this block are not part of the recording."""
        low = time.time()
        try:
            yield
        finally:
            self.skipped.append((low, time.time()))

    def finish(self, page: Any, out: Path) -> Future[dict[str, Any] | None] | None:
        """Wait out the recording, stop it and encode it in the background."""
        while time.time() < self.end:
            page.wait_for_timeout(min(100, max(1, (self.end - time.time()) * 1000)))
        self.session.send("Page.stopScreencast")
        self.session.detach()
        if not self.frames:
            return None
        pool = ThreadPoolExecutor(max_workers=1)
        try:
            return pool.submit(_encode, self.frames, min(self.end, time.time()), out)
        finally:
            pool.shutdown(wait=False)


def _encode(frames: list[tuple[float, bytes]], end: float, out: Path) -> dict[str, Any] | None:
    durations = [
        max(0.04, (frames[i + 1][0] if i + 1 < len(frames) else end) - frames[i][0])
        for i in range(len(frames))
    ]
    with tempfile.TemporaryDirectory() as scratch:
        listing = []
        for index, (_, data) in enumerate(frames):
            frame = Path(scratch) / f"{index:05d}.jpg"
            frame.write_bytes(data)
            listing.append(f"file '{frame}'\nduration {durations[index]:.3f}\n")
        listing.append(f"file '{Path(scratch) / f'{len(frames) - 1:05d}.jpg'}'\n")
        (Path(scratch) / "frames.txt").write_text("".join(listing))
        if os.path.exists(FFMPEG):
            return _ffmpeg(Path(scratch) / "frames.txt", out, len(frames), sum(durations))
        return _animated_webp(Path(scratch), len(frames), durations, out)


def _ffmpeg(listing: Path, out: Path, count: int, seconds: float) -> dict[str, Any] | None:
    """VP8 at its fastest real-time setting; frames keep their own times (variable rate), so
    a still page is a couple of frames, not fifty copies of one."""
    path = out / "video.webm"
    command = [FFMPEG, "-nostdin", "-loglevel", "error", "-f", "concat", "-safe", "0"]
    command += ["-i", str(listing), "-vf", "scale=trunc(iw/2)*2:trunc(ih/2)*2", "-fps_mode", "vfr"]
    command += ["-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "16", "-b:v", "600k"]
    command += ["-threads", "1", "-an", "-y", str(path)]
    finished = subprocess.run(command, capture_output=True, timeout=30, check=False)
    if finished.returncode != 0 or not path.exists():
        return None
    return {"file": path.name, "type": "video/webm", "frames": count, "seconds": round(seconds, 2)}


def _animated_webp(
    scratch: Path, count: int, durations: list[float], out: Path
) -> dict[str, Any] | None:
    try:
        from PIL import Image
    except ImportError:
        return None
    images = [Image.open(scratch / f"{index:05d}.jpg") for index in range(count)]
    path = out / "video.webp"
    images[0].save(
        path,
        save_all=True,
        append_images=images[1:],
        duration=[round(d * 1000) for d in durations],
        loop=0,
        quality=60,
    )
    return {"file": path.name, "type": "image/webp", "frames": count, "seconds": sum(durations)}


# ---------------------------------------------------------------------------------------
# The result


def checks_and_summary(observed: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
    serious = [
        v for v in observed["axe"]["violations"] if v.get("impact") in ("serious", "critical")
    ]
    checks = [
        {"id": "loads", "passed": True, "detail": f"loaded in {observed['load_ms']} ms"},
        {
            "id": "no_console_errors",
            "passed": observed["console_error_count"] == 0,
            "detail": f"{observed['console_error_count']} console errors",
        },
        {
            "id": "no_outside_requests",
            "passed": observed["blocked_request_count"] == 0,
            "detail": f"{observed['blocked_request_count']} requests off the site were blocked",
        },
        {
            "id": "accessibility",
            "passed": not serious,
            "detail": f"{len(observed['axe']['violations'])} axe-core rules failed, "
            f"{len(serious)} serious or critical",
        },
        {
            "id": "screenshot_not_blank",
            "passed": observed["screenshot"]["blank"] is False,
            "detail": "the page drew something" if not observed["screenshot"]["blank"] else "blank",
        },
    ]
    failed = [check["id"].replace("_", " ") for check in checks if not check["passed"]]
    summary = f"The page loaded in {observed['load_ms'] / 1000:.1f} s with no network. " + (
        "Every check passed."
        if not failed
        else "Checks that did not pass: " + ", ".join(failed) + "."
    )
    return checks, summary


def write_result(out: Path, status: str, reason: str, **fields: Any) -> None:
    result = {
        "schema": RESULT_SCHEMA,
        "template": TEMPLATE,
        "status": status,
        "reason": reason,
        "seed": RANDOM_SEED,
        "clock": FIXED_TIME_MS,
        "viewport": VIEWPORT,
        **fields,
    }
    temporary = out / "result.json.tmp"
    temporary.write_text(json.dumps(result, sort_keys=True, ensure_ascii=False))
    os.replace(temporary, out / "result.json")


def _watchdog(out: Path, seconds: float) -> None:
    """The run is bounded even if the page wedges the browser: write a failure and exit."""

    def expire() -> None:
        detail = f"no result within the {seconds:.0f} s bound"
        write_result(
            out, "failed", "timeout", summary="The preview ran out of time.", detail=detail
        )
        os._exit(0)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()


def evaluate(zip_path: Path, out: Path, timeout: float, probes: list[str]) -> None:
    deadline = time.monotonic() + timeout - 2
    _watchdog(out, timeout - 1)
    reached = egress_open(probes)
    if reached is not None:
        write_result(out, "failed", "egress_open", summary="The sandbox could reach the network.")
        return
    site = Path(tempfile.mkdtemp(prefix="site-"))
    try:
        extract(zip_path, site)
    except Refused as refused:
        write_result(out, "not_applicable", refused.code, summary="This ZIP cannot be previewed.")
        return
    except OSError as exc:
        if exc.errno not in LIMIT_ERRORS:
            raise
        summary = "The preview was stopped: the site is larger than a preview allows."
        write_result(out, "failed", LIMIT_ERRORS[exc.errno], summary=summary)
        return
    if not (site / "index.html").is_file():
        write_result(out, "not_applicable", "no_root_index", summary="No index.html at the root.")
        return
    server = serve(site)
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        observed = run_page(f"{origin}/index.html", origin, out, deadline)
    except Exception as exc:
        summary = "The page did not finish loading."
        write_result(out, "failed", _failure_code(exc), summary=summary, detail=_detail(exc))
        return
    finally:
        server.shutdown()
    checks, summary = checks_and_summary(observed)
    write_result(out, "ok", "", checks=checks, summary=summary, **observed)


def _failure_code(exc: BaseException) -> str:
    name = type(exc).__name__
    return "page_timeout" if "Timeout" in name else f"browser_error:{name}"[:64]


def _detail(exc: BaseException) -> str:
    """The error's first line, for owners on /operations (Playwright adds its call log below)."""
    first = next((line.strip() for line in str(exc).splitlines() if line.strip()), "")
    return _clip(first or type(exc).__name__)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zip", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--probe", action="append", default=None)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    probes = list(DEFAULT_PROBES) if args.probe is None else args.probe
    evaluate(args.zip, args.out, max(10.0, args.timeout), probes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
