"""Where the server's address and the API token come from, never the command line by default.

A token typed as a flag lands in shell history and in every process listing, so the token is
read from ``BENCHMAX_TOKEN`` or from a config file that only its owner can read:

    $BENCHMAX_CONFIG, else $XDG_CONFIG_HOME/benchmax/client.ini, else ~/.config/benchmax/client.ini

    [benchmax]
    url = https://benchmax.example
    token = bmx_...

A config file holding a token that group or others can read is refused (as ssh does with a
private key) rather than used: the token is already exposed, and saying so is the fix.
"""

from __future__ import annotations

import configparser
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from benchmax_client.errors import ConfigError

DEFAULT_URL = "http://localhost:3000"
SECTION = "benchmax"
TOKEN_ENV = "BENCHMAX_TOKEN"  # noqa: S105 (the variable's name)
URL_ENV = "BENCHMAX_URL"
CONFIG_ENV = "BENCHMAX_CONFIG"


def config_path() -> Path:
    explicit = os.environ.get(CONFIG_ENV)
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "benchmax" / "client.ini"


@dataclass(frozen=True)
class Settings:
    url: str
    token: str | None

    def __repr__(self) -> str:  # a token never reaches a traceback or a debug print
        return f"Settings(url={self.url!r}, token={'set' if self.token else None})"


def _read_file(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(
            f"Cannot read the config file {path}: {error.__class__.__name__}."
        ) from None
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text, source=str(path))
    except configparser.Error:
        raise ConfigError(
            f"The config file {path} is not in the expected format: a [{SECTION}] section "
            "with url = ... and token = ... lines."
        ) from None
    values = dict(parser[SECTION]) if parser.has_section(SECTION) else {}
    if values.get("token") and os.name == "posix":
        mode = path.stat().st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise ConfigError(
                f"The config file {path} holds a token and others can read it "
                f"(mode {stat.S_IMODE(mode):o}). Run: chmod 600 {path} — and, since it was "
                "exposed, revoke the token on /me and create a new one."
            )
    return values


def load_settings(url: str | None = None) -> Settings:
    """``url`` (a flag) wins over ``BENCHMAX_URL``, then the file, then the local default;
    the token is ``BENCHMAX_TOKEN``, else the file's."""
    values = _read_file(config_path())
    token = os.environ.get(TOKEN_ENV) or values.get("token") or None
    chosen = url or os.environ.get(URL_ENV) or values.get("url") or DEFAULT_URL
    return Settings(url=chosen.rstrip("/"), token=token.strip() if token else None)


def save_settings(url: str, token: str) -> Path:
    """Write the config file readable by its owner only (created so, never widened later)."""
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    parser = configparser.ConfigParser(interpolation=None)
    parser[SECTION] = {"url": url.rstrip("/"), "token": token}
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        parser.write(handle)
    os.chmod(path, 0o600)
    return path
