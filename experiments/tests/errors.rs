//! Every error path: a clear message, a non-zero exit, and no file that looks complete.

mod common;

use std::io;

use common::{assert_empty, assert_unchanged, contents, entries, pipeline_command, run_pipeline};
use indicatif::ProgressBar;
use shredlab_experiments::config::{PipelineConfig, RunRequest};
use shredlab_experiments::error::PipelineError;
use shredlab_experiments::fault::{FaultySinks, PanickingSource, SinkFault};
use shredlab_experiments::output::dir::OutputDir;
use shredlab_experiments::output::SinkFactory;
use shredlab_experiments::pipeline::generate_and_write;
use shredlab_experiments::shard::Shard;
use shredlab_experiments::source::ContactSource;

fn assert_fails(args: &[&str], expected: &str) {
    let out = run_pipeline(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} succeeded");
    assert!(stderr.contains(expected), "{args:?}: stderr was {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
}

#[test]
fn bad_options_are_named_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    let with = |extra: &[&'static str]| {
        let mut args = vec!["--output-dir", out, "--rows", "1000"];
        args.extend_from_slice(extra);
        args
    };
    assert_fails(&with(&["--rows", "0"]), "--rows must be at least 1");
    assert_fails(
        &with(&["--producers", "0"]),
        "--producers must be at least 1",
    );
    assert_fails(&with(&["--writers", "0"]), "--writers must be at least 1");
    assert_fails(
        &with(&["--batch-size", "0"]),
        "--batch-size must be at least 1",
    );
    assert_fails(
        &with(&["--rows", "2000000001"]),
        "--rows 2000000001 is too many for the contacts: their phone numbers must stay unique in 10 digits, with up to 5 per row; use at most 2000000000 rows",
    );
    assert_fails(&with(&["--experiment", "99"]), "unknown experiment 99");
    assert_fails(
        &with(&["--enable", "warp-drive"]),
        "unknown optimization 'warp-drive'",
    );
    assert_fails(&with(&["--compression", "zstd(40)"]), "zstd(LEVEL)");
    assert_fails(
        &with(&["--zipf-exponent=-1"]),
        "--zipf-exponent -1 is not usable: give a finite number >= 0",
    );
    assert_fails(&with(&["--rows", "many"]), "invalid value 'many'");
    let huge = "18446744073709551615";
    for experiment in ["0", "19"] {
        assert_fails(
            &with(&[
                "-e",
                experiment,
                "--batch-size",
                huge,
                "--parts",
                "2",
                "--part",
                "1",
            ]),
            "--batch-size 18446744073709551615 is too large: at most 16777216",
        );
    }
    assert_fails(
        &with(&["--producers", "100000"]),
        "--producers 100000 is too large: at most 1024",
    );
    assert_fails(
        &with(&["--writers", "5000"]),
        "--writers 5000 is too large: at most 1024",
    );
    assert_fails(
        &with(&["--rows", "1", "--parts", "2", "--part", "0"]),
        "holds none of the 1 rows",
    );
    assert_fails(
        &with(&["--row-group-rows", "0"]),
        "--row-group-rows must be at least 1",
    );
    for flag in ["--row-groups-in-flight", "--writer-budget-mib"] {
        assert_fails(
            &with(&["-e", "16", flag, "1"]),
            &format!("{flag} sets the parallel writer, which this run does not use"),
        );
        assert_fails(
            &with(&["-e", "17", flag, "0"]),
            &format!("{flag} must be at least 1"),
        );
    }
    assert_fails(
        &with(&["-e", "17", "--writer-budget-mib", "2000000"]),
        "--writer-budget-mib 2000000 is too large: at most 1048576",
    );
    assert_fails(
        &with(&["-e", "28", "--writer-budget-mib", "8"]),
        "--writer-budget-mib bounds the parallel writer's queue, which fused row groups do not have",
    );
    assert!(
        entries(&dir.path().join("out")).is_empty(),
        "a failed start wrote files"
    );
}

/// Messages name the flag a value came from, in numbers a person can read; never a field of the
/// generator's configuration.
#[test]
fn values_are_named_by_their_flag_and_readable() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    for (value, shown) in [("-1e300", "-1e300"), ("nan", "NaN"), ("-1e-300", "-1e-300")] {
        let flag = format!("--zipf-exponent={value}");
        let out = run_pipeline(&["-n", "10", "-o", out, &flag]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{value} was accepted");
        assert!(
            stderr.contains(&format!("--zipf-exponent {shown} is not usable")),
            "{stderr}"
        );
        assert!(!stderr.contains("name_zipf_exponent"), "{stderr}");
        assert!(stderr.len() < 200, "{stderr}");
    }
}

