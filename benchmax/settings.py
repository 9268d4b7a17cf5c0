"""Configuration for every BenchMax process.

There is one source of configuration: environment variables prefixed ``BENCHMAX_`` (and an
optional ``.env`` file). ``CoreSettings`` carries only what the cookieless user-content service
may know — the database, object storage and the two origins. ``Settings`` extends it with
everything the web app, workers and CLI need, including sign-in and queue configuration.
Keeping the split in the class hierarchy means the user-content service cannot read an auth
secret even by accident: it never declares the field.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

from publicsuffixlist import PublicSuffixList
from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

Environment = Literal["development", "test", "production"]

# Values that show a secret was copied from documentation rather than generated.
_PLACEHOLDER_MARKERS = ("change-me", "changeme", "example", "placeholder", "xxx", "dummy")


def _split_csv(value: object) -> object:
    """Accept comma-separated lists in environment variables."""
    if isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    return value


def _is_placeholder(secret: SecretStr | None) -> bool:
    if secret is None:
        return True
    raw = secret.get_secret_value().strip().lower()
    return not raw or any(marker in raw for marker in _PLACEHOLDER_MARKERS)


class CoreSettings(BaseSettings):
    """Settings shared by every process, including the user-content service."""

    model_config = SettingsConfigDict(
        env_prefix="BENCHMAX_", env_file=".env", extra="ignore", frozen=True
    )

    env: Environment = "development"
    data_dir: Path = Path("var")
    database_url: str = ""

    app_origin: str = "http://localhost:3000"
    usercontent_origin: str = "http://127.0.0.1:3001"

    storage_backend: Literal["local", "s3"] = "local"
    storage_local_root: Path | None = None
    s3_endpoint_url: str = ""
    s3_bucket: str = "benchmax"
    s3_region: str = "auto"
    s3_access_key_id: str = ""
    s3_secret_access_key: SecretStr | None = None
    # Set only by ``benchmax stack``: the production topology on one machine, where plain
    # http on loopback and the local issuer stand in for TLS and Clerk (which need the
    # public internet). Honoured only when both origins are loopback; see STACK_RELAXED.
    stack_local: bool = False

    @field_validator("app_origin", "usercontent_origin")
    @classmethod
    def _strip_trailing_slash(cls, value: str) -> str:
        return value.rstrip("/")

    @property
    def resolved_database_url(self) -> str:
        """The database URL, defaulting to a SQLite file in the data directory."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'benchmax.db').resolve()}"

    @property
    def resolved_storage_root(self) -> Path:
        return self.storage_local_root or (self.data_dir / "objects")

    @property
    def is_production(self) -> bool:
        return self.env == "production"

    def production_problems(self) -> list[str]:
        """Reasons this configuration is unsafe to run as production; empty when safe."""
        problems: list[str] = []
        if self.resolved_database_url.startswith("sqlite"):
            problems.append("BENCHMAX_DATABASE_URL must point at PostgreSQL in production")
        if self.storage_backend == "local":
            problems.append("BENCHMAX_STORAGE_BACKEND must be s3 in production")
        elif _is_placeholder(self.s3_secret_access_key):
            problems.append("BENCHMAX_S3_SECRET_ACCESS_KEY is missing or a placeholder")
        origin_problem = usercontent_origin_problem(self)
        if origin_problem:
            problems.append(origin_problem)
        return problems

    def stack_relaxes(self) -> bool:
        """Whether the local-stack waivers apply: the flag is set and both origins are loopback."""
        return self.stack_local and all(
            _is_loopback(urlsplit(origin).hostname or "")
            for origin in (self.app_origin, self.usercontent_origin)
        )

    def enforced_production_problems(self) -> list[str]:
        """``production_problems`` less the ones the local stack may waive (STACK_RELAXED)."""
        problems = self.production_problems()
        if self.stack_relaxes():
            problems = [p for p in problems if not any(r in p for r in STACK_RELAXED)]
        return problems

    @model_validator(mode="after")
    def _refuse_unsafe_production(self) -> CoreSettings:
        if self.is_production:
            problems = self.enforced_production_problems()
            if problems:
                raise ValueError("unsafe production configuration: " + "; ".join(problems))
        return self


