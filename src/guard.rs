//! The start-up path guard: no hook may run a program, or read a file, that the agent
//! could change.
//!
//! An agent that can edit its own policy hook has no policy. So before the session starts,
//! [`check_hooks`] resolves each hook's `command[0]` (a bare name is looked up on PATH once,
//! here, and the absolute path it finds is what runs later) and checks it, and every later
//! element that names a path, against the folders the agent can write
//! ([`GuardContext::agent_writable_folders`]) and, for a sandboxed hook in a sandboxed
//! session, against the folders the sandbox hides.
//!
//! Which elements are checked (spec, "Where to keep hook files"):
//! * `command[0]`, always;
//! * a later element that names an existing file or folder (relative ones from the project
//!   root), or that does not exist but is shaped like a path (a `/` and no spaces);
//! * the value after an option's first `=` (`--rules=hooks/r.yaml`), the same way; an empty
//!   value (`--exclude=`) names nothing.
//!
//! Each path is checked as written (lexically: `..`, `//`, `./` and a trailing `/` cannot
//! hide it) and where it leads: every link on the way is followed (at most
//! [`MAX_LINK_HOPS`]), one whose target does not exist yet included, and a link or folder on
//! the way that sits inside a writable folder counts too, since the agent could re-point it.
//! Writable and hidden folders are compared both as given and by where they lead, and by
//! (device, inode) against every folder the path passes through, so a bind mount of the
//! project under another name is still the project.
//!
//! A path that goes through a per-process link (`/proc/self`, `/proc/thread-self`,
//! `/proc/<pid>`, `/dev/fd`, `/dev/std{in,out,err}`), as written or on the way, is refused
//! outright: the kernel resolves it for whichever process opens it, so where it leads for
//! hookhost at start says nothing about where it leads for the hook.
//!
//! Programs (`command[0]` and, recursively, the interpreter named by a `#!` line, including
//! the program `/usr/bin/env X` finds on PATH) also get OpenSSH's `safe_path` rule: every
//! folder on the way must be owned by root or by us and not group- or world-writable unless
//! it has the sticky bit (as `/tmp` does), and the program must not be writable by others nor
//! have other hard links the agent could write it through: when we own it and are not root,
//! any; as root, on the file system of a writable folder (see `hard_link_risk`).
//!
//! A WASM hook's `command[0]` (a `.wasm` path) is checked exactly like any other program.
//! The host reads the module, so the caller passes `sandbox = false` for WASM hooks: the
//! hidden-folder rule does not apply to them. The caller also passes only `command[0]`:
//! a WASM hook's arguments are the guest's, and the guest can open nothing but the
//! read-only project, so they name no host file (`crate::host` does both).
//!
//! [`check_config_file`] refuses a config file with `[[hooks]]` that the agent could write,
//! [`check_cache_dir`] the WASM compile cache (deserialising a compiled artifact is unsafe),
//! [`check_record_file`] a session record (a resume trusts the hooks it lists),
//! and [`scrub_path_for_host_hook`] gives a host hook in a sandboxed session a PATH with
//! nothing the agent could plant a program in.
//!
//! What the guard does not see: a path inside an interpreter string (`["sh", "-c", "…"]`,
//! `python3 -c`), a file a program finds on its own (its config, `node_modules`, a module
//! loaded from its working directory), a bare relative name absent at start, and anything
//! that changes after start (the caller should run the returned path and re-check before each
//! run if it must close that race).

use std::collections::BTreeSet;
use std::env;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs;
use std::io::{self, Read};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

/// The most links followed while resolving one path; more is refused as a loop.
pub const MAX_LINK_HOPS: usize = 40;

/// How many `#!` interpreters deep the guard follows a program.
const MAX_SHEBANG_DEPTH: usize = 4;

/// How much of a program is read to find its `#!` line.
const SHEBANG_READ: u64 = 256;

/// Why the project is writable (the key to the spec's own sentence).
pub const WHY_PROJECT: &str = "the project";
/// Why a linked worktree's common directory is writable.
pub const WHY_WORKTREE: &str = "the linked worktree's common git directory";
/// Why the private temp folder is writable.
pub const WHY_PRIVATE_TMP: &str = "the agent's private temp folder, from --private-tmp";
/// Why a `[sandbox] writable` / `--writable` folder is writable.
pub const WHY_WRITABLE: &str = "from [sandbox] writable or --writable";
/// Why the macOS user temp folder is writable.
pub const WHY_USER_TEMP: &str = "the user temp folder";
/// Why `/tmp` (and `/private/tmp`) count in a session without a sandbox.
pub const WHY_SYSTEM_TEMP: &str = "a system temp folder, in a session without a sandbox";
/// Why `$TMPDIR` counts in a session without a sandbox.
pub const WHY_TMPDIR: &str = "the system temp folder from $TMPDIR, in a session without a sandbox";
/// Why `/tmp` counts for a sandboxed hook in a sandboxed session.
pub const WHY_SANDBOX_TMP: &str = "the sandbox's /tmp, which is the agent's";

/// Everything the guard needs to know about the session.
#[derive(Debug, Clone, Default)]
pub struct GuardContext {
    /// The project root: absolute, as given.
    pub project: PathBuf,
    /// The agent's private temp folder (`--private-tmp`), if any.
    pub private_tmp: Option<PathBuf>,
    /// `[sandbox] writable` and `--writable` folders.
    pub writable: Vec<PathBuf>,
    /// The session has a working bubblewrap sandbox.
    pub sandboxed_session: bool,
    /// Folders the box hides (already `~`-expanded, absolute).
    pub hidden: Vec<PathBuf>,
    /// The host's PATH, used for lookups.
    pub path_env: Option<OsString>,
    /// `$TMPDIR`.
    pub tmpdir_env: Option<PathBuf>,
}

/// One hook as the guard sees it.
#[derive(Debug, Clone, Copy)]
pub struct HookToGuard<'a> {
    /// The hook's name, for messages.
    pub name: &'a str,
    /// Its argv, as configured.
    pub command: &'a [String],
    /// Whether it runs in the sandbox (pass `false` for a WASM hook).
    pub sandbox: bool,
}

