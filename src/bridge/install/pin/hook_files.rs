//! The files an agent reads hooks from besides its settings files (an agent's
//! [`HookFiles`]: Copilot CLI's folders of hook files), read for the check of hooks that
//! may rewrite a call ([`super::rewriting`]; docs/threats.md#r14).
//!
//! Unlike a settings file, none of these is read for a switch-off, so the rewriting check
//! is the only one to look at them: a file hookhost cannot read or parse is kept with why,
//! and refuses the call (the agent may read a hook there that hookhost could not see).

use super::switch_offs::{ProjectFile, read_settings};
use super::*;
use crate::bridge::HookFiles;

/// The most hook files one folder may hold: past it, the folder refuses the call. A
/// folder of thousands of files cost a read of each at every call (docs/threats.md#b9).
const FOLDER_FILES: usize = 64;

/// The most bytes of hook files one call reads, all together (docs/threats.md#b9).
const READ: usize = 2 * crate::access::caps::SETTINGS as usize;

/// A hook file, and where `install` accepts its hooks ("in FOLDER", or "again").
pub(super) struct HookFile {
    /// The file, read (its bytes, or why hookhost cannot read it).
    pub(super) read: ProjectFile,
    /// Where `install` would accept its hooks, for the refusal.
    pub(super) accept_in: String,
}

/// The hook files `agent` reads for a call from `cwd` besides its settings files: those
/// of its folder in the home (`user`, when the home is known) and those of the project
/// (given a `cwd`), at the git repository's root and in `cwd` and each folder between
/// them. Each file once, at most [`READ`] bytes in all.
pub(super) fn read(
    agent: AgentKind,
    user: Option<&super::super::Places>,
    cwd: Option<&Path>,
) -> Vec<HookFile> {
    let Some(rewriting) = agent.declaration().rewriting_hooks else {
        return Vec::new();
    };
    if rewriting.more_files.is_empty() {
        return Vec::new();
    }
    let user_folder = user.map(|places| agent.declaration().settings.user_folder(places));
    let project = cwd.map(project_folders).unwrap_or_default();
    let mut reader = Reader::default();
    for source in rewriting.more_files {
        match source {
            HookFiles::User(name) => {
                if let Some(folder) = &user_folder {
                    reader.file(folder.join(name), "again");
                }
            }
            HookFiles::UserFolder(name) => {
                if let Some(folder) = &user_folder {
                    reader.folder(&folder.join(name), "again");
                }
            }
            HookFiles::Project(name) => {
                for folder in &project {
                    reader.file(folder.join(name), &format!("in {}", folder.display()));
                }
            }
            HookFiles::ProjectFolder(name) => {
                for folder in &project {
                    reader.folder(&folder.join(name), &format!("in {}", folder.display()));
                }
            }
        }
    }
    reader.found
}

/// `cwd` and the folders above it up to the git repository's root (the first holding
/// `.git`), which is where Copilot CLI 1.0.102 reads a repository's hooks (a hook file in
/// a folder below the root was not loaded): the root and the folders on the way, so that
/// a root found otherwise than the agent finds it refuses rather than misses. Outside a
/// repository, `cwd` alone.
fn project_folders(cwd: &Path) -> Vec<PathBuf> {
    let mut folders = Vec::new();
    for folder in cwd.ancestors() {
        folders.push(folder.to_path_buf());
        if std::fs::symlink_metadata(folder.join(".git")).is_ok() {
            return folders;
        }
    }
    vec![cwd.to_path_buf()]
}

/// Reads hook files, each once, within [`READ`].
#[derive(Default)]
struct Reader {
    found: Vec<HookFile>,
    seen: Vec<PathBuf>,
    read: usize,
    full: bool,
}

impl Reader {
    fn file(&mut self, file: PathBuf, accept_in: &str) {
        if self.full || self.seen.iter().any(|s| same_path(s, &file)) {
            return;
        }
        let Some(bytes) = read_settings(&file, |_| true) else {
            return;
        };
        self.read += bytes.as_ref().map_or(0, Vec::len);
        self.seen.push(file.clone());
        let bytes = if self.read > READ {
            self.full = true;
            Err(format!(
                "with the hook files before it, it is more than the {} MiB hookhost reads of them for one call",
                READ >> 20
            ))
        } else {
            bytes
        };
        self.push(file, bytes, accept_in);
    }

    /// Every `.json` file of `folder`, in name order; a folder that is not there (or that
    /// this user may not list, nor then the agent) holds none.
    fn folder(&mut self, folder: &Path, accept_in: &str) {
        let entries = match std::fs::read_dir(folder) {
            Ok(entries) => entries,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound
                        | std::io::ErrorKind::NotADirectory
                        | std::io::ErrorKind::PermissionDenied
                ) =>
            {
                return;
            }
            Err(e) => return self.push(folder.to_path_buf(), Err(e.to_string()), accept_in),
        };
        let mut files = Vec::new();
        for entry in entries {
            let Ok(entry) = entry else { continue };
            let name = entry.file_name();
            let is_json = Path::new(&name)
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("json"));
            if !is_json {
                continue;
            }
            if files.len() == FOLDER_FILES {
                return self.push(
                    folder.to_path_buf(),
                    Err(format!(
                        "it holds more than the {FOLDER_FILES} hook files hookhost reads of one folder"
                    )),
                    accept_in,
                );
            }
            files.push(entry.path());
        }
        files.sort();
        for file in files {
            self.file(file, accept_in);
        }
    }

    fn push(&mut self, file: PathBuf, bytes: Result<Vec<u8>, String>, accept_in: &str) {
        self.found.push(HookFile {
            read: ProjectFile {
                file,
                bytes,
                merged: true,
                registration: false,
            },
            accept_in: accept_in.to_string(),
        });
    }
}