STACK_RELAXED = (
    # Clerk is a hosted service on the public internet; the local issuer signs tokens of
    # the same shape, verified by the same code path. (Plain http on loopback is waived in
    # usercontent_origin_problem: TLS needs a certificate for a public name.)
    "BENCHMAX_AUTH_BACKEND=local",
)
"""Fragments of the production problems ``BENCHMAX_STACK_LOCAL=1`` waives, and why."""


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def usercontent_origin_problem(settings: CoreSettings) -> str | None:
    """Why evidence links cannot be emitted with these settings, or None when they can.

    Cookies are scoped by host name, not port, so sharing a host (or being a subdomain of the
    app's host) would hand the app's cookies to the evidence origin.
    """
    origin = settings.usercontent_origin
    if not origin:
        return "BENCHMAX_USERCONTENT_ORIGIN is not set"
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path or parts.query:
        return "BENCHMAX_USERCONTENT_ORIGIN must be a scheme and host, like https://usercontent.example"
    if settings.is_production and parts.scheme != "https" and not settings.stack_relaxes():
        return "BENCHMAX_USERCONTENT_ORIGIN must use https in production"
    content_host = parts.hostname
    app_host = urlsplit(settings.app_origin).hostname or ""
    if content_host == app_host:
        return "BENCHMAX_USERCONTENT_ORIGIN must be on a different host than BENCHMAX_APP_ORIGIN"
    if content_host.endswith("." + app_host) or app_host.endswith("." + content_host):
        return (
            "BENCHMAX_USERCONTENT_ORIGIN must not be a subdomain of the app's host, or vice versa"
        )
    if settings.is_production and site(content_host) == site(app_host):
        return (
            f"BENCHMAX_USERCONTENT_ORIGIN must be on another registrable domain than the app "
            f"(both are on {site(app_host)}): sibling hosts share cookies set for the domain "
            "and count as the same site to browsers"
        )
    return None


@lru_cache(maxsize=1)
def _public_suffixes() -> PublicSuffixList:
    """The Public Suffix List bundled with the package: parsed once, never downloaded."""
    return PublicSuffixList()


def site(host: str) -> str:
    """The registrable domain ("site") a host belongs to, as browsers decide it.

    ``uc.example.com`` and ``app.example.com`` are one site (``example.com``), as are
    ``a.example.co.uk`` and ``b.example.co.uk``; ``x.github.io`` and ``y.github.io`` are
    not, since ``github.io`` is a public suffix. An IP address, ``localhost`` or any host
    that is itself a public suffix is its own site: the list says nothing about them.
    """
    name = host.strip().rstrip(".").lower().removeprefix("[").removesuffix("]")
    try:
        return ipaddress.ip_address(name).compressed
    except ValueError:
        pass
    try:
        name = name.encode("idna").decode("ascii")
    except UnicodeError:
        return name  # not a valid host name; the two hosts are compared as written
    return _public_suffixes().privatesuffix(name) or name


