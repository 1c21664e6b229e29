//! The files an agent reads hooks from besides its settings files (an agent's
//! [`HookFiles`]: Copilot CLI's folders of hook files), read for the check of hooks that
//! may rewrite a call ([`super::rewriting`]; docs/threats.md#r14).
//!
//! Unlike a settings file, none of these is read for a switch-off, so the rewriting check
//! is the only one to look at them: a file hookhost cannot read or parse is kept with why,
//! and refuses the call (the agent may read a hook there that hookhost could not see).

use super::switch_offs::{ProjectFile, holds_nothing, not_for_the_agent, read_settings};
use super::*;
use crate::bridge::{Extensions, HookFiles, Markdown, NestedHookFiles};

/// The most hook files one call reads, all folders together: past it, the call is
/// refused. Thousands of small files in the folders from a deep `cwd` up to the
/// repository's root cost seconds at every call (docs/threats.md#b9).
const FILES: usize = 256;

/// The most entries (files and folders) of one folder tree that are looked at: past it,
/// the call is refused (a `node_modules` under `.github/hooks/` is read by the agent too).
const ENTRIES: usize = 4096;

/// The most Markdown files one call reads for their frontmatter (Claude Code's skills,
/// commands and subagents), all folders together: past it, the call is refused. A user's
/// collection of commands runs to hundreds; a few thousand small files cost tens of
/// milliseconds a call.
const MARKDOWN_FILES: usize = 2048;

/// The most bytes of hook files one call reads, all together (docs/threats.md#b9).
const READ: usize = 2 * crate::access::caps::SETTINGS as usize;

/// A hook file, and where `install` accepts its hooks ("in FOLDER", or "again").
pub(super) struct HookFile {
    /// The file, read (its bytes, or why hookhost cannot read it).
    pub(super) read: ProjectFile,
    /// Where `install` would accept its hooks, for the refusal.
    pub(super) accept_in: String,
    /// A folder of hook files hookhost could not read whole (`read.bytes` says why).
    pub(super) folder: bool,
    /// The file's device and inode, when read: how a pinned file is told among them
    /// without resolving each one's path (dozens of skills, at every call).
    pub(super) identity: Option<(u64, u64)>,
}

