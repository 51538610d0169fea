//! The async writer streams a Parquet file to S3-compatible storage through object_store's
//! buffered writer (a multipart upload once the file outgrows one part): the object is byte for
//! byte what parquet's ArrowWriter writes. Against a real server, Garage, started on 127.0.0.1
//! by `scripts/s3-server.sh` (built into .tools/ by `make test`).
#![cfg(feature = "tokio")]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use common::{batches, upstream, Kind};
use object_store::aws::AmazonS3Builder;
use object_store::buffered::BufWriter;
use object_store::path::Path as Key;
use object_store::ObjectStoreExt;
use parquet::file::properties::WriterProperties;
use shredlab_writer::AsyncParallelArrowWriter;

/// A Garage server in a temporary directory, stopped on drop.
struct Server {
    dir: tempfile::TempDir,
}

impl Server {
    fn script() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/s3-server.sh")
    }

    fn start() -> (Server, Vec<(String, String)>) {
        let dir = tempfile::tempdir().unwrap();
        let out = Command::new(Self::script())
            .args(["start", dir.path().to_str().unwrap(), "async"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let env = std::fs::read_to_string(String::from_utf8(out.stdout).unwrap().trim())
            .unwrap()
            .lines()
            .filter_map(|line| line.strip_prefix("export ")?.split_once('='))
            .map(|(k, v)| (k.to_ascii_lowercase(), v.to_string()))
            .filter(|(k, _)| k != "aws_ec2_metadata_disabled")
            .collect();
        (Server { dir }, env)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new(Self::script())
            .args(["stop", self.dir.path().to_str().unwrap()])
            .status();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_a_multipart_object_identical_to_arrow_writer() {
    let (_server, env) = Server::start();
    // The client's TLS is built without a crypto provider (see the workspace's Cargo.toml).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = AmazonS3Builder::new().with_bucket_name("async");
    for (key, value) in &env {
        builder = builder.with_config(key.parse().unwrap(), value);
    }
    let store = Arc::new(builder.build().unwrap());
    // Plain-encoded, so that the file outgrows two 5 MiB parts.
    let (schema, batches) = batches(
        &[Kind::Utf8, Kind::ListStruct, Kind::Int32],
        &[40_000; 6],
        5,
    );
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(300_000))
        .set_dictionary_enabled(false)
        .build();
    let expected = upstream(&schema, &batches, &props);
    assert!(
        expected.len() > 10 << 20,
        "{} bytes fit in two parts",
        expected.len()
    );

    let key = Key::from("streamed.parquet");
    let sink = BufWriter::with_capacity(store.clone(), key.clone(), 5 << 20);
    let mut writer = AsyncParallelArrowWriter::try_new(sink, schema, Some(props)).unwrap();
    for batch in &batches {
        writer.write(batch).await.unwrap();
    }
    writer.close().await.unwrap();
    let stored = store.get(&key).await.unwrap().bytes().await.unwrap();
    assert!(
        stored.as_ref() == expected.as_slice(),
        "the object differs from ArrowWriter's file"
    );
}
