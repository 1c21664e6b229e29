//! Install and uninstall on disk: backups and modes, links and folder swaps, dry runs, a
//! file changed after planning.

use super::*;
use std::fs;

fn places(home: &Path) -> Places {
    Places::new(home, home.join("proj"))
}

fn run_request(home: &Path, agent: AgentKind, action: Action) -> Request {
    Request {
        places: places(home),
        ..request(action, agent, Scope::User)
    }
}

fn backups(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(folder)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains("hookhost-backup"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"))
}

fn ok<T>(result: Result<T, InstallError>) -> T {
    result.unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn install_writes_once_with_a_backup_keeping_the_mode_and_is_idempotent() {
    use crate::platform::sys::files;
    let home = tempdir();
    let folder = home.path().join(".claude");
    let file = folder.join("settings.json");
    ok(
        fs::create_dir_all(&folder).map_err(|source| InstallError::Write {
            path: folder.clone(),
            source,
        }),
    );
    let _ = fs::write(&file, CLAUDE_SETTINGS);
    // Private (0600 where files have modes): the backup and the new file keep it.
    if let Ok(opened) = fs::File::open(&file) {
        let _ = files::make_file_private(&opened);
    }
    let private = fs::metadata(&file).map(|m| files::mode_bits(&m)).ok();
    assert!(private.is_some_and(|m| m & 0o077 == 0), "{private:?}");

    let request = run_request(home.path(), AgentKind::ClaudeCode, Action::Install);
    let report = ok(run(&request, false));
    let applied = report.applied.unwrap_or_else(|| panic!("not applied"));
    assert!(applied.written);
    assert_eq!(
        applied.backup,
        Some(folder.join("settings.json.hookhost-backup"))
    );
    assert_eq!(
        fs::read_to_string(folder.join("settings.json.hookhost-backup"))
            .ok()
            .as_deref(),
        Some(CLAUDE_SETTINGS)
    );
    let written = fs::read_to_string(&file).unwrap_or_default();
    assert_eq!(Some(written.as_str()), report.change.after.as_deref());
    let mode = |p: &Path| fs::metadata(p).map(|m| files::mode_bits(&m)).ok();
    assert_eq!(mode(&file), private);
    assert_eq!(mode(&folder.join("settings.json.hookhost-backup")), private);

    // Again: already installed, nothing written, no new backup.
    let again = ok(run(&request, false));
    assert_eq!(again.change.outcome, ChangeKind::AlreadyInstalled);
    assert_eq!(again.applied.map(|a| a.written), Some(false));
    assert_eq!(backups(&folder), ["settings.json.hookhost-backup"]);
    // No temporary file is left behind.
    let entries = fs::read_dir(&folder).map(|e| e.count()).unwrap_or(0);
    assert_eq!(entries, 2);

    // Uninstall: the original text is back, and the one backup now holds the file as
    // it was before the uninstall (one per file: docs/threats.md#r13).
    let installed = fs::read_to_string(&file).unwrap_or_default();
    let removed = ok(run(
        &run_request(home.path(), AgentKind::ClaudeCode, Action::Uninstall),
        false,
    ));
    assert_eq!(removed.change.outcome, ChangeKind::Removed);
    assert_eq!(
        fs::read_to_string(&file).ok().as_deref(),
        Some(CLAUDE_SETTINGS)
    );
    assert_eq!(backups(&folder), ["settings.json.hookhost-backup"]);
    assert_eq!(
        fs::read_to_string(folder.join("settings.json.hookhost-backup")).ok(),
        Some(installed)
    );
    assert_eq!(mode(&folder.join("settings.json.hookhost-backup")), private);
}

/// A project's settings are not written through a link the agent put in the project
/// (docs/threats.md#n9): `proj/.claude -> ~/.claude` would have made `uninstall --scope
/// project` rewrite (or delete) the user's own settings.
#[test]
fn a_link_on_the_way_to_a_projects_settings_is_refused() {
    let home = tempdir();
    let user = home.path().join("user-claude");
    let project = home.path().join("proj");
    let _ = fs::create_dir_all(&user);
    let _ = fs::create_dir_all(&project);
    let _ = fs::write(user.join("settings.json"), CLAUDE_SETTINGS);
    let _ = crate::platform::sys::files::symlink_file(&user, &project.join(".claude"));
    let mut request = run_request(home.path(), AgentKind::ClaudeCode, Action::Install);
    request.scope = Scope::Project;
    request.places.project = project.clone();
    match run(&request, false) {
        Err(e @ InstallError::LinkInProject { .. }) => assert_eq!(
            e.to_string(),
            format!(
                "{}: {} is a symbolic link, which hookhost does not follow for a project's settings (it could lead the write to the user's own settings); nothing is written: remove the link, or install with --scope user",
                project.join(".claude/settings.json").display(),
                project.join(".claude").display()
            )
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        fs::read_to_string(user.join("settings.json"))
            .ok()
            .as_deref(),
        Some(CLAUDE_SETTINGS)
    );
}

/// The race of N9 (docs/threats.md#n9): while `install` and `uninstall --scope project`
/// run, the agent swaps the project's `.claude` folder for a link to the user's own
/// folder and back, as fast as it can. Each run may fail (a link, a file changed
/// meanwhile) or write into the project, but the user's settings are never touched.
#[test]
fn a_folder_swapped_for_a_link_during_a_project_install_never_leads_the_write_out() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let home = tempdir();
    let user = home.path().join("user-claude");
    let project = home.path().join("proj");
    let _ = fs::create_dir_all(&user);
    let _ = fs::create_dir_all(project.join(".claude"));
    let _ = fs::write(user.join("settings.json"), CLAUDE_SETTINGS);
    let done = AtomicBool::new(false);
    let mut request = run_request(home.path(), AgentKind::ClaudeCode, Action::Install);
    request.scope = Scope::Project;
    request.places.project = project.clone();
    let (mut wrote, mut refused) = (0, 0);
    std::thread::scope(|s| {
        s.spawn(|| {
            let real = project.join(".claude");
            let away = project.join(".claude-away");
            // Each state held a little while, so that a run can meet either, or both.
            let hold = std::time::Duration::from_micros(150);
            while !done.load(Ordering::Relaxed) {
                if fs::rename(&real, &away).is_ok() {
                    let _ = crate::platform::sys::files::symlink_file(&user, &real);
                    std::thread::sleep(hold);
                    let _ = fs::remove_file(&real);
                    let _ = fs::rename(&away, &real);
                    std::thread::sleep(hold);
                }
            }
        });
        for round in 0..200 {
            request.action = if round % 2 == 0 {
                Action::Install
            } else {
                Action::Uninstall
            };
            match run(&request, false) {
                Ok(_) => wrote += 1,
                Err(_) => refused += 1,
            }
        }
        done.store(true, Ordering::Relaxed);
    });
    assert_eq!(
        fs::read_to_string(user.join("settings.json"))
            .ok()
            .as_deref(),
        Some(CLAUDE_SETTINGS),
        "{wrote} runs wrote, {refused} were refused"
    );
    let leftovers: Vec<_> = fs::read_dir(&user)
        .map(|entries| entries.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert_eq!(leftovers.len(), 1, "{leftovers:?}");
    assert!(
        wrote + refused == 200 && wrote > 0,
        "{wrote} wrote, {refused} refused"
    );
}

#[test]
fn a_missing_folder_is_created_and_no_backup_is_made_of_nothing() {
    let home = tempdir();
    let request = run_request(home.path(), AgentKind::Copilot, Action::Install);
    let report = ok(run(&request, false));
    let file = home.path().join(".copilot/hooks/hookhost.json");
    assert_eq!(fs::read_to_string(&file).ok(), report.change.after);
    assert_eq!(report.applied.and_then(|a| a.backup), None);
    // Uninstall removes hookhost's own file, keeping a backup of it.
    let removed = ok(run(
        &run_request(home.path(), AgentKind::Copilot, Action::Uninstall),
        false,
    ));
    assert_eq!(removed.applied.map(|a| a.removed), Some(true));
    assert!(!file.exists());
    assert_eq!(
        backups(&home.path().join(".copilot/hooks")),
        ["hookhost.json.hookhost-backup"]
    );
}

#[test]
fn a_dry_run_writes_nothing() {
    let home = tempdir();
    let request = run_request(home.path(), AgentKind::Codex, Action::Install);
    let report = ok(run(&request, true));
    assert!(report.applied.is_none());
    assert!(report.change.changes_anything());
    assert!(report.change.diff().starts_with("--- /dev/null\n+++ "));
    assert!(
        report
            .change
            .preview()
            .starts_with("Dry run: nothing is written. ")
    );
    assert_eq!(fs::read_dir(home.path()).map(|e| e.count()).unwrap_or(9), 0);
}

#[test]
fn a_broken_file_is_left_untouched() {
    let home = tempdir();
    let folder = home.path().join(".codex");
    let _ = fs::create_dir_all(&folder);
    let broken = "[hooks\n";
    let _ = fs::write(folder.join("config.toml"), broken);
    let err = run(
        &run_request(home.path(), AgentKind::Codex, Action::Install),
        false,
    )
    .err();
    assert!(
        matches!(err, Some(InstallError::Malformed { line: 1, .. })),
        "{err:?}"
    );
    assert_eq!(
        fs::read_to_string(folder.join("config.toml"))
            .ok()
            .as_deref(),
        Some(broken)
    );
    assert!(backups(&folder).is_empty());
}

#[test]
fn a_symlinked_settings_file_is_written_through() {
    let home = tempdir();
    let dotfiles = home.path().join("dotfiles");
    let _ = fs::create_dir_all(&dotfiles);
    let _ = fs::create_dir_all(home.path().join(".gemini"));
    let target = dotfiles.join("gemini.json");
    let _ = fs::write(&target, GEMINI_SETTINGS);
    let link = home.path().join(".gemini/settings.json");
    let _ = crate::platform::sys::files::symlink_file(&target, &link);
    let report = ok(run(
        &run_request(home.path(), AgentKind::Gemini, Action::Install),
        false,
    ));
    assert!(fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink()));
    assert_eq!(fs::read_to_string(&target).ok(), report.change.after);
    assert!(dotfiles.join("gemini.json.hookhost-backup").exists());
}

#[test]
fn a_file_changed_after_planning_is_not_overwritten() {
    let home = tempdir();
    let request = run_request(home.path(), AgentKind::Cursor, Action::Install);
    let change = ok(plan(&request, None));
    let _ = fs::create_dir_all(home.path().join(".cursor"));
    let _ = fs::write(&change.file, "{}\n");
    let err = apply(&change).err();
    assert!(
        matches!(err, Some(InstallError::ChangedMeanwhile { .. })),
        "{err:?}"
    );
    assert_eq!(
        fs::read_to_string(&change.file).ok().as_deref(),
        Some("{}\n")
    );
}
