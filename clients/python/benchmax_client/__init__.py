"""BenchMax's contributor client: ``Client(url, token)``, the ``benchmax-client`` command and,
with the ``mcp`` extra, an MCP server for agents."""

from benchmax_client.client import Accepted, Client, Status
from benchmax_client.errors import (
    ApiError,
    AuthError,
    BenchmaxError,
    ConfigError,
    MissingToken,
    RateLimited,
    Unreachable,
)
from benchmax_client.submission import Submission

__all__ = [
    "Accepted",
    "ApiError",
    "AuthError",
    "BenchmaxError",
    "Client",
    "ConfigError",
    "MissingToken",
    "RateLimited",
    "Status",
    "Submission",
    "Unreachable",
]
