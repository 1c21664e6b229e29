//! Links on the way to a program: chains, cycles, dangling links, `..` through a linked parent, and other spellings of one path.

use super::*;

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
