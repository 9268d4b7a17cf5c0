"""Mandatory safety processing: pure functions over a file on disk or a string.

No database, storage or web imports: the pipeline job downloads a quarantined object to a
scratch directory, calls ``scan_file`` and acts on the verdict; the submission service calls
``check_text_field`` on every text field before storing it.
"""

from benchmax.services.safety.filenames import FilenameError, normalise_filename
from benchmax.services.safety.injection import injection_signals
from benchmax.services.safety.limits import SafetyLimits
from benchmax.services.safety.result import BlockedError, ScanResult
from benchmax.services.safety.scan import (
    SCAN_TOO_EXPENSIVE,
    check_test_totals,
    scan_file,
    too_expensive,
)
from benchmax.services.safety.secrets import SecretFinding, find_secrets, find_secrets_json_aware
from benchmax.services.safety.sniff import sniff_kind
from benchmax.services.safety.text_fields import check_text_field

__all__ = [
    "SCAN_TOO_EXPENSIVE",
    "BlockedError",
    "FilenameError",
    "SafetyLimits",
    "ScanResult",
    "SecretFinding",
    "check_test_totals",
    "check_text_field",
    "find_secrets",
    "find_secrets_json_aware",
    "injection_signals",
    "normalise_filename",
    "scan_file",
    "sniff_kind",
    "too_expensive",
]
