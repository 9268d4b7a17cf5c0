"""The wizard's step rules and file rows, without a browser: what each step needs, where a
deep link lands, and which file is flagged as a duplicate."""

from __future__ import annotations

from benchmax.services.submissions import EVIDENCE_REQUIRED_MESSAGE, FileStatus
from benchmax.state.submit.files import file_rows
from benchmax.state.submit.steps import (
    clamp_step,
    first_incomplete,
    saves_to_this_page,
    step_problems,
    wizard_url,
)

COMPLETE = {
    "prompt": "Write a haiku.",
    "model_label": "Claude",
    "harness_label": "API",
    "reasoning_label": "high",
    "output_text": "",
}


def test_each_step_names_its_own_blank_required_fields() -> None:
    assert set(step_problems(1, {"prompt": "   "}, 0)) == {"prompt"}
    assert set(step_problems(2, {"model_label": "x"}, 0)) == {"harness_label", "reasoning_label"}
    assert step_problems(4, {}, 0) == {}
    assert step_problems(5, {}, 0) == {}


def test_the_evidence_step_needs_output_text_or_a_file() -> None:
    assert step_problems(3, COMPLETE, 0) == {"output_text": EVIDENCE_REQUIRED_MESSAGE}
    assert step_problems(3, {**COMPLETE, "output_text": " \n "}, 0) != {}
    assert step_problems(3, {**COMPLETE, "output_text": "done"}, 0) == {}
    assert step_problems(3, COMPLETE, 1) == {}


def test_a_deep_link_lands_on_the_first_step_that_still_needs_something() -> None:
    assert first_incomplete(5, {}, 0)[0] == 1
    step, problems = first_incomplete(5, {**COMPLETE, "harness_label": ""}, 3)
    assert (step, set(problems)) == (2, {"harness_label"})
    assert first_incomplete(5, COMPLETE, 0)[0] == 3  # no output and no evidence
    assert first_incomplete(5, COMPLETE, 1) == (5, {})
    assert first_incomplete(1, {}, 0) == (1, {})  # step 1 itself is always reachable


def test_a_step_from_a_url_is_one_to_five_or_the_default() -> None:
    assert clamp_step("3") == 3
    for raw in ("", "0", "6", "-1", "2.5", "three", "9" * 400, None):
        assert clamp_step(raw, 2) == 2


def test_step_addresses_name_the_draft_when_there_is_one() -> None:
    assert wizard_url("", 1) == "/submit?step=1"
    assert wizard_url("abc123", 4) == "/submit?draft=abc123&step=4"


def _file(name: str, sha: str = "", state: str = "approved") -> FileStatus:
    return FileStatus(
        id=name + sha, name=name, kind="image", state=state, reason="", size_bytes=10, sha256=sha
    )


def test_the_later_copy_of_a_file_carries_the_duplicate_warning() -> None:
    rows = file_rows(
        [
            _file("a.png", "1" * 64),
            _file("b.png", "1" * 64),  # same bytes, other name
            _file("A.PNG", "2" * 64),  # same name, other case
            _file("c.png"),  # not scanned yet: no digest to compare
            _file("d.png", "", "removed"),
        ]
    )
    assert [r.name for r in rows] == ["a.png", "b.png", "A.PNG", "c.png"]
    assert rows[0].duplicate == ""
    assert "Same contents as “a.png”" in rows[1].duplicate
    assert "also named “a.png”" in rows[2].duplicate
    assert rows[3].duplicate == ""


def test_unscanned_files_with_no_digest_are_not_duplicates_of_each_other() -> None:
    rows = file_rows([_file("x.png"), _file("y.png")])
    assert [r.duplicate for r in rows] == ["", ""]


def test_a_save_goes_only_to_the_draft_the_address_names() -> None:
    assert saves_to_this_page("", "")  # a new wizard: its first save starts the draft
    assert saves_to_this_page("", "d1")  # that draft, before the address names it
    assert saves_to_this_page("d1", "d1")
    # A fresh state on a page already at a draft (a reconnect, before on_load): no stray draft.
    assert not saves_to_this_page("d1", "")
    assert not saves_to_this_page("d1", "d2")
