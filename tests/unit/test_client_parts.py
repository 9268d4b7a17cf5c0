"""The contributor client's parts that need no server: the content-derived Idempotency-Key,
``Retry-After`` in both its forms, path segments, the config file's permission check, the
progress line, and that no ``repr`` shows content or a token."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest
from benchmax_client import Client, ConfigError, Submission
from benchmax_client.client import _retry_after, _segment, parse_test_id
from benchmax_client.config import load_settings, save_settings
from benchmax_client.progress import UploadProgress
from benchmax_client.text_input import MAX_CHARS, read_text

SECRETISH = "bmx_" + "a1" * 20


def _submission(files: tuple[Path, ...] = (), prompt: str = "P", notes: str = "") -> Submission:
    return Submission(prompt, "M", "H", "high", notes=notes or None, files=files)


def test_the_key_is_the_same_for_the_same_content_and_differs_for_any_change(
    tmp_path: Path,
) -> None:
    shot = tmp_path / "shot.png"
    shot.write_bytes(b"one")
    key = _submission((shot,)).idempotency_key()
    assert key == _submission((shot,)).idempotency_key()
    assert key.startswith("benchmax-client-v1-")
    assert len(key) <= 200  # the server's limit
    assert _submission((shot,), notes="n").idempotency_key() != key
    assert _submission((shot,), prompt="P ").idempotency_key() != key
    renamed = tmp_path / "other.png"
    renamed.write_bytes(b"one")
    assert _submission((renamed,)).idempotency_key() != key
    shot.write_bytes(b"two")
    assert _submission((shot,)).idempotency_key() != key


def test_unset_fields_are_not_sent_and_attempts_is_text() -> None:
    fields = Submission("P", "M", "H", "low", attempts=3).fields()
    assert fields == {
        "prompt": "P",
        "model": "M",
        "harness": "H",
        "reasoning": "low",
        "attempts": "3",
    }


def test_retry_after_in_seconds_or_as_an_http_date() -> None:
    assert _retry_after({"retry-after": "17"}) == 17
    later = datetime.now(UTC) + timedelta(seconds=90)
    seconds = _retry_after({"retry-after": format_datetime(later, usegmt=True)})
    assert seconds is not None
    assert 85 <= seconds <= 90
    past = datetime.now(UTC) - timedelta(days=1)
    assert _retry_after({"retry-after": format_datetime(past, usegmt=True)}) == 0
    assert _retry_after({"retry-after": "soon"}) is None
    assert _retry_after({}) is None


@pytest.mark.parametrize("hostile", ["..", "../../healthz", "a/b", "a?b=c", "a#b", "%2e%2e"])
def test_an_id_stays_one_path_segment(hostile: str) -> None:
    segment = _segment(hostile)
    assert "/" not in segment
    assert "?" not in segment
    assert "#" not in segment
    assert ".." not in segment


def test_a_config_file_others_can_read_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "benchmax" / "client.ini"
    monkeypatch.setenv("BENCHMAX_CONFIG", str(path))
    monkeypatch.delenv("BENCHMAX_TOKEN", raising=False)
    monkeypatch.delenv("BENCHMAX_URL", raising=False)
    assert save_settings("https://bench.example/", SECRETISH) == path
    assert path.stat().st_mode & 0o777 == 0o600
    settings = load_settings()
    assert (settings.url, settings.token) == ("https://bench.example", SECRETISH)
    path.chmod(0o640)
    with pytest.raises(ConfigError, match="chmod 600") as refused:
        load_settings()
    assert SECRETISH not in str(refused.value)
    path.write_text("[benchmax\ntoken = x")
    with pytest.raises(ConfigError, match="expected format"):
        load_settings()


def test_the_environment_wins_over_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BENCHMAX_CONFIG", str(tmp_path / "client.ini"))
    save_settings("https://file.example", "bmx_from_file")
    monkeypatch.setenv("BENCHMAX_TOKEN", "bmx_from_env")
    monkeypatch.setenv("BENCHMAX_URL", "https://env.example")
    settings = load_settings()
    assert (settings.url, settings.token) == ("https://env.example", "bmx_from_env")
    assert load_settings("https://flag.example").url == "https://flag.example"


def test_no_repr_shows_the_token_or_the_content() -> None:
    shown = " ".join(
        [
            repr(Client("https://bench.example", SECRETISH)),
            repr(_submission(prompt="the private prompt")),
            repr(load_settings("https://bench.example")),
        ]
    )
    assert SECRETISH not in shown
    assert "the private prompt" not in shown


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_drawn_on_a_terminal_only() -> None:
    terminal = _Terminal()
    progress = UploadProgress(terminal)
    progress(0, 2_000_000)
    progress(2_000_000, 2_000_000)
    progress.finish()
    assert terminal.getvalue().endswith("Uploading 2.0 MB / 2.0 MB (100%)\x1b[K\n")
    pipe = io.StringIO()
    quiet = UploadProgress(pipe)
    quiet(1, 2)
    quiet.finish()
    assert pipe.getvalue() == ""


def test_text_input_is_bounded_and_only_from_regular_files(tmp_path: Path) -> None:
    endless = io.StringIO("x" * (MAX_CHARS + 10))
    with pytest.raises(ConfigError, match="Attach a long result as a file"):
        read_text("-", "prompt", endless)
    assert endless.tell() == MAX_CHARS + 1  # read no further than needed to know
    for path, reason in [
        ("/dev/zero", "not a regular file"),
        (str(tmp_path), "is a folder"),
        (str(tmp_path / "none.md"), "does not exist"),
    ]:
        with pytest.raises(ConfigError, match=reason):
            read_text(path, "output", io.StringIO())
    binary = tmp_path / "shot.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    with pytest.raises(ConfigError, match="not UTF-8"):
        read_text(str(binary), "output", io.StringIO())
    text = tmp_path / "out.md"
    text.write_text("Ça marche.", encoding="utf-8")
    assert read_text(str(text), "output", io.StringIO()) == "Ça marche."


@pytest.mark.parametrize(
    "pasted",
    [
        "abc123",
        " abc123\n",
        "https://bench.example/tests/abc123",
        "http://localhost:3000/tests/abc123?tab=reviews#top",
        "/tests/abc123/",
    ],
)
def test_a_test_is_named_by_its_id_or_a_link_to_its_page(pasted: str) -> None:
    assert parse_test_id(pasted) == "abc123"
