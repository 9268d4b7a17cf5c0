"""Session verification: the local issuer and Clerk go through the same clerk-backend-api path."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import stat
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from starlette.datastructures import Headers

from benchmax.adapters.auth import (
    LocalIssuer,
    LocalIssuerRefusedError,
    SessionVerifier,
    build_verifier,
    local_subject,
)
from benchmax.settings import Settings

APP = "http://localhost:3000"


def _settings(data_dir: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {"env": "test", "data_dir": data_dir, "app_origin": APP}
    values.update(overrides)
    return Settings(_env_file=None, **values)


def _rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _public_pem(key: rsa.RSAPrivateKey) -> str:
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return _settings(tmp_path / "var")


@pytest.fixture
def issuer(settings: Settings) -> LocalIssuer:
    return LocalIssuer(settings)


@pytest.fixture
def verifier(settings: Settings, issuer: LocalIssuer) -> SessionVerifier:
    return build_verifier(settings)


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# --- the local issuer ---------------------------------------------------------------------


def test_key_is_created_private_in_a_new_directory_and_reused(settings: Settings) -> None:
    first = LocalIssuer(settings)
    path = settings.resolved_key_path
    assert path.parent.is_dir()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert LocalIssuer(settings).public_pem == first.public_pem
    assert list(path.parent.iterdir()) == [path]  # no temporary files left behind


def test_processes_starting_together_agree_on_one_key(settings: Settings) -> None:
    with ThreadPoolExecutor(max_workers=4) as pool:
        pems = set(pool.map(lambda _: LocalIssuer(settings).public_pem, range(4)))
    assert len(pems) == 1


def test_minted_token_is_shaped_like_a_clerk_session_token(issuer: LocalIssuer) -> None:
    now = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
    token = issuer.mint(local_subject("alice"), ttl_seconds=600, now=now)
    header = jwt.get_unverified_header(token)
    claims = jwt.decode(token, options={"verify_signature": False})
    assert header["alg"] == "RS256"
    assert header["kid"] == issuer.kid
    assert claims["sub"] == "local|alice"
    assert claims["sid"].startswith("sess_")
    assert claims["iss"] == f"{APP}/local-issuer"
    assert claims["azp"] == APP
    assert claims["iat"] == claims["nbf"] == int(now.timestamp())
    assert claims["exp"] == int(now.timestamp()) + 600
    assert claims["v"] == 2


def test_each_token_is_its_own_session(issuer: LocalIssuer, verifier: SessionVerifier) -> None:
    first = verifier.verify_token(issuer.mint("local|alice"))
    second = verifier.verify_token(issuer.mint("local|alice"))
    assert first is not None
    assert second is not None
    assert first.session_id != second.session_id


def test_mint_refuses_an_empty_subject(issuer: LocalIssuer) -> None:
    with pytest.raises(ValueError, match="subject"):
        issuer.mint("  ")


def _production_settings(tmp_path: Path) -> Settings:
    return _settings(
        tmp_path / "prod",
        env="production",
        app_origin="https://benchmax.org",
        usercontent_origin="https://benchmax-usercontent.net",
        database_url="postgresql://benchmax@db.internal/benchmax",
        storage_backend="s3",
        s3_secret_access_key=secrets.token_hex(16),
        auth_backend="clerk",
        clerk_jwt_key=_public_pem(_rsa_key()),
        clerk_secret_key="sk_live_" + secrets.token_hex(16),
        clerk_publishable_key="pk_live_Y2xlcmsuYmVuY2htYXgub3JnJA",
        queue_backend="redis",
    )


def test_local_issuer_is_refused_in_production(tmp_path: Path) -> None:
    production = _production_settings(tmp_path)
    with pytest.raises(LocalIssuerRefusedError, match="development only"):
        LocalIssuer(production)
    assert not production.resolved_key_path.exists()


# --- one verification path ----------------------------------------------------------------


def test_valid_token_in_the_authorization_header(
    issuer: LocalIssuer, verifier: SessionVerifier
) -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    claims = verifier.verify_headers(_bearer(issuer.mint("local|alice", ttl_seconds=3600)))
    assert claims is not None
    assert claims.subject == "local|alice"
    assert claims.session_id.startswith("sess_")
    assert before + timedelta(seconds=3600) <= claims.expires_at
    assert claims.expires_at <= datetime.now(UTC) + timedelta(seconds=3600)


@pytest.mark.parametrize("name", ["Authorization", "authorization", "AUTHORIZATION"])
@pytest.mark.parametrize("scheme", ["Bearer", "bearer"])
def test_header_name_and_scheme_case_do_not_matter(
    issuer: LocalIssuer, verifier: SessionVerifier, name: str, scheme: str
) -> None:
    claims = verifier.verify_headers({name: f"{scheme} {issuer.mint('local|alice')}"})
    assert claims is not None
    assert claims.subject == "local|alice"


@pytest.mark.parametrize("name", ["cookie", "Cookie"])
def test_valid_token_in_the_session_cookie(
    issuer: LocalIssuer, verifier: SessionVerifier, name: str
) -> None:
    cookie = f"theme=dark; __session={issuer.mint('local|bob')}; other=1"
    claims = verifier.verify_headers({name: cookie})
    assert claims is not None
    assert claims.subject == "local|bob"


def test_starlette_headers_work_as_they_come(
    issuer: LocalIssuer, verifier: SessionVerifier
) -> None:
    raw = [(b"cookie", f"__session={issuer.mint('local|carol')}".encode())]
    claims = verifier.verify_headers(Headers(raw=raw))
    assert claims is not None
    assert claims.subject == "local|carol"


def test_verify_token_takes_a_bare_token(issuer: LocalIssuer, verifier: SessionVerifier) -> None:
    claims = verifier.verify_token(issuer.mint("local|dave"))
    assert claims is not None
    assert claims.subject == "local|dave"


def test_no_credentials_is_a_visitor(verifier: SessionVerifier) -> None:
    assert verifier.verify_headers({}) is None
    assert verifier.verify_headers({"Cookie": "theme=dark"}) is None


def test_expired_token_is_refused(issuer: LocalIssuer, verifier: SessionVerifier) -> None:
    issued = datetime.now(UTC) - timedelta(hours=2)
    assert verifier.verify_token(issuer.mint("local|alice", ttl_seconds=60, now=issued)) is None


def test_token_from_the_future_is_refused(issuer: LocalIssuer, verifier: SessionVerifier) -> None:
    issued = datetime.now(UTC) + timedelta(hours=1)
    assert verifier.verify_token(issuer.mint("local|alice", now=issued)) is None


def test_token_signed_by_another_key_is_refused(tmp_path: Path, verifier: SessionVerifier) -> None:
    stranger = LocalIssuer(_settings(tmp_path / "elsewhere"))
    assert verifier.verify_token(stranger.mint("local|alice")) is None


def test_token_for_another_authorized_party_is_refused(
    tmp_path: Path, settings: Settings, verifier: SessionVerifier
) -> None:
    # Same key file, so the signature is good: only the azp claim is wrong.
    other_app = LocalIssuer(
        _settings(
            tmp_path / "other",
            app_origin="http://evil.localhost:3000",
            local_issuer_key_path=settings.resolved_key_path,
        )
    )
    token = other_app.mint("local|alice")
    assert jwt.decode(token, options={"verify_signature": False})["azp"] != APP
    assert verifier.verify_token(token) is None


def test_extra_authorized_parties_are_accepted(tmp_path: Path, settings: Settings) -> None:
    shared_key = {"local_issuer_key_path": settings.resolved_key_path}
    staging = LocalIssuer(
        _settings(tmp_path / "staging", app_origin="http://staging.localhost", **shared_key)
    )
    verifier = build_verifier(
        _settings(
            settings.data_dir,
            authorized_parties=f"{APP},http://staging.localhost",
            **shared_key,
        )
    )
    claims = verifier.verify_token(staging.mint("local|alice"))
    assert claims is not None
    assert claims.subject == "local|alice"


def test_an_api_token_is_not_a_session(issuer: LocalIssuer, verifier: SessionVerifier) -> None:
    api_token = "bmx_" + secrets.token_urlsafe(30)
    assert verifier.verify_headers(_bearer(api_token)) is None
    assert verifier.verify_token(api_token) is None
    # An API call is never upgraded to a session by a cookie that happens to ride along.
    both = {**_bearer(api_token), "cookie": f"__session={issuer.mint('local|alice')}"}
    assert verifier.verify_headers(both) is None


def _signed(key: rsa.RSAPrivateKey, kid: str, **claims: Any) -> str:
    return jwt.encode(claims, key, algorithm="RS256", headers={"kid": kid})


def _garbage(issuer: LocalIssuer, key: rsa.RSAPrivateKey) -> dict[str, str]:
    """Tokens that must never sign anyone in, built against the issuer's real key."""
    now = int(time.time())
    good = {"sid": "sess_x", "azp": APP, "iat": now, "nbf": now, "exp": now + 600}
    header = _b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    body = _b64(json.dumps({"sub": "local|mallory", **good}).encode())
    hs256_sig = hmac.new(issuer.public_pem.encode(), f"{header}.{body}".encode(), hashlib.sha256)
    none_header = _b64(json.dumps({"alg": "none", "typ": "JWT"}).encode())
    valid = issuer.mint("local|alice")
    return {
        "empty": "",
        "words": "hello world",
        "three dots": "a.b.c",
        "json": '{"sub": "local|mallory"}',
        "alg none": f"{none_header}.{body}.",
        "hs256 with the public key": f"{header}.{body}.{_b64(hs256_sig.digest())}",
        "tampered payload": valid.split(".")[0] + "." + body + "." + valid.split(".")[2],
        "truncated": valid[:-10],
        "no subject": _signed(key, issuer.kid, **good),
        "no session id": _signed(
            key, issuer.kid, sub="local|mallory", **{k: v for k, v in good.items() if k != "sid"}
        ),
        "no expiry": _signed(
            key, issuer.kid, sub="local|mallory", **{k: v for k, v in good.items() if k != "exp"}
        ),
        "expiry past the calendar": _signed(
            key, issuer.kid, sub="local|mallory", **{**good, "exp": 10**20}
        ),
        "fractional expiry": _signed(
            key, issuer.kid, sub="local|mallory", **{**good, "exp": now + 600.5}
        ),
        "clerk api key prefix": "ak_" + secrets.token_hex(16),
        "clerk machine token prefix": "mt_" + secrets.token_hex(16),
        "clerk oauth token prefix": "oat_" + secrets.token_hex(16),
        "huge": "x" * 100_000,
    }


