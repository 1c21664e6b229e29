//! How long a box lives: no hook outlives a killed host, a box outlives the thread that asked for it; and `hookhost box` cannot write a host FIFO.

use super::*;

/// Killing the host (SIGKILL, no chance to clean up) ends a sandboxed hook's whole box,
/// and a host hook's own process: nothing outlives a killed host that could be reached.
#[test]
fn no_hook_outlives_a_killed_host() {
    if !support::bwrap_or_skip("no_hook_outlives_a_killed_host") {
        return;
    }
    let scene = Scene::new();
    let boxed = scene.script("boxed.sh", "sleep 88.11 & sleep 88.12; wait");
    let host = scene.script("host.sh", "exec sleep 88.13");
    for (script, extra, markers) in [
        (&boxed, "", &["sleep 88.11", "sleep 88.12"][..]),
        (&host, "sandbox = false", &["sleep 88.13"][..]),
    ] {
        scene.write_config(&sh_hook("slow", script, &format!("timeout = 120\n{extra}")));
        let mut child = scene
            .hookhost()
            .args(["pre-tool-use", "--tool", "bash", "--input", "{}"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let last = markers[markers.len() - 1];
        assert!(
            support::wait_until(|| support::process_alive(last)),
            "the hook did not start"
        );
        child.kill().unwrap();
        child.wait().unwrap();
        let gone = support::wait_until(|| markers.iter().all(|m| !support::process_alive(m)));
        assert!(gone, "{markers:?} outlived the killed host");
    }
}

/// `--die-with-parent` follows the *thread* that forked bwrap. Hooks are forked from
/// hookhost's long-lived spawner thread, so a box started on behalf of a thread that
/// then ends (a tokio worker, a blocking-pool thread) keeps running.
#[test]
fn a_box_outlives_the_thread_that_asked_for_it() {
    if !support::bwrap_or_skip("a_box_outlives_the_thread_that_asked_for_it") {
        return;
    }
    let scene = Scene::new();
    let bwrap = hookhost::sandbox::probe(None, std::env::var_os("PATH").as_deref(), &scene.project)
        .unwrap()
        .path;
    let spec = hookhost::sandbox::BoxSpec {
        project: scene.project.clone(),
        writable: vec![],
        private_tmp: scene.root.path().to_path_buf(),
        hide: vec![],
        program: bwrap,
        entry: Some(env!("CARGO_BIN_EXE_hookhost").into()),
    };
    let command = spec
        .command(
            &["sleep".into(), "66.61".into()],
            &[("PATH".into(), "/usr/bin:/bin".into())],
        )
        .unwrap();
    let pid = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let child = hookhost::process::spawn(tokio::process::Command::from(command))
                .await
                .unwrap();
            let pid = child.id().unwrap();
            hookhost::process::forget(pid);
            std::mem::forget(child);
            pid
        })
    })
    .join()
    .unwrap();
    // The asking thread and its runtime are gone; the box must still run.
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(
        support::process_alive("sleep 66.61"),
        "the box died with the thread that asked for it"
    );
    hookhost::process::kill_group(pid);
    // SAFETY: kill with a plain pid and signal number.
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    assert!(
        support::wait_until(|| !support::process_alive("sleep 66.61")),
        "killing bwrap did not end the box"
    );
}

/// docs/threats.md#f6 through the binary: `hookhost box` (and so every sandboxed hook)
/// cannot feed a host FIFO outside the writable folders.
#[test]
fn hookhost_box_cannot_write_a_host_fifo() {
    let test = "hookhost_box_cannot_write_a_host_fifo";
    if !support::bwrap_or_skip(test) {
        return;
    }
    if hookhost::sandbox::landlock_abi().is_none() {
        eprintln!(
            "SKIPPED {test}: this kernel has no Landlock, so the box can write host FIFOs (as the README says)"
        );
        return;
    }
    use std::io::Read;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::OpenOptionsExt;
    let scene = Scene::new();
    scene.write_config("");
    let fifo = scene.root.path().join("ctl.fifo");
    let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
    // SAFETY: mkfifo with a NUL-terminated path and a mode.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o666) }, 0);
    // A reader that never waits: the box's open for writing need not wait either.
    let mut reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    let script = format!("echo BOX-WROTE > '{}'", fifo.display());
    let (code, _, stderr) = scene.run(&["box", "--", "sh", "-c", &script]);
    assert_ne!(code, 0, "the write into the host FIFO succeeded");
    assert!(stderr.contains("Permission denied"), "{stderr}");
    let mut got = Vec::new();
    let mut buf = [0u8; 64];
    while let Ok(n @ 1..) = reader.read(&mut buf) {
        got.extend_from_slice(&buf[..n]);
    }
    assert_eq!(String::from_utf8_lossy(&got), "", "the host received it");
}
