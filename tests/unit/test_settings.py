"""Settings: safe defaults for the embedded default, and production refuses unsafe config."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from pydantic import ValidationError

from benchmax.settings import CoreSettings, Settings, site


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings read the process environment; start every test from none of ours."""
    for name in list(os.environ):
        if name.startswith("BENCHMAX_"):
            monkeypatch.delenv(name)


def _clerk_public_pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


@pytest.fixture(scope="module")
def production() -> dict[str, Any]:
    """A complete, safe production configuration with secrets generated for this run."""
    return {
        "env": "production",
        "app_origin": "https://benchmax.org",
        "usercontent_origin": "https://benchmax-usercontent.net",
        "database_url": "postgresql://benchmax@db.internal:5432/benchmax",
        "storage_backend": "s3",
        "s3_endpoint_url": "https://objects.internal",
        "s3_access_key_id": "AKBENCHMAX",
        "s3_secret_access_key": secrets.token_hex(20),
        "auth_backend": "clerk",
        "clerk_jwt_key": _clerk_public_pem(),
        "clerk_secret_key": "sk_live_" + secrets.token_hex(20),
        "clerk_publishable_key": "pk_live_Y2xlcmsuYmVuY2htYXgub3JnJA",
        "queue_backend": "redis",
        "redis_url": "redis://redis.internal:6379/0",
    }


def _make(**values: Any) -> Settings:
    return Settings(_env_file=None, **values)


def test_defaults_are_the_embedded_default(tmp_path: Path) -> None:
    settings = _make(data_dir=tmp_path)
    assert settings.env == "development"
    assert settings.auth_backend == "local"
    assert settings.queue_backend == "memory"
    assert settings.resolved_database_url == f"sqlite:///{(tmp_path / 'benchmax.db').resolve()}"
    assert settings.resolved_storage_root == tmp_path / "objects"
    assert settings.resolved_key_path == tmp_path / "keys" / "local-issuer.pem"
    assert settings.resolved_authorized_parties == ["http://localhost:3000"]
    assert settings.production_problems() != []  # fine for development, never for production


def test_a_fully_valid_production_config_passes(production: dict[str, Any]) -> None:
    settings = _make(**production)
    assert settings.is_production
    assert settings.production_problems() == []


@pytest.mark.parametrize(
    ("overrides", "problem"),
    [
        ({"database_url": ""}, "DATABASE_URL must point at PostgreSQL"),
        ({"database_url": "sqlite:////srv/benchmax.db"}, "DATABASE_URL must point at PostgreSQL"),
        ({"storage_backend": "local"}, "STORAGE_BACKEND must be s3"),
        ({"s3_secret_access_key": None}, "S3_SECRET_ACCESS_KEY is missing or a placeholder"),
        ({"s3_secret_access_key": "change-me"}, "S3_SECRET_ACCESS_KEY is missing"),
        ({"s3_secret_access_key": "  "}, "S3_SECRET_ACCESS_KEY is missing"),
        ({"auth_backend": "local"}, "AUTH_BACKEND=local is for development only"),
        ({"clerk_secret_key": None}, "CLERK_SECRET_KEY is missing or a placeholder"),
        ({"clerk_secret_key": "sk_live_CHANGEME"}, "CLERK_SECRET_KEY is missing"),
        ({"clerk_secret_key": "sk_live_example"}, "CLERK_SECRET_KEY is missing"),
        ({"clerk_jwt_key": ""}, "CLERK_JWT_KEY must be Clerk's PEM public key"),
        ({"clerk_jwt_key": "not-a-pem"}, "CLERK_JWT_KEY must be Clerk's PEM public key"),
        ({"queue_backend": "memory"}, "QUEUE_BACKEND must be redis"),
        ({"usercontent_origin": "http://benchmax-usercontent.net"}, "must use https"),
        ({"usercontent_origin": "https://benchmax.org"}, "different host than BENCHMAX_APP_ORIGIN"),
        # A trailing slash must not smuggle the app's own origin past the comparison.
        ({"usercontent_origin": "https://benchmax.org/"}, "different host"),
        ({"usercontent_origin": "https://files.benchmax.org"}, "must not be a subdomain"),
        # Siblings on one registrable domain are one site, whatever the public suffix.
        (
            {
                "app_origin": "https://app.example.com",
                "usercontent_origin": "https://uc.example.com",
            },
            "another registrable domain",
        ),
        (
            {
                "app_origin": "https://app.example.co.uk",
                "usercontent_origin": "https://files.example.co.uk",
            },
            "both are on example.co.uk",
        ),
        (
            {
                "app_origin": "https://www.benchmax.org",
                "usercontent_origin": "https://UC.BenchMax.org.",
            },
            "another registrable domain",
        ),
        (
            {
                "app_origin": "https://app.bücher.de",
                "usercontent_origin": "https://uc.xn--bcher-kva.de",
            },
            "another registrable domain",
        ),
        (
            {
                "app_origin": "https://a.b.example.city.kawasaki.jp",
                "usercontent_origin": "https://c.example.city.kawasaki.jp",
            },
            "registrable domain",
        ),
        ({"clerk_publishable_key": ""}, "CLERK_PUBLISHABLE_KEY must be Clerk's pk_ key"),
    ],
)
def test_production_refuses_unsafe_config(
    production: dict[str, Any], overrides: dict[str, Any], problem: str
) -> None:
    with pytest.raises(ValidationError, match="unsafe production configuration") as caught:
        _make(**{**production, **overrides})
    assert problem in str(caught.value)