/// A hook that passed the guard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardedHook {
    /// The hook's name.
    pub name: String,
    /// The absolute `command[0]` to run: as written, or as found on PATH (not
    /// canonicalised, so that multi-call programs and venvs still see their own name).
    pub program: PathBuf,
}

/// Whose path a refusal is about; its `Display` is the start of the message line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Who {
    /// A hook: `hook NAME: `.
    Hook(String),
    /// The config file: `config `.
    Config,
    /// The WASM compile cache: `[wasm] cache_dir `.
    CacheDir,
    /// A session record: `session record `.
    Record,
}

impl fmt::Display for Who {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Who::Hook(name) => write!(f, "hook {name}: "),
            Who::Config => f.write_str("config "),
            Who::CacheDir => f.write_str("[wasm] cache_dir "),
            Who::Record => f.write_str("session record "),
        }
    }
}

/// The agent-writable folder a refused path lies in, and how it gets there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The folder, as the session names it.
    pub dir: PathBuf,
    /// Why the agent can write it (one of the `WHY_*` constants).
    pub why: &'static str,
    /// The link through which the path reaches the folder, when it is not there as written.
    pub through: Option<PathBuf>,
    /// A folder on the path that is this folder under another name (the same device and
    /// inode: a bind mount), when the path reaches it only that way.
    pub alias: Option<PathBuf>,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.why == WHY_PROJECT {
            f.write_str("is in the project")?;
        } else {
            let dir = self.dir.display();
            write!(
                f,
                "is in a folder the agent can write ({dir}, {})",
                self.why
            )?;
        }
        write!(f, "{}", Through(&self.through))?;
        match &self.alias {
            Some(alias) => write!(
                f,
                " ({} is the same folder by device and inode, mounted there too)",
                alias.display()
            ),
            None => Ok(()),
        }
    }
}

/// ` (through the link LINK)`, or nothing.
struct Through<'a>(&'a Option<PathBuf>);

impl fmt::Display for Through<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(link) => write!(f, " (through the link {})", link.display()),
            None => Ok(()),
        }
    }
}

/// A program that `#!/usr/bin/env NAME` would look up through an agent-writable PATH entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plant {
    /// The program whose `#!` line it is.
    pub program: String,
    /// The env program, as written in the `#!` line.
    pub env: String,
    /// The name env looks up.
    pub name: String,
    /// The PATH entry.
    pub entry: PathBuf,
    /// Where the entry lies.
    pub place: Place,
}

impl fmt::Display for Plant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Plant {
            program,
            env,
            name,
            entry,
            place,
        } = self;
        write!(
            f,
            "{program} runs {name} through {env}, which looks it up on PATH at every run, and the PATH entry {} {place}, so the agent could plant its own {name} there. Name the interpreter by its full path, or start with --no-hooks.",
            entry.display()
        )
    }
}

/// What is wrong with a program's ownership or mode (OpenSSH's `safe_path` rule).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ownership {
    /// The path itself is group- or world-writable.
    OpenItself,
    /// A folder on the way is group- or world-writable without the sticky bit.
    OpenFolder(PathBuf),
    /// The path itself is owned by another user.
    OwnedItself(u32),
    /// A folder or link on the way is owned by another user.
    OwnedOnTheWay(PathBuf, u32),
}

impl fmt::Display for Ownership {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ownership::OpenItself => f.write_str("is group- or world-writable"),
            Ownership::OpenFolder(dir) => write!(
                f,
                "lies under {}, which is group- or world-writable without the sticky bit",
                dir.display()
            ),
            Ownership::OwnedItself(uid) => write!(f, "is owned by another user (uid {uid})"),
            Ownership::OwnedOnTheWay(path, uid) => write!(
                f,
                "lies under {}, which is owned by another user (uid {uid})",
                path.display()
            ),
        }
    }
}

