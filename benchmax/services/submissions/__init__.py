"""Submitting a Test: drafts, evidence uploads, submit and retry, and what the contributor sees.

The wizard (Reflex states) and the submission API call exactly these functions, so both
apply the same validation, limits and pipeline. Every function takes the caller's session
and flushes without committing; a ``ServiceError``
(``benchmax.services.errors``) means "refused, change nothing".
"""

from benchmax.services.submissions.drafts import (
    create_draft,
    draft_with_prompt_of,
    latest_draft,
    save_draft,
)
from benchmax.services.submissions.fields import (
    DRAFT_FIELDS,
    REASONING_CHOICES,
    REASONING_HINT,
    REQUIRED_FIELDS,
    SETUP_FIELDS,
)
from benchmax.services.submissions.files import (
    add_file,
    cancel_upload,
    checked_upload_key,
    remove_file,
    replace_file,
)
from benchmax.services.submissions.lifecycle import (
    EVIDENCE_REQUIRED_MESSAGE,
    REQUIRED_MESSAGES,
    retry_processing,
    submit,
)
from benchmax.services.submissions.records import PUBLISH_TEST, SCAN_EVIDENCE, get_own_test
from benchmax.services.submissions.status import (
    FileStatus,
    MyTestRow,
    StatusView,
    my_tests,
    plain_status,
    processing_status,
    status_label,
)

__all__ = [
    "DRAFT_FIELDS",
    "EVIDENCE_REQUIRED_MESSAGE",
    "PUBLISH_TEST",
    "REASONING_CHOICES",
    "REASONING_HINT",
    "REQUIRED_FIELDS",
    "REQUIRED_MESSAGES",
    "SCAN_EVIDENCE",
    "SETUP_FIELDS",
    "FileStatus",
    "MyTestRow",
    "StatusView",
    "add_file",
    "cancel_upload",
    "checked_upload_key",
    "create_draft",
    "draft_with_prompt_of",
    "get_own_test",
    "latest_draft",
    "my_tests",
    "plain_status",
    "processing_status",
    "remove_file",
    "replace_file",
    "retry_processing",
    "save_draft",
    "status_label",
    "submit",
]
