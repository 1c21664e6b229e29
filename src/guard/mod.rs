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
//! have another name (hard link) the agent could write it through: one in a folder the
//! agent can write, of a file the agent could write (ours, or any as root); the writable
//! folders on its file system are looked through for one (`other_names.rs`), and
//! [`hard_link_notes`] says what was found.
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
//! and [`scrub_path_for_argv_hooks`] gives an argv hook of a sandboxed session (on the host or
//! in the box) a PATH with nothing the agent could plant a program in.
//!
//! What the guard does not see: a path inside an interpreter string (`["sh", "-c", "…"]`,
//! `python3 -c`), a file a program finds on its own (its config, `node_modules`, a module
//! loaded from its working directory), a bare relative name absent at start, and anything
//! that changes after start (the caller should run the returned path and re-check before each
//! run if it must close that race).
//!
//! # Where each part lives
//!
//! * this file: the session's context ([`GuardContext`]), [`check_hooks`] and the per-hook
//!   `Plan` (where a program lies, whether it exists, which arguments name paths);
//! * `refusal.rs`: [`Refusal`] and the parts of its message line;
//! * `folders.rs`: the writable and hidden folders and how a path is found in one, and the
//!   per-process links refused outright;
//! * `ownership.rs`: OpenSSH's `safe_path` rule and the hard-link rule;
//! * `other_names.rs`: when a program's other names matter, and the search for them in
//!   the writable folders;
//! * `shebang.rs`: `#!` lines and what `/usr/bin/env NAME` would find;
//! * `worktree.rs`: a linked git worktree's common directory;
//! * `session_files.rs`: the config file, the session record, the WASM cache and a host
//!   hook's PATH;
//! * `crate::paths` (shared with the box): lexical paths, the link walk, the PATH search;
//! * `crate::platform::sys::{ownership, file_system}`: uids, modes, identities, case and
//!   temp folders, as the OS says them.

mod folders;
mod other_names;
mod ownership;
mod refusal;
mod session_files;
mod shebang;
mod worktree;

use std::cell::RefCell;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::rc::Rc;

pub use crate::paths::MAX_LINK_HOPS;
pub use other_names::{LinkNote, LinkVerdict, MAX_ENTRIES_SEARCHED};
pub use refusal::{Account, AclProblem, Ownership, Place, Plant, Refusal, Who};
pub use session_files::{
    check_admin_only, check_admin_only_as, check_cache_dir, check_config_file, check_record_file,
    scrub_path_for_argv_hooks,
};