/// The hook files `agent` reads for a call from `cwd` besides its settings files: those
/// of its folder in the home (`user`, when the home is known) and those of the project
/// (given a `cwd`), at the git repository's root and in `cwd` and each folder between
/// them; of the agent's sessions' own, those of `session` (every session's, for
/// `install` and `doctor`). Each file once, at most [`READ`] bytes in all.
pub(super) fn read(
    agent: AgentKind,
    user: Option<&super::super::Places>,
    cwd: Option<&Path>,
    session: Option<&str>,
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
                    reader.folder(&folder.join(name), "again", Wanted::Json);
                }
            }
            HookFiles::UserMarkdown(name, markdown) => {
                if let Some(folder) = &user_folder {
                    reader.folder(&folder.join(name), "again", Wanted::Markdown(*markdown));
                }
            }
            HookFiles::HomeMarkdown(name, markdown) => {
                if let Some(places) = user {
                    let folder = places.home.join(name);
                    reader.folder(&folder, "again", Wanted::Markdown(*markdown));
                }
            }
            HookFiles::UserPrograms(name, entries) => {
                if let Some(folder) = &user_folder {
                    reader.folder(&folder.join(name), "again", Wanted::Programs(entries));
                }
            }
            HookFiles::ProjectPrograms(name, entries) => {
                for folder in &project {
                    let accept_in = format!("in {}", folder.display());
                    reader.folder(&folder.join(name), &accept_in, Wanted::Programs(entries));
                }
            }
            HookFiles::UserSessionPrograms(sessions, name, entries) => {
                // The call's session alone (a long-time user's thousands of sessions cost
                // a look each), when its id is a plain folder name that has a folder: a
                // subagent's calls carry an id of their own, with no folder (seen with
                // Copilot CLI 1.0.102), and read every session's, as a call with none.
                let only = session.filter(|id| {
                    !id.is_empty() && *id != "." && *id != ".." && !id.contains(['/', '\\'])
                });
                let own = user_folder
                    .as_ref()
                    .zip(only)
                    .map(|(folder, id)| folder.join(sessions).join(id))
                    .filter(|own| own.is_dir());
                match (&user_folder, own) {
                    (_, Some(own)) => {
                        reader.folder(&own.join(name), "again", Wanted::Programs(entries));
                    }
                    (Some(folder), None) => {
                        reader.sessions_programs(&folder.join(sessions), name, entries);
                    }
                    (None, _) => {}
                }
            }
            HookFiles::ProjectMarkdown(name, markdown) => {
                for folder in &project {
                    let accept_in = format!("in {}", folder.display());
                    reader.folder(&folder.join(name), &accept_in, Wanted::Markdown(*markdown));
                }
            }
            HookFiles::Project(name) => {
                for folder in &project {
                    reader.file(folder.join(name), &format!("in {}", folder.display()));
                }
            }
            HookFiles::ProjectMainCheckout(name) => {
                let root = project.last();
                let main = root.and_then(|root| crate::guard::main_checkout(root));
                if let (Some(root), Some(main)) = (root, main) {
                    for folder in &project {
                        let Ok(relative) = folder.strip_prefix(root) else {
                            continue;
                        };
                        let at = main.join(relative);
                        reader.file(at.join(name), &format!("in {}", at.display()));
                    }
                }
            }
            HookFiles::ProjectFolder(name) => {
                for folder in &project {
                    let accept_in = format!("in {}", folder.display());
                    reader.folder(&folder.join(name), &accept_in, Wanted::Json);
                }
            }
            HookFiles::UserExtensions(extensions) => {
                if let Some(folder) = &user_folder {
                    reader.extensions(&folder.join(extensions.folder), extensions, cwd);
                }
            }
        }
    }
    let key = rewriting
        .frontmatter
        .map_or(&[][..], |f| f.skill_folders_key);
    if !key.is_empty() {
        let settings = &agent.declaration().settings;
        let user_file = user_folder.as_ref().map(|f| f.join(settings.user_file));
        let project_files = settings
            .project_file
            .into_iter()
            .flat_map(|name| project.iter().map(move |folder| folder.join(name)));
        let home = user.map(|places| places.home.as_path());
        for file in user_file.into_iter().chain(project_files) {
            for folder in listed_skill_folders(&file, key, home, cwd) {
                match folder {
                    Ok(folder) => {
                        reader.folder(&folder, "again", Wanted::Markdown(Markdown::Skills));
                    }
                    Err(why) => reader.push(file.clone(), Err(why), "again", false),
                }
            }
        }
    }
    reader.found
}

/// The folders of skills the settings file `file` adds under `key` (Qwen Code's
/// `skills.directories`, read from the user's settings and a project's alike), as Qwen
/// Code 0.24.4 takes them: blanks around trimmed, `~` and `~/` the home, a relative
/// folder from `cwd` (where the agent started), `..` read by spelling. A spelling it
/// reads otherwise (a variable, `$HOME` or `%USERPROFILE%`, which it expands, or `~\`) is
/// an error: hookhost cannot tell where its hooks are. A file that is not there or cannot
/// be read adds none (the switch-off checks refuse a settings file hookhost cannot read).
fn listed_skill_folders(
    file: &Path,
    key: &[&str],
    home: Option<&Path>,
    cwd: Option<&Path>,
) -> Vec<Result<PathBuf, String>> {
    let Some(Ok(bytes)) = read_settings(file, |_| true) else {
        return Vec::new();
    };
    let Ok(settings) = super::switch_offs::read_json(&String::from_utf8_lossy(&bytes)) else {
        return Vec::new();
    };
    let listed = key
        .iter()
        .try_fold(&settings, |value, key| value.get(*key))
        .and_then(serde_json::Value::as_array);
    let unplaced = |spelled: &str| {
        Err(format!(
            "it names the folder of skills {spelled:?} in a way hookhost does not follow (a variable, or `~` other than `~/`), where a skill's hooks could rewrite a call; name that folder by its full path"
        ))
    };
    listed
        .into_iter()
        .flatten()
        .filter_map(serde_json::Value::as_str)
        .map(|spelled| spelled.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}'))
        .filter_map(|spelled| {
            if spelled.contains(['$', '%']) {
                return Some(unplaced(spelled));
            }
            let folder = match (spelled.strip_prefix('~'), home) {
                (Some(""), Some(home)) => home.to_path_buf(),
                (Some(rest), Some(home)) if rest.starts_with('/') => home.join(&rest[1..]),
                (Some(_), _) => return Some(unplaced(spelled)),
                _ if Path::new(spelled).is_absolute() => PathBuf::from(spelled),
                _ => cwd?.join(spelled),
            };
            Some(Ok(crate::paths::lexical(&folder)))
        })
        .collect()
}

