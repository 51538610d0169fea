//! The HTTP client of the S3 store: object_store's reqwest client, built from the same
//! settings, except that it follows no redirect.
//!
//! reqwest follows up to ten redirects by default, to any host, and strips only the
//! `Authorization` header on the way: a server that answered with a redirect had the run send
//! its next requests, with their session token, signing date and bucket, to the address it
//! named. An S3 request's signature does not carry over a redirect anyway, so the client stops
//! at the first one and the run fails with the server's answer (`hint` names the fix).

use std::time::Duration;

use object_store::client::{HttpClient, HttpConnector};
use object_store::{ClientConfigKey, ClientOptions};

/// What every request says it is, where the settings give no user agent.
const USER_AGENT: &str = concat!("shredlab/", env!("CARGO_PKG_VERSION"));

/// Builds object_store's client for the settings a run can give (time-outs, plain http,
/// proxies, certificates, HTTP versions, pools, user agent) with redirects off; refuses the
/// settings it cannot honour rather than drop them.
#[derive(Debug, Default)]
pub struct NoRedirects;

impl HttpConnector for NoRedirects {
    fn connect(&self, options: &ClientOptions) -> object_store::Result<HttpClient> {
        let client = client_builder(options)
            .and_then(|builder| builder.build().map_err(|e| e.to_string()))
            .map_err(|message| object_store::Error::Generic {
                store: "S3",
                source: message.into(),
            })?;
        Ok(HttpClient::new(client))
    }
}

/// reqwest's builder for `options`, following no redirect.
fn client_builder(options: &ClientOptions) -> Result<reqwest::ClientBuilder, String> {
    use ClientConfigKey::*;
    refuse_unhonoured(options)?;
    let value = |key: ClientConfigKey| options.get_config_value(&key);
    let flag = |key| value(key).is_some_and(|v| is_true(&v));
    let duration = |key| value(key).map(|v| parse_duration(&v)).transpose();
    let mut builder = reqwest::ClientBuilder::new()
        .redirect(reqwest::redirect::Policy::none())
        .https_only(!flag(AllowHttp))
        .user_agent(value(UserAgent).unwrap_or_else(|| USER_AGENT.to_string()));
    if let Some(timeout) = duration(Timeout)? {
        builder = builder.timeout(timeout);
    }
    if let Some(timeout) = duration(ConnectTimeout)? {
        builder = builder.connect_timeout(timeout);
    }
    if let Some(timeout) = duration(ReadTimeout)? {
        builder = builder.read_timeout(timeout);
    }
    if let Some(timeout) = duration(PoolIdleTimeout)? {
        builder = builder.pool_idle_timeout(timeout);
    }
    if let Some(max) = value(PoolMaxIdlePerHost) {
        let max = max
            .parse()
            .map_err(|_| format!("pool_max_idle_per_host {max} is not a whole number"))?;
        builder = builder.pool_max_idle_per_host(max);
    }
    if let Some(url) = value(ProxyUrl) {
        let proxy = reqwest::Proxy::all(&url).map_err(|e| format!("proxy_url {url}: {e}"))?;
        let excludes = value(ProxyExcludes).and_then(|e| reqwest::NoProxy::from_string(&e));
        builder = builder.proxy(proxy.no_proxy(excludes));
    }
    if flag(AllowInvalidCertificates) {
        builder = builder.danger_accept_invalid_certs(true);
    }
    if flag(Http1Only) {
        builder = builder.http1_only();
    }
    if flag(Http2Only) {
        builder = builder.http2_prior_knowledge();
    }
    Ok(builder)
}

/// Refuses a setting this client does not build in, naming it: dropping it silently would
/// change what the run sends.
fn refuse_unhonoured(options: &ClientOptions) -> Result<(), String> {
    use ClientConfigKey::*;
    let unhonoured = [
        ProxyCaCertificate,
        NoSystemCertificates,
        Http2KeepAliveInterval,
        Http2KeepAliveTimeout,
        Http2MaxFrameSize,
    ];
    for key in unhonoured {
        let set = options
            .get_config_value(&key)
            .is_some_and(|v| !v.is_empty() && v != "false");
        if set {
            return Err(format!(
                "the S3 client setting {} is not supported: unset it",
                key.as_ref()
            ));
        }
    }
    Ok(())
}

/// A duration as object_store writes and reads them (`5s`, `2m 30s`).
fn parse_duration(text: &str) -> Result<Duration, String> {
    humantime::parse_duration(text).map_err(|e| format!("duration {text}: {e}"))
}

/// Whether a setting's value means yes, as object_store reads booleans.
pub fn is_true(value: &str) -> bool {
    ["true", "1", "yes", "on"].contains(&value.trim().to_ascii_lowercase().as_str())
}
