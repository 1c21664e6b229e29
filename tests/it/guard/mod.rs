//! Integration tests for the start-up path guard, on real files and links.
//!
//! Fixtures live under cargo's `CARGO_TARGET_TMPDIR` (not `/tmp`), because `/tmp` is an
//! agent-writable folder in a session without a sandbox; the `/tmp` tests make their own.
//!
//! Programs, PATH lookup and arguments are here, with the config, the cache and the
//! report; links, the other writable folders, aliases (F13) and second names have
//! modules of their own.

use crate::support::{self, Prerequisite};
use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::Command;

use hookhost::guard::{
    GuardContext, HookToGuard, LinkVerdict, Refusal, WHY_PRIVATE_TMP, WHY_PROJECT, WHY_SANDBOX_TMP,
    WHY_SYSTEM_TEMP, WHY_TMPDIR, WHY_WORKTREE, WHY_WRITABLE, check_cache_dir, check_config_file,
    check_hooks, hard_link_notes, scrub_path_for_argv_hooks,
};
use tempfile::TempDir;

const SPEC_TAIL: &str = "so the agent could change it. Move it outside (for example ~/.local/share/harness/hooks/), or start with --no-hooks.";

/// A project and an outside folder, side by side in a fresh temp folder.
struct Fx {
    _dir: TempDir,
    root: PathBuf,
    project: PathBuf,
    outside: PathBuf,
}

fn fx() -> Fx {
    let dir = tempfile::Builder::new()
        .prefix("guard-")
        .tempdir_in(support::test_root())
        .unwrap();
    let root = dir.path().canonicalize().unwrap();
    let project = root.join("proj");
    let outside = root.join("outside");
    fs::create_dir(&project).unwrap();
    fs::create_dir(&outside).unwrap();
    Fx {
        _dir: dir,
        root,
        project,
        outside,
    }
}

impl Fx {
    fn ctx(&self) -> GuardContext {
        GuardContext {
            project: self.project.clone(),
            path_env: Some("/usr/bin:/bin".into()),
            ..GuardContext::default()
        }
    }
}

/// Writes an executable file (creating its folder).
fn exe(path: &Path, body: &str) -> PathBuf {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, body).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
    path.to_path_buf()
}

fn s(p: &Path) -> String {
    p.to_str().unwrap().to_owned()
}

fn argv(cmd: &[&str]) -> Vec<String> {
    cmd.iter().map(|a| a.to_string()).collect()
}

/// Runs one hook through the guard: the program, or the refusal messages.
fn guard(ctx: &GuardContext, cmd: &[&str], sandbox: bool) -> Result<PathBuf, Vec<String>> {
    let command = argv(cmd);
    let hooks = [HookToGuard {
        name: "h",
        command: &command,
        sandbox,
    }];
    match check_hooks(ctx, &hooks) {
        Ok(mut ok) => {
            assert_eq!(ok.len(), 1);
            assert_eq!(ok[0].name, "h");
            Ok(ok.remove(0).program)
        }
        Err(refusals) => Err(refusals.iter().map(ToString::to_string).collect()),
    }
}

/// The single refusal message for a hook that must be refused.
fn refused(ctx: &GuardContext, cmd: &[&str], sandbox: bool) -> String {
    match guard(ctx, cmd, sandbox) {
        Ok(p) => panic!("{cmd:?} was accepted as {}", p.display()),
        Err(mut msgs) => {
            assert_eq!(msgs.len(), 1, "{msgs:#?}");
            msgs.remove(0)
        }
    }
}

fn in_project(path: &str) -> String {
    format!("hook h: {path} is in the project, {SPEC_TAIL}")
}

fn in_writable(path: &str, dir: &Path, why: &str, through: Option<&Path>) -> String {
    let through = through.map_or(String::new(), |l| {
        format!(" (through the link {})", l.display())
    });
    format!(
        "hook h: {path} is in a folder the agent can write ({}, {why}){through}, {SPEC_TAIL}",
        dir.display()
    )
}

mod aliases;
mod folders;
mod links;
mod second_names;