use crate::paths::lookup_on_path;
use crate::platform::sys::file_system::{system_temp_folders, tmpdir_is_per_user};
use folders::{Examined, Folder, find_in, per_process_link};
use other_names::Names;
use shebang::{MAX_SHEBANG_DEPTH, read_shebang};
use worktree::linked_worktree_common_dir;
pub(crate) use worktree::main_checkout;

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
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GuardContext {
    /// The project root: absolute, as given.
    pub project: PathBuf,
    /// The agent's private temp folder (`--private-tmp`), if any.
    pub private_tmp: Option<PathBuf>,
    /// `[sandbox] writable` and `--writable` folders.
    pub writable: Vec<PathBuf>,
    /// The session has a working box (bubblewrap, Seatbelt).
    pub sandboxed_session: bool,
    /// The agent's commands run outside that box (the bridge): the system temp folders
    /// are the agent's all the same.
    pub agent_outside_box: bool,
    /// Folders the box hides (already `~`-expanded, absolute).
    pub hidden: Vec<PathBuf>,
    /// The host's PATH, used for lookups.
    pub path_env: Option<OsString>,
    /// `$TMPDIR`.
    pub tmpdir_env: Option<PathBuf>,
    /// System mode (docs/contract.md#system-mode): every file a hook runs or reads must
    /// be root's alone ([`check_admin_only`]), not "root's or ours", and a later element
    /// that names an existing file is held to that rule too.
    pub admin_only: bool,
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

impl<'a> HookToGuard<'a> {
    /// A hook with `command`, run in the sandbox when `sandbox` asks, or a WASM hook
    /// (`wasm`): a WASM hook's arguments are the guest's, not host paths, and it can open
    /// nothing but the read-only project, so only its module (`command[0]`) is checked.
    pub fn new(name: &'a str, command: &'a [String], sandbox: bool, wasm: bool) -> Self {
        HookToGuard {
            name,
            command: if wasm {
                command.get(..1).unwrap_or(command)
            } else {
                command
            },
            sandbox: sandbox && !wasm,
        }
    }
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

impl GuardContext {
    /// The folders the agent can write in this session, each with why (a `WHY_*` constant).
    ///
    /// These count for every hook, the config file and the cache. A sandboxed hook in a
    /// sandboxed session also may not use `/tmp` (the box's `/tmp` is the agent's); that is
    /// added per hook, since the host's `/tmp` is not the agent's in such a session,
    /// unless the agent runs outside the box (the bridge), where it is.
    pub fn agent_writable_folders(&self) -> Vec<(PathBuf, &'static str)> {
        let mut folders = vec![(self.project.clone(), WHY_PROJECT)];
        if let Some(common) = linked_worktree_common_dir(&self.project) {
            folders.push((common, WHY_WORKTREE));
        }
        if let Some(tmp) = &self.private_tmp {
            folders.push((tmp.clone(), WHY_PRIVATE_TMP));
        }
        folders.extend(self.writable.iter().map(|w| (w.clone(), WHY_WRITABLE)));
        // macOS: `$TMPDIR` is the user's own temp folder, and `/tmp` is `/private/tmp`.
        let per_user_tmpdir = tmpdir_is_per_user();
        if let (true, Some(tmp)) = (per_user_tmpdir, &self.tmpdir_env) {
            folders.push((tmp.clone(), WHY_USER_TEMP));
        }
        if !self.sandboxed_session || self.agent_outside_box {
            for tmp in system_temp_folders() {
                folders.push((PathBuf::from(tmp), WHY_SYSTEM_TEMP));
            }
            if let (false, Some(tmp)) = (per_user_tmpdir, &self.tmpdir_env) {
                folders.push((tmp.clone(), WHY_TMPDIR));
            }
        }
        folders
    }

    /// The writable folders, ready to compare paths against: made once per context
    /// within [`one_look`], else at each call.
    fn writable_folders(&self) -> Rc<Vec<Folder>> {
        let made = MADE_FOLDERS.with(|made| {
            let made = made.borrow();
            let (_, folders) = made.as_ref()?.iter().find(|(ctx, _)| ctx == self)?;
            Some(Rc::clone(folders))
        });
        if let Some(folders) = made {
            return folders;
        }
        let folders: Rc<Vec<Folder>> = Rc::new(
            self.agent_writable_folders()
                .into_iter()
                .map(|(dir, why)| Folder::new(dir, why, &self.project))
                .collect(),
        );
        MADE_FOLDERS.with(|made| {
            if let Some(made) = made.borrow_mut().as_mut() {
                made.push((self.clone(), Rc::clone(&folders)));
            }
        });
        folders
    }
}

/// The writable folders made within one [`one_look`], with the context each was made for.
type MadeFolders = Vec<(GuardContext, Rc<Vec<Folder>>)>;

thread_local! {
    /// The writable folders made within the [`one_look`] running on this thread.
    static MADE_FOLDERS: RefCell<Option<MadeFolders>> = const { RefCell::new(None) };
}

/// Runs `checks` as one look at the file system: each path is asked of it once
/// ([`crate::paths::memoised`]) and a context's writable folders are made once, however
/// many of the checks need them (a session's start checks its config file, its hooks, a
/// host hook's PATH and its compile cache against the same folders). The checks see the
/// file system as it was when a path was first asked, so nothing they look at may be
/// written while it runs. Everything is forgotten when the outermost one returns.
pub(crate) fn one_look<T>(checks: impl FnOnce() -> T) -> T {
    crate::paths::in_thread_memo(&MADE_FOLDERS, || crate::paths::memoised(checks))
}

/// Checks every hook; returns each hook's program to run, or every refusal found.
pub fn check_hooks(
    ctx: &GuardContext,
    hooks: &[HookToGuard],
) -> Result<Vec<GuardedHook>, Vec<Refusal>> {
    guard_hooks(ctx, hooks).0
}

/// What [`check_hooks`] finds about the hooks' programs (and `#!` interpreters) that
/// have more than one name (hard link): for each, whether that matters and why.
pub fn hard_link_notes(ctx: &GuardContext, hooks: &[HookToGuard]) -> Vec<LinkNote> {
    guard_hooks(ctx, hooks).1
}

/// [`check_hooks`], with its [`hard_link_notes`].
fn guard_hooks(
    ctx: &GuardContext,
    hooks: &[HookToGuard],
) -> (Result<Vec<GuardedHook>, Vec<Refusal>>, Vec<LinkNote>) {
    crate::paths::memoised(|| guard_hooks_memoised(ctx, hooks))
}

/// [`guard_hooks`], inside its check's memo of the file system.
fn guard_hooks_memoised(
    ctx: &GuardContext,
    hooks: &[HookToGuard],
) -> (Result<Vec<GuardedHook>, Vec<Refusal>>, Vec<LinkNote>) {
    use std::cell::OnceCell;
    let names = Names::default();
    // Each set of folders is made (each folder walked) only when a hook is checked
    // against it: the box's `/tmp` and the hidden folders only for a sandboxed hook in a
    // sandboxed session, the scrubbed PATH only for a host hook in one.
    let base = OnceCell::new();
    let base = || base.get_or_init(|| ctx.writable_folders()).as_ref();
    let boxed = OnceCell::new();
    let boxed = || {
        boxed.get_or_init(|| {
            let mut boxed = Vec::clone(base());
            boxed.push(Folder::new("/tmp".into(), WHY_SANDBOX_TMP, &ctx.project));
            boxed
        })
    };
    let hidden = OnceCell::new();
    let hidden = || {
        hidden.get_or_init(|| {
            ctx.hidden
                .iter()
                .map(|h| Folder::new(h.clone(), "", &ctx.project))
                .collect::<Vec<Folder>>()
        })
    };
    let hook_path = OnceCell::new();
    let hook_path = || hook_path.get_or_init(|| scrub_path_for_argv_hooks(ctx));
    let mut guarded = Vec::new();
    let mut refusals = Vec::new();
    for hook in hooks {
        let in_box = ctx.sandboxed_session && hook.sandbox;
        let plan = Plan {
            hook: hook.name,
            ctx,
            writable: if in_box { boxed() } else { base() },
            in_box,
            names: &names,
            hidden: if in_box { Some(hidden()) } else { None },
            cwd: if in_box {
                ctx.project.clone()
            } else {
                "/".into()
            },
            // In the box too: a folder of the project on PATH is one the agent writes,
            // though the box sees it read-only (docs/threats.md#n11).
            runtime_path: if ctx.sandboxed_session {
                hook_path().clone()
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
    let result = if refusals.is_empty() {
        Ok(guarded)
    } else {
        Err(refusals)
    };
    (result, names.into_notes())
}

/// How one hook is checked: what counts as writable or hidden for it, and where it runs.
struct Plan<'a> {
    hook: &'a str,
    ctx: &'a GuardContext,
    writable: &'a [Folder],
    /// `writable` has the box's `/tmp` (a sandboxed hook in a sandboxed session).
    in_box: bool,
    /// What the hard-link rule found, shared by every hook of the run.
    names: &'a Names,
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
                let seen = Examined::new(path);
                match self.place_refusal(subject.clone(), &seen) {
                    Some(refusal) => refusals.push(refusal),
                    None => refusals.extend(self.admin_only_refusal(&subject, &seen)),
                }
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
        // A path, not a name to look up: it holds a separator (`/`; on Windows `\` too).
        if first.contains(std::path::is_separator) {
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
    let key_is_pathy = split.is_none_or(|(key, _)| key.contains(std::path::is_separator));
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

/// Shaped like a path: a separator (`/`; on Windows `\` too) and no spaces.
fn path_shaped(s: &str) -> bool {
    s.contains(std::path::is_separator) && !s.chars().any(char::is_whitespace)
}

/// Whether anything (a dangling link included) is at `path`.
fn exists(path: &Path) -> bool {
    crate::paths::lstat(path).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// System mode's rule on files every Unix system has: root's `/etc/passwd` passes,
    /// the sticky, world-writable `/tmp` itself does not (a sticky folder helps only its
    /// root-owned entries), and a missing file is no file to trust. (The owner and mode
    /// cases of a file the test makes are in `tests/it/system.rs`, as root.)
    #[test]
    fn check_admin_only_holds_to_root_alone() {
        // Unix files and modes; Windows' owner-and-DACL rule is `platform::acl`'s tests.
        if crate::platform::FolderStyle::native() == crate::platform::FolderStyle::Windows {
            return;
        }
        assert_eq!(check_admin_only(Path::new("/etc/passwd")), Ok(()));
        assert!(matches!(
            check_admin_only(Path::new("/tmp")),
            Err(Refusal::NotAdminOnly {
                problem: Ownership::OpenItself,
                ..
            })
        ));
        let missing = check_admin_only(Path::new("/nonexistent-hookhost-test/x"));
        assert!(
            matches!(&missing, Err(Refusal::Untraceable { cause, .. }) if cause == "it does not exist"),
            "{missing:?}"
        );
        let text = check_admin_only(Path::new("/tmp")).unwrap_err().to_string();
        assert!(
            text.starts_with("system file /tmp is group- or world-writable"),
            "{text}"
        );
        assert!(text.contains("sudo chmod go-w /tmp"), "{text}");
    }

    /// Within one look the writable folders of a context are made once and shared by
    /// every check; a context that differs (a sandboxed session's, say) gets its own, and
    /// nothing is kept once the look is over.
    #[test]
    fn one_look_makes_a_contexts_folders_once() {
        let project = std::env::temp_dir();
        let ctx = GuardContext {
            project: project.clone(),
            ..GuardContext::default()
        };
        let boxed = GuardContext {
            sandboxed_session: true,
            ..ctx.clone()
        };
        let (first, again, other) = one_look(|| {
            let first = ctx.writable_folders();
            let again = ctx.writable_folders();
            (first, again, boxed.writable_folders())
        });
        assert!(Rc::ptr_eq(&first, &again), "made twice in one look");
        assert!(
            !Rc::ptr_eq(&first, &other),
            "another context's folders shared"
        );
        assert_ne!(
            first.len(),
            other.len(),
            "a sandboxed session counts no system temp"
        );
        let later = ctx.writable_folders();
        assert!(!Rc::ptr_eq(&first, &later), "kept after the look");
        let nested = one_look(|| {
            let outer = ctx.writable_folders();
            let inner = one_look(|| ctx.writable_folders());
            Rc::ptr_eq(&outer, &inner)
        });
        assert!(
            nested,
            "an inner look does not share the outer one's folders"
        );
        assert!(MADE_FOLDERS.with(|made| made.borrow().is_none()));
    }
}
