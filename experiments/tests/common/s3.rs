//! A real S3-compatible server (Garage, through `scripts/s3-server.sh`) for the tests: started
//! on 127.0.0.1 at free ports in a temporary directory, stopped on drop.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::path::Path as Key;
use object_store::{ObjectStore, ObjectStoreExt};
use tempfile::TempDir;
use tokio::runtime::Runtime;

/// The bucket every test server has.
pub const BUCKET: &str = "shredlab";

/// One server and what reaches it.
pub struct LocalS3 {
    dir: TempDir,
    /// The `AWS_*` variables that reach it.
    pub env: Vec<(String, String)>,
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/s3-server.sh")
}

fn run_script(args: &[&str]) -> String {
    let out = Command::new(script()).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "s3-server.sh {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

impl LocalS3 {
    /// Starts a server with the bucket [`BUCKET`].
    pub fn start() -> LocalS3 {
        let dir = tempfile::tempdir().unwrap();
        let env_file = run_script(&["start", dir.path().to_str().unwrap(), BUCKET]);
        let env = std::fs::read_to_string(env_file.trim())
            .unwrap()
            .lines()
            .filter_map(|line| line.strip_prefix("export ")?.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        LocalS3 { dir, env }
    }

    /// Its `AWS_*` variables, as settings of the pipeline's S3 client (they include
    /// `AWS_EC2_METADATA_DISABLED=true`: no test asks a metadata service).
    pub fn settings(&self) -> Vec<(String, String)> {
        self.env.clone()
    }

    /// The value of one of its `AWS_*` variables.
    pub fn var(&self, name: &str) -> &str {
        &self.env.iter().find(|(k, _)| k == name).unwrap().1
    }

    /// The `pipeline` binary, with the variables that reach this server (and none from the
    /// environment the tests run in).
    pub fn pipeline_command(&self) -> Command {
        let mut command = super::pipeline_command();
        for (name, _) in std::env::vars().filter(|(k, _)| k.starts_with("AWS_")) {
            command.env_remove(name);
        }
        command.envs(self.env.iter().map(|(k, v)| (k, v)));
        command
    }

    /// Kills the server (SIGKILL): no goodbye to its clients.
    pub fn kill(&self) {
        let pid = std::fs::read_to_string(self.dir.path().join("pid")).unwrap();
        let status = Command::new("kill")
            .args(["-KILL", pid.trim()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Starts the server again on its data, at the same address.
    pub fn restart(&self) {
        run_script(&["start", self.dir.path().to_str().unwrap()]);
    }

    /// Unfinished multipart uploads in [`BUCKET`], as the server counts them.
    pub fn unfinished_uploads(&self) -> u64 {
        run_script(&["uploads", self.dir.path().to_str().unwrap(), BUCKET])
            .trim()
            .parse()
            .unwrap()
    }

    /// A client of the bucket, for the tests' own reads.
    pub fn client(&self) -> (Runtime, Arc<AmazonS3>) {
        // The client's TLS is built without a crypto provider (see the workspace's Cargo.toml).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let store = AmazonS3Builder::new()
            .with_endpoint(self.var("AWS_ENDPOINT"))
            .with_allow_http(true)
            .with_region(self.var("AWS_REGION"))
            .with_access_key_id(self.var("AWS_ACCESS_KEY_ID"))
            .with_secret_access_key(self.var("AWS_SECRET_ACCESS_KEY"))
            .with_bucket_name(BUCKET)
            .build()
            .unwrap();
        (Runtime::new().unwrap(), Arc::new(store))
    }

    /// The keys under `prefix`, sorted.
    pub fn keys(&self, prefix: &str) -> Vec<String> {
        let (runtime, store) = self.client();
        let listing = runtime
            .block_on(store.list_with_delimiter(Some(&Key::from(prefix))))
            .unwrap();
        let mut keys: Vec<_> = listing
            .objects
            .iter()
            .map(|o| o.location.filename().unwrap().to_string())
            .collect();
        keys.sort();
        keys
    }

    /// The bytes of the object at `key`.
    pub fn get(&self, key: &str) -> Vec<u8> {
        let (runtime, store) = self.client();
        runtime
            .block_on(async { store.get(&Key::from(key)).await?.bytes().await })
            .unwrap()
            .to_vec()
    }
}

impl Drop for LocalS3 {
    fn drop(&mut self) {
        let _ = Command::new(script())
            .args(["stop", self.dir.path().to_str().unwrap()])
            .status();
    }
}
