//! The S3 client of an output URL: a store configured the standard way (the URL, then the
//! `AWS_*` environment variables), the runtime its requests run on, and errors that say what
//! to fix.
//!
//! It sends nothing to an address the user did not name. Credentials come from
//! `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`, or from a provider the environment sets up
//! explicitly (a web identity token file, a container credentials URI); `AWS_SKIP_SIGNATURE=true`
//! needs none. Without any of those, the cloud instance metadata service (169.254.169.254) is
//! asked only when `AWS_EC2_METADATA_DISABLED=false` says so: unlike the AWS SDKs, which ask it
//! unless the variable is `true`, so that a laptop or a CI job never sends a request there.

use std::future::Future;
use std::sync::{Arc, Once};
use std::time::Duration;

use object_store::aws::{AmazonS3, AmazonS3Builder, AmazonS3ConfigKey};
use object_store::{BackoffConfig, ClientConfigKey, ObjectStoreExt, RetryConfig};
use tokio::runtime::Runtime;

use super::connector::{is_true, NoRedirects};
use crate::error::PipelineError;
use crate::output::StoreUrl;
use crate::signals;

/// Retries of one request before it fails: enough to ride out a busy server, bounded so that an
/// unreachable endpoint fails the run within seconds instead of hanging it.
const MAX_RETRIES: usize = 4;
/// The longest a request is retried, whatever `MAX_RETRIES` allows.
const RETRY_TIMEOUT: Duration = Duration::from_secs(15);
/// How often a request waited on looks for a termination signal.
const SIGNAL_CHECKS: Duration = Duration::from_millis(100);
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
    /// region, keys, `AWS_ALLOW_HTTP`, `AWS_EC2_METADATA_DISABLED`), then `settings` (the same
    /// names, e.g. `("AWS_ENDPOINT", "http://...")`, which win), with bounded retries and
    /// time-outs. Refuses a plain `http://` endpoint without `AWS_ALLOW_HTTP`, and a client
    /// without credentials that would ask the instance metadata service unasked.
    pub fn connect(url: &StoreUrl, settings: &[(String, String)]) -> Result<Client, PipelineError> {
        install_tls_provider();
        let refused = |message: String, hint: &'static str| PipelineError::Store {
            action: "cannot configure the S3 client for",
            url: url.to_string(),
            message,
            hint,
        };
        let mut builder = AmazonS3Builder::from_env();
        let mut metadata = std::env::var(METADATA_DISABLED).ok();
        for (name, value) in settings {
            if name == METADATA_DISABLED {
                metadata = Some(value.clone());
                continue;
            }
            let key = name
                .to_ascii_lowercase()
                .parse()
                .map_err(|_| refused(format!("{name} is not an S3 setting"), ""))?;
            builder = builder.with_config(key, value);
        }
        check_endpoint(&builder).map_err(|(message, hint)| refused(message, hint))?;
        check_credentials(&builder, metadata.as_deref())
            .map_err(|(message, hint)| refused(message, hint))?;
        let store = builder
            .with_bucket_name(&url.bucket)
            .with_http_connector(NoRedirects)
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

    /// Whether an object is at `key`: `Ok(false)` when the store says there is none, the
    /// store's error (a missing bucket, refused credentials) otherwise.
    pub fn exists(&self, key: &object_store::path::Path) -> Result<bool, PipelineError> {
        match self.until_signal(self.store.head(key)) {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(error) => Err(store_error("look up", key.to_string(), &error)),
        }
    }

    /// Runs `request` to completion on the client's runtime, from a thread outside it: for
    /// the commit's requests and the clean-up's, which a signal must not cut short.
    pub fn block_on<F: Future>(&self, request: F) -> F::Output {
        self.runtime.block_on(request)
    }

    /// Runs `request` on the client's runtime until it ends or a termination signal arrives,
    /// whichever is first: a server that does not answer holds a request for up to
    /// [`REQUEST_TIMEOUT`], and the run's first signal must end it at once (a second one
    /// kills the process, with its uploads left behind). For the requests before the commit.
    pub fn until_signal<T>(
        &self,
        request: impl Future<Output = object_store::Result<T>>,
    ) -> object_store::Result<T> {
        self.runtime.block_on(async {
            let mut request = std::pin::pin!(request);
            loop {
                match tokio::time::timeout(SIGNAL_CHECKS, request.as_mut()).await {
                    Ok(output) => return output,
                    Err(_) => {
                        if let Some(signal) = signals::received() {
                            return Err(object_store::Error::Generic {
                                store: "S3",
                                source: Box::new(StoppedBySignal(signal)),
                            });
                        }
                    }
                }
            }
        })
    }
}

