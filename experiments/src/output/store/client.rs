//! The S3 client of an output URL: a store configured the standard way (the URL, then the
//! `AWS_*` environment variables), the runtime its requests run on, and errors that say what
//! to fix.

use std::future::Future;
use std::sync::{Arc, Once};
use std::time::Duration;

use object_store::aws::{AmazonS3, AmazonS3Builder, AmazonS3ConfigKey};
use object_store::{BackoffConfig, ClientConfigKey, RetryConfig};
use tokio::runtime::Runtime;

use crate::error::PipelineError;
use crate::output::StoreUrl;

/// Retries of one request before it fails: enough to ride out a busy server, bounded so that an
/// unreachable endpoint fails the run within seconds instead of hanging it.
const MAX_RETRIES: usize = 4;
/// The longest a request is retried, whatever `MAX_RETRIES` allows.
const RETRY_TIMEOUT: Duration = Duration::from_secs(15);
/// How long a connection may take to open.
const CONNECT_TIMEOUT: &str = "5s";
/// How long one request (an 8 MiB part on a slow link) may take.
const REQUEST_TIMEOUT: &str = "120s";

/// A store and the runtime its requests run on, shared by the output and every sink.
#[derive(Debug, Clone)]
pub struct Client {
    runtime: Arc<Runtime>,
    store: Arc<AmazonS3>,
}

impl Client {
    /// The S3 client of `url`, configured from the `AWS_*` environment variables (endpoint,
    /// region, keys, `AWS_ALLOW_HTTP`), then `settings` (the same names, e.g.
    /// `("AWS_ENDPOINT", "http://...")`, which win), with bounded retries and time-outs.
    pub fn connect(url: &StoreUrl, settings: &[(String, String)]) -> Result<Client, PipelineError> {
        install_tls_provider();
        let mut builder = AmazonS3Builder::from_env();
        for (name, value) in settings {
            let key = name
                .to_ascii_lowercase()
                .parse()
                .map_err(|_| PipelineError::Store {
                    action: "cannot configure the S3 client for",
                    url: url.to_string(),
                    message: format!("{name} is not an S3 setting"),
                    hint: "",
                })?;
            builder = builder.with_config(key, value);
        }
        let store = builder
            .with_bucket_name(&url.bucket)
            .with_retry(RetryConfig {
                backoff: BackoffConfig::default(),
                max_retries: MAX_RETRIES,
                retry_timeout: RETRY_TIMEOUT,
            })
            // Set key by key: replacing the client options would drop AWS_ALLOW_HTTP.
            .with_config(client_key(ClientConfigKey::ConnectTimeout), CONNECT_TIMEOUT)
            .with_config(client_key(ClientConfigKey::Timeout), REQUEST_TIMEOUT)
            .build()
            .map_err(|error| PipelineError::Store {
                action: "cannot configure the S3 client for",
                url: url.to_string(),
                message: error.to_string(),
                hint: " (set AWS_REGION or AWS_DEFAULT_REGION, and AWS_ENDPOINT for a server other than AWS)",
            })?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("object-store")
            .enable_all()
            .build()
            .map_err(|source| PipelineError::Spawn { source })?;
        Ok(Client {
            runtime: Arc::new(runtime),
            store: Arc::new(store),
        })
    }

    /// The store.
    pub fn store(&self) -> &Arc<AmazonS3> {
        &self.store
    }

    /// The runtime.
    pub fn runtime(&self) -> &Runtime {
        &self.runtime
    }

    /// Runs `request` to completion on the client's runtime, from a thread outside it.
    pub fn block_on<F: Future>(&self, request: F) -> F::Output {
        self.runtime.block_on(request)
    }
}

fn client_key(key: ClientConfigKey) -> AmazonS3ConfigKey {
    AmazonS3ConfigKey::Client(key)
}

/// Installs rustls's ring provider once, for `https://` endpoints (the client's TLS is built
/// without a provider of its own, so that no C toolchain is needed beyond ring's).
fn install_tls_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // An error means another provider is already installed, which serves as well.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

const MISSING_BUCKET: &str =
    " (the bucket or object does not exist: create the bucket, e.g. `aws s3 mb s3://BUCKET`, or fix the URL)";
const REFUSED_CREDENTIALS: &str =
    " (the server refused the credentials: check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)";
const NO_CREDENTIALS: &str = " (no credentials were found, so the instance metadata service was asked: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)";
const UNREACHABLE: &str = " (cannot reach the endpoint: check AWS_ENDPOINT and that the server is running; plain http:// needs AWS_ALLOW_HTTP=true)";

/// What to check when a request to the store fails with `error`: by its kind where
/// object_store classifies it, else by the S3 error code or transport failure in its text.
pub fn hint(error: &object_store::Error) -> &'static str {
    match error {
        object_store::Error::NotFound { .. } => MISSING_BUCKET,
        object_store::Error::PermissionDenied { .. }
        | object_store::Error::Unauthenticated { .. } => REFUSED_CREDENTIALS,
        _ => {
            let text = error.to_string();
            let says = |codes: &[&str]| codes.iter().any(|code| text.contains(code));
            if says(&["169.254.169.254"]) {
                NO_CREDENTIALS
            } else if says(&["NoSuchBucket"]) {
                MISSING_BUCKET
            } else if says(&[
                "SignatureDoesNotMatch",
                "InvalidAccessKeyId",
                "AccessDenied",
            ]) {
                REFUSED_CREDENTIALS
            } else if says(&["error sending request", "connect"]) {
                UNREACHABLE
            } else {
                ""
            }
        }
    }
}

/// A store error as a pipeline error: `action` (`"cannot list"`, ...) on `url`.
pub fn store_error(
    action: &'static str,
    url: String,
    error: &object_store::Error,
) -> PipelineError {
    PipelineError::Store {
        action,
        url,
        message: error.to_string(),
        hint: hint(error),
    }
}
