//! Round three: a second name outside the agent's reach is no reason to refuse.

use super::*;

/// The hard-link notes for one hook running `cmd` (not sandboxed).
fn link_notes(ctx: &GuardContext, cmd: &[&str]) -> Vec<hookhost::guard::LinkNote> {
    let command = argv(cmd);
    let hooks = [HookToGuard {
        name: "h",
        command: &command,
        sandbox: false,
    }];
    hard_link_notes(ctx, &hooks)
}

/// A copy of a system program (not the system's own file: its link count stays as it is)
/// in a folder outside the project, root's when the tests run as root.
fn program_copy(dir: &Path) -> PathBuf {
    fs::create_dir_all(dir).unwrap();
    let copy = dir.join("env");
    crate::support::copy_program("/usr/bin/env", &copy);
    fs::set_permissions(&copy, fs::Permissions::from_mode(0o755)).unwrap();
    copy
}

#[test]
fn a_program_with_a_second_name_outside_the_writable_folders_runs() {
    // perf's build-id cache: `~/.debug/usr/bin/env/<build-id>/elf` is another name for
    // the program, in a folder (root's, as root) the agent cannot write.
    let fx = fx();
    let prog = program_copy(&fx.outside.join("usr/bin"));
    let cache = fx.root.join("home/.debug/usr/bin/env/0123456789abcdef");
    fs::create_dir_all(&cache).unwrap();
    fs::hard_link(&prog, cache.join("elf")).unwrap();
    let ctx = fx.ctx();
    assert_eq!(guard(&ctx, &[&s(&prog), "true"], false), Ok(prog.clone()));
    let notes = link_notes(&ctx, &[&s(&prog), "true"]);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!((notes[0].links, notes[0].path.clone()), (2, prog.clone()));
    let LinkVerdict::NoneInWritable { searched } = &notes[0].verdict else {
        panic!("{notes:?}");
    };
    assert!(searched.contains(&fx.project), "{searched:?}");
    assert!(!notes[0].verdict.matters());
    assert!(
        notes[0]
            .verdict
            .to_string()
            .starts_with("none is in a folder the agent can write (looked through "),
        "{}",
        notes[0].verdict
    );
    // A program with one name has no note (a copy of its own: the system's may have a
    // second name on this machine, in perf's cache).
    let single = program_copy(&fx.outside.join("opt/bin"));
    assert!(link_notes(&ctx, &[&s(&single), "true"]).is_empty());
}

#[test]
fn a_second_name_in_the_project_a_writable_folder_or_tmp_is_still_refused() {
    // F13 as the guard still sees it: the other name is where the agent can write, and
    // the agent (us, root included) can write the file itself.
    let fx = fx();
    let prog = program_copy(&fx.outside.join("usr/bin"));
    let cache = fx.root.join("home/.debug");
    fs::create_dir_all(&cache).unwrap();
    fs::hard_link(&prog, cache.join("elf")).unwrap();
    let deep = fx.project.join("vendor/deep");
    fs::create_dir_all(&deep).unwrap();
    fs::hard_link(&prog, deep.join("env")).unwrap();
    let hard_linked = |links: u64| {
        format!(
            "hook h: {} has {links} names (hard links), so the agent could change it through another of them. Give the hook a copy of its own, or start with --no-hooks.",
            prog.display()
        )
    };
    assert_eq!(refused(&fx.ctx(), &[&s(&prog)], true), hard_linked(3));
    let notes = link_notes(&fx.ctx(), &[&s(&prog)]);
    assert!(
        matches!(&notes[0].verdict, LinkVerdict::Found { name, place }
            if *name == deep.join("env") && place.why == WHY_PROJECT),
        "{notes:?}"
    );
    assert_eq!(
        notes[0].verdict.to_string(),
        format!(
            "and {} is in the project, so the agent could change it through that name: the hook is refused. Give the hook a copy of its own",
            deep.join("env").display()
        )
    );
    fs::remove_file(deep.join("env")).unwrap();
    assert_eq!(guard(&fx.ctx(), &[&s(&prog)], true), Ok(prog.clone()));

    // In a [sandbox] writable folder.
    let shared = fx.root.join("shared");
    fs::create_dir(&shared).unwrap();
    fs::hard_link(&prog, shared.join("env")).unwrap();
    let mut ctx = fx.ctx();
    ctx.writable = vec![shared.clone()];
    assert_eq!(refused(&ctx, &[&s(&prog)], true), hard_linked(3));
    fs::remove_file(shared.join("env")).unwrap();

    // In /tmp, in a session without a sandbox (when /tmp is on the same file system).
    let tmp = tempfile::Builder::new()
        .prefix("hookhost-guard-")
        .tempdir_in("/tmp")
        .unwrap();
    if fs::hard_link(&prog, tmp.path().join("env")).is_ok() {
        assert_eq!(refused(&fx.ctx(), &[&s(&prog)], false), hard_linked(3));
        let notes = link_notes(&fx.ctx(), &[&s(&prog)]);
        assert!(
            matches!(&notes[0].verdict, LinkVerdict::Found { place, .. }
                if place.why == WHY_SYSTEM_TEMP),
            "{notes:?}"
        );
    }
}