/// The most files and folders of the project looked through for hook files in its
/// subfolders ([`read_nested`], at a call that runs them): past it, the call is refused.
/// The walk reads folders' listings (no file's metadata but a link's): ~1 µs an entry
/// here, so a second or two at this many, for a call that runs a skill (a repository with
/// its dependencies installed holds hundreds of thousands).
const NESTED_ENTRIES: usize = 2_000_000;

/// The hook files `nested` says the agent loads from any folder of the project, for a call
/// from `cwd`: the project is the git repository's root (the whole repository, whatever
/// folder the session moved to), else `cwd`. Every folder is looked into but `.git`, a
/// gitignored one too (Claude Code 2.1.332 loaded a skill from an ignored folder whose
/// files git tracks, or that a subfolder's `.gitignore` keeps), and a link to a folder is
/// followed, into the project or out of it (as the agent follows it, once a file there is
/// read), each folder once. An error is the refusal: a project too big to look through
/// whole.
pub(super) fn read_nested(
    agent: AgentKind,
    nested: &NestedHookFiles,
    cwd: &Path,
) -> Result<Vec<HookFile>, String> {
    // The folders from the root down to `cwd` are read at every call already.
    let every_call = project_folders(cwd);
    let root = every_call
        .last()
        .cloned()
        .unwrap_or_else(|| cwd.to_path_buf());
    let accept_in = format!("in {}", root.display());
    let mut reader = Reader::default();
    let mut pending = vec![root.clone()];
    let mut folders_seen = FoldersSeen::default();
    let mut entries = 0;
    while let Some(folder) = pending.pop() {
        // Each folder once, however many links lead to it (a link to `..` is a loop).
        let Some(identity) = folders_seen.first_visit(&folder) else {
            continue;
        };
        let Ok(listing) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in listing.flatten() {
            entries += 1;
            if entries > NESTED_ENTRIES {
                return Err(format!(
                    "{} may load hooks from a skill in any folder of {} (its `.claude/skills/`), and that project holds more than the {NESTED_ENTRIES} files and folders hookhost looks through for them at a call that runs a skill (links to folders followed), so hookhost blocks this call. A link in the project to a large folder elsewhere counts: remove it, or have the model do the skill's steps without calling the skill.",
                    agent.display_name(),
                    root.display()
                ));
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            // A link is followed only where a folder's identity tells a loop.
            let is_folder = kind.is_dir()
                || (kind.is_symlink()
                    && identity.is_some()
                    && std::fs::metadata(&path).is_ok_and(|meta| meta.is_dir()));
            let name = entry.file_name();
            if !is_folder || name == ".git" {
                continue;
            }
            for (files, markdown) in nested.folders {
                if Path::new(files).iter().next() == Some(name.as_os_str())
                    && !every_call.contains(&folder)
                {
                    let at = folder.join(files);
                    reader.folder(&at, &accept_in, Wanted::Markdown(*markdown));
                }
            }
            pending.push(path);
        }
    }
    Ok(reader.found)
}

/// The folders a walk has been in, by identity, so that links to a folder (a loop among
/// them) lead into it once.
#[derive(Default)]
pub(super) struct FoldersSeen(std::collections::HashSet<(u64, u64)>);

impl FoldersSeen {
    /// `None` when `folder` was visited already; else whether the OS gives folders an
    /// identity here (without one, a link cannot be told from a loop, and is not followed).
    pub(super) fn first_visit(&mut self, folder: &Path) -> Option<Option<(u64, u64)>> {
        let identity = std::fs::metadata(folder)
            .ok()
            .and_then(|meta| crate::platform::sys::ownership::identity_in(&meta))
            .map(|id| (id.dev, id.ino));
        match identity {
            Some(id) if !self.0.insert(id) => None,
            identity => Some(identity),
        }
    }
}

/// `cwd` and the folders above it up to the git repository's root (the first holding
/// `.git`), which is where Copilot CLI 1.0.102 reads a repository's hooks (a hook file in
/// a folder below the root was not loaded): the root and the folders on the way, so that
/// a root found otherwise than the agent finds it refuses rather than misses. Outside a
/// repository, `cwd` alone.
pub(super) fn project_folders(cwd: &Path) -> Vec<PathBuf> {
    let mut folders = Vec::new();
    for folder in cwd.ancestors() {
        folders.push(folder.to_path_buf());
        if std::fs::symlink_metadata(folder.join(".git")).is_ok() {
            return folders;
        }
    }
    vec![cwd.to_path_buf()]
}

/// The files of a folder that hold hooks.
#[derive(Clone, Copy)]
enum Wanted {
    /// Every `.json` file, at any depth but hidden folders (Copilot CLI's).
    Json,
    /// Markdown files whose frontmatter may declare hooks (Claude Code's, Qwen Code's).
    Markdown(Markdown),
    /// The entry files of each folder in it (Copilot CLI's extensions).
    Programs(&'static [&'static str]),
}