/// Why the guard refuses to start the session. `Display` is the whole message line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// `command[0]` (or an interpreter) names nothing.
    #[error("hook {hook}: {name} was not found.")]
    NotFound {
        /// The hook.
        hook: String,
        /// The name as written.
        name: String,
    },
    /// `command[0]` has a `/` but is not absolute.
    #[error(
        "hook {hook}: {path} is a relative path; a command[0] with a / must be absolute. Write the full path, or a bare name to look up on PATH."
    )]
    RelativeProgram {
        /// The hook.
        hook: String,
        /// The path as written.
        path: String,
    },
    /// The command is empty (config validation normally refuses this first).
    #[error("hook {hook}: the command is empty, so there is nothing to run.")]
    EmptyCommand {
        /// The hook.
        hook: String,
    },
    /// A hook's path lies in a folder the agent can write.
    #[error(
        "hook {hook}: {subject} {place}, so the agent could change it. Move it outside (for example ~/.local/share/harness/hooks/), or start with --no-hooks."
    )]
    Writable {
        /// The hook.
        hook: String,
        /// The path as written (or an interpreter, with where it was named).
        subject: String,
        /// Where it lies (boxed: it is the largest variant, and refusals travel in
        /// `Result`s).
        place: Box<Place>,
    },
    /// A sandboxed hook's path lies in a folder the sandbox hides.
    #[error(
        "hook {hook}: {subject} is in a folder the sandbox hides ({}){}, so the hook could not read it. Move it, or set sandbox = false for this hook.",
        .dir.display(), Through(.through)
    )]
    Hidden {
        /// The hook.
        hook: String,
        /// The path as written.
        subject: String,
        /// The hidden folder, as configured.
        dir: PathBuf,
        /// The link through which the path reaches it.
        through: Option<PathBuf>,
    },
    /// A `#!/usr/bin/env X` line would find X through a PATH entry the agent can write.
    #[error("hook {hook}: {plant}")]
    PlantableOnPath {
        /// The hook.
        hook: String,
        /// What could be planted where.
        plant: Box<Plant>,
    },
    /// A program, or a folder or link on its way, others could change.
    #[error(
        "{who}{subject} {problem}, so another user could change it. Fix its owner or permissions, or start with --no-hooks."
    )]
    Ownership {
        /// Whose path.
        who: Who,
        /// The path as written.
        subject: String,
        /// What is wrong.
        problem: Ownership,
    },
    /// A path goes through a link the kernel resolves for each process on its own
    /// (`/proc/self`, `/proc/<pid>`, `/dev/fd`, `/dev/stdin`, …): the guard would check
    /// where it leads for hookhost, but the hook would open where it leads for itself.
    #[error(
        "hook {hook}: {subject} goes through {link}, a link each process resolves to its own files, so what the guard checks is not what the hook would open. Name the file by its own path, or start with --no-hooks."
    )]
    MagicLink {
        /// The hook.
        hook: String,
        /// The path as written.
        subject: String,
        /// The per-process link (`/proc/self`, `/proc/1234`, `/dev/fd`, …).
        link: PathBuf,
    },
    /// A program the agent could write through another name: one we own with other hard
    /// links or, as root, any with other hard links on a writable folder's file system.
    #[error(
        "hook {hook}: {subject} has {links} names (hard links), so the agent could change it through another of them. Give the hook a copy of its own, or start with --no-hooks."
    )]
    HardLinked {
        /// The hook.
        hook: String,
        /// The path as written.
        subject: String,
        /// Its link count.
        links: u64,
    },
    /// A path could not be followed to where it leads (a link loop, an unreadable folder).
    #[error(
        "{who}{subject} could not be followed to where it leads ({cause}), so it cannot be checked. Fix the path, or start with --no-hooks."
    )]
    Untraceable {
        /// Whose path.
        who: Who,
        /// The path as written.
        subject: String,
        /// What stopped the walk.
        cause: String,
    },
    /// A config file with `[[hooks]]` lies where the agent can write.
    #[error(
        "config {} {place}, so the agent could change its [[hooks]]. Keep your hooks in your user config (for example ~/.config/harness/config.toml), or start with --no-hooks.",
        .path.display()
    )]
    Config {
        /// The config file, as given.
        path: PathBuf,
        /// Where it lies.
        place: Place,
    },
    /// The WASM compile cache lies where the agent can write.
    #[error(
        "[wasm] cache_dir {} {place}, so the agent could plant compiled code that the host would load. Move it outside (for example ~/.cache/harness/wasm/), or start with --no-hooks.",
        .path.display()
    )]
    CacheDir {
        /// The cache folder, as given.
        path: PathBuf,
        /// Where it lies.
        place: Place,
    },
    /// A session record (`--log`, `--resume`) lies where the agent can write.
    #[error(
        "session record {} {place}, so the agent could change it, and a resume would trust the hooks it lists. Keep session records outside (for example in ~/.local/state/hookhost/), or start with --no-hooks.",
        .path.display()
    )]
    Record {
        /// The record, as given.
        path: PathBuf,
        /// Where it lies.
        place: Place,
    },
}

impl GuardContext {
    /// The folders the agent can write in this session, each with why (a `WHY_*` constant).
    ///
    /// These count for every hook, the config file and the cache. A sandboxed hook in a
    /// sandboxed session also may not use `/tmp` (the box's `/tmp` is the agent's); that is
    /// added per hook, since the host's `/tmp` is not the agent's in such a session.
    pub fn agent_writable_folders(&self) -> Vec<(PathBuf, &'static str)> {
        let mut folders = vec![(self.project.clone(), WHY_PROJECT)];
        if let Some(common) = linked_worktree_common_dir(&self.project) {
            folders.push((common, WHY_WORKTREE));
        }
        if let Some(tmp) = &self.private_tmp {
            folders.push((tmp.clone(), WHY_PRIVATE_TMP));
        }
        folders.extend(self.writable.iter().map(|w| (w.clone(), WHY_WRITABLE)));
        let macos = cfg!(target_os = "macos");
        if let (true, Some(tmp)) = (macos, &self.tmpdir_env) {
            folders.push((tmp.clone(), WHY_USER_TEMP));
        }
        if !self.sandboxed_session {
            folders.push((PathBuf::from("/tmp"), WHY_SYSTEM_TEMP));
            if macos {
                folders.push((PathBuf::from("/private/tmp"), WHY_SYSTEM_TEMP));
            } else if let Some(tmp) = &self.tmpdir_env {
                folders.push((tmp.clone(), WHY_TMPDIR));
            }
        }
        folders
    }

    /// The writable folders, ready to compare paths against.
    fn writable_folders(&self) -> Vec<Folder> {
        let folders = self.agent_writable_folders();
        folders
            .into_iter()
            .map(|(dir, why)| Folder::new(dir, why, &self.project))
            .collect()
    }
}

/// Checks every hook; returns each hook's program to run, or every refusal found.
pub fn check_hooks(
    ctx: &GuardContext,
    hooks: &[HookToGuard],
) -> Result<Vec<GuardedHook>, Vec<Refusal>> {
    let base = ctx.writable_folders();
    let mut boxed = base.clone();
    boxed.push(Folder::new("/tmp".into(), WHY_SANDBOX_TMP, &ctx.project));
    let hidden: Vec<Folder> = ctx
        .hidden
        .iter()
        .map(|h| Folder::new(h.clone(), "", &ctx.project))
        .collect();
    let host_path = scrub_path_for_host_hook(ctx);
    let mut guarded = Vec::new();
    let mut refusals = Vec::new();
    for hook in hooks {
        let in_box = ctx.sandboxed_session && hook.sandbox;
        let plan = Plan {
            hook: hook.name,
            ctx,
            writable: if in_box { &boxed } else { &base },
            hidden: if in_box { Some(&hidden) } else { None },
            cwd: if in_box {
                ctx.project.clone()
            } else {
                "/".into()
            },
            runtime_path: if ctx.sandboxed_session && !hook.sandbox {
                host_path.clone()
            } else {
                ctx.path_env.clone()
            },
        };
        match plan.check(hook.command) {
            Ok(program) => guarded.push(GuardedHook {
                name: hook.name.to_owned(),
                program,
            }),
            Err(mut found) => refusals.append(&mut found),
        }
    }
    if refusals.is_empty() {
        Ok(guarded)
    } else {
        Err(refusals)
    }
}

