//! The box's trial run, remembered for the boot.
//!
//! Before a session uses the box, the OS's tool runs once on `true` with the box's
//! flags ([`super::probe`]): where it cannot run (no user namespaces, a missing
//! bubblewrap), the session says so at its start instead of failing each hook. That
//! trial is a whole bubblewrap start, about a third of a bridged boxed hook's call,
//! paid by every fresh bridge process (BENCHMARKS.md, fifteenth sitting). So a passed
//! trial leaves a memo in the user's cache folder, `box-trial`: the boot, the user, the
//! tool's path and stamp, the stamp of the hookhost binary that ran it (which holds the
//! flags) and the kernel settings that decide whether the tool can run
//! (`platform::sys::boxed::TRIAL_SETTINGS`). A later start whose memo reads exactly the
//! same skips the trial.
//!
//! What a memo can get wrong, and why that is safe: only a *passed* trial is
//! remembered, so a memo can only say "the box runs" where it would not (a setting the
//! memo does not name changed within the boot, or someone who can write the user's
//! cache folder wrote it). Then the session uses the box, the box fails to start, and
//! each boxed hook fails as any hook that cannot start does (`on_failure`): never a
//! hook run on the host in place of the box. A memo never makes a trial that would
//! fail look passed to anything but the box's own start.

use std::path::{Path, PathBuf};

use crate::platform::sys;

/// The first line of every memo, naming its format.
const MAGIC: &str = "hookhost: the box's trial run passed, v1";

/// The memo's file name, in the user's hookhost cache folder.
const FILE_NAME: &str = "box-trial";

/// Where a session remembers its box's trial: the user's hookhost cache folder, or
/// nowhere (system scope, or no cache folder known), so that each start tries the box.
pub(crate) struct TrialMemo {
    file: Option<PathBuf>,
}

impl TrialMemo {
    /// A memo kept in `cache_folder` (the user's hookhost cache folder).
    pub(crate) fn in_folder(cache_folder: Option<&Path>) -> TrialMemo {
        TrialMemo {
            file: cache_folder.map(|f| f.join(FILE_NAME)),
        }
    }

    /// No memo: every start tries the box.
    pub(crate) fn none() -> TrialMemo {
        TrialMemo { file: None }
    }

    /// Whether a trial of `program` passed earlier in this boot, with everything the
    /// memo names unchanged since.
    pub(crate) fn passed_before(&self, program: &Path) -> bool {
        let Some(file) = &self.file else {
            return false;
        };
        let Some(expected) = memo_text(program) else {
            return false;
        };
        // A memo is a few hundred bytes; anything longer is not one of ours.
        crate::access::read_capped(file, 4096).is_ok_and(|memo| memo == expected.as_bytes())
    }

    /// Records that a trial of `program` passed. Best effort: without a memo, the next
    /// start tries the box again.
    pub(crate) fn remember(&self, program: &Path) {
        let (Some(file), Some(text)) = (&self.file, memo_text(program)) else {
            return;
        };
        let _ = write_private(file, text.as_bytes());
    }
}

/// The memo for a trial of `program` now; `None` where no memo can be kept (no boot
/// id, a file whose stamp cannot be read).
fn memo_text(program: &Path) -> Option<String> {
    let boot = sys::mapped::boot_id()?;
    let stamp = |p: &Path| {
        std::fs::metadata(p)
            .ok()
            .map(|m| sys::files::change_stamp(&m))
    };
    let [p_inode, p_s, p_ns, p_size] = stamp(program)?;
    let hookhost = std::env::current_exe().ok()?;
    let [h_inode, h_s, h_ns, h_size] = stamp(&hookhost)?;
    let mut text = format!(
        "{MAGIC}\nboot {boot}\nuser {}\nprogram {} {p_inode} {p_s} {p_ns} {p_size}\nhookhost {} {h_inode} {h_s} {h_ns} {h_size}\n",
        sys::ownership::effective_uid(),
        program.display(),
        hookhost.display(),
    );
    for setting in sys::boxed::TRIAL_SETTINGS {
        // A setting the kernel does not have reads as "-", which is a value too.
        let value = std::fs::read_to_string(setting).unwrap_or_else(|_| "-".into());
        text.push_str(&format!("setting {setting} {}\n", value.trim()));
    }
    Some(text)
}

fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let folder = path.parent().unwrap_or(Path::new("."));
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    sys::files::private_dir_mode(&mut builder).create(folder)?;
    // Written aside and renamed in, so that a concurrent start reads a whole memo or
    // none.
    let mut nonce = [0u8; 8];
    getrandom::fill(&mut nonce).map_err(|e| std::io::Error::other(e.to_string()))?;
    let aside = folder.join(format!(
        ".{FILE_NAME}.{:016x}.tmp",
        u64::from_le_bytes(nonce)
    ));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    sys::files::private_file_mode(&mut options);
    let written = options.open(&aside).and_then(|mut file| {
        sys::files::make_file_private(&file)?;
        file.write_all(bytes)
    });
    match written.and_then(|()| std::fs::rename(&aside, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&aside);
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A memo holds for the program it was made for while its stamp holds; another
    /// program, a program changed since, a damaged memo and no folder each mean a trial.
    #[test]
    fn a_memo_holds_for_the_program_it_was_made_for() {
        if sys::mapped::boot_id().is_none() {
            eprintln!("SKIPPED: no boot id on this platform (no memos are kept)");
            return;
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let program = dir.path().join("tool");
        let other = dir.path().join("other");
        std::fs::write(&program, b"a tool").expect("write");
        std::fs::write(&other, b"a tool").expect("write");
        let memo = TrialMemo::in_folder(Some(&dir.path().join("cache")));
        assert!(!memo.passed_before(&program), "no memo yet");

        memo.remember(&program);
        assert!(memo.passed_before(&program));
        assert!(!memo.passed_before(&other), "another program");

        // The program written again: its change time moves.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&program, b"a tool, changed").expect("write");
        assert!(!memo.passed_before(&program), "the program changed");
        memo.remember(&program);
        assert!(memo.passed_before(&program));

        // A memo someone edited.
        let file = dir.path().join("cache").join(FILE_NAME);
        let text = std::fs::read_to_string(&file).expect("memo");
        std::fs::write(&file, text.replace("boot ", "boot 0")).expect("write");
        assert!(!memo.passed_before(&program), "a damaged memo");

        assert!(!TrialMemo::none().passed_before(&program), "no folder");
        TrialMemo::none().remember(&program);
        let left: Vec<_> = std::fs::read_dir(dir.path().join("cache"))
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(
            left,
            [std::ffi::OsString::from(FILE_NAME)],
            "nothing but the memo"
        );
    }
}
