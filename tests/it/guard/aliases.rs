//! F13: per-process links (`/proc/self/…`), bind-mount aliases, and hard links as root.

use super::*;

/// The refusal for a path that goes through a per-process link.
fn per_process(subject: &str, link: &str) -> String {
    format!(
        "hook h: {subject} goes through {link}, a link each process resolves to its own files, so what the guard checks is not what the hook would open. Name the file by its own path, or start with --no-hooks."
    )
}

#[test]
fn per_process_links_are_refused_in_commands_and_arguments() {
    let fx = fx();
    let ctx = fx.ctx();
    // The test runs from the crate root, outside the project: followed here, each of these
    // leads somewhere harmless, but the hook would resolve it in its own context.
    let pid = std::process::id();
    let self_cwd = "/proc/self/cwd/Cargo.toml";
    let own_pid_root = format!("/proc/{pid}/root/usr/bin/true");
    let thread_root = "/proc/thread-self/root/bin/sh";
    assert_eq!(
        refused(&ctx, &["/usr/bin/env", self_cwd], true),
        per_process(self_cwd, "/proc/self")
    );
    assert_eq!(
        refused(&ctx, &[&own_pid_root], true),
        per_process(&own_pid_root, &format!("/proc/{pid}"))
    );
    assert_eq!(
        refused(&ctx, &[thread_root], false),
        per_process(thread_root, "/proc/thread-self")
    );
    for arg in ["/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/fd/0"] {
        let link = if arg.starts_with("/dev/fd") {
            "/dev/fd"
        } else {
            arg
        };
        assert_eq!(
            refused(&ctx, &["/usr/bin/env", arg], true),
            per_process(arg, link)
        );
        let option = format!("--input={arg}");
        assert_eq!(
            refused(&ctx, &["/usr/bin/env", &option], false),
            per_process(arg, link)
        );
    }
    // Reached through an ordinary link outside the project: the walk passes /proc/self.
    let link = fx.outside.join("cargo-toml");
    symlink(self_cwd, &link).unwrap();
    assert_eq!(
        refused(&ctx, &["/usr/bin/env", &s(&link)], true),
        per_process(&s(&link), "/proc/self")
    );
    // /proc itself and ordinary /dev files are fine.
    assert!(guard(&ctx, &["/usr/bin/env", "/proc/cpuinfo", "/dev/null"], true).is_ok());
    // A host hook's PATH loses an entry under /proc/self/cwd (its cwd is / at run time).
    let mut ctx = fx.ctx();
    ctx.sandboxed_session = true;
    ctx.path_env = Some("/proc/self/cwd/scripts:/usr/bin".into());
    assert_eq!(scrub_path_for_argv_hooks(&ctx), Some("/usr/bin".into()));
}

#[test]
fn proc_self_cwd_hook_is_refused_by_the_real_binary() {
    // The review's reproduction: hookhost started from a safe folder holding hook.sh, with
    // the hook named through /proc/self/cwd; the box would run the project's hook.sh.
    let scene = support::Scene::new();
    let hook_sh = scene.script("hook.sh", "exit 0");
    fs::write(scene.project.join("hook.sh"), "#!/bin/sh\nexit 0\n").unwrap();
    scene.write_config(&support::hook(
        "h",
        "PreToolUse",
        &["/proc/self/cwd/hook.sh"],
        "",
    ));
    let out = scene
        .hookhost()
        .current_dir(hook_sh.parent().unwrap())
        .arg("check")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&per_process("/proc/self/cwd/hook.sh", "/proc/self")),
        "{stderr}"
    );
}

/// A bind mount that is undone when the test ends, even by a panic.
struct BindMount {
    at: PathBuf,
}

impl BindMount {
    /// `mount --bind from at`, or `None` when it cannot be made: not root, or root
    /// cannot mount here ([`support::skip_or_fail`] with [`Prerequisite::Root`]).
    fn new(test: &str, from: &Path, at: &Path) -> Option<BindMount> {
        if !support::root_or_skip(test, "mount --bind needs root") {
            return None;
        }
        let out = Command::new("mount")
            .arg("--bind")
            .arg(from)
            .arg(at)
            .output();
        match out {
            Ok(out) if out.status.success() => Some(BindMount {
                at: at.to_path_buf(),
            }),
            Ok(out) => {
                let why = String::from_utf8_lossy(&out.stderr);
                support::skip_or_fail(
                    test,
                    Prerequisite::Root,
                    &format!("mount --bind failed: {}", why.trim()),
                );
                None
            }
            Err(e) => {
                support::skip_or_fail(test, Prerequisite::Root, &format!("cannot run mount: {e}"));
                None
            }
        }
    }
}