/// Refuses a config file (one that holds `[[hooks]]`) that lies where the agent can write.
pub fn check_config_file(ctx: &GuardContext, config: &Path) -> Result<(), Refusal> {
    let place = locate_outside(ctx, config, Who::Config)?;
    match place {
        Some(place) => Err(Refusal::Config {
            path: config.to_path_buf(),
            place,
        }),
        None => Ok(()),
    }
}

/// Refuses a session record (to write with `--log`, or to resume) that lies where the
/// agent can write: it could rewrite the hooks a resume keeps. It need not exist yet.
pub fn check_record_file(ctx: &GuardContext, record: &Path) -> Result<(), Refusal> {
    match locate_outside(ctx, record, Who::Record)? {
        Some(place) => Err(Refusal::Record {
            path: record.to_path_buf(),
            place,
        }),
        None => Ok(()),
    }
}

/// Refuses a WASM compile cache folder the agent could write, or others could (OpenSSH's
/// rule, on the folder and every folder on its way). It need not exist yet.
pub fn check_cache_dir(ctx: &GuardContext, dir: &Path) -> Result<(), Refusal> {
    if let Some(place) = locate_outside(ctx, dir, Who::CacheDir)? {
        return Err(Refusal::CacheDir {
            path: dir.to_path_buf(),
            place,
        });
    }
    let walk = absolute(dir)
        .ok()
        .and_then(|abs| walk(&abs).ok())
        .ok_or_else(|| untraceable(Who::CacheDir, dir, "it cannot be made absolute"))?;
    match ownership_problem(&walk, euid()) {
        Some(problem) => Err(Refusal::Ownership {
            who: Who::CacheDir,
            subject: dir.display().to_string(),
            problem,
        }),
        None => Ok(()),
    }
}

/// The PATH for a host hook: in a sandboxed session, PATH without empty or relative
/// entries, entries inside an agent-writable folder, and entries that cannot be traced
/// (a dangling link, a loop); `None` (run with no PATH) when nothing is left. Without a
/// sandbox PATH is unchanged.
pub fn scrub_path_for_host_hook(ctx: &GuardContext) -> Option<OsString> {
    if !ctx.sandboxed_session {
        return ctx.path_env.clone();
    }
    let path = ctx.path_env.as_ref()?;
    let folders = ctx.writable_folders();
    let kept: Vec<PathBuf> = env::split_paths(path)
        .filter(|entry| keep_path_entry(entry, &folders))
        .collect();
    if kept.is_empty() {
        return None;
    }
    env::join_paths(kept).ok()
}

/// Whether a host hook's PATH entry survives scrubbing.
fn keep_path_entry(entry: &Path, folders: &[Folder]) -> bool {
    if entry.as_os_str().is_empty() || !entry.is_absolute() {
        return false;
    }
    let seen = Examined::new(entry.to_path_buf());
    if per_process_link(&seen).is_some() {
        return false; // `/proc/self/cwd/bin` is the hook's cwd at run time, not ours
    }
    match find_in(&seen, folders) {
        Ok(None) => seen.walk.as_ref().is_ok_and(|w| !w.dangling),
        _ => false,
    }
}

/// Where a config file or cache folder lies among the writable folders, if anywhere.
fn locate_outside(ctx: &GuardContext, path: &Path, who: Who) -> Result<Option<Place>, Refusal> {
    let abs = absolute(path).map_err(|e| untraceable(who.clone(), path, e))?;
    let seen = Examined::new(abs);
    let folders = ctx.writable_folders();
    match find_in(&seen, &folders) {
        Ok(found) => Ok(found.map(|found| found.place())),
        Err(cause) => Err(untraceable(who, path, cause)),
    }
}

/// An [`Refusal::Untraceable`] for a path.
fn untraceable(who: Who, path: &Path, cause: impl fmt::Display) -> Refusal {
    Refusal::Untraceable {
        who,
        subject: path.display().to_string(),
        cause: cause.to_string(),
    }
}

/// `path` made absolute against the current directory.
fn absolute(path: &Path) -> io::Result<PathBuf> {
    std::path::absolute(path)
}

/// How one hook is checked: what counts as writable or hidden for it, and where it runs.
struct Plan<'a> {
    hook: &'a str,
    ctx: &'a GuardContext,
    writable: &'a [Folder],
    hidden: Option<&'a [Folder]>,
    /// The hook's working directory: the project in the box, `/` on the host.
    cwd: PathBuf,
    /// The PATH the hook will run with (for `#!/usr/bin/env X`).
    runtime_path: Option<OsString>,
}

