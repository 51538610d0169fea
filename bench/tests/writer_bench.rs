//! `writer-bench` refuses sizes it cannot run with a clear message, never a panic or an
//! out-of-memory kill.

#[test]
fn writer_bench_refuses_sizes_it_cannot_run() {
    for (flag, value) in [
        ("--columns", "0"),
        ("--rows", "0"),
        ("--rows", "10,1000000000"),
        ("--reps", "0"),
        ("--threads", "0"),
        ("--contacts-rows", "3000000000"),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_writer-bench"))
            .args([flag, value])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {stderr}");
        assert!(stderr.contains(flag), "{flag} {value}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}
