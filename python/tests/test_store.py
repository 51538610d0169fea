"""`write_parquet` to `s3://`: a real S3-compatible server (Garage, scripts/s3-server.sh) on
127.0.0.1; the object appears only once complete, and reads back with the same digest."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pytest

import shredlab

from helpers import ROOT


@pytest.fixture(scope="module")
def store():
    """The AWS_* settings of a local server with the bucket `shredlab`; stopped afterwards."""
    with tempfile.TemporaryDirectory() as directory:
        script = ROOT / "scripts" / "s3-server.sh"
        env_file = subprocess.run([str(script), "start", directory, "shredlab"], capture_output=True,
                                  text=True, check=True).stdout.strip()
        try:
            settings = {}
            for line in Path(env_file).read_text().splitlines():
                name, _, value = line.removeprefix("export ").partition("=")
                settings[name] = value.strip("'\"")
            yield settings
        finally:
            subprocess.run([str(script), "stop", directory], check=True)


def filesystem(settings: dict) -> pafs.S3FileSystem:
    return pafs.S3FileSystem(
        access_key=settings["AWS_ACCESS_KEY_ID"], secret_key=settings["AWS_SECRET_ACCESS_KEY"],
        endpoint_override=settings["AWS_ENDPOINT"], region=settings["AWS_REGION"],
        scheme="http", allow_bucket_creation=False)


def test_an_object_reads_back_with_the_same_digest(store: dict):
    written = shredlab.write_parquet(shredlab.contacts(50_000), "s3://shredlab/py/contacts.parquet",
                                     compression="zstd(1)", storage_options=store)
    assert written["rows"] == 50_000
    back = pq.read_table("shredlab/py/contacts.parquet", filesystem=filesystem(store))
    assert shredlab.digest(back) == shredlab.digest(shredlab.contacts(50_000))
    assert filesystem(store).get_file_info("shredlab/py/contacts.parquet").size == written["bytes"]


def test_a_failed_upload_leaves_no_object(store: dict):
    good = shredlab.contacts(1000).read_next_batch()

    def batches():
        yield good
        raise ValueError("the producer broke")

    with pytest.raises(Exception, match="the producer broke"):
        shredlab.write_parquet(pa.RecordBatchReader.from_batches(good.schema, batches()),
                               "s3://shredlab/py/failed.parquet", storage_options=store)
    info = filesystem(store).get_file_info("shredlab/py/failed.parquet")
    assert info.type == pafs.FileType.NotFound


def test_a_missing_bucket_is_an_os_error(store: dict):
    with pytest.raises(OSError, match="nobucket"):
        shredlab.write_parquet(pa.table({"a": [1]}), "s3://nobucket/a.parquet", storage_options=store)
