"""The judge card says what the judge is shown in words, not as the snapshot's JSON."""

from __future__ import annotations

from benchmax.state.judge_card import bounds_text


def test_stored_bounds_read_as_words_with_the_defaults_filled_in() -> None:
    text = bounds_text({"max_total_chars": 60000, "max_images": 1})
    assert text == (
        "Text: up to 20,000 characters a file and 60,000 in all, from at most 10 files. "
        "Images: at most 1, up to 2.0 MiB each. Source ZIP: up to 20 entries of 10,000 "
        "characters, from a ZIP up to 20.0 MiB. Each request: up to 8.0 MiB."
    )
    assert "{" not in bounds_text({})