impl Wanted {
    /// Whether the file `name` of a folder is one.
    fn wants(self, name: &Path) -> bool {
        let extension = |wanted: &str| {
            name.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case(wanted))
        };
        match self {
            Wanted::Json => extension("json"),
            Wanted::Markdown(Markdown::Every) => extension("md"),
            Wanted::Markdown(Markdown::Skills) | Wanted::Programs(_) => false,
        }
    }

    /// Whether hidden folders (`.x/`) are left out: Copilot CLI 1.0.102 loaded no hook file
    /// from one; Claude Code 2.1.332 loaded a subagent from `agents/.team/`.
    fn skips_hidden(self) -> bool {
        matches!(self, Wanted::Json)
    }

    /// The files of each folder in it that are ones, instead of looking into that
    /// folder (a skill's `SKILL.md`: the rest of a skill's folder, its scripts and
    /// references, is no hook file).
    fn files_of_each_folder(self) -> Option<&'static [&'static str]> {
        match self {
            Wanted::Markdown(Markdown::Skills) => Some(&["SKILL.md"]),
            Wanted::Programs(entries) => Some(entries),
            _ => None,
        }
    }
}

/// Reads hook files, each once, within [`FILES`], [`ENTRIES`] and [`READ`].
#[derive(Default)]
struct Reader {
    found: Vec<HookFile>,
    /// The files read, by identity (a file met again through a link is read once).
    seen: std::collections::HashSet<(u64, u64)>,
    files: usize,
    markdown: usize,
    read: usize,
    /// A limit was reached: a refusal says so, and nothing more is read.
    full: bool,
}