#[test]
fn a_second_name_of_a_shebang_interpreter_is_judged_by_where_it_lies() {
    let fx = fx();
    let bin = fx.outside.join("usr/bin");
    let interp = program_copy(&bin);
    // A `#!` line ends its interpreter at a blank: where the checkout's path has one, the
    // line names the copy through a link without one (in /var/tmp, which no agent writes).
    let _spaceless;
    let named = if interp.to_string_lossy().contains(' ') {
        _spaceless = tempfile::Builder::new()
            .prefix("hookhost-shebang-")
            .tempdir_in("/var/tmp")
            .unwrap();
        let link = _spaceless.path().join("bin");
        std::os::unix::fs::symlink(&bin, &link).unwrap();
        link.join("env")
    } else {
        interp.clone()
    };
    let script = exe(
        &fx.outside.join("hooks/h.sh"),
        &format!("#!{} true\n", named.display()),
    );
    let cache = fx.root.join("home/.debug");
    fs::create_dir_all(&cache).unwrap();
    fs::hard_link(&interp, cache.join("elf")).unwrap();
    assert_eq!(guard(&fx.ctx(), &[&s(&script)], true), Ok(script.clone()));
    let notes = link_notes(&fx.ctx(), &[&s(&script)]);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].subject.contains("named by the #! line of"),
        "{notes:?}"
    );
    fs::hard_link(&interp, fx.project.join("env")).unwrap();
    assert!(refused(&fx.ctx(), &[&s(&script)], true).contains("has 3 names (hard links)"));
}

#[test]
fn a_perf_style_second_name_lets_the_hook_run_through_the_real_binary() {
    // The issue's reproduction, on a copy of /bin/sh (the system's own is not touched):
    // before, every call was denied once perf had linked the program into ~/.debug.
    let scene = support::Scene::new();
    let bin = scene.root.path().join("usr/bin");
    fs::create_dir_all(&bin).unwrap();
    let sh = bin.join("sh");
    crate::support::copy_program("/bin/sh", &sh);
    fs::set_permissions(&sh, fs::Permissions::from_mode(0o755)).unwrap();
    let script = scene.script("ok.sh", "cat >/dev/null; exit 0");
    scene.write_config(&support::hook(
        "h",
        "PreToolUse",
        &[&s(&sh), &s(&script)],
        "",
    ));
    let cache = scene
        .root
        .path()
        .join("root/.debug/usr/bin/sh/0123456789abcdef");
    fs::create_dir_all(&cache).unwrap();
    fs::hard_link(&sh, cache.join("elf")).unwrap();
    let (code, verdict) = scene.gate(&["--no-sandbox"], "bash", r#"{"command":"ls"}"#);
    assert_eq!(
        (code, &verdict["outcome"]),
        (0, &"allow".into()),
        "{verdict}"
    );

    // A name in the project: refused again, every call.
    fs::hard_link(&sh, scene.project.join("sh")).unwrap();
    let out = scene
        .hookhost()
        .args(["--no-sandbox", "check"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "hook h: {} has 3 names (hard links)",
            sh.display()
        )),
        "{stderr}"
    );
    fs::remove_file(scene.project.join("sh")).unwrap();
    let (code, _) = scene.gate(&["--no-sandbox"], "bash", r#"{"command":"ls"}"#);
    assert_eq!(code, 0);
}
