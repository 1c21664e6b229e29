//! `#!` lines: the interpreter a program names is checked like the program, recursively
//! (at most [`MAX_SHEBANG_DEPTH`] deep), and for `#!/usr/bin/env NAME` so is every PATH
//! entry env would search before finding NAME, and what it finds.

use std::env;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::Read;
use std::path::Path;

use super::folders::{Examined, find_in};
use super::{Plan, Plant, Refusal};
use crate::paths::lookup_on_path;
use crate::platform::sys::file_system::os_string_from_bytes;

/// How many `#!` interpreters deep the guard follows a program.
pub(super) const MAX_SHEBANG_DEPTH: usize = 4;

/// How much of a program is read to find its `#!` line.
const SHEBANG_READ: u64 = 256;

impl Plan<'_> {
    /// Checks the interpreter of a `#!` line, and for `env X` the X it would find.
    pub(super) fn check_interpreter(
        &self,
        program: &str,
        line: &[OsString],
        depth: usize,
    ) -> Vec<Refusal> {
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
        if name.as_encoded_bytes().contains(&b'/') {
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
}

/// The `#!` line of a regular file, split on blanks; `None` if it has none.
pub(super) fn read_shebang(path: &Path) -> Option<Vec<OsString>> {
    if !crate::paths::stat(path).is_ok_and(|m| m.is_file()) {
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
        .map(|w| os_string_from_bytes(w.to_vec()))
        .collect();
    (!words.is_empty()).then_some(words)
}

/// The program `env [OPTION]... [NAME=VALUE]... PROGRAM` runs, from its arguments.
fn env_target(args: &[OsString]) -> Option<&OsStr> {
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let bytes = arg.as_encoded_bytes();
        if matches!(bytes, b"-u" | b"-C" | b"--unset" | b"--chdir") {
            args.next();
        } else if !bytes.starts_with(b"-") && !bytes.contains(&b'=') {
            return Some(arg);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_target_skips_options_and_assignments() {
        let args = |s: &[&str]| s.iter().map(OsString::from).collect::<Vec<_>>();
        let a = args(&["-S", "-u", "FOO", "A=b", "python3", "-u"]);
        assert_eq!(env_target(&a), Some(OsStr::new("python3")));
        assert_eq!(env_target(&args(&["-i"])), None);
    }
}
