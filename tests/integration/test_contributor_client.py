"""The contributor client (``clients/python``) against the real API over HTTP, with the real
pipeline scanning and publishing what it sends: the Python API, then the CLI's exit codes,
``--json`` and token sources, then the clumsy and hostile cases."""

from __future__ import annotations

import io
import json
import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from benchmax_client import ApiError, Client, RateLimited, Submission
from benchmax_client.cli import ExitCode, main
from sqlalchemy import Engine, func
from sqlmodel import Session, select

from benchmax.context import AppContext
from benchmax.models import EvidenceFile, Test
from benchmax.services import tokens
from benchmax.settings import Settings
from tests.support.factories import make_user
from tests.support.live_api import serve_api
from tests.unit.safety.corpus import fake_secrets, png_bytes, write

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)
SETUP = {"model": "Claude Sonnet 4.5", "harness": "Claude Code", "reasoning": "high"}


@dataclass
class Site:
    url: str
    engine: Engine

    def token(self, handle: str = "ada") -> str:
        with Session(self.engine, expire_on_commit=False) as session:
            user = make_user(session, handle=handle)
            _row, plaintext = tokens.create_token(session, user, "harness")
            session.commit()
        return plaintext

    def count(self, model: type) -> int:
        with Session(self.engine) as session:
            return session.exec(select(func.count()).select_from(model)).one()