impl Plan<'_> {
    /// Checks one hook's whole command; returns the program to run.
    fn check(&self, command: &[String]) -> Result<PathBuf, Vec<Refusal>> {
        let mut refusals = Vec::new();
        let program = match self.resolve_program(command) {
            Ok((subject, program)) => {
                refusals.extend(self.check_program(&subject, &program, 0));
                Some(program)
            }
            Err(refusal) => {
                refusals.push(refusal);
                None
            }
        };
        for arg in command.iter().skip(1) {
            for (subject, path) in arg_targets(arg, &self.ctx.project) {
                refusals.extend(self.place_refusal(subject, &Examined::new(path)));
            }
        }
        match program {
            Some(program) if refusals.is_empty() => Ok(program),
            _ => Err(refusals),
        }
    }

    /// `command[0]` as an absolute path, with how messages name it.
    fn resolve_program(&self, command: &[String]) -> Result<(String, PathBuf), Refusal> {
        let hook = self.hook.to_owned();
        let Some(first) = command.first() else {
            return Err(Refusal::EmptyCommand { hook });
        };
        if first.contains('/') {
            return if Path::new(first).is_absolute() {
                Ok((first.clone(), PathBuf::from(first)))
            } else {
                Err(Refusal::RelativeProgram {
                    hook,
                    path: first.clone(),
                })
            };
        }
        match lookup_on_path(OsStr::new(first), self.ctx.path_env.as_deref(), None) {
            Some((_, found)) => Ok((found.display().to_string(), found)),
            None => Err(Refusal::NotFound {
                hook,
                name: first.clone(),
            }),
        }
    }

    /// Checks a program: where it lies, that it exists, its ownership, its `#!` line.
    fn check_program(&self, subject: &str, path: &Path, depth: usize) -> Vec<Refusal> {
        let seen = Examined::new(path.to_path_buf());
        if let Some(refusal) = self.place_refusal(subject.to_owned(), &seen) {
            return vec![refusal];
        }
        let Ok(walk) = &seen.walk else {
            return Vec::new(); // place_refusal already refused an untraceable path
        };
        if !walk.end_exists {
            return vec![Refusal::NotFound {
                hook: self.hook.to_owned(),
                name: subject.to_owned(),
            }];
        }
        let mut refusals = self.ownership_refusals(subject, walk);
        if depth < MAX_SHEBANG_DEPTH
            && let Some(line) = read_shebang(&walk.end)
        {
            refusals.extend(self.check_interpreter(subject, &line, depth + 1));
        }
        refusals
    }

    /// OpenSSH's `safe_path` rule and the hard-link rule, as refusals.
    fn ownership_refusals(&self, subject: &str, walk: &Walk) -> Vec<Refusal> {
        let uid = euid();
        let mut refusals = Vec::new();
        if let Some(problem) = ownership_problem(walk, uid) {
            refusals.push(Refusal::Ownership {
                who: Who::Hook(self.hook.to_owned()),
                subject: subject.to_owned(),
                problem,
            });
        }
        if let Ok(meta) = fs::metadata(&walk.end)
            && hard_link_risk(
                meta.is_file(),
                meta.nlink(),
                meta.uid(),
                uid,
                self.writable.iter().any(|f| f.dev == Some(meta.dev())),
            )
        {
            refusals.push(Refusal::HardLinked {
                hook: self.hook.to_owned(),
                subject: subject.to_owned(),
                links: meta.nlink(),
            });
        }
        refusals
    }

    /// Checks the interpreter of a `#!` line, and for `env X` the X it would find.
    fn check_interpreter(&self, program: &str, line: &[OsString], depth: usize) -> Vec<Refusal> {
        let Some((interp, rest)) = line.split_first() else {
            return Vec::new();
        };
        let shown = interp.to_string_lossy();
        let subject = format!("{shown} (named by the #! line of {program})");
        let mut refusals = self.check_program(&subject, &self.cwd.join(interp), depth);
        let is_env = Path::new(interp).file_name() == Some(OsStr::new("env"));
        if let (true, Some(name)) = (is_env, env_target(rest)) {
            refusals.extend(self.check_env_target(program, &shown, name, depth));
        }
        refusals
    }

    /// Checks what `/usr/bin/env NAME` would run: every PATH entry it searches before
    /// finding NAME must be out of the agent's reach, and what it finds is a program.
    fn check_env_target(
        &self,
        program: &str,
        env: &str,
        name: &OsStr,
        depth: usize,
    ) -> Vec<Refusal> {
        let shown = name.to_string_lossy().into_owned();
        let subject = format!("{shown} (named by the #! line of {program})");
        if name.as_bytes().contains(&b'/') {
            return self.check_program(&subject, &self.cwd.join(name), depth);
        }
        let Some(path) = self.runtime_path.as_deref() else {
            return Vec::new();
        };
        let searched = lookup_on_path(name, Some(path), Some(&self.cwd));
        let entries = env::split_paths(path).map(|e| self.cwd.join(e));
        for entry in entries.take(searched.as_ref().map_or(usize::MAX, |(i, _)| i + 1)) {
            let seen = Examined::new(entry.clone());
            if let Ok(Some(found)) = find_in(&seen, self.writable) {
                let plant = Plant {
                    program: program.to_owned(),
                    env: env.to_owned(),
                    name: shown,
                    entry,
                    place: found.place(),
                };
                let hook = self.hook.to_owned();
                let plant = Box::new(plant);
                return vec![Refusal::PlantableOnPath { hook, plant }];
            }
        }
        match searched {
            Some((_, found)) => self.check_program(&subject, &found, depth),
            None => Vec::new(), // the hook fails visibly at run time; nothing to plant into
        }
    }

    /// The refusal for a path through a per-process link, in a writable folder, or (for a
    /// sandboxed hook) in a hidden one.
    fn place_refusal(&self, subject: String, seen: &Examined) -> Option<Refusal> {
        let hook = self.hook.to_owned();
        if let Some(link) = per_process_link(seen) {
            return Some(Refusal::MagicLink {
                hook,
                subject,
                link,
            });
        }
        match find_in(seen, self.writable) {
            Ok(Some(found)) => {
                let place = found.place();
                return Some(Refusal::Writable {
                    hook,
                    subject,
                    place: Box::new(place),
                });
            }
            Err(cause) => {
                let who = Who::Hook(hook);
                return Some(Refusal::Untraceable {
                    who,
                    subject,
                    cause,
                });
            }
            Ok(None) => {}
        }
        let hidden = self.hidden?;
        match find_in(seen, hidden) {
            Ok(Some(found)) => Some(Refusal::Hidden {
                hook,
                subject,
                dir: found.folder.dir.clone(),
                through: found.through,
            }),
            _ => None,
        }
    }
}

/// The paths a later element names: `(as written, absolute)` for the element itself and for
/// the value after its first `=`, each when it exists or is shaped like a path.
fn arg_targets(arg: &str, project: &Path) -> Vec<(String, PathBuf)> {
    let mut targets = Vec::new();
    if arg.is_empty() {
        return targets;
    }
    let split = arg.split_once('=');
    let whole = project.join(arg);
    let key_is_pathy = split.is_none_or(|(key, _)| key.contains('/'));
    if exists(&whole) || (path_shaped(arg) && key_is_pathy) {
        targets.push((arg.to_owned(), whole));
    }
    if let Some((_, value)) = split.filter(|(_, v)| !v.is_empty()) {
        let path = project.join(value);
        if exists(&path) || path_shaped(value) {
            targets.push((value.to_owned(), path));
        }
    }
    targets
}

