//! [`PendingFile`]'s tests.

use super::*;

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn appears_only_after_commit() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("part-0.parquet");
    let mut file = PendingFile::create(&target).unwrap();
    file.write_all(b"data").unwrap();
    assert!(!target.exists());
    let listed = entries(dir.path());
    assert!(listed[0].starts_with(".part-0.parquet.") && listed[0].ends_with(".tmp"));
    file.commit().unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), b"data");
    assert_eq!(entries(dir.path()), ["part-0.parquet"]);
}

#[test]
fn early_writeback_keeps_every_byte() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("part-0.parquet");
    let mut file = PendingFile::create(&target)
        .unwrap()
        .with_early_writeback(4096);
    let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
    data.chunks(777)
        .for_each(|chunk| file.write_all(chunk).unwrap());
    let progress = file.writeback.unwrap();
    assert_eq!(file.written, 100_000);
    assert!(file.written - progress.requested < 4096, "{progress:?}");
    file.commit().unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), data);
}

#[cfg(unix)]
#[test]
fn committed_file_has_the_mode_of_an_ordinary_new_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let ordinary = dir.path().join("ordinary");
    File::create(&ordinary).unwrap();
    let committed = PendingFile::create(dir.path().join("x.parquet"))
        .unwrap()
        .commit()
        .unwrap();
    let mode = |p: &Path| p.metadata().unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&committed), mode(&ordinary));
}

#[test]
fn direct_writes_keep_every_byte() {
    // Under the crate's directory, not /tmp, which may be a file system without O_DIRECT.
    let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
    let target = dir.path().join("part-0.parquet");
    let mut file = PendingFile::create(&target)
        .unwrap()
        .with_early_writeback(4096)
        .with_direct_writes(8192);
    assert_eq!(file.writes_direct(), cfg!(target_os = "linux"));
    let data: Vec<u8> = (0..100_003u32).map(|i| (i % 251) as u8).collect();
    data.chunks(777)
        .for_each(|chunk| file.write_all(chunk).unwrap());
    file.commit().unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), data);
    assert_eq!(entries(dir.path()), ["part-0.parquet"]);
}

#[test]
fn without_direct_writes_to_be_had_the_file_goes_through_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let file = PendingFile::create(dir.path().join("x.parquet")).unwrap();
    // The second open, with O_DIRECT, then fails, as on a file system without it.
    std::fs::remove_file(file.temp_path()).unwrap();
    assert!(!file.with_direct_writes(8192).writes_direct());
}

/// Bytes of disk the file holds, from its count of 512-byte blocks.
#[cfg(unix)]
fn allocated(file: &File) -> u64 {
    use std::os::unix::fs::MetadataExt;
    file.metadata().unwrap().blocks() * 512
}

#[cfg(target_os = "linux")]
#[test]
fn preallocation_keeps_every_byte_and_releases_what_is_left() {
    // Under the crate's directory, as a user's output directory would be, not /tmp.
    let dir = tempfile::tempdir_in(env!("CARGO_MANIFEST_DIR")).unwrap();
    let step = 1 << 20;
    for durable in [true, false] {
        let target = dir.path().join(format!("part-{durable}.parquet"));
        let file = PendingFile::create(&target)
            .unwrap()
            .with_early_writeback(4096)
            .with_preallocation(step);
        let mut file = if durable { file } else { file.without_sync() };
        let data: Vec<u8> = (0..2_500_003u32).map(|i| (i % 251) as u8).collect();
        data.chunks(77_777)
            .for_each(|chunk| file.write_all(chunk).unwrap());
        assert_eq!(file.file().metadata().unwrap().len(), data.len() as u64);
        // Reserved only on ext4 and tmpfs (the crate's directory is on ext4 here and in CI).
        assert!(
            file.preallocation.is_none() || allocated(file.file()) >= 3 * step,
            "3 steps reserved: {} bytes held",
            allocated(file.file())
        );
        file.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), data);
        let held = allocated(&File::open(&target).unwrap());
        assert!(
            held < data.len() as u64 + 64 * 1024,
            "released past the end: {held} bytes held for {}",
            data.len()
        );
    }
}

#[test]
fn without_sync_commits_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("part-0.parquet");
    let mut file = PendingFile::create(&target).unwrap().without_sync();
    file.write_all(b"data").unwrap();
    assert!(!target.exists());
    assert_eq!(file.commit().unwrap(), target);
    assert_eq!(std::fs::read(&target).unwrap(), b"data");
    assert_eq!(entries(dir.path()), ["part-0.parquet"]);
}

#[test]
fn dropped_without_commit_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut file = PendingFile::create(dir.path().join("x.parquet")).unwrap();
    file.write_all(b"half").unwrap();
    drop(file);
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn missing_directory_is_a_clear_error() {
    let err = PendingFile::create("/nonexistent/dir/x.parquet").unwrap_err();
    assert!(err.to_string().contains("/nonexistent/dir"), "{err}");
}

/// A directory or a socket at the path is refused before anything is written, and stays; a
/// regular file there is replaced at the commit.
#[test]
fn only_a_regular_file_at_the_path_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let directory = dir.path().join("a-directory");
    std::fs::create_dir(&directory).unwrap();
    let err = PendingFile::create(&directory).unwrap_err();
    assert!(
        err.to_string()
            .contains("is a directory, not a regular file"),
        "{err}"
    );
    #[cfg(unix)]
    {
        let socket = dir.path().join("a-socket");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let err = PendingFile::create(&socket).unwrap_err();
        assert!(err.to_string().contains("is a socket"), "{err}");
        let kind = std::fs::symlink_metadata(&socket).unwrap().file_type();
        assert!(std::os::unix::fs::FileTypeExt::is_socket(&kind));
    }
    assert!(directory.is_dir());
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"earlier").unwrap();
    let mut pending = PendingFile::create(&file).unwrap();
    pending.write_all(b"later").unwrap();
    pending.commit().unwrap();
    assert_eq!(std::fs::read(&file).unwrap(), b"later");
}
