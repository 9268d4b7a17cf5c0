"""Backup, verify and restore: prove that BenchMax can be rebuilt after a disaster.

``create_backup`` writes a consistent database snapshot and a canonical-JSON manifest (table
row counts and fingerprints, every object's key/size/SHA-256, the snapshot's SHA-256, the
schema revision) to ``private/backups/``; ``verify`` lists every way a live or restored system
differs from a manifest; ``restore`` rebuilds into fresh resources and verifies. The runbook
is docs/backup-restore.md.
"""

from benchmax.services.backup.create import BackupBusyError, BackupResult, create_backup
from benchmax.services.backup.keys import SIGNING_KEY_NAME, signing_key_of
from benchmax.services.backup.manifest import BACKUP_PREFIX, Manifest, ObjectEntry
from benchmax.services.backup.restore import RestoreRefusedError, RestoreResult, restore
from benchmax.services.backup.snapshot import SNAPSHOT_FILES
from benchmax.services.backup.verify import (
    Difference,
    LoadedManifest,
    ManifestError,
    load_manifest,
    record_verification,
    verify,
)

__all__ = [
    "BACKUP_PREFIX",
    "SIGNING_KEY_NAME",
    "SNAPSHOT_FILES",
    "BackupBusyError",
    "BackupResult",
    "Difference",
    "LoadedManifest",
    "Manifest",
    "ManifestError",
    "ObjectEntry",
    "RestoreRefusedError",
    "RestoreResult",
    "create_backup",
    "load_manifest",
    "record_verification",
    "restore",
    "signing_key_of",
    "verify",
]