/// Shaped like a path: a `/` and no spaces.
fn path_shaped(s: &str) -> bool {
    s.contains('/') && !s.chars().any(char::is_whitespace)
}

/// Whether anything (a dangling link included) is at `path`.
fn exists(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok()
}

/// Finds `name` on `path`: the index of the entry and the executable file found there.
/// Empty and relative entries are searched from `cwd` when given, else skipped.
fn lookup_on_path(
    name: &OsStr,
    path: Option<&OsStr>,
    cwd: Option<&Path>,
) -> Option<(usize, PathBuf)> {
    if name.is_empty() {
        return None;
    }
    for (i, entry) in env::split_paths(path?).enumerate() {
        let dir = match (entry.is_absolute(), cwd) {
            (true, _) => entry,
            (false, Some(cwd)) => cwd.join(entry),
            (false, None) => continue,
        };
        let candidate = dir.join(name);
        if is_executable_file(&candidate) {
            return Some((i, candidate));
        }
    }
    None
}

/// A regular file (after links) with an execute bit.
fn is_executable_file(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The `#!` line of a regular file, split on blanks; `None` if it has none.
fn read_shebang(path: &Path) -> Option<Vec<OsString>> {
    if !fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return None; // never open a FIFO or a device
    }
    let mut head = Vec::new();
    fs::File::open(path)
        .ok()?
        .take(SHEBANG_READ)
        .read_to_end(&mut head)
        .ok()?;
    let line = head.strip_prefix(b"#!")?;
    let line = line.split(|b| *b == b'\n').next().unwrap_or_default();
    let words: Vec<OsString> = line
        .split(|b| matches!(b, b' ' | b'\t' | b'\r'))
        .filter(|w| !w.is_empty())
        .map(|w| OsString::from_vec(w.to_vec()))
        .collect();
    (!words.is_empty()).then_some(words)
}

/// The program `env [OPTION]... [NAME=VALUE]... PROGRAM` runs, from its arguments.
fn env_target(args: &[OsString]) -> Option<&OsStr> {
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let bytes = arg.as_bytes();
        if matches!(bytes, b"-u" | b"-C" | b"--unset" | b"--chdir") {
            args.next();
        } else if !bytes.starts_with(b"-") && !bytes.contains(&b'=') {
            return Some(arg);
        }
    }
    None
}

/// The common directory of a linked worktree: `.git` is a file `gitdir: X`, and
/// `X/commondir` names the common directory, relative to X.
fn linked_worktree_common_dir(project: &Path) -> Option<PathBuf> {
    let dot_git = project.join(".git");
    if !fs::metadata(&dot_git).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let text = read_small(&dot_git)?;
    let gitdir = text.strip_prefix(b"gitdir:")?.trim_ascii();
    let gitdir = project.join(OsStr::from_bytes(gitdir));
    let common = read_small(&gitdir.join("commondir"))?;
    let common = gitdir.join(OsStr::from_bytes(common.trim_ascii()));
    Some(walk(&common).map_or_else(|_| lexical(&common), |w| w.end))
}

/// The first few KiB of a small file.
fn read_small(path: &Path) -> Option<Vec<u8>> {
    let mut text = Vec::new();
    fs::File::open(path)
        .ok()?
        .take(4096)
        .read_to_end(&mut text)
        .ok()?;
    Some(text)
}

/// The effective user id.
fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// OpenSSH's `safe_path` rule over everything a walk passed: the end must not be writable
/// by others (sticky or not) nor owned by another user, and the folders and links on the way must be owned by root or `uid`, the
/// folders not group- or world-writable unless sticky. Missing parts are skipped.
fn ownership_problem(walk: &Walk, uid: u32) -> Option<Ownership> {
    let foreign = |owner: u32| owner != 0 && owner != uid;
    if let Ok(meta) = fs::symlink_metadata(&walk.end) {
        // The end itself: the sticky bit does not help (others could add files to it).
        if meta.permissions().mode() & 0o022 != 0 {
            return Some(Ownership::OpenItself);
        }
        if foreign(meta.uid()) {
            return Some(Ownership::OwnedItself(meta.uid()));
        }
    }
    for step in walk.steps.iter().filter(|s| s.kind == StepKind::Link) {
        if let Ok(meta) = fs::symlink_metadata(&step.path)
            && foreign(meta.uid())
        {
            return Some(Ownership::OwnedOnTheWay(step.path.clone(), meta.uid()));
        }
    }
    let folders: BTreeSet<&Path> = walk
        .steps
        .iter()
        .flat_map(|s| s.path.ancestors().skip(1))
        .collect();
    for folder in folders {
        let Ok(meta) = fs::symlink_metadata(folder) else {
            continue;
        };
        if is_open(&meta) {
            return Some(Ownership::OpenFolder(folder.to_path_buf()));
        }
        if foreign(meta.uid()) {
            return Some(Ownership::OwnedOnTheWay(folder.to_path_buf(), meta.uid()));
        }
    }
    None
}

/// Group- or world-writable, and not a sticky folder.
fn is_open(meta: &fs::Metadata) -> bool {
    let mode = meta.permissions().mode();
    let sticky_dir = meta.is_dir() && mode & 0o1000 != 0;
    !meta.file_type().is_symlink() && mode & 0o022 != 0 && !sticky_dir
}

/// A file with other hard links that the agent could write: another name for it may sit
/// in a folder the agent can write, and writing through it changes this file.
///
/// Not root: the agent (our uid) can write only files we own, so those are refused
/// wherever they are. Root can write every file, and as root all the system's programs
/// are "ours", several with more than one name (Debian's `/usr/bin/perl` and
/// `perl5.36.0`, `gunzip`, `bzip2`), which is why root was once exempt altogether. A
/// hard link cannot cross file systems, so as root a file is refused only when it lies
/// on the file system of a writable folder (`same_fs_as_writable`): there another name
/// for it may be in that folder (F13: `ln hooks/hl.sh proj/hl.sh`).
fn hard_link_risk(
    is_file: bool,
    nlink: u64,
    owner: u32,
    uid: u32,
    same_fs_as_writable: bool,
) -> bool {
    let agent_could_write = if uid == 0 {
        same_fs_as_writable
    } else {
        owner == uid
    };
    is_file && nlink > 1 && agent_could_write
}

