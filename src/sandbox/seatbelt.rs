//! macOS's box: a Seatbelt (SBPL) profile for `sandbox-exec -p PROFILE -D … -- CMD…`.
//!
//! What the bubblewrap box gives: the whole file system readable; writes only to the
//! project, the extra writable folders and the session's private temp folder (not the
//! shared `/tmp` or `/var/folders`: the caller sets `TMPDIR`); hidden paths neither
//! readable nor writable; no network, IP or Unix-domain; signals and process info only
//! within the box; the host's terminal closed. Pure text, tested on every OS.
//!
//! As in OpenAI Codex (`codex-rs/core/src/seatbelt.rs`), no path is written into the
//! profile: each is a `-D NAME=PATH` parameter, named there as `(param "NAME")`, so a
//! path with `"` or `)` cannot change the rules. Seatbelt matches real (resolved)
//! paths, so callers pass canonical ones; [`SeatbeltPolicy::parameters`] only adds
//! `/private` to `/tmp`, `/var` and `/etc` paths, lexically.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The program that applies a profile. Only this path is used, never a `PATH` search,
/// so that no look-alike can be slipped in (Codex does the same).
pub const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// The fixed start of the profile: everything but the per-session paths. Mostly after
/// Codex's `codex-rs/core/src/seatbelt_base_policy.sbpl`, itself after Chrome's
/// `sandbox/policy/mac/common.sb`.
const BASE: &str = r##"(version 1)

; Closed by default: whatever no rule below allows is refused. That includes all
; network: this profile has no network* and no system-socket allow, so neither IP
; nor Unix-domain sockets (ssh-agent, docker.sock, launchd's) can be used.
(deny default)

; Programs may run others; children inherit this profile.
(allow process-exec)
(allow process-fork)
; Signals and process info only within the box (the Linux box's own PID namespace).
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))

; From Codex's base policy: CoreFoundation preferences (read), host_processor_info
; (Node's os.cpus), POSIX semaphores (Python multiprocessing's SemLock).
(allow user-preference-read)
(allow mach-host*)
(allow ipc-posix-sem)

; sysctls a program reads about the machine, after Codex's list. Codex names hw.*
; one by one against fingerprinting, which does not matter here; the host's process
; list (kern.proc.all) and routes (net.*) stay closed.
(allow sysctl-read
  (sysctl-name-prefix "hw.")
  (sysctl-name "machdep.cpu.brand_string")
  (sysctl-name "kern.argmax") (sysctl-name "kern.hostname")
  (sysctl-name "kern.maxfilesperproc") (sysctl-name "kern.maxproc")
  (sysctl-name "kern.osproductversion") (sysctl-name "kern.osrelease")
  (sysctl-name "kern.ostype") (sysctl-name "kern.osvariant_status")
  (sysctl-name "kern.osversion") (sysctl-name "kern.secure_kernel")
  (sysctl-name "kern.usrstack64") (sysctl-name "kern.version")
  (sysctl-name-prefix "kern.proc.pgrp.") (sysctl-name-prefix "kern.proc.pid.")
  (sysctl-name "sysctl.proc_cputype") (sysctl-name "vm.loadavg"))
; Java reads CPU info through a sysctl that counts as a write.
(allow sysctl-write (sysctl-name "kern.grade_cputype"))