/// `--list` shows every catalog entry's slug, but the ones that add no optimization cannot be
/// switched: the message says what to write instead.
#[test]
fn entries_that_add_no_optimization_say_what_to_switch() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    for (args, expected) in [
        (
            ["--enable", "system-allocator"],
            "'system-allocator' is catalog entry 22, not an optimization: it switches mimalloc off again; use --disable mimalloc",
        ),
        (
            ["--disable", "revert-interning"],
            "it switches interned-names off again; use --disable interned-names to switch it off, or --enable interned-names to switch it on",
        ),
        (
            ["--enable", "baseline"],
            "'baseline' is catalog entry 0, not an optimization: it switches nothing on; run it with -e 0",
        ),
    ] {
        assert_fails(&[&["-n", "10", "-o", out][..], &args[..]].concat(), expected);
    }
}

/// Switches that contradict each other are refused, not settled silently.
#[test]
fn contradicting_switches_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    assert_fails(
        &["-n", "10", "-o", out, "--enable", "jemalloc,mimalloc"],
        "--enable jemalloc,mimalloc: a process runs on one allocator; enable one of them",
    );
    assert_fails(
        &[
            "-n",
            "10",
            "-o",
            out,
            "--enable",
            "mimalloc",
            "--disable",
            "mimalloc",
        ],
        "--enable and --disable both name mimalloc: keep it in one of the two",
    );
    assert!(entries(dir.path()).is_empty());
}

/// `SHREDLAB_ALLOCATOR` takes the documented names; any other value is refused by name.
#[test]
fn an_unknown_allocator_variable_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = pipeline_command()
        .args(["-n", "10", "-q", "-o", dir.path().to_str().unwrap()])
        .env("SHREDLAB_ALLOCATOR", "tcmalloc")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("SHREDLAB_ALLOCATOR=tcmalloc names no allocator: set it to system (or glibc, the same), mimalloc or jemalloc, or unset it"),
        "{stderr}"
    );
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn output_directory_problems_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain-file");
    std::fs::write(&file, b"keep me").unwrap();
    assert_fails(
        &["-n", "10", "-o", file.to_str().unwrap()],
        "is not a directory",
    );
    let under_file = file.join("sub");
    assert_fails(
        &["-n", "10", "-o", under_file.to_str().unwrap()],
        "cannot use output directory",
    );
    let busy = dir.path().join("busy");
    std::fs::create_dir(&busy).unwrap();
    std::fs::write(busy.join("notes.txt"), b"mine").unwrap();
    assert_fails(
        &["-n", "10", "-o", busy.to_str().unwrap()],
        "pass --overwrite",
    );
    let dangling = dir.path().join("dangling");
    std::os::unix::fs::symlink(dir.path().join("gone"), &dangling).unwrap();
    assert_fails(
        &["-n", "10", "-o", dangling.to_str().unwrap()],
        "is a symbolic link to",
    );
    assert!(!dir.path().join("gone").exists());
    assert_eq!(std::fs::read(&file).unwrap(), b"keep me");
}

#[test]
fn overwrite_replaces_parts_and_removes_stale_ones_only() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let run = |writers: &str| {
        run_pipeline(&[
            "-n",
            "5000",
            "-o",
            out,
            "--writers",
            writers,
            "--overwrite",
            "-q",
        ])
    };
    assert!(run("3").status.success());
    std::fs::write(dir.path().join("notes.txt"), b"mine").unwrap();
    assert!(run("1").status.success());
    assert_eq!(
        entries(dir.path()),
        ["notes.txt", "part-00000.parquet", "part-manifest.json"]
    );
}