/// A folder the agent can write (or the sandbox hides), ready for comparisons.
#[derive(Debug, Clone)]
struct Folder {
    /// As the session names it.
    dir: PathBuf,
    why: &'static str,
    /// The lexical form of the absolute path and, when it can be walked, where it leads.
    forms: Vec<PathBuf>,
    /// Its (device, inode), when it exists: a bind mount of it has the same.
    id: Option<(u64, u64)>,
    /// The device it is on (or, while it does not exist, its nearest existing parent is).
    dev: Option<u64>,
}

impl Folder {
    /// A folder, made absolute against the project if it is relative.
    fn new(dir: PathBuf, why: &'static str, project: &Path) -> Folder {
        let abs = project.join(&dir);
        let mut forms = vec![lexical(&abs)];
        if let Ok(w) = walk(&abs)
            && !forms.contains(&w.end)
        {
            forms.push(w.end);
        }
        let id = fs::metadata(&abs).ok().map(|m| (m.dev(), m.ino()));
        let dev = id.map(|(dev, _)| dev).or_else(|| {
            abs.ancestors()
                .find_map(|a| fs::metadata(a).ok())
                .map(|m| m.dev())
        });
        Folder {
            dir,
            why,
            forms,
            id,
            dev,
        }
    }

    /// Whether `path` is in this folder (or strictly below it).
    fn holds(&self, path: &Path, strict: bool) -> bool {
        self.forms.iter().any(|form| within(path, form, strict))
    }
}

/// `path` is `folder` or below it (strictly below, if `strict`), by whole components.
/// On macOS, whose file systems usually ignore case, case is ignored too.
fn within(path: &Path, folder: &Path, strict: bool) -> bool {
    let (path, folder) = (fold_case(path), fold_case(folder));
    path.starts_with(&folder) && !(strict && path == folder)
}

/// The path as compared: lower-cased on macOS, unchanged elsewhere.
fn fold_case(path: &Path) -> PathBuf {
    if cfg!(target_os = "macos") {
        PathBuf::from(path.to_string_lossy().to_lowercase())
    } else {
        path.to_path_buf()
    }
}

/// The path with `.`, `..`, repeated and trailing `/` resolved by spelling alone.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// A folder a path was found in, and how.
struct Found<'f> {
    folder: &'f Folder,
    /// The last link followed before it got there.
    through: Option<PathBuf>,
    /// The folder on the way that is `folder` by device and inode, when only that says so.
    alias: Option<PathBuf>,
}

impl Found<'_> {
    /// The [`Place`] of the path.
    fn place(self) -> Place {
        Place {
            dir: self.folder.dir.clone(),
            why: self.folder.why,
            through: self.through,
            alias: self.alias,
        }
    }
}

/// The first folder among `folders` that a path is in; or why it could not be followed.
/// Checked by spelling: the path as written (lexically), each folder or link on the way
/// (strictly inside), and where it leads. Then by identity: each folder the walk passed
/// through (and the end) against the folders' (device, inode), which catches a bind mount
/// of a writable folder mounted under another name.
fn find_in<'f>(seen: &Examined, folders: &'f [Folder]) -> Result<Option<Found<'f>>, String> {
    let first = |path: &Path, strict: bool| folders.iter().find(|f| f.holds(path, strict));
    if let Some(folder) = first(&seen.lexical, false) {
        return Ok(Some(Found {
            folder,
            through: None,
            alias: None,
        }));
    }
    let walk = seen.walk.as_ref().map_err(ToString::to_string)?;
    for step in &walk.steps {
        if let Some(folder) = first(&step.path, step.kind != StepKind::End) {
            return Ok(Some(Found {
                folder,
                through: step.via.clone(),
                alias: None,
            }));
        }
    }
    if folders.iter().all(|f| f.id.is_none()) {
        return Ok(None);
    }
    let mut stated = BTreeSet::new();
    for step in &walk.steps {
        // The walk's paths hold no links, so each parent is a real folder.
        let strict = usize::from(step.kind != StepKind::End);
        for dir in step.path.ancestors().skip(strict) {
            if !stated.insert(dir) {
                continue;
            }
            let Ok(meta) = fs::symlink_metadata(dir) else {
                continue;
            };
            let id = Some((meta.dev(), meta.ino()));
            if let Some(folder) = folders.iter().find(|f| f.id == id) {
                return Ok(Some(Found {
                    folder,
                    through: step.via.clone(),
                    alias: Some(dir.to_path_buf()),
                }));
            }
        }
    }
    Ok(None)
}

/// The per-process link a path goes through, as written or on the way to where it leads:
/// `/proc/self`, `/proc/thread-self`, `/proc/<pid>`, `/dev/fd`, `/dev/stdin`,
/// `/dev/stdout` or `/dev/stderr`. The kernel resolves each in the context of the process
/// that opens it (its cwd, root, open files), so hookhost following it at start learns
/// nothing about what the hook will open.
fn per_process_link(seen: &Examined) -> Option<PathBuf> {
    let walked = seen
        .walk
        .iter()
        .flat_map(|w| w.steps.iter().map(|s| &s.path));
    std::iter::once(&seen.lexical)
        .chain(walked)
        .find_map(|path| per_process_prefix(path))
}

/// The `/proc/X` or `/dev/X` a lexical, absolute path starts with, if X is per-process.
fn per_process_prefix(path: &Path) -> Option<PathBuf> {
    let mut parts = path.components();
    if parts.next() != Some(Component::RootDir) {
        return None;
    }
    let (Some(Component::Normal(top)), Some(Component::Normal(name))) =
        (parts.next(), parts.next())
    else {
        return None;
    };
    let name_bytes = name.as_bytes();
    let per_process = match top.as_bytes() {
        b"proc" => {
            matches!(name_bytes, b"self" | b"thread-self")
                || name_bytes.iter().all(u8::is_ascii_digit)
        }
        b"dev" => matches!(name_bytes, b"fd" | b"stdin" | b"stdout" | b"stderr"),
        _ => false,
    };
    per_process.then(|| Path::new("/").join(top).join(name))
}

