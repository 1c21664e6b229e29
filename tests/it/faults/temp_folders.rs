//! A killed session's private temp folder: removed by the next start, and swept by a
//! start given one of its own.

use super::*;

/// The private temp folders (`hookhost-TAG-…`) in `tmp` whose tag is `tag`.
fn private_tmps(tmp: &Path, tag: &str) -> Vec<PathBuf> {
    let prefix = format!("hookhost-{tag}-");
    std::fs::read_dir(tmp)
        .expect("read the temp folder")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .collect()
}

/// A scene with a sticky folder anyone can write (as `/tmp` is) and a sandboxed policy
/// hook: the sessions [`serve_in`] starts make their private temp folders there.
fn scene_with_shared_tmp() -> (Scene, PathBuf) {
    let scene = Scene::new();
    let tmp = scene.root.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let script = policy_script(&scene, "policy.sh");
    scene.write_config(&direct_hook("policy", &script, "\"bash\"", ""));
    (scene, tmp)
}

/// `serve` for session `id`, with `TMPDIR` set to `tmp`.
fn serve_in(scene: &Scene, tmp: &Path, id: &str) -> Command {
    let mut cmd = scene.hookhost();
    cmd.env("TMPDIR", tmp).args(["--session-id", id, "serve"]);
    cmd
}