impl Reader {
    fn file(&mut self, file: PathBuf, accept_in: &str) {
        if self.full {
            return;
        }
        let seen = &mut self.seen;
        let mut identity = None;
        let first_time = |meta: &std::fs::Metadata| {
            identity = crate::platform::sys::ownership::identity_in(meta)
                .filter(|id| id.ino != 0)
                .map(|id| (id.dev, id.ino));
            identity.is_none_or(|id| seen.insert(id))
        };
        // None: not there, or met already.
        let Some(bytes) = read_settings(&file, first_time) else {
            return;
        };
        let is_markdown = file
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("md"));
        match is_markdown {
            true => self.markdown += 1,
            false => self.files += 1,
        }
        self.read += bytes.as_ref().map_or(0, Vec::len);
        let bytes = if self.read > READ || self.files > FILES || self.markdown > MARKDOWN_FILES {
            self.full = true;
            Err(format!(
                "with the hook files before it, it is more than the {FILES} hook files, {MARKDOWN_FILES} skills, commands and subagents, or {} MiB hookhost reads of them for one call",
                READ >> 20
            ))
        } else {
            bytes
        };
        self.push(file, bytes, accept_in, false);
        if let Some(last) = self.found.last_mut() {
            last.identity = identity;
        }
    }

    /// The `wanted` files of `folder` and of the folders in it, in name order: every
    /// `.json` file at any depth but in hidden folders (`.x/`), as Copilot CLI 1.0.102
    /// loads them (a file in `sub/`, `a/b/c/` or `node_modules/` was loaded), or Claude
    /// Code's Markdown files (a subagent in `agents/sub/` and `agents/.team/` was loaded,
    /// a skill in `skills/group/NAME/` was not). A folder that is not there (or that this user may
    /// not list, nor then the agent) holds none.
    fn folder(&mut self, folder: &Path, accept_in: &str, wanted: Wanted) {
        let mut files = Vec::new();
        // `.claude/skills` of a project folder with no `.claude` (see `holds_nothing`).
        if folder.parent().is_some_and(holds_nothing) {
            return;
        }
        let mut pending = vec![folder.to_path_buf()];
        let mut entries = 0;
        while let Some(current) = pending.pop() {
            let listing = match std::fs::read_dir(&current) {
                Ok(listing) => listing,
                Err(e) if not_for_the_agent(&e) => continue,
                Err(e) => return self.refuse_folder(folder, &e.to_string(), accept_in),
            };
            for entry in listing {
                let Ok(entry) = entry else { continue };
                entries += 1;
                if entries > ENTRIES {
                    let why = format!(
                        "it holds more than the {ENTRIES} files and folders hookhost looks at in one folder of hook files"
                    );
                    return self.refuse_folder(folder, &why, accept_in);
                }
                let path = entry.path();
                // As the agent sees it: through a link.
                let is_folder = std::fs::metadata(&path).is_ok_and(|m| m.is_dir());
                let name = entry.file_name();
                if is_folder {
                    if let Some(names) = wanted.files_of_each_folder() {
                        files.extend(names.iter().map(|name| path.join(name)));
                    } else if !(wanted.skips_hidden() && name.to_string_lossy().starts_with('.')) {
                        pending.push(path);
                    }
                } else if wanted.wants(Path::new(&name)) {
                    files.push(path);
                }
            }
        }
        files.sort();
        for file in files {
            self.file(file, accept_in);
        }
    }

    /// The hook files of each extension in `folder`: read where it lies, or where its
    /// install record's link leads (a relative link from `cwd`, as the agent's process
    /// would resolve it).
    fn extensions(&mut self, folder: &Path, extensions: &Extensions, cwd: Option<&Path>) {
        let listing = match std::fs::read_dir(folder) {
            Ok(listing) => listing,
            Err(e) if not_for_the_agent(&e) => return,
            Err(e) => return self.refuse_folder(folder, &e.to_string(), "again"),
        };
        let mut found = Vec::new();
        for entry in listing {
            let Ok(entry) = entry else { continue };
            if found.len() == ENTRIES {
                let why = format!("it holds more than the {ENTRIES} extensions hookhost looks at");
                return self.refuse_folder(folder, &why, "again");
            }
            found.push(entry.path());
        }
        found.sort();
        for extension in found {
            let record = extension.join(extensions.install_record);
            let places = match linked_source(&record, cwd) {
                Ok(Some(linked)) => linked,
                Ok(None) => vec![extension],
                Err(why) => {
                    self.push(record, Err(why), "again", false);
                    continue;
                }
            };
            for from in places {
                for file in extensions.hook_files {
                    let before = self.found.len();
                    self.file(from.join(file), "again");
                    if let (Some(settings), Some(read)) =
                        (&extensions.settings, self.found.get_mut(before))
                    {
                        fill_settings(&mut read.read, settings, folder, &from, cwd);
                    }
                    // A manifest's `"hooks": "FILE"` names the hook file (Qwen Code).
                    let named = self.found[before..]
                        .first()
                        .and_then(|f| hooks_named(&f.read, &from));
                    if let Some(named) = named {
                        self.file(from.join(named), "again");
                    }
                }
                for (name, markdown) in extensions.markdown {
                    self.folder(&from.join(name), "again", Wanted::Markdown(*markdown));
                }
            }
        }
    }

    /// The programs of the folder `name` of each folder in `folder` (Copilot CLI's
    /// extensions of each session, `session-state/ID/extensions/NAME/`), for `install` and
    /// `doctor`: the newest [`ENTRIES`] sessions (Copilot CLI keeps every session's folder;
    /// a call reads its own session's, whichever it is).
    fn sessions_programs(&mut self, folder: &Path, name: &str, entries: &'static [&'static str]) {
        let listing = match std::fs::read_dir(folder) {
            Ok(listing) => listing,
            Err(e) if not_for_the_agent(&e) => return,
            Err(e) => return self.refuse_folder(folder, &e.to_string(), "again"),
        };
        let mut sessions: Vec<(Option<std::time::SystemTime>, PathBuf)> = listing
            .flatten()
            .map(|entry| {
                let changed = entry.metadata().and_then(|m| m.modified()).ok();
                (changed, entry.path().join(name))
            })
            .collect();
        sessions.sort_by_key(|(changed, _)| std::cmp::Reverse(*changed));
        sessions.truncate(ENTRIES);
        let mut sessions: Vec<PathBuf> = sessions.into_iter().map(|(_, path)| path).collect();
        sessions.sort();
        for programs in sessions {
            self.folder(&programs, "again", Wanted::Programs(entries));
        }
    }

    fn refuse_folder(&mut self, folder: &Path, why: &str, accept_in: &str) {
        self.full = true;
        self.push(folder.to_path_buf(), Err(why.to_string()), accept_in, true);
    }

    fn push(
        &mut self,
        file: PathBuf,
        bytes: Result<Vec<u8>, String>,
        accept_in: &str,
        folder: bool,
    ) {
        self.found.push(HookFile {
            read: ProjectFile {
                file,
                bytes,
                merged: true,
                registration: false,
            },
            accept_in: accept_in.to_string(),
            folder,
            identity: None,
        });
    }
}