#[test]
fn list_prints_every_catalog_entry() {
    let out = run_pipeline(&["--list"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<_> = text.lines().skip(1).collect();
    assert_eq!(rows.len(), shredlab_experiments::catalog::CATALOG.len());
    for (row, entry) in rows.iter().zip(shredlab_experiments::catalog::CATALOG) {
        assert!(
            row.trim_start()
                .starts_with(&format!("{:02}  {}", entry.number, entry.slug)),
            "{row}"
        );
        assert!(row.contains(entry.summary));
    }
}

#[test]
fn json_is_one_line_with_the_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_pipeline(&[
        "-n",
        "3000",
        "-o",
        dir.path().to_str().unwrap(),
        "--json",
        "--verify",
        "-e",
        "8",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1);
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(report["rows"], 3000);
    assert_eq!(report["gate"], "pass");
    assert_eq!(report["file_order_digest"]["rows"], 3000);
    assert_eq!(
        report["file_order_digest"]["hash"].as_str().unwrap().len(),
        32
    );
    assert!(report["output_bytes"].as_u64().unwrap() > 0);
    assert!(report["arrow_bytes"].as_u64().unwrap() > 0);
}

#[test]
fn json_without_verify_has_no_file_order_digest() {
    let dir = tempfile::tempdir().unwrap();
    let out = run_pipeline(&["-n", "30", "-o", dir.path().to_str().unwrap(), "--json"]);
    assert!(out.status.success());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["digest"].is_null());
    assert!(report.get("file_order_digest").is_none(), "{report}");
}

/// The channel pipeline of experiment 27 and the fused row-group workers of 28, each with one
/// file and with several: every failure test runs on all four.
const TOPOLOGIES: [(u32, usize); 4] = [(27, 1), (27, 2), (28, 1), (28, 3)];

fn config(experiment: u32, writers: usize, producers: usize) -> PipelineConfig {
    let request = RunRequest {
        experiment,
        rows: 50_000,
        // 49 batches in five row groups, so fused workers spread them over several files.
        batch_size: Some(1024),
        row_group_rows: Some(10_000),
        writers: Some(writers),
        producers: Some(producers),
        ..RunRequest::default()
    };
    PipelineConfig::resolve(&request, 2).unwrap()
}

/// Fixed-size in-memory sinks of `limit` bytes each: a write past the end fails.
struct FailingSinks {
    limit: usize,
}

impl SinkFactory for FailingSinks {
    type Sink = io::Cursor<Box<[u8]>>;

    fn create(&self, _: usize) -> Result<Self::Sink, PipelineError> {
        Ok(io::Cursor::new(vec![0; self.limit].into_boxed_slice()))
    }
}

/// Sinks on /dev/full, the kernel's always-full device.
struct DevFull;

impl SinkFactory for DevFull {
    type Sink = std::fs::File;

    fn create(&self, _: usize) -> Result<std::fs::File, PipelineError> {
        Ok(std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap())
    }
}

fn contacts(config: &PipelineConfig) -> ContactSource {
    ContactSource::try_new(config.seed, config.skew.clone(), config.optimizations).unwrap()
}

#[test]
fn a_full_disk_stops_the_run_with_an_error() {
    for (experiment, writers) in TOPOLOGIES {
        for producers in [1, 2] {
            let config = config(experiment, writers, producers);
            let err = generate_and_write(
                &config,
                &contacts(&config),
                &DevFull,
                &ProgressBar::hidden(),
            )
            .unwrap_err()
            .to_string();
            assert!(err.contains("disk is full"), "-e {experiment}: {err}");
        }
    }
}

#[test]
fn a_sink_failing_midway_stops_the_run_with_an_error() {
    for (experiment, writers) in TOPOLOGIES {
        for limit in [0, 100, 200_000] {
            let config = config(experiment, writers, 2);
            let result = generate_and_write(
                &config,
                &contacts(&config),
                &FailingSinks { limit },
                &ProgressBar::hidden(),
            );
            let err = result.unwrap_err();
            assert!(
                matches!(err, PipelineError::FileFailed { .. }),
                "-e {experiment}, limit {limit}: {err}"
            );
        }
    }
}

#[test]
fn a_panicking_producer_ends_the_run_with_an_error_and_no_files() {
    for (experiment, writers) in TOPOLOGIES {
        for (producers, panic_at) in [(1, 0), (2, 3), (4, 30)] {
            let dir = tempfile::tempdir().unwrap();
            let output = OutputDir::prepare(dir.path(), false, Shard::WHOLE).unwrap();
            let config = config(experiment, writers, producers);
            let source = PanickingSource::new(contacts(&config), panic_at);
            let err =
                generate_and_write(&config, &source, &output, &ProgressBar::hidden()).unwrap_err();
            assert!(
                err.to_string().contains("injected producer failure"),
                "-e {experiment}: {err}"
            );
            assert_empty(dir.path());
        }
    }
}

#[test]
fn a_failing_writer_leaves_the_earlier_run_whole() {
    for (experiment, writers) in TOPOLOGIES {
        let dir = tempfile::tempdir().unwrap();
        let out = run_pipeline(&["-n", "20000", "-q", "-o", dir.path().to_str().unwrap()]);
        assert!(out.status.success());
        let before = contents(dir.path());
        let output = OutputDir::prepare(dir.path(), true, Shard::WHOLE).unwrap();
        let config = config(experiment, writers, 2);
        let sinks = FaultySinks::new(&output, SinkFault::FailAfter(100_000));
        let err = generate_and_write(&config, &contacts(&config), &sinks, &ProgressBar::hidden())
            .unwrap_err();
        assert!(
            err.to_string().contains("injected write failure"),
            "-e {experiment}: {err}"
        );
        assert_unchanged(dir.path(), &before);
    }
}

/// The `pipeline` command with `env` and no other `AWS_*` variable of the tests' environment.
fn with_aws_env(env: &[(&str, &str)]) -> std::process::Command {
    let mut command = pipeline_command();
    for (name, _) in std::env::vars().filter(|(k, _)| k.starts_with("AWS_")) {
        command.env_remove(name);
    }
    command.envs(env.iter().copied());
    command
}

/// Runs `pipeline ARGS` in a fresh directory with `env` (see [`with_aws_env`]); returns its exit
/// code, its stderr, and what it created in that directory.
fn run_in_scratch(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, Vec<String>) {
    let scratch = tempfile::tempdir().unwrap();
    let out = with_aws_env(env)
        .args(args)
        .current_dir(scratch.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), stderr, entries(scratch.path()))
}