#[test]
fn program_in_project_is_refused_with_the_spec_sentence() {
    let fx = fx();
    let p = exe(&fx.project.join("hooks/check.sh"), "#!/bin/sh\n");
    let msg = refused(&fx.ctx(), &[&s(&p)], true);
    assert_eq!(
        msg,
        format!(
            "hook h: {}/hooks/check.sh is in the project, so the agent could change it. Move it outside (for example ~/.local/share/harness/hooks/), or start with --no-hooks.",
            fx.project.display()
        )
    );
}

#[test]
fn system_programs_are_accepted_and_resolved() {
    let fx = fx();
    let ctx = fx.ctx();
    assert_eq!(guard(&ctx, &["env"], true), Ok("/usr/bin/env".into()));
    assert_eq!(
        guard(&ctx, &["/usr/bin/env", "true"], false),
        Ok("/usr/bin/env".into())
    );
    // /bin may be a link to usr/bin: still a safe place.
    assert_eq!(guard(&ctx, &["/bin/sh"], true), Ok("/bin/sh".into()));
    // A program outside every writable folder, in a fresh temp folder.
    let p = exe(&fx.outside.join("hooks/ok.sh"), "#!/bin/sh\nexit 0\n");
    assert_eq!(guard(&ctx, &[&s(&p)], true), Ok(p));
}

#[test]
fn bare_name_is_looked_up_on_the_given_path() {
    let fx = fx();
    let tool = exe(&fx.outside.join("bin/mytool"), "#!/bin/sh\n");
    // Not executable: skipped.
    fs::create_dir_all(fx.root.join("noexec")).unwrap();
    fs::write(fx.root.join("noexec/mytool"), "x").unwrap();
    let mut ctx = fx.ctx();
    let path = format!(
        "rel/bin::{}:{}/nowhere:{}/bin:/usr/bin",
        fx.root.join("noexec").display(),
        fx.root.display(),
        fx.outside.display()
    );
    ctx.path_env = Some(path.into());
    assert_eq!(guard(&ctx, &["mytool"], true), Ok(tool));

    // The first match wins, and a match in the project is refused by its resolved path.
    let planted = exe(&fx.project.join("bin/mytool"), "#!/bin/sh\n");
    let path = format!("{}/bin:{}/bin", fx.project.display(), fx.outside.display());
    ctx.path_env = Some(path.into());
    assert_eq!(refused(&ctx, &["mytool"], true), in_project(&s(&planted)));
}

#[test]
fn bare_name_not_found_says_so() {
    let fx = fx();
    let mut ctx = fx.ctx();
    ctx.path_env = Some(fx.outside.clone().into_os_string());
    assert_eq!(
        refused(&ctx, &["check.sh"], true),
        "hook h: check.sh was not found."
    );
    ctx.path_env = None;
    assert_eq!(
        refused(&ctx, &["check.sh"], false),
        "hook h: check.sh was not found."
    );
    let missing = fx.outside.join("gone.sh");
    assert_eq!(
        refused(&ctx, &[&s(&missing)], false),
        format!("hook h: {} was not found.", missing.display())
    );
}

#[test]
fn relative_program_with_a_slash_is_refused() {
    let fx = fx();
    exe(&fx.project.join("hooks/check.sh"), "#!/bin/sh\n");
    assert_eq!(
        refused(&fx.ctx(), &["hooks/check.sh"], true),
        "hook h: hooks/check.sh is a relative path; a command[0] with a / must be absolute. Write the full path, or a bare name to look up on PATH."
    );
    assert!(refused(&fx.ctx(), &["./check.sh"], true).contains("is a relative path"));
}