/// Item 5 (review F17): a session killed with SIGKILL leaves its private temp folder;
/// the next start removes it, and only it: a live session's folder, folders of other
/// names, another user's folder, a link and a file that look like ours all stay.
#[test]
fn the_next_start_removes_a_killed_sessions_temp_folder_and_nothing_else() {
    let test = "the_next_start_removes_a_killed_sessions_temp_folder_and_nothing_else";
    if !bwrap_or_skip(test) {
        return;
    }
    let (scene, tmp) = scene_with_shared_tmp();
    let serve = |id: &str| serve_in(&scene, &tmp, id);

    let mut live = Server::ready(serve("live"));
    let live_tmp = private_tmps(&tmp, "live");
    assert_eq!(live_tmp.len(), 1, "{live_tmp:?}");

    let mut killed = Server::ready(serve("killed"));
    let killed_tmp = private_tmps(&tmp, "killed");
    assert_eq!(killed_tmp.len(), 1, "{killed_tmp:?}");
    // A sandboxed hook is running (its box mounts the folder as /tmp) when the host dies.
    killed.send(&call("slow", "bash", "sleep-41"));
    assert!(
        wait_until(|| process_alive("sleep 41.5")),
        "the hook did not start"
    );
    killed.signal(libc::SIGKILL);
    killed.wait_exit();
    assert!(
        wait_until(|| !process_alive("sleep 41.5")),
        "the box outlived its host"
    );
    assert!(
        killed_tmp[0].is_dir(),
        "a killed session's folder is left behind"
    );

    // Look-alikes that are not a dead session's folder of ours.
    let decoys: Vec<PathBuf> = [
        "hookhost-other-name",
        "hookhost-old-0123456789abcdef",
        "hookhost-setup-0123456789abcdef.new",
        "hookhost-bad-0123456789ABCDEF.tmp",
        "hookhost--0123456789abcdef.tmp",
        "not-hookhost-x-0123456789abcdef.tmp",
    ]
    .iter()
    .map(|name| tmp.join(name))
    .collect();
    for d in &decoys {
        std::fs::create_dir(d).unwrap();
    }
    let victim = scene.root.path().join("victim");
    std::fs::create_dir(&victim).unwrap();
    std::fs::write(victim.join("keep"), "x").unwrap();
    let link = tmp.join("hookhost-link-0123456789abcdef.tmp");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let file = tmp.join("hookhost-file-0123456789abcdef.tmp");
    std::fs::write(&file, "x").unwrap();
    let others = tmp.join("hookhost-nobody-0123456789abcdef.tmp");
    // Only root can give a folder to another user: without it, that look-alike is left out.
    let as_root = root_or_skip(
        &format!("{test} (another user's folder)"),
        "not root, so no folder of another user's can be made",
    );
    if as_root {
        std::fs::create_dir(&others).unwrap();
        std::os::unix::fs::chown(&others, Some(65534), Some(65534)).unwrap();
    }

    // The next start (any session that makes a private temp folder).
    let out = scene
        .hookhost()
        .env("TMPDIR", &tmp)
        .arg("check")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");

    assert!(
        !killed_tmp[0].exists(),
        "the killed session's folder is still there"
    );
    assert!(live_tmp[0].is_dir(), "a live session's folder was removed");
    for d in &decoys {
        assert!(d.is_dir(), "{} was removed", d.display());
    }
    assert!(victim.join("keep").exists() && link.is_symlink() && file.is_file());
    if as_root {
        assert!(others.is_dir(), "another user's folder was removed");
    }
    // The live session still works, and removes its own folder at its end.
    assert_eq!(live.call("after", "bash", "danger")["outcome"], "block");
    let (code, _) = live.finish();
    assert_eq!(code, 0);
    assert!(
        !live_tmp[0].exists(),
        "a session that ended left its folder"
    );
    // Nothing else the sessions made is left.
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("hookhost-live") || n.starts_with("hookhost-killed"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Round three: every start sweeps the temp folders of killed sessions, not only one
/// that makes a folder of its own: a start given `--private-tmp DIR` (boxed, and with
/// `--no-sandbox`) removes them too, and keeps DIR, even one named and owned as a dead
/// session's folder would be, and a live session's folder.
#[test]
fn a_start_given_private_tmp_sweeps_killed_sessions_temp_folders_but_not_its_own() {
    let test = "a_start_given_private_tmp_sweeps_killed_sessions_temp_folders_but_not_its_own";
    if !bwrap_or_skip(test) {
        return;
    }
    let (scene, tmp) = scene_with_shared_tmp();
    let serve = |id: &str| serve_in(&scene, &tmp, id);
    let mut live = Server::ready(serve("live"));
    let live_tmp = private_tmps(&tmp, "live");
    assert_eq!(live_tmp.len(), 1, "{live_tmp:?}");
    let killed = |id: &str| {
        let mut server = Server::ready(serve(id));
        let folders = private_tmps(&tmp, id);
        assert_eq!(folders.len(), 1, "{folders:?}");
        server.signal(libc::SIGKILL);
        server.wait_exit();
        assert!(
            folders[0].is_dir(),
            "a killed session's folder is left behind"
        );
        folders[0].clone()
    };
    // DIR: exactly what the sweep removes (our name, our user, unlocked: any other
    // start takes it for a dead session's), but given to the start.
    let mine = tmp.join("hookhost-mine-0123456789abcdef.tmp");
    let mine_arg = mine.to_str().unwrap();
    let make_mine = || {
        std::fs::create_dir_all(&mine).unwrap();
        std::fs::write(mine.join("keep"), "x").unwrap();
    };

    let first = killed("killed-1");
    make_mine();
    let out = scene
        .hookhost()
        .env("TMPDIR", &tmp)
        .args(["--private-tmp", mine_arg, "check"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        !first.exists(),
        "the killed session's folder is still there"
    );
    assert!(
        mine.join("keep").is_file(),
        "--private-tmp's folder was swept"
    );
    assert!(live_tmp[0].is_dir(), "a live session's folder was removed");

    let second = killed("killed-2");
    make_mine();
    let out = scene
        .hookhost()
        .env("TMPDIR", &tmp)
        .args(["--no-sandbox", "--private-tmp", mine_arg, "pre-tool-use"])
        .args(["--tool", "bash", "--input", r#"{"command":"ls"}"#])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        !second.exists(),
        "the killed session's folder is still there"
    );
    assert!(
        mine.join("keep").is_file(),
        "--private-tmp's folder was swept"
    );
    assert!(live_tmp[0].is_dir(), "a live session's folder was removed");

    assert_eq!(live.call("after", "bash", "danger")["outcome"], "block");
    let (code, _) = live.finish();
    assert_eq!(code, 0);
    assert!(
        !live_tmp[0].exists(),
        "a session that ended left its folder"
    );
    assert!(
        mine.join("keep").is_file(),
        "a session's end removed --private-tmp's folder"
    );
}

/// docs/threats.md#b3: the agent leaves, in the temp folder, a folder named like a dead
/// session's temp folder and thirty thousand folders deep (one Python loop of `mkdir`
/// and `chdir`). Every start sweeps it; the removal went one call deeper for each level
/// and the bridge died of a stack overflow (exit 134, which Claude Code reads as "go
/// ahead"), at every call until the folder was gone. Now the call is judged and the
/// folder removed.
#[test]
fn a_deep_folder_left_in_the_temp_folder_is_swept_and_the_call_judged() {
    let test = "a_deep_folder_left_in_the_temp_folder_is_swept_and_the_call_judged";
    if !bwrap_or_skip(test) {
        return;
    }
    let scene = Scene::new();
    let tmp = scene.root.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let ok = scene.script("ok.sh", "cat >/dev/null; exit 0");
    scene.write_config(&crate::support::hook(
        "boxed",
        "PreToolUse",
        &["/bin/sh", ok.to_str().unwrap()],
        "",
    ));
    let stale = tmp.join("hookhost-x-0123456789abcdef.tmp");
    make_deep_folder(&stale, 30_000);
    let mut payload: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("examples/agents/claude-code/PreToolUse.json"),
        )
        .unwrap(),
    )
    .unwrap();
    payload["cwd"] = json!(scene.project.to_str().unwrap());
    let (code, stdout, stderr) = support::run_with_stdin(
        scene
            .hookhost()
            .env("TMPDIR", &tmp)
            .args(["bridge", "--agent", "claude-code"]),
        payload.to_string().as_bytes(),
    );
    let swept = std::fs::symlink_metadata(&stale).is_err();
    if !swept {
        // Removed here by `rm`, which walks without recursion: the test folder's own
        // removal at the end would overflow the test's stack.
        let removed = Command::new("rm").arg("-rf").arg(&stale).status().unwrap();
        assert!(removed.success());
    }
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(!stdout.contains("deny"), "{stdout}");
    assert!(swept, "the deep folder was not swept");
}

/// Makes `top` and `depth` folders below it, one in each, through open folders (the
/// bottom lies far past the longest path the kernel takes).
fn make_deep_folder(top: &Path, depth: usize) {
    use std::os::fd::{AsRawFd, FromRawFd};
    std::fs::create_dir(top).unwrap();
    let mut dir = std::fs::File::open(top).unwrap();
    for _ in 0..depth {
        // SAFETY: mkdirat and openat of a NUL-terminated name in an open folder; the fd
        // openat returns is owned by the File made from it.
        dir = unsafe {
            assert_eq!(libc::mkdirat(dir.as_raw_fd(), c"a".as_ptr(), 0o755), 0);
            let next = libc::openat(
                dir.as_raw_fd(),
                c"a".as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
            );
            assert!(next >= 0);
            std::fs::File::from_raw_fd(next)
        };
    }
}