@pytest.mark.parametrize(
    ("app", "content"),
    [
        ("https://benchmax.org", "https://benchmax-usercontent.net"),
        ("https://app.example.co.uk", "https://uc.other.co.uk"),  # co.uk is a public suffix
        ("https://benchmax.github.io", "https://benchmax-files.github.io"),  # so is github.io
        ("https://benchmax.org", "https://203.0.113.7"),
        ("https://198.51.100.1", "https://198.51.100.2"),  # IPs: no shared "1.1"-style domain
        ("https://[2001:db8::1]", "https://[2001:db8::2]"),
        ("https://benchmax.org", "https://localhost"),
    ],
)
def test_production_accepts_another_site(
    production: dict[str, Any], app: str, content: str
) -> None:
    settings = _make(**{**production, "app_origin": app, "usercontent_origin": content})
    assert settings.production_problems() == []


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("uc.example.com", "example.com"),
        ("A.B.Example.COM.", "example.com"),
        ("x.example.co.uk", "example.co.uk"),
        ("co.uk", "co.uk"),
        ("x.github.io", "x.github.io"),
        ("127.0.0.1", "127.0.0.1"),
        ("10.0.1.1", "10.0.1.1"),
        ("[::1]", "::1"),
        ("2001:DB8:0::1", "2001:db8::1"),
        ("localhost", "localhost"),
        ("uc.bücher.de", "xn--bcher-kva.de"),
        ("a..b", "a..b"),
    ],
)
def test_site_is_the_registrable_domain(host: str, expected: str) -> None:
    assert site(host) == expected


def test_siblings_are_fine_outside_production() -> None:
    # Development setups use whatever hosts they like; only production is held to it.
    settings = _make(
        app_origin="http://app.example.test", usercontent_origin="http://uc.example.test"
    )
    assert "registrable" not in " ".join(settings.production_problems())


def test_every_problem_is_reported_at_once(production: dict[str, Any]) -> None:
    unsafe = {
        **production,
        "database_url": "",
        "auth_backend": "local",
        "queue_backend": "memory",
    }
    with pytest.raises(ValidationError) as caught:
        _make(**unsafe)
    message = str(caught.value)
    for problem in ("PostgreSQL", "AUTH_BACKEND=local", "QUEUE_BACKEND"):
        assert problem in message


def test_the_same_unsafe_values_are_fine_outside_production(production: dict[str, Any]) -> None:
    settings = _make(**{**production, "env": "test", "auth_backend": "local", "database_url": ""})
    assert settings.auth_backend == "local"


