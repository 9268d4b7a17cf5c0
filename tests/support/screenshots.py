"""Generated screenshots of terminals, editors, code and chat pages, with or without a key.

The OCR check's recall and false-alarm rates are measured on these (the benchmark on many,
a test on a fixed seeded few), so they vary what changes how text reads: dark and light
themes, monospace and proportional fonts from 12 to 20 px, PNG and JPEG at quality 80 to 95,
long lines wrapped as a terminal or a chat bubble wraps them. The keys are random, built from
pieces, in every format the credential detector knows; the screens without a key carry what
trips naive detectors instead (commit hashes, digests, UUIDs, placeholders, long
identifiers).
"""

from __future__ import annotations

import io
import random
import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

_FONT_DIR = Path("/usr/share/fonts/truetype")
MONOSPACE = (
    _FONT_DIR / "dejavu/DejaVuSansMono.ttf",
    _FONT_DIR / "liberation/LiberationMono-Regular.ttf",
)
PROPORTIONAL = (
    _FONT_DIR / "dejavu/DejaVuSans.ttf",
    _FONT_DIR / "liberation/LiberationSans-Regular.ttf",
)
# (background, text, accent) with the contrast real themes have.
DARK = (
    ((30, 30, 30), (212, 212, 212), (86, 182, 194)),
    ((0, 43, 54), (147, 161, 161), (181, 137, 0)),
    ((40, 42, 54), (248, 248, 242), (80, 250, 123)),
    ((13, 17, 23), (201, 209, 217), (121, 192, 255)),
)
LIGHT = (
    ((255, 255, 255), (36, 41, 47), (9, 105, 218)),
    ((253, 246, 227), (88, 110, 117), (38, 139, 210)),
    ((246, 248, 250), (31, 35, 40), (130, 80, 223)),
    ((250, 250, 250), (56, 58, 66), (166, 38, 164)),
)
_ALNUM = string.ascii_letters + string.digits
_WORDS = (
    "model", "output", "reasoning", "step", "answer", "check", "test", "prompt", "token",
    "value", "result", "error", "retry", "config", "layout", "render", "button", "state",
    "event", "handler", "request", "response", "latency", "cache", "index", "the", "a",
    "is", "and", "with", "for", "when", "then", "this", "that", "from", "page", "run",
)  # fmt: skip


def _token(rng: random.Random, length: int, alphabet: str = _ALNUM) -> str:
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(length))
        if alphabet != _ALNUM or (
            any(c.isdigit() for c in value)
            and any(c.isupper() for c in value)
            and any(c.islower() for c in value)
        ):
            return value


def _b64(rng: random.Random, length: int) -> str:
    return _token(rng, length, _ALNUM + "+/")


# kind code -> lines showing one such key (a fresh random one per call).
KEY_KINDS: dict[str, Callable[[random.Random], list[str]]] = {
    "anthropic_api_key": lambda rng: [
        "export ANTHROPIC_API_KEY=" + "sk-" + "ant-api03-" + _token(rng, 93) + "AA"
    ],
    "openai_api_key": lambda rng: ["OPENAI_API_KEY=" + "sk-" + "proj-" + _token(rng, 64)],
    "openrouter_api_key": lambda rng: [
        'key = "' + "sk-" + "or-v1-" + _token(rng, 64, "0123456789abcdef") + '"'
    ],
    "google_api_key": lambda rng: ["GEMINI_API_KEY=" + "AI" + "za" + _token(rng, 35)],
    "aws_access_key_id": lambda rng: [
        "aws_access_key_id = " + "AK" + "IA" + _token(rng, 16, string.ascii_uppercase + "234567")
    ],
    "aws_secret_access_key": lambda rng: [
        "aws_secret_access_key = " + _b64(rng, 40),
    ],
    "github_token": lambda rng: ["GITHUB_TOKEN=" + "gh" + "p_" + _token(rng, 36)],
    "github_pat": lambda rng: [
        "token: " + "github" + "_pat_" + _token(rng, 22) + "_" + _token(rng, 59)
    ],
    "huggingface_token": lambda rng: ["HF_TOKEN=" + "h" + "f_" + _token(rng, 34)],
    "groq_api_key": lambda rng: ["GROQ_API_KEY=" + "gs" + "k_" + _token(rng, 52)],
    "xai_api_key": lambda rng: ["XAI_API_KEY=" + "x" + "ai-" + _token(rng, 80)],
    "mistral_api_key": lambda rng: ["MISTRAL_API_KEY=" + _token(rng, 32)],
    "keyword_secret": lambda rng: ['api_key = "' + _token(rng, 40) + '"'],
    "private_key": lambda rng: [
        "-----BEGIN " + "PRIVATE KEY-----",
        *(_b64(rng, 64) for _ in range(4)),
        "-----END " + "PRIVATE KEY-----",
    ],
    "google_service_account": lambda rng: [
        "{",
        '  "type": "service' + '_account",',
        '  "project_id": "demo-' + str(rng.randint(1000, 9999)) + '",',
        '  "private' + '_key": "-----BEGIN ' + "PRIVATE KEY-----\\n" + _b64(rng, 44) + '\\n",',
        '  "client_email": "bot@demo.iam.gserviceaccount.com"',
        "}",
    ],
}


