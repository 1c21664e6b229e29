//! The agent-writable folders besides the project: the private `/tmp`, hidden folders, and a linked worktree's common dir.

use super::*;

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