#[test]
fn output_urls_of_other_kinds_are_refused_and_create_nothing() {
    for (url, says) in [
        (
            "S3://bucket/p",
            "the scheme S3:// is not lower case: write s3://bucket/p",
        ),
        (
            "gs://bucket/p",
            "gs:// is not a destination this program writes to",
        ),
        ("http://127.0.0.1:1/x", "http:// is not a destination"),
        ("file://host/x", "not the host 'host': write file:///PATH"),
    ] {
        let (code, stderr, created) = run_in_scratch(&["-n", "10", "-q", "-o", url], &[]);
        assert_eq!(code, Some(1), "{url}: {stderr}");
        assert!(stderr.contains(says), "{url}: {stderr}");
        assert!(created.is_empty(), "{url} created {created:?}");
    }
    let dir = tempfile::tempdir().unwrap();
    let url = format!("file://{}/pct%20x", dir.path().display());
    assert!(run_pipeline(&["-n", "10", "-q", "-o", &url])
        .status
        .success());
    assert_eq!(entries(dir.path()), ["pct x"]);
}

#[test]
fn a_plain_http_endpoint_without_allow_http_names_the_variable() {
    let keys = [("AWS_ACCESS_KEY_ID", "k"), ("AWS_SECRET_ACCESS_KEY", "s")];
    let env = [keys[0], keys[1], ("AWS_ENDPOINT", "http://127.0.0.1:1")];
    let (code, stderr, _) = run_in_scratch(&["-n", "10", "-q", "-o", "s3://b/p"], &env);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr
            .contains("the endpoint http://127.0.0.1:1 is plain http:// (set AWS_ALLOW_HTTP=true"),
        "{stderr}"
    );
}

