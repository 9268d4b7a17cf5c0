"""Object storage on any S3 API (AWS S3, Cloudflare R2, MinIO) through boto3.

Uploads are streamed: a body that fits in one part is a single ``PutObject``; anything larger
becomes a multipart upload sent one part at a time, so memory stays at one part whatever the
object's size. A failed multipart upload is aborted so no invisible parts are left billed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

from benchmax.adapters.storage import (
    InvalidRangeError,
    ObjectInfo,
    ObjectNotFoundError,
    ObjectStorage,
)
from benchmax.settings import CoreSettings

# S3 refuses parts under 5 MiB except the last; 8 MiB keeps requests few and memory small.
PART_SIZE = 8 * 1024 * 1024

_NOT_FOUND_CODES = frozenset({"404", "NoSuchKey", "NotFound"})


def _error_code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


class S3Storage(ObjectStorage):
    """Objects in one bucket; keys are used as given after validation."""

    def __init__(self, client: Any, bucket: str) -> None:
        self.client = client
        self.bucket = bucket

    @classmethod
    def from_settings(cls, settings: CoreSettings) -> S3Storage:
        secret = settings.s3_secret_access_key
        client = boto3.client(
            "s3",
            endpoint_url=settings.s3_endpoint_url or None,
            region_name=settings.s3_region,
            aws_access_key_id=settings.s3_access_key_id or None,
            aws_secret_access_key=secret.get_secret_value() if secret else None,
            config=Config(
                signature_version="s3v4",
                # Custom endpoints (R2, MinIO, test servers) are addressed by path.
                s3={"addressing_style": "path" if settings.s3_endpoint_url else "auto"},
                retries={"max_attempts": 5, "mode": "standard"},
                # Only checksum when the API needs one: some S3-compatible services refuse
                # the newer default trailing checksums on streamed parts.
                request_checksum_calculation="when_required",
                response_checksum_validation="when_required",
            ),
        )
        return cls(client, settings.s3_bucket)

    def _put(self, key: str, chunks: Iterator[bytes], content_type: str) -> ObjectInfo:
        first_part = _fill_part(chunks)
        if len(first_part) < PART_SIZE:
            self.client.put_object(
                Bucket=self.bucket, Key=key, Body=first_part, ContentType=content_type
            )
            size = len(first_part)
        else:
            size = self._put_multipart(key, first_part, chunks, content_type)
        return ObjectInfo(key=key, size=size)

    def _put_multipart(
        self, key: str, first_part: bytes, chunks: Iterator[bytes], content_type: str
    ) -> int:
        upload = self.client.create_multipart_upload(
            Bucket=self.bucket, Key=key, ContentType=content_type
        )
        upload_id = upload["UploadId"]
        parts: list[dict[str, Any]] = []
        size = 0
        try:
            part = first_part
            while part:
                number = len(parts) + 1
                response = self.client.upload_part(
                    Bucket=self.bucket, Key=key, UploadId=upload_id, PartNumber=number, Body=part
                )
                parts.append({"ETag": response["ETag"], "PartNumber": number})
                size += len(part)
                part = _fill_part(chunks)
            self.client.complete_multipart_upload(
                Bucket=self.bucket,
                Key=key,
                UploadId=upload_id,
                MultipartUpload={"Parts": parts},
            )
        except BaseException:
            self.client.abort_multipart_upload(Bucket=self.bucket, Key=key, UploadId=upload_id)
            raise
        return size

    def _get(
        self, key: str, start: int | None, end: int | None, chunk_size: int
    ) -> Iterator[bytes]:
        request: dict[str, Any] = {"Bucket": self.bucket, "Key": key}
        if start is not None or end is not None:
            request["Range"] = f"bytes={start or 0}-{'' if end is None else end}"
        try:
            response = self.client.get_object(**request)
        except ClientError as error:
            code = _error_code(error)
            if code in _NOT_FOUND_CODES:
                raise ObjectNotFoundError(key) from error
            if code == "InvalidRange":
                raise InvalidRangeError("range starts past the end of the object") from error
            raise
        return _stream(response["Body"], chunk_size)

    def _head(self, key: str) -> ObjectInfo | None:
        try:
            response = self.client.head_object(Bucket=self.bucket, Key=key)
        except ClientError as error:
            if _error_code(error) in _NOT_FOUND_CODES:
                return None
            raise
        return ObjectInfo(
            key=key, size=int(response["ContentLength"]), last_modified=response["LastModified"]
        )

    def _copy(self, source: str, destination: str) -> None:
        try:
            # Managed copy: switches to multipart copy for objects over 5 GiB.
            self.client.copy({"Bucket": self.bucket, "Key": source}, self.bucket, destination)
        except ClientError as error:
            if _error_code(error) in _NOT_FOUND_CODES:
                raise ObjectNotFoundError(source) from error
            raise

    def _delete(self, key: str) -> None:
        self.client.delete_object(Bucket=self.bucket, Key=key)

    def list(self, prefix: str = "") -> Iterator[ObjectInfo]:
        paginator = self.client.get_paginator("list_objects_v2")
        for page in paginator.paginate(Bucket=self.bucket, Prefix=prefix):
            for item in page.get("Contents", []):
                yield ObjectInfo(
                    key=item["Key"], size=int(item["Size"]), last_modified=item["LastModified"]
                )

    def check(self) -> None:
        self.client.head_bucket(Bucket=self.bucket)


def _fill_part(chunks: Iterator[bytes]) -> bytes:
    """Up to ``PART_SIZE`` bytes from the stream; a chunk is never split across two reads."""
    buffer = bytearray()
    for chunk in chunks:
        buffer += chunk
        if len(buffer) >= PART_SIZE:
            break
    return bytes(buffer)


def _stream(body: Any, chunk_size: int) -> Iterator[bytes]:
    try:
        yield from body.iter_chunks(chunk_size)
    finally:
        body.close()