def test_garbage_tokens_are_refused(settings: Settings, issuer: LocalIssuer) -> None:
    verifier = build_verifier(settings)
    loaded = serialization.load_pem_private_key(
        settings.resolved_key_path.read_bytes(), password=None
    )
    assert isinstance(loaded, rsa.RSAPrivateKey)
    for name, token in _garbage(issuer, loaded).items():
        assert verifier.verify_token(token) is None, name
        assert verifier.verify_headers({"Cookie": f"__session={token}"}) is None, name


@pytest.mark.parametrize(
    "headers",
    [
        {"Authorization": "Basic dXNlcjpwYXNz"},
        {"Authorization": "Bearer"},
        {"Authorization": ""},
        {"Cookie": '__session="unterminated; ;;=; =='},
        {"Cookie": "__session="},
        {"Cookie": "\x00\x01\x02"},
    ],
)
def test_malformed_headers_are_a_visitor(
    verifier: SessionVerifier, headers: dict[str, str]
) -> None:
    assert verifier.verify_headers(headers) is None


# --- Clerk mode: the same code with Clerk's public key ------------------------------------


def _clerk_settings(tmp_path: Path, jwt_key: str) -> Settings:
    return _settings(
        tmp_path / "clerk",
        auth_backend="clerk",
        app_origin="https://benchmax.org",
        clerk_jwt_key=jwt_key,
        clerk_secret_key="sk_test_" + secrets.token_hex(16),
    )