#[test]
fn later_arguments_that_name_project_files_are_refused() {
    let fx = fx();
    fs::write(fx.project.join("rules.yaml"), "x").unwrap();
    let ctx = fx.ctx();
    // Exists, relative to the project root.
    assert_eq!(
        refused(&ctx, &["/usr/bin/env", "rules.yaml"], true),
        in_project("rules.yaml")
    );
    // Absolute.
    let abs = s(&fx.project.join("rules.yaml"));
    assert_eq!(
        refused(&ctx, &["/usr/bin/env", &abs], true),
        in_project(&abs)
    );
    // Missing, but shaped like a path: the agent could create it.
    assert_eq!(
        refused(&ctx, &["/usr/bin/env", "hooks/x.sh"], true),
        in_project("hooks/x.sh")
    );
    // The value after an option's first `=`.
    assert_eq!(
        refused(&ctx, &["/usr/bin/env", "--rules=hooks/r.yaml"], true),
        in_project("hooks/r.yaml")
    );
    assert_eq!(
        refused(&ctx, &["/usr/bin/env", "--rules=rules.yaml"], true),
        in_project("rules.yaml")
    );
}

#[test]
fn arguments_that_name_nothing_are_fine() {
    let fx = fx();
    let ctx = fx.ctx();
    let rules = fx.outside.join("r.yaml");
    fs::write(&rules, "x").unwrap();
    let ok =
        |cmd: &[&str]| assert_eq!(guard(&ctx, cmd, true), Ok("/usr/bin/env".into()), "{cmd:?}");
    ok(&["/usr/bin/env", "--exclude="]);
    ok(&["/usr/bin/env", "missing.yaml", "-v", "--x", ""]);
    ok(&["/usr/bin/env", "--header=X-Api-Version:2"]);
    ok(&["/usr/bin/env", "a b/c", "--msg=not a/path"]);
    ok(&["/usr/bin/env", &format!("--rules={}", rules.display())]);
    ok(&["/usr/bin/env", &s(&rules), "/nonexistent/elsewhere"]);
    // The spec: a value that only looks like a path is refused as one.
    assert_eq!(
        refused(
            &ctx,
            &["/usr/bin/env", "--header=Content-Type:application/json"],
            true
        ),
        in_project("Content-Type:application/json")
    );
}

#[test]
fn a_writable_folder_given_through_a_link_is_compared_both_ways() {
    let fx = fx();
    let real = fx.root.join("real-w");
    let prog = exe(&real.join("x.sh"), "#!/bin/sh\n");
    let wlink = fx.outside.join("wlink");
    symlink(&real, &wlink).unwrap();
    let mut ctx = fx.ctx();
    ctx.writable = vec![wlink.clone()];
    assert_eq!(
        refused(&ctx, &[&s(&prog)], true),
        in_writable(&s(&prog), &wlink, WHY_WRITABLE, None)
    );
    let via = s(&wlink.join("x.sh"));
    assert_eq!(
        refused(&ctx, &[&via], true),
        in_writable(&via, &wlink, WHY_WRITABLE, None)
    );
    // With a trailing slash and `./` in the configured folder too.
    ctx.writable = vec![PathBuf::from(format!("{}/./", real.display()))];
    assert!(refused(&ctx, &[&via], true).contains("from [sandbox] writable or --writable"));
}

#[test]
fn config_in_the_project_is_refused_for_hooks() {
    let fx = fx();
    let cfg = fx.project.join(".harness/config.toml");
    fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    fs::write(&cfg, "").unwrap();
    let err = check_config_file(&fx.ctx(), &cfg).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "config {} is in the project, so the agent could change its [[hooks]]. Keep your hooks in your user config (for example ~/.config/harness/config.toml), or start with --no-hooks.",
            cfg.display()
        )
    );
    assert!(matches!(err, Refusal::Config { ref place, .. } if place.why == WHY_PROJECT));
    // Through a link from outside.
    let link = fx.outside.join("config.toml");
    symlink(&cfg, &link).unwrap();
    let msg = check_config_file(&fx.ctx(), &link).unwrap_err().to_string();
    assert!(msg.contains("is in the project (through the link"), "{msg}");
    // In a --writable folder.
    let mut ctx = fx.ctx();
    let w = fx.root.join("w");
    ctx.writable = vec![w.clone()];
    let in_w = w.join("config.toml");
    assert_eq!(
        check_config_file(&ctx, &in_w).unwrap_err().to_string(),
        format!(
            "config {} is in a folder the agent can write ({}, {WHY_WRITABLE}), so the agent could change its [[hooks]]. Keep your hooks in your user config (for example ~/.config/harness/config.toml), or start with --no-hooks.",
            in_w.display(),
            w.display()
        )
    );
    // Outside: fine.
    let user = fx.outside.join("config.toml.real");
    fs::write(&user, "").unwrap();
    assert_eq!(check_config_file(&fx.ctx(), &user), Ok(()));
}