impl Drop for BindMount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.at).status();
    }
}

#[test]
fn a_bind_mount_of_the_project_or_a_writable_folder_is_still_writable() {
    let test = "a_bind_mount_of_the_project_or_a_writable_folder_is_still_writable";
    let fx = fx();
    exe(&fx.project.join("hooks/hook.sh"), "#!/bin/sh\nexit 0\n");
    let alias = fx.outside.join("alias");
    fs::create_dir(&alias).unwrap();
    let Some(_mount) = BindMount::new(test, &fx.project, &alias) else {
        return;
    };
    let through_alias = alias.join("hooks/hook.sh");
    assert!(through_alias.exists(), "the bind mount shows the project");
    let same = format!(
        " ({} is the same folder by device and inode, mounted there too)",
        alias.display()
    );
    assert_eq!(
        refused(&fx.ctx(), &[&s(&through_alias)], true),
        format!(
            "hook h: {} is in the project{same}, {SPEC_TAIL}",
            through_alias.display()
        )
    );
    // As an argument, and the alias folder itself.
    let msg = refused(&fx.ctx(), &["/usr/bin/env", &s(&alias)], false);
    assert!(
        msg.ends_with(&format!("is in the project{same}, {SPEC_TAIL}")),
        "{msg}"
    );
    // A config file reached through the alias is the project's too.
    fs::write(fx.project.join("config.toml"), "").unwrap();
    let msg = check_config_file(&fx.ctx(), &alias.join("config.toml"))
        .unwrap_err()
        .to_string();
    assert!(msg.contains(&format!("is in the project{same}")), "{msg}");

    // A [sandbox] writable folder mounted under another name.
    let shared = fx.root.join("shared");
    exe(&shared.join("x.sh"), "#!/bin/sh\nexit 0\n");
    let shared_alias = fx.outside.join("shared-alias");
    fs::create_dir(&shared_alias).unwrap();
    let Some(_mount2) = BindMount::new(test, &shared, &shared_alias) else {
        return;
    };
    let mut ctx = fx.ctx();
    ctx.writable = vec![shared.clone()];
    let via = shared_alias.join("x.sh");
    assert_eq!(
        refused(&ctx, &[&s(&via)], true),
        format!(
            "hook h: {} is in a folder the agent can write ({}, {WHY_WRITABLE}) ({} is the same folder by device and inode, mounted there too), {SPEC_TAIL}",
            via.display(),
            shared.display(),
            shared_alias.display()
        )
    );
    // A folder that merely holds the same files is not the same folder.
    let copy = fx.outside.join("copy");
    exe(&copy.join("hooks/hook.sh"), "#!/bin/sh\nexit 0\n");
    assert!(guard(&fx.ctx(), &[&s(&copy.join("hooks/hook.sh"))], true).is_ok());
}

#[test]
fn a_hard_link_into_a_writable_folder_is_refused_as_root_too() {
    let fx = fx();
    let hooks = fx.outside.join("hooks");
    let prog = exe(&hooks.join("hl.sh"), "#!/bin/sh\nexit 0\n");
    // The review's reproduction: the agent edits proj/hl.sh in place, and hl.sh changes.
    fs::hard_link(&prog, fx.project.join("hl.sh")).unwrap();
    assert_eq!(
        refused(&fx.ctx(), &[&s(&prog)], true),
        format!(
            "hook h: {} has 2 names (hard links), so the agent could change it through another of them. Give the hook a copy of its own, or start with --no-hooks.",
            prog.display()
        )
    );
    // Also when the other name is in a [sandbox] writable folder, not the project.
    fs::remove_file(fx.project.join("hl.sh")).unwrap();
    assert_eq!(guard(&fx.ctx(), &[&s(&prog)], true), Ok(prog.clone()));
    let shared = fx.root.join("shared");
    fs::create_dir(&shared).unwrap();
    fs::hard_link(&prog, shared.join("hl.sh")).unwrap();
    let mut ctx = fx.ctx();
    ctx.writable = vec![shared];
    assert!(refused(&ctx, &[&s(&prog)], true).contains("has 2 names (hard links)"));
}

// ---- Round three: a second name outside the agent's reach is no reason to refuse -----------