def _clerk_session_token(key: rsa.RSAPrivateKey, *, azp: str, expires_in: int = 60) -> str:
    """A token as Clerk's frontend API issues it (v2 session claims, short-lived)."""
    now = int(time.time())
    claims = {
        "azp": azp,
        "exp": now + expires_in,
        "fva": [0, -1],
        "iat": now,
        "iss": "https://clerk.benchmax.org",
        "nbf": now - 10,
        "sid": "sess_2" + secrets.token_hex(12),
        "sts": "active",
        "sub": "user_2" + secrets.token_hex(12),
        "v": 2,
    }
    return _signed(key, "ins_2" + secrets.token_hex(12), **claims)


def test_clerk_mode_verifies_clerk_tokens_with_the_same_code(tmp_path: Path) -> None:
    clerk_key = _rsa_key()
    settings = _clerk_settings(tmp_path, _public_pem(clerk_key))
    verifier = build_verifier(settings)
    token = _clerk_session_token(clerk_key, azp="https://benchmax.org")
    claims = verifier.verify_headers({"cookie": f"__session={token}"})
    assert claims is not None
    assert claims.subject.startswith("user_2")
    assert claims.session_id.startswith("sess_2")
    # Nothing was written for a local issuer: Clerk mode never creates a signing key.
    assert not settings.resolved_key_path.exists()