#[test]
fn wasm_cache_dir_is_checked_like_a_hook_path() {
    let fx = fx();
    let inside = fx.project.join(".cache/wasm");
    assert_eq!(
        check_cache_dir(&fx.ctx(), &inside).unwrap_err().to_string(),
        format!(
            "[wasm] cache_dir {} is in the project, so the agent could plant compiled code that the host would load. Move it outside (for example ~/.cache/harness/wasm/), or start with --no-hooks.",
            inside.display()
        )
    );
    // Not created yet, outside: fine.
    assert_eq!(
        check_cache_dir(&fx.ctx(), &fx.outside.join("cache/wasm")),
        Ok(())
    );
    // A world-writable cache folder without the sticky bit is refused.
    let open = fx.outside.join("open");
    fs::create_dir(&open).unwrap();
    fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).unwrap();
    let msg = check_cache_dir(&fx.ctx(), &open).unwrap_err().to_string();
    assert_eq!(
        msg,
        format!(
            "[wasm] cache_dir {} is group- or world-writable, so another user could change it. Fix its owner or permissions, or start with --no-hooks.",
            open.display()
        )
    );
    // Sticky does not help a cache folder itself: others could still add artifacts.
    fs::set_permissions(&open, fs::Permissions::from_mode(0o1777)).unwrap();
    assert!(check_cache_dir(&fx.ctx(), &open).is_err());
    // But a cache below a sticky folder of its own is fine.
    let mine = open.join("mine");
    fs::create_dir(&mine).unwrap();
    assert_eq!(check_cache_dir(&fx.ctx(), &mine), Ok(()));
}

#[test]
fn host_hook_path_is_scrubbed_in_a_sandboxed_session() {
    let fx = fx();
    let good = fx.outside.join("bin");
    fs::create_dir(&good).unwrap();
    let dangling = fx.outside.join("dangling");
    symlink(fx.outside.join("nowhere/bin"), &dangling).unwrap();
    let into_project = fx.outside.join("pbin");
    fs::create_dir(fx.project.join("bin")).unwrap();
    symlink(fx.project.join("bin"), &into_project).unwrap();
    let path = [
        "".to_owned(),
        "rel/bin".to_owned(),
        ".".to_owned(),
        s(&fx.project.join("bin")),
        s(&dangling),
        s(&into_project),
        s(&good),
        "/usr/bin".to_owned(),
    ]
    .join(":");
    let mut ctx = fx.ctx();
    ctx.path_env = Some(path.clone().into());
    // Without a sandbox PATH is unchanged.
    assert_eq!(scrub_path_for_argv_hooks(&ctx), Some(OsString::from(&path)));
    ctx.sandboxed_session = true;
    assert_eq!(
        scrub_path_for_argv_hooks(&ctx),
        Some(OsString::from(format!("{}:/usr/bin", good.display())))
    );
    // Nothing left: no PATH at all.
    ctx.path_env = Some(format!("::rel:{}", dangling.display()).into());
    assert_eq!(scrub_path_for_argv_hooks(&ctx), None);
    ctx.path_env = None;
    assert_eq!(scrub_path_for_argv_hooks(&ctx), None);
}

