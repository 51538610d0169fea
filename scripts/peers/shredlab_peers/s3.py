"""Reads a run's objects back from S3-compatible storage with pyarrow's own S3 client, the
independent reader of `make s3-smoke`: the manifest names the files, every row is digested.

    python -m shredlab_peers.s3 s3://BUCKET/PREFIX [--manifest part-manifest.json]

The endpoint, region and keys come from the standard AWS_* variables (AWS_ENDPOINT, or
AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY); prints one JSON line:
the files, their rows and the digest of all of them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from urllib.parse import urlparse

import pyarrow.fs as pafs
import pyarrow.parquet as pq

from . import digest, readers


def filesystem() -> pafs.S3FileSystem:
    """pyarrow's S3 client, configured from the AWS_* variables."""
    endpoint = os.environ.get("AWS_ENDPOINT") or os.environ.get("AWS_ENDPOINT_URL")
    options = {
        "region": os.environ.get("AWS_REGION", os.environ.get("AWS_DEFAULT_REGION", "us-east-1")),
        "access_key": os.environ.get("AWS_ACCESS_KEY_ID"),
        "secret_key": os.environ.get("AWS_SECRET_ACCESS_KEY"),
    }
    if endpoint:
        parsed = urlparse(endpoint)
        options["endpoint_override"] = parsed.netloc
        options["scheme"] = parsed.scheme or "https"
    return pafs.S3FileSystem(**options)


def read_back(url: str, manifest: str = "part-manifest.json") -> dict:
    """The files the manifest under `url` lists, their rows, and the digest of every row."""
    parsed = urlparse(url)
    if parsed.scheme not in ("s3", "s3a") or not parsed.netloc:
        raise ValueError(f"{url} is not an s3://BUCKET/PREFIX URL")
    prefix = f"{parsed.netloc}/{parsed.path.strip('/')}".rstrip("/")
    fs = filesystem()
    with fs.open_input_stream(f"{prefix}/{manifest}") as stream:
        listed = json.loads(stream.read())
    total = digest.Digest()
    files = []
    for entry in listed["files"]:
        path = f"{prefix}/{entry['name']}"
        parquet = pq.ParquetFile(path, filesystem=fs)
        file_digest = digest.of_batches(readers.parquet_batches(parquet))
        total = total + file_digest
        files.append({"path": f"s3://{path}", "rows": file_digest.rows, "bytes": fs.get_file_info(path).size})
    return {
        "reader": "pyarrow.fs.S3FileSystem",
        "files": files,
        "rows": total.rows,
        "digest": str(total),
        "manifest_digest": listed.get("digest"),
        "manifest_rows": listed["rows"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url")
    parser.add_argument("--manifest", default="part-manifest.json")
    args = parser.parse_args(argv)
    print(json.dumps(read_back(args.url, args.manifest)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