; Mach services: mach-lookup is macOS's main way out of a sandbox, so only the two
; Codex's base policy allows without network. opendirectoryd.libinfo answers
; getpwuid and getgrgid (crbug.com/792228); PowerManagement, with its IOKit client,
; lets a program keep the machine awake. The keychain, pasteboard, launchd's services
; and the DNS and TLS helpers (Codex's network policy) all stay closed.
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.PowerManagement.control"))
(allow iokit-open (iokit-registry-entry-class "RootDomainUserClient"))

; Reads: the whole file system. Hidden paths are taken back at the end.
(allow file-read*)

; Writes to /dev/null, only as the character device (Codex's rule).
(allow file-write-data (require-all (path "/dev/null") (vnode-type CHARACTER-DEVICE)))
"##;

/// Opens the write rule; [`SeatbeltPolicy::profile`] adds one `subpath` per folder.
const WRITES: &str = "
; Writes: the project, the private temp folder (the caller points TMPDIR at it) and
; the extra writable folders. Not the shared /tmp, /private/tmp or /var/folders.
(allow file-write*";

/// After the writes: the host's terminal closed, in-box pseudo-terminals open.
const TERMINAL: &str = r##"
; The host's terminal: reading it would take the user's keystrokes, and with no
; file-ioctl on it nothing can be typed into it (TIOCSTI). The Linux box gets the
; same from --new-session.
(deny file-read* file-write* (literal "/dev/tty") (regex #"^/dev/ttys[0-9]+$"))
; openpty: a program may make its own pseudo-terminal (Codex's rules, without its
; fallback for ttys opened before the sandbox: those are the host's).
(allow pseudo-tty)
(allow file-read* file-write* file-ioctl (literal "/dev/ptmx"))
(allow file-read* file-write* file-ioctl
  (require-all (regex #"^/dev/ttys[0-9]+$") (extension "com.apple.sandbox.pty")))
"##;

/// Heads the hidden paths' denies.
const HIDDEN: &str = "
; Hidden paths, last so that they win. literal as well as subpath, as Codex does for
; its protected paths (its note: subpath alone left mkdir of the path itself open).
";

/// What the box is made of: the same settings as the Linux box's `BoxSpec`. Every
/// path must be absolute and canonical (symlinks resolved): Seatbelt matches real
/// paths. The caller runs the command in `project`, with `TMPDIR` set to `private_tmp`.
#[derive(Debug, Clone, Copy)]
pub struct SeatbeltPolicy<'a> {
    /// The project root: writable.
    pub project: &'a Path,
    /// Extra folders the agent's commands may write.
    pub writable: &'a [PathBuf],
    /// The session's private temp folder: writable (the shared temp folders are not).
    pub private_tmp: &'a Path,
    /// Paths neither readable nor writable, even inside a writable folder.
    pub hide: &'a [PathBuf],
}

/// Paths with their parameter names.
type Named<'p> = Vec<(String, &'p Path)>;

/// The paths a profile names: the writable folders, the hidden paths, and the folders
/// between a hidden path and the writable folder it lies in.
struct Parameters<'p> {
    write: Named<'p>,
    hide: Named<'p>,
    parents: Named<'p>,
}

impl SeatbeltPolicy<'_> {
    /// The writable folders (`PROJECT`, `PRIVATE_TMP`, `WRITABLE_n`), the hidden paths
    /// (`HIDDEN_n`) and their parents inside a writable folder (`HIDDEN_PARENT_n`), each
    /// with its parameter name.
    fn named(&self) -> Parameters<'_> {
        let mut write = vec![
            ("PROJECT".to_owned(), self.project),
            ("PRIVATE_TMP".to_owned(), self.private_tmp),
        ];
        let extra = self.writable.iter().enumerate();
        write.extend(extra.map(|(i, p)| (format!("WRITABLE_{i}"), p.as_path())));
        let hide = self.hide.iter().enumerate();
        let hide: Named<'_> = hide
            .map(|(i, p)| (format!("HIDDEN_{i}"), p.as_path()))
            .collect();
        // Seatbelt checks a rename at its old and new names only: renaming a folder above
        // a hidden path would carry it to a name no deny covers. The bubblewrap box has no
        // such gap (its cover moves with the folder).
        let mut parents: Vec<&Path> = Vec::new();
        for (_, hidden) in &hide {
            for parent in hidden.ancestors().skip(1) {
                let inside_writable = write
                    .iter()
                    .any(|(_, w)| parent.starts_with(w) && parent != *w);
                if inside_writable && !parents.contains(&parent) {
                    parents.push(parent);
                }
            }
        }
        let parents = parents.into_iter().enumerate();
        let parents = parents.map(|(i, p)| (format!("HIDDEN_PARENT_{i}"), p));
        Parameters {
            write,
            hide,
            parents: parents.collect(),
        }
    }

    /// The profile text (SBPL), with parameters in place of paths: the fixed rules,
    /// the writable folders, the terminal rules, then a deny for each hidden path,
    /// last because in SBPL the last rule that matches wins.
    pub fn profile(&self) -> String {
        let Parameters {
            write,
            hide,
            parents,
        } = self.named();
        let mut p = String::from(BASE);
        p.push_str(WRITES);
        for (name, _) in &write {
            p.push_str(&format!("\n  (subpath (param \"{name}\"))"));
        }
        p.push_str(")\n");
        p.push_str(TERMINAL);
        if !hide.is_empty() {
            p.push_str(HIDDEN);
        }
        for (name, _) in &hide {
            let param = format!("(param \"{name}\")");
            p.push_str(&format!(
                "(deny file-read* file-write* (literal {param}) (subpath {param}))\n"
            ));
        }
        for (name, _) in &parents {
            // Neither removed nor renamed; files may still be made inside.
            p.push_str(&format!(
                "(deny file-write-unlink (literal (param \"{name}\")))\n"
            ));
        }
        p
    }

    /// The `-D NAME=VALUE` parameter pairs, in the order the profile names them:
    /// (name, path). `/tmp`, `/var` and `/etc` paths get their `/private` prefix.
    pub fn parameters(&self) -> Vec<(String, PathBuf)> {
        let Parameters {
            write,
            hide,
            parents,
        } = self.named();
        let all = write.into_iter().chain(hide).chain(parents);
        all.map(|(name, path)| (name, real_path(path))).collect()
    }

    /// The whole argument list for [`SANDBOX_EXEC`]:
    /// `-p PROFILE -D NAME=PATH … -- ARGV…`.
    pub fn sandbox_exec_args(&self, argv: &[OsString]) -> Vec<OsString> {
        let mut args = vec![OsString::from("-p"), OsString::from(self.profile())];
        for (name, path) in self.parameters() {
            let mut definition = OsString::from(name);
            definition.push("=");
            definition.push(path);
            args.push("-D".into());
            args.push(definition);
        }
        args.push("--".into());
        args.extend(argv.iter().cloned());
        args
    }
}

/// `path` as Seatbelt sees it, lexically: macOS's `/tmp`, `/var` and `/etc` are links
/// into `/private` (Codex canonicalizes for the same reason). Also drops `.` parts and
/// a trailing `/`, which `subpath` would not match.
fn real_path(path: &Path) -> PathBuf {
    let clean: PathBuf = path.components().collect();
    if ["/tmp", "/var", "/etc"]
        .iter()
        .any(|l| clean.starts_with(l))
    {
        let mut real = PathBuf::from("/private");
        real.extend(clean.components().skip(1));
        return real;
    }
    clean
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `f` on the policy for a fixed project and private temp and these folders.
    fn with<T>(writable: &[&str], hide: &[&str], f: impl FnOnce(&SeatbeltPolicy) -> T) -> T {
        let paths = |list: &[&str]| list.iter().map(PathBuf::from).collect::<Vec<_>>();
        let (writable, hide) = (paths(writable), paths(hide));
        let (project, private_tmp) = (Path::new("/Users/me/proj"), Path::new("/private/tmp/hh"));
        f(&SeatbeltPolicy {
            project,
            writable: &writable,
            private_tmp,
            hide: &hide,
        })
    }

    /// The profile and its parameters.
    fn build(writable: &[&str], hide: &[&str]) -> (String, Vec<(String, PathBuf)>) {
        with(writable, hide, |s| (s.profile(), s.parameters()))
    }

    /// The rules alone: the profile without its `;` comments.
    fn rules(profile: &str) -> String {
        let lines = profile.lines().map(|l| l.split(';').next().unwrap_or(""));
        lines.collect::<Vec<_>>().join("\n")
    }

    /// Parentheses outside strings and comments never close more than they opened.
    fn balanced(profile: &str) -> bool {
        let (mut depth, mut in_string) = (0i32, false);
        for c in rules(profile).chars() {
            match (c, in_string) {
                ('"', _) => in_string = !in_string,
                ('(', false) => depth += 1,
                (')', false) => depth -= 1,
                _ => {}
            }
            if depth < 0 {
                return false;
            }
        }
        depth == 0 && !in_string
    }

    #[test]
    fn starts_closed_and_balanced() {
        for (p, _) in [build(&[], &[]), build(&["/w"], &["/h0", "/h1"])] {
            assert!(p.starts_with("(version 1)\n"));
            assert!(p.find("(deny default)").expect("deny default") < p.find("(allow").unwrap());
            assert!(balanced(&p), "{p}");
        }
    }

    #[test]
    fn allows_no_network_nor_sockets() {
        let r = rules(&build(&["/a"], &["/b"]).0);
        assert!(!r.contains("network"), "{r}");
        assert!(!r.contains("system-socket"), "{r}");
    }

    #[test]
    fn writes_only_to_the_named_folders() {
        let r = rules(&build(&["/w/one", "/w/two"], &[]).0);
        assert_eq!(r.matches("(allow file-write*").count(), 1);
        let rule = &r[r.find("(allow file-write*").unwrap()..];
        let rule = &rule[..rule.find("\n(").unwrap_or(rule.len())];
        for name in ["PROJECT", "PRIVATE_TMP", "WRITABLE_0", "WRITABLE_1"] {
            let subpath = format!("(subpath (param \"{name}\"))");
            assert!(rule.contains(&subpath), "{subpath}");
        }
        for shared in ["\"/tmp", "\"/private", "\"/var", "\"/Users"] {
            assert!(!r.contains(shared), "{shared}");
        }
    }

    #[test]
    fn denies_come_after_the_allows_they_override() {
        let (p, _) = build(&["/w"], &["/Users/me/.ssh", "/w/.env"]);
        let last_allow = p.rfind("(allow").unwrap();
        for name in ["HIDDEN_0", "HIDDEN_1"] {
            let deny = format!("(deny file-read* file-write* (literal (param \"{name}\")) ");
            let deny = format!("{deny}(subpath (param \"{name}\")))");
            assert!(p.find(&deny).expect(name) > last_allow, "{name}");
        }
        let tty = p.find("(literal \"/dev/tty\")").unwrap();
        assert!(tty > p.find("(allow file-read*)").unwrap());
        assert!(tty > p.find("(allow file-write*").unwrap());
    }

    #[test]
    fn paths_never_enter_the_profile() {
        let odd = ["/w/a\") (allow network*) (\"", "/h/x)\"y"];
        let (p, params) = build(&odd[..1], &odd[1..]);
        assert!(balanced(&p), "{p}");
        assert!(!rules(&p).contains("network"));
        for path in odd.iter().chain(&["/Users/me/proj", "/private/tmp/hh"]) {
            assert!(!p.contains(path), "{path}");
        }
        assert_eq!(params[2], ("WRITABLE_0".to_owned(), PathBuf::from(odd[0])));
        assert_eq!(params[3], ("HIDDEN_0".to_owned(), PathBuf::from(odd[1])));
    }

    #[test]
    fn parameters_follow_the_profile() {
        let (p, params) = build(&["/w0", "/w1"], &["/h0"]);
        let names: Vec<&str> = params.iter().map(|(n, _)| n.as_str()).collect();
        let want = "PROJECT PRIVATE_TMP WRITABLE_0 WRITABLE_1 HIDDEN_0";
        assert_eq!(names.join(" "), want);
        let at = |n: &str| p.find(&format!("(param \"{n}\")")).expect(n);
        assert!(names.windows(2).all(|w| at(w[0]) < at(w[1])));
        assert_eq!(params[0].1, PathBuf::from("/Users/me/proj"));
    }

    #[test]
    fn sandbox_exec_args_layout() {
        let argv: Vec<OsString> = ["/bin/sh", "-c", "echo hi"].map(OsString::from).into();
        let args = with(&["/w"], &["/h"], |s| s.sandbox_exec_args(&argv));
        let profile = build(&["/w"], &["/h"]).0;
        let mut want = vec![OsString::from("-p"), OsString::from(profile)];
        let defs = ["PROJECT=/Users/me/proj", "PRIVATE_TMP=/private/tmp/hh"];
        for def in defs.into_iter().chain(["WRITABLE_0=/w", "HIDDEN_0=/h"]) {
            want.extend([OsString::from("-D"), OsString::from(def)]);
        }
        want.push("--".into());
        want.extend(argv);
        assert_eq!(args, want);
    }

    #[test]
    fn folders_above_a_hidden_path_in_a_writable_folder_cannot_be_renamed() {
        let (profile, params) = build(&[], &["/Users/me/proj/keys/deploy/k.pem", "/Users/me/.ssh"]);
        let parents: Vec<_> = params
            .iter()
            .filter(|(name, _)| name.starts_with("HIDDEN_PARENT_"))
            .map(|(name, path)| (name.as_str(), path.to_str().unwrap_or("")))
            .collect();
        // Inside the project: the folders between it and the hidden file; none for ~/.ssh,
        // which lies in no writable folder, nor the project itself.
        assert_eq!(
            parents,
            [
                ("HIDDEN_PARENT_0", "/Users/me/proj/keys/deploy"),
                ("HIDDEN_PARENT_1", "/Users/me/proj/keys"),
            ]
        );
        assert!(profile.contains("(deny file-write-unlink (literal (param \"HIDDEN_PARENT_0\")))"));
        assert!(profile.contains("(deny file-write-unlink (literal (param \"HIDDEN_PARENT_1\")))"));
        assert!(balanced(&profile));
    }

    #[test]
    fn private_prefix_is_lexical() {
        let cases = [
            ("/tmp/x", "/private/tmp/x"),
            ("/tmp", "/private/tmp"),
            ("/tmp/", "/private/tmp"),
            ("/var/folders/ab/T", "/private/var/folders/ab/T"),
            ("/etc/ssh", "/private/etc/ssh"),
            ("/private/tmp/x", "/private/tmp/x"),
            ("/tmpfoo/x", "/tmpfoo/x"),
            ("/Users/me/./p/", "/Users/me/p"),
        ];
        for (given, want) in cases {
            assert_eq!(real_path(Path::new(given)), PathBuf::from(want), "{given}");
        }
        let params = build(&["/tmp/x"], &[]).1;
        assert_eq!(params[2].1, Path::new("/private/tmp/x"));
    }
}