def test_clerk_mode_refuses_what_it_should(tmp_path: Path) -> None:
    clerk_key = _rsa_key()
    verifier = build_verifier(_clerk_settings(tmp_path, _public_pem(clerk_key)))
    local_token = LocalIssuer(_settings(tmp_path / "local")).mint("local|alice")
    assert verifier.verify_token(local_token) is None
    assert verifier.verify_token(_clerk_session_token(clerk_key, azp="https://evil.org")) is None
    expired = _clerk_session_token(clerk_key, azp="https://benchmax.org", expires_in=-120)
    assert verifier.verify_token(expired) is None


def test_clerk_key_with_escaped_newlines_from_an_env_file(tmp_path: Path) -> None:
    clerk_key = _rsa_key()
    one_line = _public_pem(clerk_key).strip().replace("\n", "\\n")
    verifier = build_verifier(_clerk_settings(tmp_path, one_line))
    token = _clerk_session_token(clerk_key, azp="https://benchmax.org")
    assert verifier.verify_token(token) is not None


def test_clerk_mode_needs_the_jwt_key(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="CLERK_JWT_KEY"):
        build_verifier(_clerk_settings(tmp_path, ""))


def test_production_builds_a_clerk_verifier(tmp_path: Path) -> None:
    production = _production_settings(tmp_path)
    assert build_verifier(production).verify_headers({}) is None
    assert not production.resolved_key_path.exists()


@pytest.mark.parametrize("kind", ["garbage", "ec", "private"])
def test_a_bad_verification_key_fails_at_start_up(kind: str) -> None:
    if kind == "garbage":
        pem = "-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----\n"
    elif kind == "ec":
        pem = (
            ec.generate_private_key(ec.SECP256R1())
            .public_key()
            .public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
            .decode()
        )
    else:
        pem = (
            _rsa_key()
            .private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
            .decode()
        )
    with pytest.raises(ValueError, match="verification key"):
        SessionVerifier(pem, [APP])


def test_a_verifier_needs_an_authorized_party() -> None:
    with pytest.raises(ValueError, match="authorized party"):
        SessionVerifier(_public_pem(_rsa_key()), [])
