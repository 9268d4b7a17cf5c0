"""The Clerk browser SDK tags the pages render in production."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from benchmax.adapters.auth.clerk_frontend import (
    CLERK_JS_MAJOR_VERSION,
    clerk_frontend_api_url,
    clerk_mount_sign_in_js,
    clerk_script_tags,
)
from benchmax.settings import Settings


def _settings(tmp_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {"env": "test", "data_dir": tmp_path, "auth_backend": "clerk"}
    values.update(overrides)
    return Settings(_env_file=None, **values)


def _publishable_key(host: str, kind: str = "live") -> str:
    return f"pk_{kind}_" + base64.b64encode(f"{host}$".encode()).decode().rstrip("=")


def test_local_sign_in_loads_no_clerk_script(tmp_path: Path) -> None:
    assert clerk_script_tags(_settings(tmp_path, auth_backend="local")) == []


def test_script_comes_from_the_frontend_api_in_the_publishable_key(tmp_path: Path) -> None:
    key = _publishable_key("clerk.benchmax.org")
    [tag] = clerk_script_tags(_settings(tmp_path, clerk_publishable_key=key))
    assert tag.src == (
        f"https://clerk.benchmax.org/npm/@clerk/clerk-js@{CLERK_JS_MAJOR_VERSION}"
        "/dist/clerk.browser.js"
    )
    assert tag.attrs["data-clerk-publishable-key"] == key
    assert tag.attrs["crossorigin"] == "anonymous"
    assert "async" in tag.attrs


@pytest.mark.parametrize(
    "configured", ["auth.benchmax.org", "https://auth.benchmax.org", "https://auth.benchmax.org/"]
)
def test_explicit_frontend_api_wins(tmp_path: Path, configured: str) -> None:
    settings = _settings(
        tmp_path,
        clerk_publishable_key=_publishable_key("clerk.benchmax.org", "test"),
        clerk_frontend_api=configured,
    )
    assert clerk_frontend_api_url(settings) == "https://auth.benchmax.org"


@pytest.mark.parametrize(
    "key", ["", "sk_live_abc", "pk_prod_Y2xlcmsuYmVuY2htYXgub3JnJA", "pk_live_!!!", "pk_live_"]
)
def test_a_bad_publishable_key_is_a_clear_error(tmp_path: Path, key: str) -> None:
    with pytest.raises(ValueError, match="PUBLISHABLE_KEY"):
        clerk_script_tags(_settings(tmp_path, clerk_publishable_key=key))


def test_mount_script_cannot_be_broken_out_of() -> None:
    hostile = '"</script><script>alert(1)</script>'
    script = clerk_mount_sign_in_js("clerk-sign-in", redirect_url=hostile)
    assert "</script>" not in script
    assert "mountSignIn" in script
    assert json.dumps("clerk-sign-in") in script