#[test]
fn every_refused_hook_and_element_is_reported() {
    let fx = fx();
    let bad = exe(&fx.project.join("bad.sh"), "#!/bin/sh\n");
    fs::write(fx.project.join("r.yaml"), "").unwrap();
    let c1 = argv(&[&s(&bad), "r.yaml", "--x=hooks/y"]);
    let c2 = argv(&["/usr/bin/env"]);
    let c3 = argv(&["nope-not-here"]);
    let hooks = [
        HookToGuard {
            name: "one",
            command: &c1,
            sandbox: true,
        },
        HookToGuard {
            name: "two",
            command: &c2,
            sandbox: true,
        },
        HookToGuard {
            name: "three",
            command: &c3,
            sandbox: false,
        },
    ];
    let msgs: Vec<String> = check_hooks(&fx.ctx(), &hooks)
        .unwrap_err()
        .iter()
        .map(ToString::to_string)
        .collect();
    let proj = |p: &str| format!("hook one: {p} is in the project, {SPEC_TAIL}");
    assert_eq!(
        msgs,
        vec![
            proj(&s(&bad)),
            proj("r.yaml"),
            proj("hooks/y"),
            "hook three: nope-not-here was not found.".to_owned(),
        ]
    );
    // And all good hooks come back in order with their programs.
    let ok = check_hooks(&fx.ctx(), &hooks[1..2]).unwrap();
    assert_eq!(ok[0].program, PathBuf::from("/usr/bin/env"));
}

#[test]
fn shebang_interpreters_are_checked() {
    let fx = fx();
    if fx.project.to_string_lossy().contains(char::is_whitespace) {
        // The kernel ends a #! interpreter at the first blank, as the guard does.
        eprintln!(
            "SKIPPED shebang_interpreters_are_checked: a #! line cannot name an interpreter under this checkout's path, which has a blank in it"
        );
        return;
    }
    let interp = exe(&fx.project.join("bin/interp"), "#!/bin/sh\n");
    let script = exe(
        &fx.outside.join("hook.sh"),
        &format!("#!{} -x\nexit 0\n", interp.display()),
    );
    assert_eq!(
        refused(&fx.ctx(), &[&s(&script)], false),
        format!(
            "hook h: {} (named by the #! line of {}) is in the project, {SPEC_TAIL}",
            interp.display(),
            script.display()
        )
    );

    // `#!/usr/bin/env X`: X found on PATH, and no earlier PATH entry the agent can write.
    let tool = exe(&fx.outside.join("bin/mytool"), "#!/bin/sh\n");
    let env_script = exe(&fx.outside.join("env.sh"), "#!/usr/bin/env -S mytool -q\n");
    let mut ctx = fx.ctx();
    ctx.path_env = Some(format!("{}:/usr/bin", tool.parent().unwrap().display()).into());
    assert_eq!(
        guard(&ctx, &[&s(&env_script)], true),
        Ok(env_script.clone())
    );
    // A project PATH entry before it: the agent could plant its own mytool there.
    let pbin = fx.project.join("bin");
    ctx.path_env = Some(format!("{}:{}", pbin.display(), fx.outside.join("bin").display()).into());
    assert_eq!(
        refused(&ctx, &[&s(&env_script)], true),
        format!(
            "hook h: {} runs mytool through /usr/bin/env, which looks it up on PATH at every run, and the PATH entry {} is in the project, so the agent could plant its own mytool there. Name the interpreter by its full path, or start with --no-hooks.",
            env_script.display(),
            pbin.display()
        )
    );
    // For a host hook in a sandboxed session that entry is scrubbed from its PATH: fine.
    ctx.sandboxed_session = true;
    assert_eq!(guard(&ctx, &[&s(&env_script)], false), Ok(env_script));
}

