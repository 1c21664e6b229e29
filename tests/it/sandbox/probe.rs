//! The probe for bubblewrap: found on PATH, missing, planted in the project, failing.

use super::*;

#[test]
fn probe_finds_bwrap_on_path() {
    let Some(f) = fixture("probe_finds_bwrap_on_path") else {
        return;
    };
    let info = sandbox::probe(None, Some(OsStr::new("relative:/usr/bin:/bin")), &f.project);
    let info = info.expect("probe");
    assert!(info.path.is_absolute());
}

#[test]
fn probe_reports_a_missing_bwrap_loudly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("no-such-bwrap");
    let e: Unavailable = sandbox::probe(Some(&missing), None, dir.path()).expect_err("missing");
    assert!(e.reason.starts_with("bwrap was not found"), "{}", e.reason);
    let shown = e.to_string();
    assert!(
        shown.starts_with("bubblewrap cannot run here (bwrap was not found"),
        "{shown}"
    );
    assert!(shown.contains("so this session has no sandbox: every hook runs on the host."));
    assert!(shown.contains("install bubblewrap") || shown.contains("Install bubblewrap"));
    assert!(shown.contains("WASM"));

    let e = sandbox::probe(None, Some(OsStr::new("")), dir.path()).expect_err("empty PATH");
    assert_eq!(e.reason, "bwrap was not found on PATH");
    let e = sandbox::probe(Some(Path::new("bwrap")), None, dir.path()).expect_err("relative");
    assert!(e.reason.contains("not an absolute path"), "{}", e.reason);
}

#[test]
fn probe_ignores_a_bwrap_in_the_project_or_a_relative_path_entry() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).expect("mkdir");
    let fake = bin.join("bwrap");
    std::fs::write(&fake, "#!/bin/sh\nexit 0\n").expect("write");
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = std::env::join_paths([&bin]).expect("join");
    let e = sandbox::probe(None, Some(&path), dir.path()).expect_err("bwrap in the project");
    assert_eq!(e.reason, "bwrap was not found on PATH");
}

#[test]
fn probe_explains_a_bwrap_that_fails() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fake = dir.path().join("bwrap");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n",
    )
    .expect("write");
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let project = tempfile::tempdir().expect("tempdir");
    let e = sandbox::probe(Some(&fake), None, project.path()).expect_err("fails");
    assert!(
        e.reason.contains("setting up uid map: Permission denied"),
        "{}",
        e.reason
    );
    let shown = e.to_string();
    assert!(
        shown.contains("kernel.unprivileged_userns_clone"),
        "{shown}"
    );
    assert!(
        shown.contains("kernel.apparmor_restrict_unprivileged_userns"),
        "{shown}"
    );
    eprintln!("{shown}");
}
