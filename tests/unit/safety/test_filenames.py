import pytest

from benchmax.services.safety import FilenameError, normalise_filename


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("report.txt", "report.txt"),
        ("C:\\Users\\me\\Desktop\\shot.png", "shot.png"),
        ("../../etc/passwd", "passwd"),
        ("  .hidden.md ", "hidden.md"),
        ("trailing dots...", "trailing dots"),
        ('what?:"why".txt', "what___why_.txt"),
        ("cafe\u0301.txt", "café.txt"),  # decomposed é becomes one code point (NFC)
    ],
)
def test_normalises(raw: str, expected: str) -> None:
    assert normalise_filename(raw) == expected


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("", "filename_empty"),
        ("dir/", "filename_empty"),
        ("..", "filename_dots_only"),
        ("...", "filename_dots_only"),
        ("bad\x00name.txt", "filename_control_chars"),
        ("line\nbreak.txt", "filename_control_chars"),
        ("invoice\u202egnp.exe", "filename_control_chars"),
    ],
)
def test_refuses(raw: str, code: str) -> None:
    with pytest.raises(FilenameError) as error:
        normalise_filename(raw)
    assert error.value.code == code
    assert error.value.message


def test_length_cap_keeps_the_extension() -> None:
    name = normalise_filename("a" * 500 + ".json", max_chars=50)
    assert len(name) == 50
    assert name.endswith(".json")


def test_length_cap_without_extension() -> None:
    assert normalise_filename("b" * 300, max_chars=40) == "b" * 40
