//! Why an install or uninstall could not be planned or applied.

use std::path::PathBuf;

use crate::bridge::AgentKind;

/// Why an install or uninstall could not be planned or applied. Every one leaves the
/// settings file untouched.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// An agent name the bridge does not know.
    #[error(
        "unknown agent {0:?}: hookhost can be installed for {agents}",
        agents = AgentKind::flag_names_listed()
    )]
    UnknownAgent(String),
    /// `--scope project` for an agent that reads no project settings for its hooks.
    #[error("{0} has no project settings file for its hooks: install it with --scope user")]
    NoProjectScope(AgentKind),
    /// `--scope system` for an agent with no administrator-managed settings for its hooks.
    #[error("{agent} has no system scope: {reason}; install it with --scope user")]
    NoSystemScope {
        /// The agent.
        agent: AgentKind,
        /// Why (docs/system-scope.md).
        reason: &'static str,
    },
    /// `--scope system` run by someone other than an administrator.
    #[error(
        "--scope system writes the agent's administrator-managed settings, which must be owned by the administrator: run it as root (or an administrator)"
    )]
    NotAdministrator,
    /// A scope other than `user`, `project` and `system`.
    #[error("unknown scope {0:?}: the scope is user (the default), project or system")]
    UnknownScope(String),
    /// The binary to register is a relative path, which the agent would resolve from its
    /// own working folder.
    #[error(
        "{}: the hookhost binary to register must be an absolute path",
        .0.display()
    )]
    BinaryNotAbsolute(PathBuf),
    /// `--warm-socket` with a relative path, which the bridge would resolve from the
    /// agent's working folder.
    #[error(
        "--warm-socket {}: the warm server's socket must be an absolute path",
        .0.display()
    )]
    WarmSocketNotAbsolute(PathBuf),
    /// `--warm-socket` in a temp folder, which neither `warm` nor the bridge uses.
    #[error(
        "--warm-socket {}: it lies in {}, where any process of yours (a sandboxed agent among them) can replace the socket, so neither hookhost warm nor the bridge uses it; name one in a folder of yours outside temp folders (mode 0700), or use --warm",
        .path.display(),
        .temp.display()
    )]
    WarmSocketInTemp {
        /// The socket named.
        path: PathBuf,
        /// The temp folder it lies in.
        temp: PathBuf,
    },
    /// `--warm-socket` with a path that cannot be written into a JSON or TOML string.
    #[error("--warm-socket {}: the socket's path is not valid UTF-8", .0.display())]
    WarmSocketNotUtf8(PathBuf),
    /// `--warm` or `--warm-socket` with `--scope system`.
    #[error(
        "{flag} cannot be used with --scope system: the system bridge never hands a call to a user's warm server (a user's process cannot stand between the agent and the administrator's policy)"
    )]
    WarmWithSystem {
        /// The flag given.
        flag: &'static str,
    },
    /// The binary's path cannot be written into a JSON or TOML string.
    #[error("{}: the hookhost binary's path is not valid UTF-8", .0.display())]
    BinaryNotUtf8(PathBuf),
    /// After the edit, the settings file would still switch the agent's hooks off by
    /// something `install` does not remove itself (another handler's table).
    #[error(
        "{}: it has {key}; {} would not call hookhost's hooks, so hookhost does not register (or pin) them there: fix or remove that entry, then run `hookhost install {}` again",
        path.display(),
        agent.display_name(),
        agent.flag_name()
    )]
    StillSwitchedOff {
        /// The settings file.
        path: PathBuf,
        /// The agent.
        agent: AgentKind,
        /// What switches its hooks off.
        key: &'static str,
    },
    /// The settings file could not be read.
    #[error("{}: cannot read it: {}", path.display(), crate::access::explain(path, source))]
    Read {
        /// The settings file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The settings file is not UTF-8 text.
    #[error("{}: is not UTF-8 text; hookhost leaves it untouched", path.display())]
    NotText {
        /// The settings file.
        path: PathBuf,
    },
    /// The settings file does not parse.
    #[error(
        "{}: malformed {format} at line {line}, column {column}: {message}; hookhost leaves it untouched",
        path.display()
    )]
    Malformed {
        /// The settings file.
        path: PathBuf,
        /// `JSON` or `TOML`.
        format: &'static str,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's words.
        message: String,
    },
    /// A JSON settings file holds comments, which rewriting it would drop.
    #[error(
        "{}: line {line} holds a comment, which hookhost would lose in rewriting this JSON file; \
         it leaves the file untouched: remove the comments, or add the registration by hand \
         (--dry-run shows it)",
        path.display()
    )]
    Comments {
        /// The settings file.
        path: PathBuf,
        /// 1-based line of the first comment.
        line: usize,
    },
    /// The settings file, written back in its own style, would be larger than hookhost
    /// reads of one: an indent or a nesting no one writes by hand (docs/threats.md#b4).
    #[error(
        "{}: written back in its own style ({indent} characters of indentation a level) it would be over {} MiB, more than hookhost reads of a settings file; hookhost leaves it untouched",
        path.display(),
        limit >> 20
    )]
    TooLargeRewritten {
        /// The settings file.
        path: PathBuf,
        /// The characters of one level of its indentation.
        indent: usize,
        /// The bound.
        limit: usize,
    },
    /// A key hookhost must edit holds something other than what the agent expects there.
    #[error(
        "{}: {key} is not {expected}; hookhost leaves the file untouched",
        path.display()
    )]
    Unexpected {
        /// The settings file.
        path: PathBuf,
        /// The key, as a path (`hooks.PreToolUse[2].hooks`).
        key: String,
        /// What it should be (`an array`).
        expected: &'static str,
    },
    /// The settings file could not be written (or its backup, its folder).
    #[error("{}: cannot write it: {}", path.display(), crate::access::explain(path, source))]
    Write {
        /// The file or folder that could not be written.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A project-scope settings file, or a folder on the way to it, is a symbolic link.
    #[error(
        "{}: {} is a symbolic link, which hookhost does not follow for a project's settings (it could lead the write to the user's own settings); nothing is written: remove the link, or install with --scope user",
        path.display(),
        link.display()
    )]
    LinkInProject {
        /// The settings file.
        path: PathBuf,
        /// The link found on the way.
        link: PathBuf,
    },
    /// A project-scope settings file that is not in the project.
    #[error(
        "{}: is not inside the project {}; nothing is written",
        path.display(),
        project.display()
    )]
    OutsideProject {
        /// The settings file.
        path: PathBuf,
        /// The project.
        project: PathBuf,
    },
    /// The file changed between reading it and writing it.
    #[error(
        "{}: changed while hookhost was editing it; nothing is written: run the command again",
        path.display()
    )]
    ChangedMeanwhile {
        /// The settings file.
        path: PathBuf,
    },
}