fn client_key(key: ClientConfigKey) -> AmazonS3ConfigKey {
    AmazonS3ConfigKey::Client(key)
}

/// The variable that allows (`false`) or forbids (`true`, and by default) asking the instance
/// metadata service for credentials.
const METADATA_DISABLED: &str = "AWS_EC2_METADATA_DISABLED";

/// Refuses an endpoint that is not an http:// or https:// URL (object_store's request builder
/// panics on one), and a plain `http://` one unless `AWS_ALLOW_HTTP` allows it (the client
/// would otherwise fail every request with a bare "builder error").
fn check_endpoint(builder: &AmazonS3Builder) -> Result<(), (String, &'static str)> {
    let endpoint = builder
        .get_config_value(&AmazonS3ConfigKey::S3Endpoint)
        .or_else(|| builder.get_config_value(&AmazonS3ConfigKey::Endpoint));
    let Some(endpoint) = endpoint else {
        return Ok(());
    };
    let url = reqwest::Url::parse(&endpoint).ok();
    let scheme = url.as_ref().map(|url| url.scheme().to_string());
    if !matches!(scheme.as_deref(), Some("http" | "https")) || url.is_some_and(|u| !u.has_host()) {
        return Err((
            format!("the endpoint '{endpoint}' is not an http:// or https:// URL"),
            NOT_A_URL,
        ));
    }
    let allowed = builder
        .get_config_value(&client_key(ClientConfigKey::AllowHttp))
        .is_some_and(|value| is_true(&value));
    match scheme.as_deref() == Some("http") && !allowed {
        true => Err((
            format!("the endpoint {endpoint} is plain http://"),
            PLAIN_HTTP,
        )),
        false => Ok(()),
    }
}