/// A path, with its lexical form and its walk.
struct Examined {
    lexical: PathBuf,
    walk: Result<Walk, TraceError>,
}

impl Examined {
    /// Examines an absolute path.
    fn new(path: PathBuf) -> Examined {
        Examined {
            lexical: lexical(&path),
            walk: walk(&path),
        }
    }
}

/// What a step of a walk is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StepKind {
    /// A folder (or a missing part) passed on the way.
    Pass,
    /// A link, followed.
    Link,
    /// Where the path leads.
    End,
}

/// One place a walk passed, and the last link followed before it.
#[derive(Debug, Clone)]
struct Step {
    path: PathBuf,
    kind: StepKind,
    via: Option<PathBuf>,
}

/// A path followed to where it leads.
#[derive(Debug, Clone)]
struct Walk {
    /// Every folder, link and the end, in order; their paths contain no links.
    steps: Vec<Step>,
    /// Where it leads.
    end: PathBuf,
    /// Whether `end` exists.
    end_exists: bool,
    /// A link was followed to somewhere that does not exist (yet).
    dangling: bool,
}

/// Why a walk stopped.
#[derive(Debug, thiserror::Error)]
enum TraceError {
    #[error("a loop of links, or more than {MAX_LINK_HOPS} of them")]
    Loop,
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// One part of a path still to walk.
enum Part {
    Root,
    Up,
    Name(OsString),
}

/// The parts of a path, in order.
fn parts(path: &Path) -> Vec<Part> {
    path.components()
        .filter_map(|c| match c {
            Component::RootDir => Some(Part::Root),
            Component::ParentDir => Some(Part::Up),
            Component::Normal(name) => Some(Part::Name(name.to_owned())),
            Component::CurDir | Component::Prefix(_) => None,
        })
        .collect()
}

/// Follows an absolute path part by part, as the kernel would, following every link (a
/// link whose target is missing included: the rest is taken by spelling). A relative
/// path is walked from `/`.
fn walk(start: &Path) -> Result<Walk, TraceError> {
    let mut todo = parts(start);
    todo.reverse();
    let mut cur = PathBuf::from("/");
    let (mut hops, mut missing, mut dangling) = (0, false, false);
    let mut via: Option<PathBuf> = None;
    let mut steps = Vec::new();
    while let Some(part) = todo.pop() {
        let name = match part {
            Part::Root => {
                cur = PathBuf::from("/");
                continue;
            }
            Part::Up => {
                cur.pop();
                continue;
            }
            Part::Name(name) => name,
        };
        let next = cur.join(&name);
        let meta = if missing {
            None
        } else {
            match fs::symlink_metadata(&next) {
                Ok(meta) => Some(meta),
                Err(e) if is_missing(&e) => None,
                Err(e) => return Err(e.into()),
            }
        };
        if meta.as_ref().is_some_and(|m| m.file_type().is_symlink()) {
            hops += 1;
            if hops > MAX_LINK_HOPS {
                return Err(TraceError::Loop);
            }
            let target = fs::read_link(&next)?;
            let kind = StepKind::Link;
            steps.push(Step {
                path: next.clone(),
                kind,
                via: via.clone(),
            });
            todo.extend(parts(&target).into_iter().rev());
            via = Some(next);
            continue;
        }
        if meta.is_none() && !missing {
            missing = true;
            dangling = hops > 0;
        }
        if !todo.is_empty() {
            steps.push(Step {
                path: next.clone(),
                kind: StepKind::Pass,
                via: via.clone(),
            });
        }
        cur = next;
    }
    steps.push(Step {
        path: cur.clone(),
        kind: StepKind::End,
        via,
    });
    Ok(Walk {
        steps,
        end: cur,
        end_exists: !missing,
        dangling,
    })
}

/// The part does not exist (or its parent is not a folder): the rest is taken by spelling.
fn is_missing(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hard_link_rule_for_our_own_files_or_as_root_on_a_writable_file_system() {
        // Not root: our own files, on any file system.
        assert!(hard_link_risk(true, 2, 1000, 1000, false));
        assert!(hard_link_risk(true, 2, 1000, 1000, true));
        assert!(!hard_link_risk(true, 1, 1000, 1000, true));
        assert!(!hard_link_risk(true, 2, 0, 1000, true));
        assert!(!hard_link_risk(false, 2, 1000, 1000, true));
        // Root: any file on the file system of a writable folder.
        assert!(hard_link_risk(true, 2, 0, 0, true));
        assert!(!hard_link_risk(true, 2, 0, 0, false));
        assert!(!hard_link_risk(true, 1, 0, 0, true));
        assert!(!hard_link_risk(false, 3, 0, 0, true));
    }

    #[test]
    fn env_target_skips_options_and_assignments() {
        let args = |s: &[&str]| s.iter().map(OsString::from).collect::<Vec<_>>();
        let a = args(&["-S", "-u", "FOO", "A=b", "python3", "-u"]);
        assert_eq!(env_target(&a), Some(OsStr::new("python3")));
        assert_eq!(env_target(&args(&["-i"])), None);
    }

    #[test]
    fn lexical_resolves_spellings() {
        assert_eq!(
            lexical(Path::new("//a/./b//c/../d/")),
            PathBuf::from("/a/b/d")
        );
        assert_eq!(lexical(Path::new("/../..")), PathBuf::from("/"));
    }

    #[test]
    fn arg_targets_follow_the_spec() {
        let p = Path::new("/nonexistent-project");
        assert!(arg_targets("--exclude=", p).is_empty());
        assert!(arg_targets("", p).is_empty());
        assert!(arg_targets("a b/c", p).is_empty());
        let t = arg_targets("--rules=hooks/r.yaml", p);
        assert_eq!(t, vec![("hooks/r.yaml".into(), p.join("hooks/r.yaml"))]);
        let t = arg_targets("hooks/x.sh", p);
        assert_eq!(t, vec![("hooks/x.sh".into(), p.join("hooks/x.sh"))]);
    }
}
