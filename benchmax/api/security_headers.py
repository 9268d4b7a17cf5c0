"""Security headers for every response of the main app.

The Content-Security-Policy names the user-content origin as the only other place images and
media may come from, so evidence renders while the app itself never serves those bytes.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from benchmax.settings import Settings


def content_security_policy(settings: Settings) -> str:
    uc = settings.usercontent_origin
    app_ws = settings.app_origin.replace("http://", "ws://").replace("https://", "wss://")
    clerk = f" https://{settings.clerk_frontend_api}" if settings.clerk_frontend_api else ""
    return "; ".join(
        [
            "default-src 'self'",
            f"img-src 'self' data: blob: {uc}{clerk}",
            f"media-src 'self' blob: {uc}",
            # Reflex's compiled client hydrates with inline scripts and evaluates event specs.
            f"script-src 'self' 'unsafe-inline' 'unsafe-eval'{clerk}",
            "style-src 'self' 'unsafe-inline'",
            "font-src 'self' data:",
            # Text evidence is read inline by the page straight from the user-content origin.
            f"connect-src 'self' {uc} {app_ws}{clerk}",
            f"frame-src 'self'{clerk}",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.headers = {
            "Content-Security-Policy": content_security_policy(settings),
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "strict-origin-when-cross-origin",
            "X-Frame-Options": "DENY",
            "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
        }

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in self.headers.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)
