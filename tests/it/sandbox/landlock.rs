//! Landlock inside the box: host FIFOs outside the writable folders, the writes the box may still make, `/proc`.

use super::*;

/// A FIFO at `path` on the host, with a reader already open (non-blocking, so neither
/// the box's writer nor this reader ever waits).
fn host_fifo(path: &Path) -> std::fs::File {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::OpenOptionsExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).expect("no NUL");
    // SAFETY: mkfifo with a NUL-terminated path and a mode.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o666) }, 0, "mkfifo");
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .expect("open the FIFO's reader")
}

/// Everything written into the FIFO so far (an empty FIFO gives EOF or EAGAIN at once).
fn drained(reader: &mut std::fs::File) -> String {
    use std::io::Read;
    let mut got = Vec::new();
    let mut buf = [0u8; 256];
    while let Ok(n @ 1..) = reader.read(&mut buf) {
        got.extend_from_slice(&buf[..n]);
    }
    lossy(&got)
}

/// docs/threats.md#f6: a read-only bind does not stop opening a FIFO for writing; the
/// entry point's Landlock rules do.
#[test]
fn a_host_fifo_outside_the_writable_folders_cannot_be_written() {
    let test = "a_host_fifo_outside_the_writable_folders_cannot_be_written";
    let Some(f) = fixture(test) else { return };
    if sandbox::landlock_abi().is_none() {
        eprintln!(
            "SKIPPED {test}: this kernel has no Landlock, so the box can write host FIFOs (as the README says)"
        );
        return;
    }
    let fifo = f.outside.join("ctl.fifo");
    let mut reader = host_fifo(&fifo);
    // The entry point as the hookhost binary, and as the small program it carries, which
    // a server's boxes run (its in-memory copy, from this test binary's own image).
    assert!(
        sandbox::prepare_carried_entry(),
        "the carried entry program cannot run here"
    );
    let mut carried = f.spec.clone();
    carried.entry = Some(sandbox::running_binary());
    assert_eq!(
        ok(&sh(&carried, "echo ran")),
        "ran\n",
        "the carried entry ran nothing"
    );
    for spec in [&f.spec, &carried] {
        let o = sh(spec, &format!("echo BOX-WROTE > '{}'", fifo.display()));
        assert!(
            !o.status.success(),
            "the write into the host FIFO succeeded ({:?})",
            spec.entry
        );
        assert!(
            lossy(&o.stderr).contains("Permission denied"),
            "{}",
            lossy(&o.stderr)
        );
        assert_eq!(
            drained(&mut reader),
            "",
            "the host received what the box wrote ({:?})",
            spec.entry
        );
    }
    // The same box without its entry point writes it: this is what the rules stop.
    let mut open = f.spec.clone();
    open.entry = None;
    ok(&sh(
        &open,
        &format!("echo BOX-WROTE > '{}'", fifo.display()),
    ));
    assert_eq!(drained(&mut reader), "BOX-WROTE\n");
}

/// Under Landlock the box still writes where it may: a FIFO in the project, /tmp,
/// /dev/null and /dev/shm, a rename across project folders, a truncation, and a reopened
/// stderr that is a host file outside every writable folder.
#[test]
fn writes_the_box_may_make_still_work_under_landlock() {
    let Some(f) = fixture("writes_the_box_may_make_still_work_under_landlock") else {
        return;
    };
    let fifo = f.project.join("in-project.fifo");
    let mut reader = host_fifo(&fifo);
    let stderr_file = f.outside.join("stderr.txt");
    let o = f
        .spec
        .command(
            &[
                "sh".into(),
                "-c".into(),
                "set -e; echo TO-FIFO > in-project.fifo; echo t > /tmp/t; mkfifo /tmp/ff; echo n > /dev/null; \
                 echo s > /dev/shm/s; mkdir -p a b; echo r > a/r; mv a/r b/r; : > b/r; echo reopened > /dev/stderr; echo done"
                    .into(),
            ],
            &env(),
        )
        .expect("command")
        .stdin(Stdio::null())
        .stderr(std::fs::File::create(&stderr_file).expect("create the stderr file"))
        .output()
        .expect("spawn");
    let said = std::fs::read_to_string(&stderr_file).expect("read stderr");
    assert_eq!(ok(&o), "done\n", "{said}");
    assert_eq!(said, "reopened\n");
    assert_eq!(drained(&mut reader), "TO-FIFO\n");
    assert_eq!(std::fs::read(f.project.join("b/r")).expect("read"), b"");
}

/// Landlock grants no write under `/proc` (the box's own procfs): as root the box could
/// otherwise write root-only files outside `/proc/sys`.
#[test]
fn proc_is_not_writable_under_landlock() {
    let test = "proc_is_not_writable_under_landlock";
    let Some(f) = fixture(test) else { return };
    if sandbox::landlock_abi().is_none() {
        eprintln!("SKIPPED {test}: this kernel has no Landlock");
        return;
    }
    let o = sh(&f.spec, "echo 0 > /proc/self/oom_score_adj");
    assert!(!o.status.success(), "/proc/self/oom_score_adj was written");
    assert!(
        lossy(&o.stderr).contains("Permission denied"),
        "{}",
        lossy(&o.stderr)
    );
}
