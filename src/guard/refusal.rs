//! Why the guard refuses, and the message line each refusal prints: [`Refusal`] and the
//! parts its text is built from ([`Who`], [`Place`], [`Plant`], [`Ownership`]). The
//! wording of these lines is quoted in the spec (hooks.md) and is a contract.

use std::fmt;
use std::path::PathBuf;

use super::WHY_PROJECT;
use crate::platform::acl;
pub use crate::platform::acl::{Account, AclProblem};

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
    /// A file the system policy depends on (system mode): `system file `.
    SystemFile,
    /// The running hookhost binary (system mode): `hookhost binary `.
    Binary,
}

impl fmt::Display for Who {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Who::Hook(name) => write!(f, "hook {name}: "),
            Who::Config => f.write_str("config "),
            Who::CacheDir => f.write_str("[wasm] cache_dir "),
            Who::Record => f.write_str("session record "),
            Who::SystemFile => f.write_str("system file "),
            Who::Binary => f.write_str("hookhost binary "),
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
    /// System mode: the path itself is owned by a uid other than root.
    NotRootItself(u32),
    /// System mode: a folder or link on the way is owned by a uid other than root.
    NotRootOnTheWay(PathBuf, u32),
    /// System mode on Windows: the path's owner or DACL lets someone other than the
    /// administrator change it (docs/contract.md#system-mode).
    NotAdminAcl {
        /// The folder or link on the way it is about; `None`: the path itself.
        on_the_way: Option<PathBuf>,
        /// That path is a folder (the fix then names what its entries inherit).
        folder: bool,
        /// What its owner or DACL allows (boxed: refusals travel in `Result`s).
        problem: Box<AclProblem>,
    },
}

/// The `icacls` arguments that give a path the permissions `install --scope system`
/// makes its folders with: nothing inherited, SYSTEM and Administrators full control,
/// Users read and execute (on a folder, for everything in it too).
fn icacls_admin_only(path: &str, folder: bool) -> String {
    let inherit = if folder { "(OI)(CI)" } else { "" };
    format!(
        "icacls \"{path}\" /inheritance:r /grant:r *{system}:{inherit}F *{admins}:{inherit}F *{users}:{inherit}RX",
        system = acl::SYSTEM,
        admins = acl::ADMINISTRATORS,
        users = acl::USERS,
    )
}

impl AclProblem {
    /// What an administrator runs on `path` (a folder when `folder`) to fix it.
    fn admin_fix(&self, path: &str, folder: bool) -> String {
        let reset = icacls_admin_only(path, folder);
        match self {
            AclProblem::Owner(_) => format!(
                "Run, as administrator, `icacls \"{path}\" /setowner *{}` and `{reset}`.",
                acl::ADMINISTRATORS
            ),
            AclProblem::Grants { who, .. } | AclProblem::Creator(who) if who.sid != acl::USERS => {
                format!("Run, as administrator, `{reset} /remove:g *{}`.", who.sid)
            }
            AclProblem::Unreadable(_) => format!(
                "Run, as administrator, `icacls \"{path}\"` to see who may change it, then `icacls \"{path}\" /setowner *{}` and `{reset}`.",
                acl::ADMINISTRATORS
            ),
            _ => format!("Run, as administrator, `{reset}`."),
        }
    }
}

impl fmt::Display for AclProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AclProblem::Owner(who) => write!(
                f,
                "is owned by {who}, not by SYSTEM, Administrators or TrustedInstaller"
            ),
            AclProblem::NullDacl => f.write_str("has no DACL, so everyone may write it"),
            AclProblem::Grants { who, rights } => {
                write!(f, "lets {who} write it ({})", acl::Rights(*rights))
            }
            AclProblem::Creator(who) => write!(
                f,
                "has a DACL entry for {who} that applies to it (such entries are only for what it holds)"
            ),
            AclProblem::UnknownAce(kind) => write!(
                f,
                "has a DACL entry of a type hookhost does not know ({kind:#04x}), which might let others write it"
            ),
            AclProblem::Unreadable(cause) => {
                write!(
                    f,
                    "has an owner and permissions hookhost cannot read ({cause})"
                )
            }
        }
    }
}

impl Ownership {
    /// What an administrator runs to make the path (`subject`) root's alone.
    fn admin_fix(&self, subject: &str) -> String {
        match self {
            Ownership::OpenItself => format!("Run `sudo chmod go-w {subject}`."),
            Ownership::OpenFolder(dir) => format!(
                "Run `sudo chmod go-w {}`, or keep it under a folder only root can write (such as /etc/hookhost/).",
                dir.display()
            ),
            Ownership::OwnedItself(_) | Ownership::NotRootItself(_) => {
                format!("Run `sudo chown root {subject}` and `sudo chmod go-w {subject}`.")
            }
            Ownership::OwnedOnTheWay(path, _) | Ownership::NotRootOnTheWay(path, _) => format!(
                "Run `sudo chown root {}`, or keep it under a folder only root can write (such as /etc/hookhost/).",
                path.display()
            ),
            Ownership::NotAdminAcl {
                on_the_way: None,
                folder,
                problem,
            } => problem.admin_fix(subject, *folder),
            Ownership::NotAdminAcl {
                on_the_way: Some(path),
                folder,
                problem,
            } => format!(
                "{} Or keep it under a folder only administrators can write (such as C:\\ProgramData\\hookhost\\).",
                problem.admin_fix(&path.display().to_string(), *folder),
            ),
        }
    }
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
            Ownership::NotRootItself(uid) => write!(f, "is owned by uid {uid}, not by root"),
            Ownership::NotRootOnTheWay(path, uid) => write!(
                f,
                "lies under {}, which is owned by uid {uid}, not by root",
                path.display()
            ),
            Ownership::NotAdminAcl {
                on_the_way: None,
                problem,
                ..
            } => write!(f, "{problem}"),
            Ownership::NotAdminAcl {
                on_the_way: Some(path),
                problem,
                ..
            } => write!(f, "lies under {}, which {problem}", path.display()),
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
    /// System mode: a file the administrator's policy depends on (the system config, a
    /// system hook's files, the system compile cache, the running binary) that someone
    /// other than root could change (docs/contract.md#system-mode).
    #[error(
        "{who}{subject} {problem}, so someone other than the administrator could change the system policy; hookhost bridge --system refuses it. {}",
        .problem.admin_fix(.subject)
    )]
    NotAdminOnly {
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
    /// A program the agent could write through another name: one the agent could write
    /// (ours, or any as root) with a hard link in a folder the agent can write, or in one
    /// on its file system that could not be looked through (see [`super::LinkVerdict`]).
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