/// Where an extension's install record `record` links it to (`{"type": "link", "source":
/// DIR}`), a relative `DIR` taken from `cwd`: `None` for no record or another type (the
/// agent then reads the extension where it lies). An empty `DIR` is read by Gemini CLI as
/// its own folder, `cwd` (Qwen Code reads the extension where it lies): both. A record
/// hookhost cannot read is an error: the agent reads it whole.
fn linked_source(record: &Path, cwd: Option<&Path>) -> Result<Option<Vec<PathBuf>>, String> {
    let extension = record.parent().map(Path::to_path_buf);
    let bytes = match crate::access::read_capped(record, crate::access::caps::SETTINGS) {
        Ok(bytes) => bytes,
        Err(e) if not_for_the_agent(&e) => return Ok(None),
        Err(e) => return Err(crate::access::explain(record, &e)),
    };
    // One the agent cannot parse is no link to it either.
    let Ok(link) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return Ok(None);
    };
    if link.get("type").and_then(serde_json::Value::as_str) != Some("link") {
        return Ok(None);
    }
    let Some(source) = link.get("source").and_then(serde_json::Value::as_str) else {
        return Ok(None);
    };
    let source = Path::new(source);
    Ok(
        match (source.as_os_str().is_empty(), source.is_absolute(), cwd) {
            (true, _, cwd) => Some(
                cwd.map(Path::to_path_buf)
                    .into_iter()
                    .chain(extension)
                    .collect(),
            ),
            (false, true, _) => Some(vec![source.to_path_buf()]),
            (false, false, Some(cwd)) => Some(vec![cwd.join(source)]),
            (false, false, None) => None,
        },
    )
}

/// The hook file `read`, of the extension read from `from` in the folder of extensions
/// `extensions`, as the agent reads it: with the values its `settings` give its
/// `${NAME}`s for the project `cwd` ([`extension_settings`]); unread when a settings file
/// cannot be read.
fn fill_settings(
    read: &mut ProjectFile,
    settings: &crate::bridge::ExtensionSettings,
    extensions: &Path,
    from: &Path,
    cwd: Option<&Path>,
) {
    let Ok(bytes) = &read.bytes else { return };
    match extension_settings::values(settings, extensions, from, cwd) {
        Ok(values) => {
            if let Some(filled) = extension_settings::filled(bytes, &values) {
                read.bytes = Ok(filled);
            }
        }
        Err(why) => read.bytes = Err(why),
    }
}

/// The file a manifest's `"hooks": "FILE"` names, relative to the extension or absolute,
/// with `${extensionPath}` (the extension's folder `from`), `${/}` and `${pathSeparator}`
/// read as the agent reads them.
fn hooks_named(read: &ProjectFile, from: &Path) -> Option<PathBuf> {
    let bytes = read.bytes.as_ref().ok()?;
    let manifest: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let named = manifest
        .get("hooks")
        .and_then(serde_json::Value::as_str)
        .filter(|named| !named.is_empty())?;
    let named = named
        .replace("${extensionPath}", &from.display().to_string())
        .replace("${/}", "/")
        .replace("${pathSeparator}", "/");
    Some(PathBuf::from(named))
}
