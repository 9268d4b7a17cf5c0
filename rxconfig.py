"""Reflex configuration, derived from BenchMax settings so there is one source of truth."""

import os
from urllib.parse import urlparse

import reflex as rx
from reflex.constants import StateManagerMode
from reflex.plugins.sitemap import SitemapPlugin

from benchmax.components.radix_styles import TrimmedRadixThemesPlugin
from benchmax.settings import get_settings

_settings = get_settings()
_port = urlparse(_settings.app_origin).port or 3000

# Reflex's default "disk" mode pickles every session's state under .states/, which would put
# whatever a page holds on disk. One process keeps state in memory; several web replicas
# share it through Redis (REFLEX_REDIS_URL), as production does.
_state_mode = (
    {} if os.environ.get("REFLEX_REDIS_URL") else {"state_manager_mode": StateManagerMode.MEMORY}
)

config = rx.Config(
    app_name="benchmax",
    # Reflex's default ("*", with credentials) would let any page a signed-in user visits
    # read the app's API and event socket with their cookie. Only the app's own origin may.
    cors_allowed_origins=(_settings.app_origin,),
    frontend_port=_port,
    backend_port=_port,
    api_url=_settings.app_origin,
    deploy_url=_settings.app_origin,
    telemetry_enabled=False,
    show_built_with_reflex=False,
    plugins=[
        TrimmedRadixThemesPlugin(
            theme=rx.theme(
                appearance="inherit", accent_color="iris", gray_color="slate", radius="medium"
            )
        )
    ],
    disable_plugins=[SitemapPlugin],
    # Libraries Reflex offers to dynamic components (the app has none) load when one is first
    # evaluated, not as whole namespaces on every page (see components/radix_styles.py).
    frontend_lazy_bundled_libraries=True,
    **_state_mode,
)
