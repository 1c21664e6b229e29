//! Git's linked worktrees: the common git directory of a linked worktree is as writable
//! to the agent as the project (it holds the hooks and config git runs).

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::paths::{lexical, walk};
use crate::platform::sys::file_system::os_str_from_bytes;

/// The common directory of a linked worktree: `.git` is a file `gitdir: X`, and
/// `X/commondir` names the common directory, relative to X.
pub(super) fn linked_worktree_common_dir(project: &Path) -> Option<PathBuf> {
    let dot_git = project.join(".git");
    if !crate::paths::stat(&dot_git).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let text = read_small(&dot_git)?;
    let gitdir = text.strip_prefix(b"gitdir:")?.trim_ascii();
    let gitdir = project.join(os_str_from_bytes(gitdir));
    let common = read_small(&gitdir.join("commondir"))?;
    let common = gitdir.join(os_str_from_bytes(common.trim_ascii()));
    Some(walk(&common).map_or_else(|_| lexical(&common), |w| w.end))
}

/// The main checkout of a linked worktree at `project`: the folder its common git
/// directory lies in (`/repo` for `/repo/.git`). `None` for a folder that is no linked
/// worktree.
pub(crate) fn main_checkout(project: &Path) -> Option<PathBuf> {
    linked_worktree_common_dir(project)?
        .parent()
        .map(Path::to_path_buf)
}

/// The first few KiB of a small regular file: the agent writes both files, and a FIFO
/// would block the open for good (docs/threats.md#b9).
fn read_small(path: &Path) -> Option<Vec<u8>> {
    let mut text = Vec::new();
    crate::access::open_regular(path)
        .ok()?
        .0
        .take(4096)
        .read_to_end(&mut text)
        .ok()?;
    Some(text)
}
