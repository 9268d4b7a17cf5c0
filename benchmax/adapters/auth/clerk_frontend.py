"""What the pages render to load Clerk's browser SDK and its sign-in component in production.

Clerk's JS sets the ``__session`` cookie on the app's host; the server never talks to Clerk and
verifies that cookie with the same code as local tokens (see verifier.py). Nothing here can be
exercised offline, so it stays declarative: the pages render what these functions return.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field

from benchmax.settings import Settings

# The major version is pinned so a Clerk release cannot change the sign-in flow under us.
CLERK_JS_MAJOR_VERSION = "5"


@dataclass(frozen=True)
class ScriptTag:
    src: str
    attrs: dict[str, str] = field(default_factory=dict)


def _frontend_api_from_publishable_key(publishable_key: str) -> str:
    """Clerk encodes its frontend API host in the key: ``pk_live_<base64("host$")>``."""
    kind, _, rest = publishable_key.partition("_")
    prefix, _, encoded = rest.partition("_")
    if kind != "pk" or prefix not in ("test", "live") or not encoded:
        raise ValueError("BENCHMAX_CLERK_PUBLISHABLE_KEY is not a Clerk publishable key")
    try:
        decoded = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
        host = decoded.decode("ascii").rstrip("$")
    except (binascii.Error, UnicodeDecodeError) as error:
        raise ValueError("BENCHMAX_CLERK_PUBLISHABLE_KEY does not decode to a host") from error
    if not host or "/" in host:
        raise ValueError("BENCHMAX_CLERK_PUBLISHABLE_KEY does not decode to a host")
    return host


def clerk_frontend_api_url(settings: Settings) -> str:
    """Clerk's frontend API origin: the explicit setting, else the one in the publishable key."""
    host = settings.clerk_frontend_api.strip() or _frontend_api_from_publishable_key(
        settings.clerk_publishable_key.strip()
    )
    host = host.removeprefix("https://").removeprefix("http://").rstrip("/")
    return f"https://{host}"


def clerk_script_tags(settings: Settings) -> list[ScriptTag]:
    """The ``<script>`` tags that load Clerk's SDK; none when sign-in is local."""
    if settings.auth_backend != "clerk":
        return []
    publishable_key = settings.clerk_publishable_key.strip()
    if not publishable_key:
        raise ValueError("BENCHMAX_CLERK_PUBLISHABLE_KEY is required for Clerk sign-in")
    src = (
        f"{clerk_frontend_api_url(settings)}/npm/@clerk/clerk-js@{CLERK_JS_MAJOR_VERSION}"
        "/dist/clerk.browser.js"
    )
    attrs = {
        "async": "",
        "crossorigin": "anonymous",
        "type": "text/javascript",
        "data-clerk-publishable-key": publishable_key,
    }
    return [ScriptTag(src=src, attrs=attrs)]


def _js_string(value: str) -> str:
    return json.dumps(value).replace("<", "\\u003c")


def clerk_mount_sign_in_js(element_id: str, *, redirect_url: str) -> str:
    """Inline JS that mounts Clerk's sign-in component once the async SDK has loaded.

    Values are JSON-encoded with ``<`` escaped so neither can close the script element.
    """
    target, redirect = _js_string(element_id), _js_string(redirect_url)
    return (
        "(function mount(){"
        "if(!window.Clerk){return setTimeout(mount,50);}"
        "window.Clerk.load().then(function(){"
        f"var el=document.getElementById({target});"
        f"if(el){{window.Clerk.mountSignIn(el,{{forceRedirectUrl:{redirect}}});}}"
        "});"
        "})();"
    )