def test_usercontent_service_settings_need_no_auth_secret(production: dict[str, Any]) -> None:
    core_only = {
        key: value
        for key, value in production.items()
        if not key.startswith(("clerk_", "auth_", "queue_", "redis_"))
    }
    core = CoreSettings(_env_file=None, **core_only)
    assert core.production_problems() == []
    assert not hasattr(core, "clerk_secret_key")


def test_production_config_from_environment_variables(
    monkeypatch: pytest.MonkeyPatch, production: dict[str, Any]
) -> None:
    for key, value in production.items():
        monkeypatch.setenv(f"BENCHMAX_{key.upper()}", value)
    settings = Settings(_env_file=None)
    assert settings.is_production
    assert settings.clerk_secret_key is not None
    assert settings.clerk_secret_key.get_secret_value() == production["clerk_secret_key"]
    assert production["clerk_secret_key"] not in repr(settings)


def test_unsafe_production_from_environment_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCHMAX_ENV", "production")
    with pytest.raises(ValidationError, match="AUTH_BACKEND=local"):
        Settings(_env_file=None)


def test_csv_lists_parse_from_environment_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCHMAX_OWNER_SUBJECTS", " user_2abc , local|alice,, user_2def ")
    monkeypatch.setenv(
        "BENCHMAX_AUTHORIZED_PARTIES", "https://benchmax.org,https://www.benchmax.org"
    )
    settings = Settings(_env_file=None)
    assert settings.owner_subjects == ["user_2abc", "local|alice", "user_2def"]
    assert settings.resolved_authorized_parties == [
        "https://benchmax.org",
        "https://www.benchmax.org",
    ]


def test_empty_csv_means_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCHMAX_OWNER_SUBJECTS", "")
    monkeypatch.setenv("BENCHMAX_AUTHORIZED_PARTIES", " , ")
    settings = Settings(_env_file=None)
    assert settings.owner_subjects == []
    assert settings.resolved_authorized_parties == [settings.app_origin]


def test_origins_lose_their_trailing_slash() -> None:
    settings = _make(app_origin="http://localhost:3000/", usercontent_origin="http://127.0.0.1:1/")
    assert settings.app_origin == "http://localhost:3000"
    assert settings.usercontent_origin == "http://127.0.0.1:1"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("env", "staging"),
        ("auth_backend", "password"),
        ("queue_backend", "kafka"),
        ("storage_backend", "ftp"),
        ("session_ttl_seconds", 10),
        ("feed_page_size", 1000),
        ("job_max_attempts", 0),
        ("scan_memory_limit_mib", 64),
        ("upload_body_timeout_seconds", 0),
        ("upload_body_timeout_seconds", 3600),
        ("upload_min_bytes_per_second", 0),
        ("upload_rate_limit", 0),
        ("upload_rate_window_seconds", 0),
    ],
)
def test_out_of_range_values_are_refused(field: str, value: Any) -> None:
    with pytest.raises(ValidationError, match=field):
        _make(**{field: value})


def test_scan_deadline_must_end_inside_the_job_lease() -> None:
    with pytest.raises(ValidationError, match="BENCHMAX_SCAN_TIMEOUT_SECONDS must be shorter"):
        _make(job_lease_seconds=60, scan_timeout_seconds=60)
    assert _make(job_lease_seconds=60, scan_timeout_seconds=59).scan_timeout_seconds == 59


def test_settings_are_frozen() -> None:
    settings = _make()
    with pytest.raises(ValidationError):
        settings.env = "production"  # type: ignore[misc]


def test_scan_cpu_budget_defaults_to_a_third_of_the_deadline_and_must_be_below_it() -> None:
    assert _make(scan_timeout_seconds=60).resolved_scan_cpu_seconds == 20
    assert _make(scan_timeout_seconds=2).resolved_scan_cpu_seconds == 1
    assert _make(scan_cpu_seconds=50).resolved_scan_cpu_seconds == 50
    with pytest.raises(ValidationError, match="BENCHMAX_SCAN_CPU_SECONDS must be below"):
        _make(scan_timeout_seconds=30, scan_cpu_seconds=30)