#[test]
fn folders_others_can_write_or_own_are_refused() {
    let fx = fx();
    let shared = fx.outside.join("shared");
    let prog = exe(&shared.join("x.sh"), "#!/bin/sh\n");
    fs::set_permissions(&shared, fs::Permissions::from_mode(0o775)).unwrap();
    assert_eq!(
        refused(&fx.ctx(), &[&s(&prog)], true),
        format!(
            "hook h: {} lies under {}, which is group- or world-writable without the sticky bit, so another user could change it. Fix its owner or permissions, or start with --no-hooks.",
            prog.display(),
            shared.display()
        )
    );
    // With the sticky bit (as /tmp has) the folder is fine.
    fs::set_permissions(&shared, fs::Permissions::from_mode(0o1777)).unwrap();
    assert_eq!(guard(&fx.ctx(), &[&s(&prog)], true), Ok(prog.clone()));
    // The program itself writable by others.
    fs::set_permissions(&prog, fs::Permissions::from_mode(0o757)).unwrap();
    assert!(refused(&fx.ctx(), &[&s(&prog)], true).contains("is group- or world-writable, so"));
    fs::set_permissions(&prog, fs::Permissions::from_mode(0o755)).unwrap();

    // Owned by another (non-root) user: only root can set that up.
    if !support::root_or_skip(
        "folders_others_can_write_or_own_are_refused (the ownership half)",
        "not root, so nothing can be given to another user",
    ) {
        return;
    }
    let theirs = fx.outside.join("theirs");
    let p2 = exe(&theirs.join("x.sh"), "#!/bin/sh\n");
    std::os::unix::fs::chown(&theirs, Some(12345), None).unwrap();
    assert_eq!(
        refused(&fx.ctx(), &[&s(&p2)], true),
        format!(
            "hook h: {} lies under {}, which is owned by another user (uid 12345), so another user could change it. Fix its owner or permissions, or start with --no-hooks.",
            p2.display(),
            theirs.display()
        )
    );
    std::os::unix::fs::chown(&p2, Some(12345), None).unwrap();
    std::os::unix::fs::chown(&theirs, Some(0), None).unwrap();
    assert!(refused(&fx.ctx(), &[&s(&p2)], true).contains("is owned by another user (uid 12345)"));
}

#[test]
fn wasm_modules_are_checked_like_any_program() {
    let fx = fx();
    let module = fx.project.join("hooks/policy.wasm");
    fs::create_dir_all(module.parent().unwrap()).unwrap();
    fs::write(&module, b"\0asm\x01\0\0\0").unwrap();
    assert_eq!(
        refused(&fx.ctx(), &[&s(&module)], false),
        in_project(&s(&module))
    );
    let outside = fx.outside.join("policy.wasm");
    fs::write(&outside, b"\0asm\x01\0\0\0").unwrap();
    assert_eq!(guard(&fx.ctx(), &[&s(&outside)], false), Ok(outside));
}

#[test]
fn odd_input_does_not_panic() {
    let fx = fx();
    let ctx = fx.ctx();
    let hooks_empty: [HookToGuard; 1] = [HookToGuard {
        name: "e",
        command: &[],
        sandbox: true,
    }];
    let err = check_hooks(&ctx, &hooks_empty).unwrap_err();
    assert_eq!(
        err[0].to_string(),
        "hook e: the command is empty, so there is nothing to run."
    );
    // A NUL byte cannot name a file: refused, not a panic.
    let msg = refused(&ctx, &["/usr/bin/env", "/usr/\0y"], true);
    assert!(msg.contains("could not be followed"), "{msg}");
    // Under a folder that does not exist, it is taken by spelling: nothing writable there.
    assert!(guard(&ctx, &["/usr/bin/env", "/nonexistent/\0y"], true).is_ok());
    assert_eq!(refused(&ctx, &[""], true), "hook h:  was not found.");
    // A link with a non-UTF-8 target into the project.
    use std::os::unix::ffi::OsStrExt;
    let mut target = fx.project.as_os_str().as_bytes().to_vec();
    target.extend_from_slice(b"/\xff\xfe.sh");
    let link = fx.outside.join("weird");
    symlink(std::ffi::OsStr::from_bytes(&target), &link).unwrap();
    assert!(refused(&ctx, &[&s(&link)], true).contains("is in the project (through the link"));
    // Writing under a regular file (ENOTDIR) is taken by spelling, not an error.
    assert!(guard(&ctx, &["/usr/bin/env", "/usr/bin/true/x/y"], true).is_ok());
}

// ---- F13: per-process links, bind-mount aliases, hard links as root --------------------------