@pytest.fixture(autouse=True)
def no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The client reads this test's config file, never the machine's."""
    monkeypatch.setenv("BENCHMAX_CONFIG", str(tmp_path / "client.ini"))
    for name in ("BENCHMAX_TOKEN", "BENCHMAX_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def start(settings: Settings, engine: Engine) -> Iterator[Callable[..., Site]]:
    """Serve the API (and its job runtime) with these settings changed."""
    with ExitStack() as stack:

        def serve(jobs: bool = True, **overrides: Any) -> Site:
            ctx = AppContext.from_settings(settings.model_copy(update=overrides), engine=engine)
            return Site(stack.enter_context(serve_api(ctx, jobs=jobs)), engine)

        yield serve


@pytest.fixture
def site(start: Callable[..., Site]) -> Site:
    return start()


def _submission(prompt: str = "Build a todo app.", **extra: Any) -> Submission:
    return Submission(
        prompt=prompt,
        output="It works.",
        model=SETUP["model"],
        harness=SETUP["harness"],
        reasoning=SETUP["reasoning"],
        **extra,
    )


def _cli(args: list[str], stdin: str = "") -> tuple[int, str, str]:  # exit code, stdout, stderr
    out, err = io.StringIO(), io.StringIO()
    code = main(args, stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


# The Python API


@BOTH
def test_submit_with_files_follows_the_real_pipeline_until_public(
    site: Site, tmp_path: Path
) -> None:
    shot = write(tmp_path, "shot.png", png_bytes())
    log = write(tmp_path, "run.log", b"step 1 ok\nstep 2 ok\n")
    progress: list[tuple[int, int]] = []
    with Client(site.url, site.token()) as client:
        accepted = client.submit(
            _submission(files=(shot, log), attempts=2),
            progress=lambda sent, total: progress.append((sent, total)),
        )
        assert accepted.status == "processing"
        assert accepted.status_url.endswith(f"/api/v1/tests/{accepted.id}/status")
        status = client.follow(accepted.id, timeout=60)
        assert status.state == "public", status
        assert status.public_url == f"{site.url}/tests/{accepted.id}"
        public = client.test(accepted.id)
    assert public["prompt"] == "Build a todo app."
    assert public["attempts"] == 2
    assert sorted(item["safe_name"] for item in public["evidence"]) == ["run.log", "shot.png"]
    assert site.count(EvidenceFile) == 2
    total = shot.stat().st_size + log.stat().st_size
    assert progress[-1] == (total, total)
    assert [sent for sent, _ in progress] == sorted(sent for sent, _ in progress)


def test_a_rerun_returns_the_same_test_and_a_change_makes_a_new_one(
    site: Site, tmp_path: Path
) -> None:
    shot = write(tmp_path, "shot.png", png_bytes())
    with Client(site.url, site.token()) as client:
        first = client.submit(_submission(files=(shot,)))
        again = client.submit(_submission(files=(shot,)))
        shot.write_bytes(png_bytes((32, 32)))  # same name, other bytes: another Test
        changed = client.submit(_submission(files=(shot,)))
    assert again.id == first.id
    assert changed.id != first.id
    assert site.count(Test) == 2


def test_a_429_is_waited_out_for_as_long_as_retry_after_says(
    start: Callable[..., Site], tmp_path: Path
) -> None:
    site = start(api_submission_rate_limit=1, api_submission_rate_window_seconds=2)
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        time.sleep(seconds)

    with Client(site.url, site.token(), sleep=sleep) as client:
        client.submit(_submission(prompt="first"))
        began = time.monotonic()
        second = client.submit(_submission(prompt="second"))
    assert slept, "the 429 was not waited out"
    assert time.monotonic() - began >= slept[0] >= 1
    assert second.id
    assert site.count(Test) == 2


def test_a_retry_after_longer_than_max_wait_is_reported_not_slept(
    start: Callable[..., Site], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = start(api_submission_rate_limit=1, api_submission_rate_window_seconds=600)
    token = site.token()
    with Client(site.url, token, max_wait=5) as client:
        client.submit(_submission(prompt="first"))
        began = time.monotonic()
        with pytest.raises(RateLimited) as refused:
            client.submit(_submission(prompt="second"))
    assert time.monotonic() - began < 5
    assert refused.value.status == 429
    assert refused.value.retry_after is not None
    assert refused.value.retry_after > 5
    monkeypatch.setenv("BENCHMAX_TOKEN", token)
    args = ["--url", site.url, "--max-wait", "1", "submit", "--json", *_setup_args(tmp_path)]
    code, out, _err = _cli(args, stdin="third")
    assert code == ExitCode.RATE_LIMITED
    error = json.loads(out)["error"]
    assert error["message"] == refused.value.message
    assert error["retry_after"] > 5
    code, _out, err = _cli([arg for arg in args if arg != "--json"], stdin="fourth")
    assert code == ExitCode.RATE_LIMITED
    assert "try again in" in err
    assert site.count(Test) == 1


def test_a_secret_is_refused_in_the_servers_own_words(site: Site, tmp_path: Path) -> None:
    secret = fake_secrets()["openai_api_key"]
    token = site.token()
    prompt = f"Use this key:\n{secret}"
    raw = httpx.post(
        f"{site.url}/api/v1/tests",
        headers={"Authorization": f"Bearer {token}"},
        files=[
            (name, (None, value.encode())) for name, value in {**SETUP, "prompt": prompt}.items()
        ],
    )
    with Client(site.url, token) as client, pytest.raises(ApiError) as refused:
        client.submit(_submission(prompt=prompt))
    assert raw.status_code == refused.value.status == 400
    assert refused.value.message == raw.json()["error"]["message"]
    assert refused.value.code == "secret_detected"
    assert refused.value.field == "prompt"
    assert secret not in refused.value.message
    assert site.count(Test) == 0


def test_nothing_sent_is_logged(
    site: Site, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    token = site.token()
    prompt = "A prompt that must stay out of every log line"
    caplog.set_level(logging.DEBUG)
    with Client(site.url, token) as client:
        status = client.follow(client.submit(_submission(prompt=prompt)), timeout=60)
    assert status.is_public
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "POST" in logged, "the HTTP client's log was not captured"
    for sent in (token, prompt, "It works."):
        assert sent not in logged


# The CLI


def test_cli_submit_with_json_prints_the_public_test(
    site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BENCHMAX_TOKEN", site.token())
    output = write(tmp_path, "output.md", b"# Done\nIt works.")
    shot = write(tmp_path, "shot.png", png_bytes())
    args = ["--url", site.url, "--json", "submit", "--output-file", str(output)]
    args += ["--file", str(shot), "--title", "Todo", "--notes", "first try"]
    args += [f"--{name}={value}" for name, value in SETUP.items()]
    code, out, err = _cli(args, stdin="Build a todo app from stdin.")
    assert code == ExitCode.OK, err
    body = json.loads(out)
    assert body["state"] == "public"
    assert body["public_url"] == f"{site.url}/tests/{body['id']}"
    assert err == "", "--json writes nothing but the result"
    rerun_code, rerun_out, _ = _cli(args, stdin="Build a todo app from stdin.")
    assert rerun_code == ExitCode.OK
    assert json.loads(rerun_out)["id"] == body["id"]
    assert site.count(Test) == 1


def test_cli_same_prompt_as_joins_the_first_tests_group(
    site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BENCHMAX_TOKEN", site.token())
    prompt = write(tmp_path, "prompt.txt", b"Write a haiku about queues.")
    base = ["--url", site.url, "--json", "submit", "--harness", "API direct"]
    base += ["--reasoning", "none", "--output-file", str(prompt)]
    _code, first, _err = _cli([*base, "--model", "GPT-5", "--prompt-file", str(prompt)])
    first_id = json.loads(first)["id"]
    code, second, err = _cli([*base, "--model", "Gemini 2.5", "--same-prompt-as", first_id])
    assert code == ExitCode.OK, err
    code, group, _err = _cli(["--url", site.url, "--json", "group", "--test", first_id])
    assert code == ExitCode.OK
    members = {member["test"]["id"] for member in json.loads(group)["members"]}
    assert members == {first_id, json.loads(second)["id"]}


def test_cli_needs_attention_prints_the_reason_and_what_to_fix(
    site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BENCHMAX_TOKEN", site.token())
    leaked = write(
        tmp_path, "env.txt", f"OPENAI_API_KEY={fake_secrets()['openai_api_key']}".encode()
    )
    args = ["--url", site.url, "submit", "--prompt-file", "-", "--file", str(leaked)]
    args += [f"--{name}={value}" for name, value in SETUP.items()]
    code, out, err = _cli(args, stdin="Summarise my env file.")
    assert code == ExitCode.NEEDS_ATTENTION, (out, err)
    assert out.startswith("Needs attention: ")
    assert "What to fix:" in out
    assert "  - env.txt: " in out
    assert fake_secrets()["openai_api_key"] not in out + err


def test_cli_search_show_and_status(
    site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = site.token()
    with Client(site.url, token) as client:
        test_id = client.submit(_submission(prompt="Draw a pelican on a bicycle")).id
        client.follow(test_id, timeout=60)
    code, out, _err = _cli(["--url", site.url, "search", "pelican"])
    assert code == ExitCode.OK
    assert out.startswith(test_id)
    code, out, _err = _cli(["--url", site.url, "--json", "search", "--model", "no such model"])
    assert (code, json.loads(out)["items"]) == (ExitCode.OK, [])
    code, out, _err = _cli(["--url", site.url, "show", test_id])
    assert code == ExitCode.OK
    assert "Draw a pelican on a bicycle" in out
    monkeypatch.setenv("BENCHMAX_TOKEN", token)
    code, out, _err = _cli(["--url", site.url, "status", test_id, "--json"])
    assert (code, json.loads(out)["state"]) == (ExitCode.OK, "public")
    code, out, _err = _cli(["--url", site.url, "--json", "show", "../../healthz"])
    assert code == ExitCode.REFUSED
    assert json.loads(out)["error"]["code"] == "not_found"


def test_cli_still_processing_at_the_timeout_is_pending_and_status_wait_goes_on(
    start: Callable[..., Site], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = start(jobs=False)  # nothing scans: the Test stays processing
    monkeypatch.setenv("BENCHMAX_TOKEN", site.token())
    args = ["--url", site.url, "--json", "submit", "--timeout", "0.5", *_setup_args(tmp_path)]
    code, out, _err = _cli(args, stdin="Stuck in processing.")
    assert code == ExitCode.PENDING
    body = json.loads(out)
    assert body["state"] == "processing"
    code, out, _err = _cli(["--url", site.url, "status", body["id"], "--wait", "--timeout", "0.5"])
    assert code == ExitCode.PENDING
    assert out.startswith("Processing: ")


def test_cli_token_from_a_private_config_file(site: Site, tmp_path: Path) -> None:
    config = Path(os.environ["BENCHMAX_CONFIG"])
    config.write_text(f"[benchmax]\nurl = {site.url}\ntoken = {site.token()}\n")
    config.chmod(0o600)
    code, out, err = _cli(
        ["--json", "submit", "--no-wait", *_setup_args(tmp_path)], stdin="From config."
    )
    assert code == ExitCode.OK, out
    assert json.loads(out)["state"] == "processing"
    config.chmod(0o644)
    code, out, err = _cli(
        ["submit", "--no-wait", *_setup_args(tmp_path)], stdin="From config again."
    )
    assert code == ExitCode.USAGE
    assert "chmod 600" in err
    assert site.count(Test) == 1


def test_cli_login_stores_a_token_only_its_owner_can_read(site: Site) -> None:
    token = site.token()
    code, _out, err = _cli(["--url", site.url, "login"], stdin=token + "\n")
    assert code == ExitCode.OK, err
    config = Path(os.environ["BENCHMAX_CONFIG"])
    assert config.stat().st_mode & 0o777 == 0o600
    code, out, _err = _cli(["--json", "config"])
    assert json.loads(out) == {"config_file": str(config), "url": site.url, "token": "config file"}
    assert token not in out


def _setup_args(tmp_path: Path | None = None) -> list[str]:
    """The required fields as flags; with ``tmp_path``, an output file too."""
    args = [f"--{name}={value}" for name, value in SETUP.items()]
    if tmp_path is not None:
        args += ["--output-file", str(write(tmp_path, "output.txt", b"It works."))]
    return args


# Clumsy and hostile


def test_missing_token_sends_nothing(site: Site) -> None:
    code, _out, err = _cli(["--url", site.url, "submit", *_setup_args()], stdin="No token.")
    assert code == ExitCode.AUTH
    assert "BENCHMAX_TOKEN" in err
    assert site.count(Test) == 0


def test_a_wrong_token_is_an_auth_failure(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCHMAX_TOKEN", "bmx_" + "0" * 40)
    code, out, _err = _cli(["--url", site.url, "--json", "submit", *_setup_args()], stdin="x")
    assert code == ExitCode.AUTH
    assert json.loads(out)["error"]["status"] == 401


@pytest.mark.parametrize("which", ["missing", "folder", "device"])
def test_an_unreadable_file_is_named_and_nothing_is_sent(
    site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, which: str
) -> None:
    monkeypatch.setenv("BENCHMAX_TOKEN", site.token())
    path = {"missing": tmp_path / "nowhere.png", "folder": tmp_path, "device": Path("/dev/zero")}[
        which
    ]
    args = ["--url", site.url, "submit", "--file", str(path), *_setup_args()]
    code, _out, err = _cli(args, stdin="Prompt.")
    assert code == ExitCode.USAGE
    assert str(path) in err
    code, _out, err = _cli(
        ["--url", site.url, "submit", "--output-file", str(path), *_setup_args()], stdin="P."
    )
    assert code == ExitCode.USAGE
    assert str(path) in err
    assert site.count(Test) == 0


def test_a_file_over_the_servers_cap_is_refused_in_its_words(
    start: Callable[..., Site], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = start(upload_max_request_bytes=256 * 1024)
    monkeypatch.setenv("BENCHMAX_TOKEN", site.token())
    huge = tmp_path / "huge.log"
    huge.write_bytes(b"x" * (8 * 1024 * 1024))
    args = ["--url", site.url, "--json", "submit", "--file", str(huge), *_setup_args()]
    code, out, _err = _cli(args, stdin="Prompt.")
    assert code == ExitCode.REFUSED
    error = json.loads(out)["error"]
    assert error["status"] == 413
    assert site.count(Test) == 0


def test_a_server_that_is_down_is_reported_as_unreachable() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # bound, never listening: connections are refused
        code, out, _err = _cli([f"--url=http://127.0.0.1:{port}", "--json", "search"])
    assert code == ExitCode.UNREACHABLE
    assert "Cannot reach" in json.loads(out)["error"]["message"]


def test_the_installed_command_runs_with_its_exit_codes(site: Site) -> None:
    command = Path(sys.executable).with_name("benchmax-client")
    env = {**os.environ, "BENCHMAX_URL": site.url}
    done = subprocess.run(
        [str(command), "--json", "search"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == ExitCode.OK, done.stderr
    assert json.loads(done.stdout)["items"] == []
    bad = subprocess.run(
        [str(command), "submit", "--model", "m"], env=env, capture_output=True, timeout=60
    )
    assert bad.returncode == ExitCode.USAGE
