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
/// proxies, invalid certificates, HTTP versions and keep-alives, pools, user agent) with
/// redirects off, and refuses the certificate settings it cannot build in rather than drop
/// them. Addresses are tried in the order DNS gives them (object_store shuffles them).
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
    let flag = |key: ClientConfigKey| value(key).map_or(Ok(false), |v| parse_flag(&key, &v));
    let duration = |key| value(key).map(|v| parse_duration(&v)).transpose();
    let whole = |key: ClientConfigKey| {
        let parse = |text: String| {
            text.parse::<u32>()
                .map_err(|_| format!("{} {text} is not a whole number", key.as_ref()))
        };
        value(key).map(parse).transpose()
    };
    let mut builder = reqwest::ClientBuilder::new()
        .redirect(reqwest::redirect::Policy::none())
        .https_only(!flag(AllowHttp)?)
        .user_agent(value(UserAgent).unwrap_or_else(|| USER_AGENT.to_string()))
        .danger_accept_invalid_certs(flag(AllowInvalidCertificates)?)
        .http2_keep_alive_while_idle(flag(Http2KeepAliveWhileIdle)?);
    type SetDuration = fn(reqwest::ClientBuilder, Duration) -> reqwest::ClientBuilder;
    let durations: [(ClientConfigKey, SetDuration); 6] = [
        (Timeout, |b, d| b.timeout(d)),
        (ConnectTimeout, |b, d| b.connect_timeout(d)),
        (ReadTimeout, |b, d| b.read_timeout(d)),
        (PoolIdleTimeout, |b, d| b.pool_idle_timeout(d)),
        (Http2KeepAliveInterval, |b, d| {
            b.http2_keep_alive_interval(d)
        }),
        (Http2KeepAliveTimeout, |b, d| b.http2_keep_alive_timeout(d)),
    ];
    for (key, set) in durations {
        if let Some(duration) = duration(key)? {
            builder = set(builder, duration);
        }
    }
    if let Some(most) = whole(PoolMaxIdlePerHost)? {
        builder = builder.pool_max_idle_per_host(most as usize);
    }
    if let Some(size) = whole(Http2MaxFrameSize)? {
        builder = builder.http2_max_frame_size(size);
    }
    if let Some(url) = value(ProxyUrl) {
        let proxy = reqwest::Proxy::all(&url).map_err(|e| format!("proxy_url {url}: {e}"))?;
        let excludes = value(ProxyExcludes).and_then(|e| reqwest::NoProxy::from_string(&e));
        builder = builder.proxy(proxy.no_proxy(excludes));
    }
    if flag(Http1Only)? {
        builder = builder.http1_only();
    }
    if flag(Http2Only)? {
        builder = builder.http2_prior_knowledge();
    }
    Ok(builder)
}

/// Refuses a setting this client does not build in, naming it: dropping it silently would
/// change whom the run trusts.
fn refuse_unhonoured(options: &ClientOptions) -> Result<(), String> {
    let ca_certificate = ClientConfigKey::ProxyCaCertificate;
    if options.get_config_value(&ca_certificate).is_some() {
        return Err(format!(
            "the S3 client setting {} is not supported: unset it",
            ca_certificate.as_ref()
        ));
    }
    let system = ClientConfigKey::NoSystemCertificates;
    let value = options.get_config_value(&system);
    if value.is_some_and(|v| parse_flag(&system, &v) != Ok(false)) {
        return Err(format!(
            "the S3 client setting {} is not supported: unset it",
            system.as_ref()
        ));
    }
    Ok(())
}

/// A duration as object_store writes and reads them (`5s`, `2m 30s`).
fn parse_duration(text: &str) -> Result<Duration, String> {
    humantime::parse_duration(text).map_err(|e| format!("duration {text}: {e}"))
}

/// A yes or no as object_store reads them; anything else is refused, naming `key`.
fn parse_flag(key: &ClientConfigKey, value: &str) -> Result<bool, String> {
    match is_true(value) {
        true => Ok(true),
        false
            if ["0", "false", "off", "no", "n"]
                .contains(&value.trim().to_ascii_lowercase().as_str()) =>
        {
            Ok(false)
        }
        false => Err(format!(
            "{} \"{value}\" is neither true nor false",
            key.as_ref()
        )),
    }
}

/// Whether a setting's value means yes, as object_store reads booleans.
pub fn is_true(value: &str) -> bool {
    ["true", "1", "yes", "on", "y"].contains(&value.trim().to_ascii_lowercase().as_str())
}

#[cfg(test)]
mod tests {
    use object_store::{ClientConfigKey, ClientOptions};

    use super::{client_builder, parse_flag};

    #[test]
    fn flags_read_as_object_store_reads_them_and_others_are_refused() {
        let key = ClientConfigKey::AllowHttp;
        for yes in ["true", "1", "on", "yes", "y", "TRUE"] {
            assert_eq!(parse_flag(&key, yes), Ok(true), "{yes}");
        }
        for no in ["false", "0", "off", "no", "n", "FALSE"] {
            assert_eq!(parse_flag(&key, no), Ok(false), "{no}");
        }
        let refused = parse_flag(&key, "maybe").unwrap_err();
        assert_eq!(refused, "allow_http \"maybe\" is neither true nor false");
    }

    #[test]
    fn certificate_settings_it_cannot_build_in_are_refused_and_off_is_no_setting() {
        let off = ClientOptions::new().with_config(ClientConfigKey::NoSystemCertificates, "no");
        assert!(client_builder(&off).is_ok());
        let on = ClientOptions::new().with_config(ClientConfigKey::NoSystemCertificates, "true");
        let refused = client_builder(&on).map(|_| ()).unwrap_err();
        assert!(
            refused.contains("disable_system_certificates is not supported"),
            "{refused}"
        );
    }
}
