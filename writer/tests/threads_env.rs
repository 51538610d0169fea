//! The worker count comes from the builder, then SHREDLAB_WRITER_THREADS, then the machine.
//! Its own test binary: it changes the process environment.

use shredlab_writer::{ParallelOptions, THREADS_ENV};

#[test]
fn builder_then_environment_then_machine() {
    std::env::remove_var(THREADS_ENV);
    let machine = std::thread::available_parallelism().unwrap().get();
    assert_eq!(ParallelOptions::new().resolve_threads().unwrap(), machine);
    std::env::set_var(THREADS_ENV, "3");
    assert_eq!(ParallelOptions::new().resolve_threads().unwrap(), 3);
    assert_eq!(
        ParallelOptions::new()
            .with_threads(5)
            .resolve_threads()
            .unwrap(),
        5
    );
    std::env::set_var(THREADS_ENV, "lots");
    let err = ParallelOptions::new()
        .resolve_threads()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("SHREDLAB_WRITER_THREADS") && err.contains("lots"),
        "{err}"
    );
    std::env::remove_var(THREADS_ENV);
}