/// Refuses a client whose credentials would come from the instance metadata service unless
/// `metadata` (the value of `AWS_EC2_METADATA_DISABLED`) is `false`; fails on a key id without
/// its secret, or the reverse. Which provider object_store picks follows its
/// `AmazonS3Builder::build`: keys, then a web identity, then container credentials, then the
/// instance metadata service. The error is the problem and what to set.
fn check_credentials(
    builder: &AmazonS3Builder,
    metadata: Option<&str>,
) -> Result<(), (String, &'static str)> {
    let set = |key: AmazonS3ConfigKey| {
        builder
            .get_config_value(&key)
            .is_some_and(|value| !value.is_empty())
    };
    let key_id = set(AmazonS3ConfigKey::AccessKeyId);
    let secret = set(AmazonS3ConfigKey::SecretAccessKey);
    if key_id != secret {
        let (given, missing) = if key_id {
            ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")
        } else {
            ("AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID")
        };
        return Err((format!("{given} is set but {missing} is not"), HALF_A_KEY));
    }
    let explicit = key_id
        || builder
            .get_config_value(&AmazonS3ConfigKey::SkipSignature)
            .is_some_and(|value| is_true(&value))
        || (set(AmazonS3ConfigKey::WebIdentityTokenFile) && set(AmazonS3ConfigKey::RoleArn))
        || set(AmazonS3ConfigKey::ContainerCredentialsRelativeUri)
        || (set(AmazonS3ConfigKey::ContainerCredentialsFullUri)
            && set(AmazonS3ConfigKey::ContainerAuthorizationTokenFile));
    let metadata_allowed = metadata.is_some_and(|value| value.trim().eq_ignore_ascii_case("false"));
    if explicit || metadata_allowed {
        return Ok(());
    }
    let problem = match metadata {
        Some(value) => format!("no credentials are set, and {METADATA_DISABLED}={value} forbids asking the instance metadata service"),
        None => "no credentials are set".to_string(),
    };
    Err((problem, NO_CREDENTIALS))
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
const NO_CREDENTIALS: &str = " (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN; AWS_SKIP_SIGNATURE=true for a public bucket; on a cloud instance, AWS_EC2_METADATA_DISABLED=false lets the pipeline ask the instance metadata service at 169.254.169.254 for its role's credentials)";
const METADATA_FAILED: &str = " (no credentials were set, so the instance metadata service was asked, as AWS_EC2_METADATA_DISABLED=false allows: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or run on an instance with a role)";
const HALF_A_KEY: &str = " (set both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or neither)";
const PLAIN_HTTP: &str = " (set AWS_ALLOW_HTTP=true to allow it, or use https://)";
const REDIRECTED: &str = " (the server answered with a redirect, which the client does not follow: a request's signature and credentials are for the endpoint named alone; point AWS_ENDPOINT at the server that holds the bucket)";
const NOT_A_URL: &str = " (write AWS_ENDPOINT as a URL: http://127.0.0.1:3900 with AWS_ALLOW_HTTP=true, or https://HOST)";
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
                METADATA_FAILED
            } else if says(&["status code: 30"]) {
                REDIRECTED
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

/// Why [`Client::until_signal`] gave up on a request: the run was told to stop.
#[derive(Debug, thiserror::Error)]
#[error("stopped by signal {0}")]
struct StoppedBySignal(i32);

/// A store error as a pipeline error: `action` (`"cannot list"`, ...) on `url`; a request a
/// signal cut short is the run stopped by that signal.
pub fn store_error(
    action: &'static str,
    url: String,
    error: &object_store::Error,
) -> PipelineError {
    if let object_store::Error::Generic { source, .. } = error {
        if let Some(StoppedBySignal(signal)) = source.downcast_ref() {
            return PipelineError::Interrupted { signal: *signal };
        }
    }
    PipelineError::Store {
        action,
        url,
        message: error.to_string(),
        hint: hint(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builder(settings: &[(&str, &str)]) -> AmazonS3Builder {
        settings
            .iter()
            .fold(AmazonS3Builder::new(), |builder, (name, value)| {
                builder.with_config(name.to_ascii_lowercase().parse().unwrap(), *value)
            })
    }

    #[test]
    fn the_metadata_service_is_asked_only_when_allowed() {
        let nothing = builder(&[]);
        let err = check_credentials(&nothing, None).unwrap_err().0;
        assert_eq!(err, "no credentials are set");
        let err = check_credentials(&nothing, Some("true")).unwrap_err().0;
        assert!(
            err.contains("AWS_EC2_METADATA_DISABLED=true forbids"),
            "{err}"
        );
        assert!(check_credentials(&nothing, Some("false")).is_ok());
        for given in [
            &[("AWS_ACCESS_KEY_ID", "k"), ("AWS_SECRET_ACCESS_KEY", "s")][..],
            &[("AWS_SKIP_SIGNATURE", "true")],
            &[("AWS_WEB_IDENTITY_TOKEN_FILE", "/t"), ("AWS_ROLE_ARN", "r")],
            &[("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "/v2/creds")],
        ] {
            assert!(
                check_credentials(&builder(given), Some("true")).is_ok(),
                "{given:?}"
            );
        }
        let err = check_credentials(&builder(&[("AWS_ACCESS_KEY_ID", "k")]), None)
            .unwrap_err()
            .0;
        assert_eq!(
            err,
            "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not"
        );
    }

    #[test]
    fn an_endpoint_is_an_http_url_and_plain_http_needs_allow_http() {
        let plain = [("AWS_ENDPOINT", "http://127.0.0.1:1")];
        let err = check_endpoint(&builder(&plain)).unwrap_err().0;
        assert_eq!(err, "the endpoint http://127.0.0.1:1 is plain http://");
        let allowed = [plain[0], ("AWS_ALLOW_HTTP", "true")];
        assert!(check_endpoint(&builder(&allowed)).is_ok());
        assert!(check_endpoint(&builder(&[("AWS_ENDPOINT", "https://s3.example")])).is_ok());
        assert!(check_endpoint(&builder(&[])).is_ok());
        for endpoint in [
            "127.0.0.1:9000",
            "notaurl",
            "",
            " ",
            "ftp://s3.example",
            "http://",
        ] {
            let (message, hint) =
                check_endpoint(&builder(&[("AWS_ENDPOINT", endpoint)])).unwrap_err();
            assert!(
                message.contains("is not an http:// or https:// URL"),
                "{endpoint}: {message}"
            );
            assert_eq!(hint, NOT_A_URL);
        }
    }
}
