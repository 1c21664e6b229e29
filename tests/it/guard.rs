//! Integration tests for the start-up path guard, on real files and links.
//!
//! Fixtures live under cargo's `CARGO_TARGET_TMPDIR` (not `/tmp`), because `/tmp` is an
//! agent-writable folder in a session without a sandbox; the `/tmp` tests make their own.

use crate::support::{self, Prerequisite};
use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::Command;

use hookhost::guard::{
    GuardContext, HookToGuard, LinkVerdict, Refusal, WHY_PRIVATE_TMP, WHY_PROJECT, WHY_SANDBOX_TMP,
    WHY_SYSTEM_TEMP, WHY_TMPDIR, WHY_WORKTREE, WHY_WRITABLE, check_cache_dir, check_config_file,
    check_hooks, hard_link_notes, scrub_path_for_host_hook,
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
fn link_outside_into_the_project_is_refused_and_named() {
    let fx = fx();
    exe(&fx.project.join("check.sh"), "#!/bin/sh\n");
    let link = fx.outside.join("check.sh");
    symlink(fx.project.join("check.sh"), &link).unwrap();
    assert_eq!(
        refused(&fx.ctx(), &[&s(&link)], true),
        format!(
            "hook h: {} is in the project (through the link {}), {SPEC_TAIL}",
            link.display(),
            link.display()
        )
    );
}

#[test]
fn three_hop_chain_into_a_writable_folder_is_refused() {
    let fx = fx();
    let w = fx.root.join("w");
    let target = exe(&w.join("x.sh"), "#!/bin/sh\n");
    let (a, b, c) = (
        fx.outside.join("a"),
        fx.outside.join("b"),
        fx.outside.join("c"),
    );
    symlink("b", &a).unwrap(); // relative target
    symlink(&c, &b).unwrap();
    symlink(&target, &c).unwrap();
    let mut ctx = fx.ctx();
    ctx.writable = vec![w.clone()];
    assert_eq!(
        refused(&ctx, &[&s(&a)], true),
        in_writable(&s(&a), &w, WHY_WRITABLE, Some(&c))
    );
}

#[test]
fn link_cycles_are_refused_cleanly() {
    let fx = fx();
    let (a, b) = (fx.outside.join("a"), fx.outside.join("b"));
    symlink(&b, &a).unwrap();
    symlink(&a, &b).unwrap();
    let me = fx.outside.join("me");
    symlink("me", &me).unwrap();
    for link in [&a, &me] {
        assert_eq!(
            refused(&fx.ctx(), &[&s(link)], true),
            format!(
                "hook h: {} could not be followed to where it leads (a loop of links, or more than 40 of them), so it cannot be checked. Fix the path, or start with --no-hooks.",
                link.display()
            )
        );
    }
    // A loop in a later argument is refused the same way.
    let msg = refused(&fx.ctx(), &["/usr/bin/env", &s(&a)], true);
    assert!(msg.contains("a loop of links"), "{msg}");
    // A chain of 40 links is fine; 41 is too many.
    let ok = exe(&fx.outside.join("ok.sh"), "#!/bin/sh\n");
    let mut prev = ok.clone();
    for i in 0..41 {
        let l = fx.outside.join(format!("l{i}"));
        symlink(&prev, &l).unwrap();
        prev = l;
    }
    assert!(guard(&fx.ctx(), &[&s(&fx.outside.join("l39"))], true).is_ok());
    assert!(refused(&fx.ctx(), &[&s(&fx.outside.join("l40"))], true).contains("a loop of links"));
}

#[test]
fn dangling_link_into_the_project_is_refused() {
    let fx = fx();
    let link = fx.outside.join("later.sh");
    symlink(fx.project.join("not/yet/later.sh"), &link).unwrap();
    assert_eq!(
        refused(&fx.ctx(), &[&s(&link)], true),
        format!(
            "hook h: {} is in the project (through the link {}), {SPEC_TAIL}",
            link.display(),
            link.display()
        )
    );
    // Also as a later argument.
    let msg = refused(&fx.ctx(), &["/usr/bin/env", &s(&link)], true);
    assert!(msg.contains("is in the project (through the link"), "{msg}");
}

#[test]
fn link_in_the_project_to_a_system_program_is_refused() {
    let fx = fx();
    let link = fx.project.join("true");
    symlink("/usr/bin/true", &link).unwrap();
    assert_eq!(
        refused(&fx.ctx(), &[&s(&link)], true),
        in_project(&s(&link))
    );
    // Reached through an outside link, the link in the project still counts.
    let outer = fx.outside.join("t");
    symlink(&link, &outer).unwrap();
    assert_eq!(
        refused(&fx.ctx(), &[&s(&outer)], true),
        format!(
            "hook h: {} is in the project (through the link {}), {SPEC_TAIL}",
            outer.display(),
            outer.display()
        )
    );
}

#[test]
fn dot_dot_through_a_symlinked_parent_is_followed() {
    let fx = fx();
    fs::create_dir(fx.project.join("sub")).unwrap();
    exe(&fx.project.join("x.sh"), "#!/bin/sh\n");
    // The spelling alone would land on this harmless decoy.
    exe(&fx.outside.join("x.sh"), "#!/bin/sh\n");
    let p = fx.outside.join("p");
    symlink(fx.project.join("sub"), &p).unwrap();
    let written = format!("{}/../x.sh", p.display());
    let msg = refused(&fx.ctx(), &[&written], true);
    assert!(
        msg.starts_with(&format!(
            "hook h: {written} is in the project (through the link {}",
            p.display()
        )),
        "{msg}"
    );
    // A folder in the project on the way counts even when `..` leaves it again.
    let up = format!("{}/sub/../../outside/x.sh", fx.project.display());
    assert_eq!(refused(&fx.ctx(), &[&up], true), in_project(&up));
}

#[test]
fn spellings_cannot_slip_through() {
    let fx = fx();
    exe(&fx.project.join("hooks/check.sh"), "#!/bin/sh\n");
    let proj = s(&fx.project);
    let spellings = [
        format!("/{}//hooks//check.sh", proj.replace('/', "//")),
        format!("{proj}/./hooks/./check.sh"),
        format!("{proj}/hooks/../hooks/check.sh"),
        format!("{}/../proj/hooks/check.sh", fx.outside.display()),
    ];
    for written in &spellings {
        assert_eq!(refused(&fx.ctx(), &[written], true), in_project(written));
    }
    // A trailing `/` on a folder argument.
    let folder = format!("{proj}/hooks/");
    assert_eq!(
        refused(&fx.ctx(), &["/usr/bin/env", &folder], true),
        in_project(&folder)
    );
    // The project itself given with odd spelling still holds its files.
    let mut ctx = fx.ctx();
    ctx.project = PathBuf::from(format!("{proj}/./"));
    let plain = format!("{proj}/hooks/check.sh");
    assert_eq!(refused(&ctx, &[&plain], true), in_project(&plain));
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
fn private_tmp_is_agent_writable() {
    let fx = fx();
    let tmp = fx.root.join("ptmp");
    let prog = exe(&tmp.join("x.sh"), "#!/bin/sh\n");
    let mut ctx = fx.ctx();
    ctx.sandboxed_session = true;
    ctx.private_tmp = Some(tmp.clone());
    let expected = in_writable(&s(&prog), &tmp, WHY_PRIVATE_TMP, None);
    assert_eq!(refused(&ctx, &[&s(&prog)], true), expected);
    assert_eq!(refused(&ctx, &[&s(&prog)], false), expected);
}

#[test]
fn tmp_counts_for_sandboxed_hooks_and_sessions_without_a_sandbox() {
    let fx = fx();
    let dir = tempfile::Builder::new()
        .prefix("guard-")
        .tempdir_in("/tmp")
        .unwrap();
    let prog = exe(&dir.path().join("x.sh"), "#!/bin/sh\n");
    let mut ctx = fx.ctx();
    ctx.sandboxed_session = true;
    assert_eq!(
        refused(&ctx, &[&s(&prog)], true),
        in_writable(&s(&prog), Path::new("/tmp"), WHY_SANDBOX_TMP, None)
    );
    // A host hook reads the host's /tmp, which the boxed agent cannot write.
    assert_eq!(guard(&ctx, &[&s(&prog)], false), Ok(prog.clone()));
    ctx.sandboxed_session = false;
    let expected = in_writable(&s(&prog), Path::new("/tmp"), WHY_SYSTEM_TEMP, None);
    assert_eq!(refused(&ctx, &[&s(&prog)], true), expected);
    assert_eq!(refused(&ctx, &[&s(&prog)], false), expected);

    // $TMPDIR counts without a sandbox only (on Linux).
    let tmpdir = fx.root.join("tmpdir");
    let t = exe(&tmpdir.join("x.sh"), "#!/bin/sh\n");
    ctx.tmpdir_env = Some(tmpdir.clone());
    assert_eq!(
        refused(&ctx, &[&s(&t)], false),
        in_writable(&s(&t), &tmpdir, WHY_TMPDIR, None)
    );
    ctx.sandboxed_session = true;
    assert_eq!(guard(&ctx, &[&s(&t)], false), Ok(t));
}

#[test]
fn hidden_folders_refuse_sandboxed_hooks_only() {
    let fx = fx();
    let secret = fx.outside.join(".claude");
    let prog = exe(&secret.join("check.sh"), "#!/bin/sh\n");
    let mut ctx = fx.ctx();
    ctx.sandboxed_session = true;
    ctx.hidden = vec![secret.clone()];
    assert_eq!(
        refused(&ctx, &[&s(&prog)], true),
        format!(
            "hook h: {} is in a folder the sandbox hides ({}), so the hook could not read it. Move it, or set sandbox = false for this hook.",
            prog.display(),
            secret.display()
        )
    );
    let link = fx.outside.join("c.sh");
    symlink(&prog, &link).unwrap();
    assert_eq!(
        refused(&ctx, &[&s(&link)], true),
        format!(
            "hook h: {} is in a folder the sandbox hides ({}) (through the link {}), so the hook could not read it. Move it, or set sandbox = false for this hook.",
            link.display(),
            secret.display(),
            link.display()
        )
    );
    // An argument in a hidden folder too.
    let msg = refused(&ctx, &["/usr/bin/env", &s(&prog)], true);
    assert!(msg.contains("a folder the sandbox hides"), "{msg}");
    // A host hook reads it fine; so does any hook in a session without a sandbox.
    assert_eq!(guard(&ctx, &[&s(&prog)], false), Ok(prog.clone()));
    ctx.sandboxed_session = false;
    assert_eq!(guard(&ctx, &[&s(&prog)], true), Ok(prog));
}

/// Runs git; false if git is missing or fails.
fn git(dir: &Path, args: &[&str]) -> bool {
    Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn a_real_linked_worktrees_common_dir_is_agent_writable() {
    let fx = fx();
    let main = fx.root.join("main");
    fs::create_dir(&main).unwrap();
    let wt = fx.root.join("wt");
    let made = git(&main, &["init", "-q"])
        && git(&main, &["commit", "-q", "--allow-empty", "-m", "x"])
        && git(&main, &["worktree", "add", "-q", &s(&wt)]);
    if !made {
        eprintln!("git unavailable: covered by the faked worktree test only");
        return;
    }
    let common = main.join(".git");
    let mut ctx = fx.ctx();
    ctx.project = wt.clone();
    let folders = ctx.agent_writable_folders();
    assert!(
        folders.contains(&(common.clone(), WHY_WORKTREE)),
        "{folders:?}"
    );
    let hook = exe(&common.join("hooks/check.sh"), "#!/bin/sh\n");
    assert_eq!(
        refused(&ctx, &[&s(&hook)], true),
        in_writable(&s(&hook), &common, WHY_WORKTREE, None)
    );
    // The main checkout's files (outside .git) are not this project.
    let other = exe(&main.join("tool.sh"), "#!/bin/sh\n");
    assert_eq!(guard(&ctx, &[&s(&other)], true), Ok(other));
}

#[test]
fn a_faked_linked_worktree_is_recognised() {
    let fx = fx();
    let common = fx.root.join("repo.git");
    let gitdir = common.join("worktrees/wt");
    fs::create_dir_all(&gitdir).unwrap();
    fs::write(gitdir.join("commondir"), "../..\n").unwrap();
    fs::write(
        fx.project.join(".git"),
        "gitdir: ../repo.git/worktrees/wt\n",
    )
    .unwrap();
    let ctx = fx.ctx();
    assert!(
        ctx.agent_writable_folders()
            .contains(&(common.clone(), WHY_WORKTREE))
    );
    let cfg = exe(&common.join("config-hook"), "#!/bin/sh\n");
    assert_eq!(
        refused(&ctx, &[&s(&cfg)], false),
        in_writable(&s(&cfg), &common, WHY_WORKTREE, None)
    );
    // A project whose .git is a folder is not a linked worktree.
    let plain = GuardContext {
        project: fx.outside.clone(),
        ..GuardContext::default()
    };
    fs::create_dir(fx.outside.join(".git")).unwrap();
    assert!(
        plain
            .agent_writable_folders()
            .iter()
            .all(|(_, why)| *why != WHY_WORKTREE)
    );
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
    assert_eq!(scrub_path_for_host_hook(&ctx), Some(OsString::from(&path)));
    ctx.sandboxed_session = true;
    assert_eq!(
        scrub_path_for_host_hook(&ctx),
        Some(OsString::from(format!("{}:/usr/bin", good.display())))
    );
    // Nothing left: no PATH at all.
    ctx.path_env = Some(format!("::rel:{}", dangling.display()).into());
    assert_eq!(scrub_path_for_host_hook(&ctx), None);
    ctx.path_env = None;
    assert_eq!(scrub_path_for_host_hook(&ctx), None);
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
    assert_eq!(scrub_path_for_host_hook(&ctx), Some("/usr/bin".into()));
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
    fs::copy("/usr/bin/env", &copy).unwrap();
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
    // A program with one name has no note.
    assert!(link_notes(&ctx, &["/usr/bin/env", "true"]).is_empty());
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
    fs::copy("/bin/sh", &sh).unwrap();
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