@dataclass(frozen=True, slots=True)
class Screenshot:
    name: str
    data: bytes
    key_kind: str | None  # what it shows, or None for an ordinary screen


def _filler(rng: random.Random, scene: str) -> str:
    """One ordinary line of a scene, with the long strings real screens have."""
    words = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(3, 11)))
    choices: dict[str, tuple[Callable[[], str], ...]] = {
        "terminal": (
            lambda: f"$ git log --oneline | head  # {words}",
            lambda: f"{_token(rng, 7, '0123456789abcdef')} {words}",
            lambda: f"commit {_token(rng, 40, '0123456789abcdef')}",
            lambda: f"sha256:{_token(rng, 64, '0123456789abcdef')}",
            lambda: f"Downloaded {rng.randint(1, 99)} packages in {rng.randint(1, 900)}ms",
            lambda: f"~/projects/benchmark-{rng.randint(1, 99)}/src/components $ {words}",
            lambda: f"request_id={uuid.UUID(int=rng.getrandbits(128))} status=200",
            lambda: "export OPENAI_API_KEY=your-key-here",
            lambda: 'curl -H "Authorization: Bearer $ANTHROPIC_API_KEY" https://example.com/v1',
            lambda: f"INFO {words} latency_ms={rng.randint(1, 5000)}",
        ),
        "code": (
            lambda: f"def handle_{rng.choice(_WORDS)}_{rng.choice(_WORDS)}(request, context):",
            lambda: (
                f"    {rng.choice(_WORDS)} = await client.fetchResponseWithRetries("
                f"url, {rng.randint(1, 9)})"
            ),
            lambda: f"    # {words}",
            lambda: 'api_key = os.environ["OPENAI_API_KEY"]',
            lambda: f"const integrity = 'sha512-{_token(rng, 86, _ALNUM)}';",
            lambda: f"    return {rng.choice(_WORDS)}.getAccessTokenFromEnvironment()",
            lambda: f"import {{ {rng.choice(_WORDS)}Handler }} from './{rng.choice(_WORDS)}';",
            lambda: f"test_id = '{uuid.UUID(int=rng.getrandbits(128))}'",
        ),
        "chat": (
            lambda: f"Sure! Here is the {words} you asked for.",
            lambda: f"The {words} should now work; try it again and tell me what you see.",
            lambda: "Never paste your API key into a chat. Store it in an environment variable.",
            lambda: f"I ran the {rng.choice(_WORDS)} and got {rng.randint(1, 99)} failures.",
            lambda: (
                f"See https://docs.example.com/{rng.choice(_WORDS)}/{rng.choice(_WORDS)}?ref=chat"
            ),
        ),
    }
    return rng.choice(choices[scene])()