#[test]
fn without_credentials_no_metadata_service_is_asked() {
    // A stand-in metadata service: the client must not connect to it.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let base = [
        ("AWS_ENDPOINT", "http://127.0.0.1:1"),
        ("AWS_ALLOW_HTTP", "true"),
        ("AWS_METADATA_ENDPOINT", endpoint.as_str()),
    ];
    for disabled in [None, Some("true")] {
        let mut env = base.to_vec();
        env.extend(disabled.map(|value| ("AWS_EC2_METADATA_DISABLED", value)));
        let mut command = with_aws_env(&env);
        if disabled.is_none() {
            command.env_remove("AWS_EC2_METADATA_DISABLED");
        }
        let out = command
            .args(["-n", "10", "-q", "-o", "s3://b/p"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains("no credentials are set")
                && stderr.contains("set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
                && stderr.contains("AWS_EC2_METADATA_DISABLED=false"),
            "{stderr}"
        );
        assert!(
            listener.accept().is_err(),
            "the metadata service was asked ({disabled:?})"
        );
    }
}

/// A server that answers with a redirect to another address: the client follows none, so
/// nothing (no session token, no signed request) reaches the address it names, and the error
/// says so with the fix.
#[test]
fn a_redirect_is_not_followed_and_is_named() {
    use std::io::{Read, Write};
    let elsewhere = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    elsewhere.set_nonblocking(true).unwrap();
    let target = elsewhere.local_addr().unwrap();
    let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", server.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut stream in server.incoming().flatten() {
            let mut request = [0; 4096];
            let _ = stream.read(&mut request);
            let answer = format!("HTTP/1.1 307 Temporary Redirect\r\nLocation: http://{target}/b\r\nContent-Length: 0\r\n\r\n");
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    let env = [
        ("AWS_ACCESS_KEY_ID", "k"),
        ("AWS_SECRET_ACCESS_KEY", "s"),
        ("AWS_SESSION_TOKEN", "secret-token"),
        ("AWS_ALLOW_HTTP", "true"),
        ("AWS_ENDPOINT", endpoint.as_str()),
    ];
    let (code, stderr, _) = run_in_scratch(&["-n", "10", "-q", "-o", "s3://b/p"], &env);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("307 Temporary Redirect")
            && stderr
                .contains("the server answered with a redirect, which the client does not follow"),
        "{stderr}"
    );
    assert!(elsewhere.accept().is_err(), "the redirect was followed");
}

#[test]
fn an_endpoint_that_is_not_a_url_is_named_with_the_fix() {
    let keys = [("AWS_ACCESS_KEY_ID", "k"), ("AWS_SECRET_ACCESS_KEY", "s")];
    for endpoint in ["127.0.0.1:9000", "notaurl", ""] {
        let env = [keys[0], keys[1], ("AWS_ENDPOINT", endpoint)];
        let (code, stderr, _) = run_in_scratch(&["-n", "10", "-q", "-o", "s3://b/p"], &env);
        assert_eq!(code, Some(1), "{endpoint}: {stderr}");
        assert!(
            stderr.contains(&format!("the endpoint '{endpoint}' is not an http:// or https:// URL (write AWS_ENDPOINT as a URL")),
            "{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

/// A named pipe where a neighbouring shard's manifest would be: opening it would wait for a
/// writer forever, deaf to signals; the run names it instead.
#[test]
fn a_named_pipe_among_the_manifests_is_named_not_opened() {
    let dir = tempfile::tempdir().unwrap();
    let pipe = dir.path().join("shard-00000-of-00002-part-manifest.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&pipe)
        .status()
        .unwrap();
    assert!(made.success());
    let out = dir.path().to_str().unwrap();
    let child = pipeline_command()
        .args(["-n", "1000", "-q", "--part", "1", "--parts", "2", "-o", out])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let output = output_within(child, 60, "the run hung opening the named pipe");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("shard-00000-of-00002-part-manifest.json is not a regular file: move it out of the directory"),
        "{stderr}"
    );
}

/// A server that takes the connection and never answers holds a request for up to two
/// minutes: the run's first SIGINT ends it at once, as a stopped run.
#[test]
fn a_signal_ends_a_request_the_server_never_answers() {
    let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", server.local_addr().unwrap());
    std::thread::spawn(move || {
        let held: Vec<_> = server.incoming().take(16).collect();
        std::thread::sleep(std::time::Duration::from_secs(300));
        drop(held);
    });
    let scratch = tempfile::tempdir().unwrap();
    let env = [
        ("AWS_ACCESS_KEY_ID", "k"),
        ("AWS_SECRET_ACCESS_KEY", "s"),
        ("AWS_ALLOW_HTTP", "true"),
        ("AWS_ENDPOINT", endpoint.as_str()),
    ];
    let child = with_aws_env(&env)
        .args(["-n", "1000", "-q", "-o", "s3://b/p"])
        .current_dir(scratch.path())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(1));
    let pid = child.id().to_string();
    let sent = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status();
    assert!(sent.unwrap().success());
    let output = output_within(
        child,
        10,
        "one SIGINT did not end the run waiting on the server",
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("stopped by signal 2"), "{stderr}");
}

/// The output of `child` once it has exited, within `seconds`; killed, and the test failed
/// with `hung`, if it has not.
fn output_within(mut child: std::process::Child, seconds: u64, hung: &str) -> std::process::Output {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("{hung}");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}