class Settings(CoreSettings):
    """Everything the web app, workers, scheduler and CLI read."""

    auth_backend: Literal["local", "clerk"] = "local"
    local_issuer_key_path: Path | None = None
    session_ttl_seconds: int = Field(default=7 * 24 * 3600, ge=60)
    clerk_publishable_key: str = ""
    clerk_secret_key: SecretStr | None = None
    clerk_jwt_key: str = ""
    clerk_frontend_api: str = ""
    authorized_parties: Annotated[list[str], NoDecode] = Field(default_factory=list)
    owner_subjects: Annotated[list[str], NoDecode] = Field(default_factory=list)

    queue_backend: Literal["memory", "redis"] = "memory"
    redis_url: str = "redis://127.0.0.1:6379/0"
    queue_name: str = "benchmax:jobs"

    job_max_attempts: int = Field(default=5, ge=1)
    job_lease_seconds: int = Field(default=180, ge=1)
    job_backoff_base_seconds: float = Field(default=2.0, gt=0)
    job_backoff_max_seconds: float = Field(default=600.0, gt=0)
    sweep_interval_seconds: int = Field(default=5, ge=1)
    # Recovery that does not wait for a lease: every process that runs jobs writes a heartbeat
    # this often, and one silent for worker_dead_after_seconds is dead, so the sweeper releases
    # its running jobs at once. A due job whose message may be lost is re-sent after
    # job_resend_seconds untouched; a Redis message left unacknowledged (its claim failed, or
    # its worker died before claiming) is redelivered after queue_redeliver_seconds.
    worker_heartbeat_seconds: float = Field(default=3.0, gt=0)
    worker_dead_after_seconds: float = Field(default=10.0, gt=0)
    job_resend_seconds: int = Field(default=20, ge=1)
    queue_redeliver_seconds: int = Field(default=10, ge=1)
    # On SIGTERM or SIGINT, how long in-flight jobs get to finish before their leases are
    # released for the sweeper to re-send, and how long `benchmax dev` and `benchmax stack`
    # wait for their children before SIGKILL (a few seconds more, so a worker can release).
    # Keep it (plus those seconds) under the process manager's own stop timeout.
    shutdown_grace_seconds: float = Field(default=20.0, gt=0, le=600)
    metrics_interval_seconds: int = Field(default=60, ge=5)
    # A scan runs in a child process that is killed past this deadline (and retried), so
    # it must end well inside the job's lease; see _scan_fits_lease.
    scan_timeout_seconds: int = Field(default=60, ge=1)
    scan_memory_limit_mib: int = Field(default=2048, ge=256)
    # Fairness: how many scans of one account may run at once across all workers; the rest
    # of its scans wait (in order) while other accounts' scans go ahead.
    scan_concurrency_per_account: int = Field(default=1, ge=1)

    # Per-account caps on what sits unpublished, and how long an untouched draft is kept.
    max_open_drafts: int = Field(default=10, ge=1)
    max_quarantine_bytes_per_account: int = Field(default=2 * 1024 * 1024 * 1024, ge=1)
    draft_ttl_hours: int = Field(default=720, ge=1)
    draft_expiry_interval_seconds: int = Field(default=3600, ge=10)
    # CPU seconds one file's scan may use (unset: a third of the deadline). Unlike the
    # wall-clock deadline above (which a busy machine can hit, so it is retried), CPU time is
    # what the file itself costs: a scan past it is blocked as too expensive to check. It
    # must be below the deadline, or the deadline would always come first.
    scan_cpu_seconds: int | None = Field(default=None, ge=1)
    # Animations are bounded before any frame is decoded: frames, and pixels over all frames.
    scan_max_frames: int = Field(default=1000, ge=1)
    scan_max_total_frame_pixels: int = Field(default=40_000_000, ge=1)

    feed_page_size: int = Field(default=20, ge=1, le=100)
    # How often a showcase snapshot is published (0 turns scheduled snapshots off), and how
    # often newly published prompts are added to the "similar prompts" index.
    leaderboard_snapshot_interval_seconds: int = Field(default=86400, ge=0)
    # The Ed25519 seed (64 hex digits) that signs snapshot seals; ``benchmax leaderboard
    # keygen`` prints one. Production refuses to publish without it; elsewhere an unset key
    # is generated into <data dir>/keys/. After a rotation, ``leaderboard_key_rotation`` holds
    # the old key's signed hand-over (``benchmax leaderboard rotate-key``).
    leaderboard_signing_key: SecretStr | None = None
    leaderboard_key_rotation: str = ""
    prompt_index_interval_seconds: int = Field(default=300, ge=10)
    # Per-user caps on reports, disputes and appeals, counted over the last hour.
    report_rate_limit_per_hour: int = Field(default=10, ge=1)
    dispute_rate_limit_per_hour: int = Field(default=10, ge=1)
    appeal_rate_limit_per_hour: int = Field(default=3, ge=1)

    api_submission_rate_limit: int = Field(default=30, ge=1)
    api_submission_rate_window_seconds: int = Field(default=600, ge=1)
    # Refused submissions (a bad field, a wrong format) do not use up the limit above; they
    # count against this one, over the same window, so a client looping on errors slows down.
    api_refusal_rate_limit: int = Field(default=300, ge=1)
    # Public reads' cache validators: a process reuses the data version it read for this long,
    # and sends no validator until the newest change is this many seconds old (a transaction
    # that wrote earlier may not have committed yet).
    api_cache_version_ttl_seconds: float = Field(default=1.0, ge=0, le=60)
    api_cache_settle_seconds: float = Field(default=10.0, ge=0, le=600)
    # Largest upload request (API submission or the wizard's /_upload): a Test's 1 GiB of
    # files plus room for its text fields and multipart framing.
    upload_max_request_bytes: int = Field(default=1024 * 1024 * 1024 + 16 * 1024 * 1024, ge=1)
    # An upload body may wait this long for its next bytes, and must average
    # upload_min_bytes_per_second after that much grace; a slower one is cut off (408).
    upload_body_timeout_seconds: float = Field(default=30.0, gt=0, le=600)
    upload_min_bytes_per_second: int = Field(default=32 * 1024, ge=1)
    # Evidence files one account may upload to its drafts per window (checked before the body).
    upload_rate_limit: int = Field(default=200, ge=1)
    upload_rate_window_seconds: int = Field(default=3600, ge=1)

    # Open data: how often the scheduler publishes a fresh export, and the licence line of
    # its manifest (contributors keep their rights; say what re-use the terms allow).
    export_interval_seconds: int = Field(default=24 * 3600, ge=60)
    export_licence: str = Field(
        default=(
            "Each Test is its contributor's work, shared on BenchMax under the site's terms; "
            "declared setups are not independently verified. Cite BenchMax and link each "
            "Test's url when you reuse it."
        ),
        min_length=1,
        max_length=2000,
    )
    # Where to report a vulnerability: shown on /security and as the Contact of
    # /.well-known/security.txt. A mailto: or https: URI (RFC 9116 wants a URI).
    security_contact: str = Field(default="mailto:security@example.org", max_length=300)
    # The AI judge: off while judge_base_url is empty. See benchmax/services/judge.
    judge_base_url: str = ""
    judge_api_key: SecretStr | None = None
    judge_timeout_seconds: float = Field(default=30.0, gt=0)
    judge_connect_timeout_seconds: float = Field(default=5.0, gt=0)
    # The client's own retries spend budget unseen, so they are off unless asked for.
    judge_max_retries: int = Field(default=0, ge=0, le=2)
    # Threads per process that run judge reviews, apart from the scan and publish jobs.
    judge_concurrency: int = Field(default=2, ge=1, le=16)
    judge_daily_sample_budget: int = Field(default=100, ge=0)
    judge_contributor_daily_samples: int = Field(default=20, ge=0)
    judge_calibration_key: str = "private/judge/calibration.jsonl"
    judge_calibration_sha256: str = ""
    judge_calibration_min_items: int = Field(default=30, ge=1)
    judge_calibration_max_mae: float = Field(default=10.0, ge=0)
    judge_calibration_min_spearman: float = Field(default=0.70, ge=-1, le=1)
    judge_calibration_max_spread: float = Field(default=5.0, ge=0)
    judge_calibration_twin_margin: float = Field(default=5.0, ge=0)

    # The automated preview of source ZIPs (benchmax/services/preview): "local" runs it in
    # bubblewrap on the worker, "e2b" in an E2B sandbox, "off" not at all.
    preview_sandbox: Literal["off", "local", "e2b"] = "local"
    # The whole evaluation, sandbox start to last artifact; capped below the job lease.
    preview_timeout_seconds: float = Field(default=120.0, gt=10)
    preview_daily_budget: int = Field(default=500, ge=0)
    preview_retry_daily_limit: int = Field(default=10, ge=0)
    # Fair previews: one account's previews running or waiting in the queue at once (the
    # rest wait their turn in the database), and its share of the daily budget.
    preview_queue_per_account: int = Field(default=1, ge=1)
    # Previews one worker process runs at once. Keep it above the per-account figure: then an
    # account at its cap never holds every slot, and another account's preview starts at once
    # instead of waiting out the flooder's running one.
    preview_slots: int = Field(default=2, ge=1)
    preview_account_daily_budget: int = Field(default=50, ge=0)
    # What one sandboxed run may use; past any of them the run ends as the site's own result.
    # Memory is the whole process tree's (Chromium's renderers included), the disk figure is
    # each writable path's (its /tmp, its output), the file figure any one file's.
    preview_memory_mib: int = Field(default=1536, ge=64)
    preview_cpu_seconds: int = Field(default=120, ge=1)
    preview_max_tasks: int = Field(default=768, ge=16)
    preview_disk_mib: int = Field(default=256, ge=8)
    # At least 40: the evaluator's full-size screenshot (up to 1440x8000 pixels of noise,
    # ~35 MB as PNG) is written before it is scaled down to its cap.
    preview_file_mib: int = Field(default=64, ge=40)
    # cgroup v2: a cgroup delegated to the worker (memory and pids in its subtree control)
    # under which each run gets its own; unset, the worker's own cgroup if it qualifies.
    preview_cgroup_parent: str = ""
    e2b_api_key: SecretStr | None = None
    e2b_template_id: str = ""
    # Empty: the SDK's own endpoints. Tests point these at a local fake of both planes.
    e2b_api_url: str = ""
    e2b_sandbox_url: str = ""

    _split_lists = field_validator("authorized_parties", "owner_subjects", mode="before")(
        _split_csv
    )

    @field_validator("security_contact")
    @classmethod
    def _contact_is_a_uri(cls, value: str) -> str:
        """One line, ``mailto:`` or ``https:``: it is written into a text file people and
        scanners parse line by line, and linked from /security."""
        value = value.strip()
        scheme, _, rest = value.partition(":")
        if (
            scheme.lower() not in ("mailto", "https")
            or not rest
            or any(ch.isspace() or ch in "<>\"'" for ch in value)
        ):
            raise ValueError(
                "BENCHMAX_SECURITY_CONTACT must be a mailto: or https: URI on one line, "
                "e.g. mailto:security@example.org"
            )
        return value

    @model_validator(mode="after")
    def _scan_fits_lease(self) -> Settings:
        if self.scan_timeout_seconds >= self.job_lease_seconds:
            raise ValueError(
                "BENCHMAX_SCAN_TIMEOUT_SECONDS must be shorter than BENCHMAX_JOB_LEASE_SECONDS, "
                "or a slow scan would be started twice"
            )
        if self.worker_heartbeat_seconds * 2 > self.worker_dead_after_seconds:
            raise ValueError(
                "BENCHMAX_WORKER_DEAD_AFTER_SECONDS must be at least twice "
                "BENCHMAX_WORKER_HEARTBEAT_SECONDS, or one late heartbeat would release a live "
                "worker's jobs"
            )
        if self.resolved_scan_cpu_seconds >= self.scan_timeout_seconds:
            raise ValueError(
                "BENCHMAX_SCAN_CPU_SECONDS must be below BENCHMAX_SCAN_TIMEOUT_SECONDS, or an "
                "expensive file would time out (and be retried) instead of being blocked"
            )
        return self

    @model_validator(mode="after")
    def _judge_call_fits_lease(self) -> Settings:
        if self.judge_enabled and self.judge_timeout_seconds >= self.job_lease_seconds:
            raise ValueError(
                "BENCHMAX_JUDGE_TIMEOUT_SECONDS must be shorter than BENCHMAX_JOB_LEASE_SECONDS, "
                "or a slow judge call would be sent twice"
            )
        return self

    @property
    def judge_enabled(self) -> bool:
        """Whether an AI judge endpoint is configured; with none, nothing judge-related runs."""
        return bool(self.judge_base_url.strip())

    @property
    def resolved_scan_cpu_seconds(self) -> int:
        if self.scan_cpu_seconds is not None:
            return self.scan_cpu_seconds
        return max(1, self.scan_timeout_seconds // 3)

    @property
    def resolved_key_path(self) -> Path:
        return self.local_issuer_key_path or (self.data_dir / "keys" / "local-issuer.pem")

    @property
    def resolved_authorized_parties(self) -> list[str]:
        return self.authorized_parties or [self.app_origin]

    def production_problems(self) -> list[str]:
        problems = super().production_problems()
        if self.auth_backend == "local":
            problems.append("BENCHMAX_AUTH_BACKEND=local is for development only; use clerk")
        else:
            if not self.clerk_jwt_key.strip().startswith("-----BEGIN PUBLIC KEY-----"):
                problems.append("BENCHMAX_CLERK_JWT_KEY must be Clerk's PEM public key")
            if _is_placeholder(self.clerk_secret_key):
                problems.append("BENCHMAX_CLERK_SECRET_KEY is missing or a placeholder")
            if not self.clerk_publishable_key.startswith("pk_"):
                problems.append("BENCHMAX_CLERK_PUBLISHABLE_KEY must be Clerk's pk_ key")
        if self.queue_backend == "memory":
            problems.append("BENCHMAX_QUEUE_BACKEND must be redis in production")
        if self.judge_enabled:
            if urlsplit(self.judge_base_url).scheme != "https":
                problems.append("BENCHMAX_JUDGE_BASE_URL must use https in production")
            if _is_placeholder(self.judge_api_key):
                problems.append("BENCHMAX_JUDGE_API_KEY is missing or a placeholder")
        return problems


def get_settings() -> Settings:
    """The settings in this process's environment, read now.

    Only a process's entry point calls this, once, and hands the result on (usually inside
    the ``AppContext`` it builds); ``tests/unit/test_one_context.py`` lists the entry points.
    """
    return Settings()