def _wrap(text: str, font: ImageFont.FreeTypeFont, width: int) -> list[str]:
    """Word-wrap ``text`` to ``width`` pixels, breaking a too-long word like a terminal."""
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        trial = f"{current} {word}" if current else word
        if font.getlength(trial) <= width:
            current = trial
            continue
        if current:
            lines.append(current)
        current = word
        while font.getlength(current) > width:
            cut = len(current)
            while cut > 1 and font.getlength(current[:cut]) > width:
                cut -= 1
            lines.append(current[:cut])
            current = current[cut:]
    lines.append(current)
    return lines


def render(
    rng: random.Random,
    *,
    key_kind: str | None,
    size: tuple[int, int] = (1440, 900),
    index: int = 0,
) -> Screenshot:
    """One screenshot of a random scene, theme, font and format (seeded by ``rng``)."""
    scene = rng.choice(("terminal", "code", "chat"))
    dark = rng.random() < 0.5
    background, ink, accent = rng.choice(DARK if dark else LIGHT)
    proportional = scene == "chat" or rng.random() < 0.25
    font_path = rng.choice(PROPORTIONAL if proportional else MONOSPACE)
    font_size = rng.randint(12, 20)
    font = ImageFont.truetype(str(font_path), font_size)
    width, height = size
    image = Image.new("RGB", size, background)
    draw = ImageDraw.Draw(image)
    left, text_width = 16, width - 32
    if scene == "chat":
        # A sidebar of conversation titles, then message bubbles in the middle column.
        sidebar = min(260, width // 5)
        panel = tuple(max(0, c - 12) if dark else max(0, c - 10) for c in background)
        draw.rectangle((0, 0, sidebar, height), fill=panel)
        small = ImageFont.truetype(str(font_path), max(12, font_size - 2))
        for row in range(height // 36):
            draw.text(
                (12, 16 + row * 36),
                f"{rng.choice(_WORDS).title()} {rng.choice(_WORDS)}",
                font=small,
                fill=ink,
            )
        left, text_width = sidebar + 40, min(760, width - sidebar - 80)
    line_height = round(font_size * 1.45)
    rows = (height - 24) // line_height
    text_lines: list[tuple[str, tuple[int, int, int]]] = []
    key_at = rng.randint(1, max(1, rows - 8))
    pending = key_kind
    while len(text_lines) < rows:
        if pending is not None and len(text_lines) >= key_at:
            for line in KEY_KINDS[pending](rng):
                if scene == "chat":
                    line = "here is my config: " + line
                text_lines.extend((part, ink) for part in _wrap(line, font, text_width))
            pending = None
            continue
        colour = accent if rng.random() < 0.2 else ink
        text_lines.extend((part, colour) for part in _wrap(_filler(rng, scene), font, text_width))
    y = 12
    for text, colour in text_lines[:rows]:
        draw.text((left, y), text, font=font, fill=colour)
        y += line_height
    out = io.BytesIO()
    if rng.random() < 0.5:
        image.save(out, format="PNG")
        extension = "png"
    else:
        image.save(out, format="JPEG", quality=rng.randint(80, 95))
        extension = "jpg"
    theme = "dark" if dark else "light"
    label = key_kind or "plain"
    name = f"{index:03d}-{scene}-{theme}-{font_size}px-{label}.{extension}"
    return Screenshot(name, out.getvalue(), key_kind)


def key_screenshots(seed: int, count: int, size: tuple[int, int] = (1440, 900)) -> list[Screenshot]:
    """``count`` screenshots with keys, cycling through every kind the detector knows."""
    rng = random.Random(seed)
    kinds = list(KEY_KINDS)
    return [render(rng, key_kind=kinds[i % len(kinds)], size=size, index=i) for i in range(count)]


def plain_screenshots(
    seed: int, count: int, size: tuple[int, int] = (1440, 900)
) -> list[Screenshot]:
    """``count`` ordinary screenshots with no key."""
    rng = random.Random(seed)
    return [render(rng, key_kind=None, size=size, index=i) for i in range(count)]
