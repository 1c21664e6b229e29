//! `no-force-push`: a PreToolUse hook that refuses force pushes.
//!
//! Built for `wasm32-wasip1` (a core module), so it answers the Claude Code
//! way by exit code: exit 2 with the reason on stderr blocks the tool call,
//! exit 0 with nothing on stdout lets it through.
//!
//! It looks at `bash` and `exec` tool calls only. The command is
//! `tool_input.command` (a shell string), or for `exec` an argv array in
//! `tool_input.argv` or `tool_input.command`. A `git push` is refused when it
//! carries an option that forces or deletes remote refs — `--force`/`-f` (also
//! in a cluster such as `-fu`), `--force-with-lease[=...]`,
//! `--force-if-includes`, `--mirror`, `--delete`/`-d`, `--prune`, or any
//! prefix git accepts for them (`--force-w`, `--mir`) — or a `+ref` (forced)
//! or `:ref` (delete) refspec.
//!
//! The shell string is tokenised, not substring-matched: quotes (also `$'…'`)
//! are honoured, `$IFS`/`${IFS}` split words as the shell would, brace
//! expansion (`{git,push,-f}`) is expanded, and the string is split into simple
//! commands on `;`, `&&`, `||`, `|`, `&`, newlines, parentheses; the insides of
//! `$(…)` and backticks are scanned as commands of their own. Only a `git` in
//! command position counts (after `VAR=value` assignments and wrappers such as
//! `sudo`, `env`, `timeout`, `xargs`, `find -exec`), so `echo git push -f`
//! passes. A word given to a shell, `eval`, `ssh` and the like
//! (`bash -c "git push -f"`) is scanned again as a command line.
//!
//! `git -c alias.NAME=VALUE NAME` is expanded (also a `!shell` alias), and so
//! are aliases set through `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` or
//! `GIT_CONFIG_PARAMETERS` on the same line; `-c remote.X.push=+…` and
//! `-c remote.X.mirror` on a push count as forcing.
//!
//! What it cannot know it guesses against: a command word it cannot read
//! (`$x push -f`, `$(echo git) push -f`, `/usr/bin/gi? push -f`) is taken to be
//! `git`, and an unreadable git subcommand (`git $c -f`) to be `push`, so such a
//! line is blocked when the rest looks like a force push. An argument that
//! starts with an expansion (`git push origin "$ref"`) is not guessed at:
//! see plugins/README.md for what the plugin does not catch.
//!
//! Input it cannot parse is a hook error: exit 1 with a message on stderr
//! (non-blocking in Claude Code's convention). A command line too large or
//! too deeply nested to check within a fixed budget is blocked.

/// The finding for a command line that is too large or too nested to check.
pub const TOO_COMPLEX: &str = "(too complex to check)";

fn main() {
    // In hookhost's vocabulary whatever shape it came in (`Bash` is `bash`, a
    // `file_path` is a relative `path`): see the hookhost-hook crate.
    let envelope = match hookhost_hook::read_event() {
        Ok(event) => event,
        Err(e) => {
            // Failing closed would block every call on a broken host; report it instead.
            eprintln!("no-force-push: {e}");
            std::process::exit(1);
        }
    };
    match check_envelope(&envelope) {
        Some(finding) if finding == TOO_COMPLEX => {
            eprintln!(
                "force-push is not allowed here, and this command is too complex to check for one"
            );
            std::process::exit(2);
        }
        Some(finding) => {
            eprintln!("force-push is not allowed here (git push {finding})");
            std::process::exit(2);
        }
        None => {}
    }
}

/// Looks at a PreToolUse envelope; returns the offending push argument
/// (`--force`, `-f`, `--force-with-lease`, `+main`, ...) if it is a force push,
/// or [`TOO_COMPLEX`].
pub fn check_envelope(envelope: &serde_json::Value) -> Option<String> {
    let tool = envelope.get("tool_name")?.as_str()?;
    let input = envelope.get("tool_input")?;
    let mut scan = Scan::new();
    match tool {
        "bash" => scan.shell(input.get("command")?.as_str()?, 0),
        "exec" => {
            for key in ["argv", "command"] {
                let found = match input.get(key) {
                    Some(serde_json::Value::Array(items)) => {
                        let argv: Vec<Word> = items
                            .iter()
                            .filter_map(|v| v.as_str().map(Word::literal))
                            .collect();
                        scan.argv(&argv, &[], 0)
                    }
                    Some(serde_json::Value::String(s)) => scan.shell(s, 0),
                    _ => None,
                };
                if found.is_some() {
                    return found;
                }
            }
            None
        }
        _ => None,
    }
}

/// How deep quoted command lines (`sh -c "..."`) and aliases are followed.
const MAX_DEPTH: usize = 4;

/// How many characters one check may tokenise in all (re-scans included).
const BUDGET_CHARS: usize = 2 << 20;

/// Scans a shell command line; returns the offending push argument, if any.
pub fn find_force_push_in_shell(line: &str, depth: usize) -> Option<String> {
    Scan::new().shell(line, depth)
}

/// Scans one simple command given as words (an argv, no shell involved).
pub fn find_force_push_in_argv(words: &[String], depth: usize) -> Option<String> {
    let words: Vec<Word> = words.iter().map(|w| Word::literal(w)).collect();
    Scan::new().argv(&words, &[], depth)
}

/// One word of a command, after quote removal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The text; an expansion the plugin cannot know is kept as written.
    pub text: String,
    /// Where the first such expansion starts (`$x`, `${x}`, `$(…)`, backticks, an
    /// unquoted glob), if any: only `text[..at]` is known.
    pub unknown_at: Option<usize>,
}

impl Word {
    fn literal(text: &str) -> Word {
        Word {
            text: text.to_owned(),
            unknown_at: None,
        }
    }

    /// The part of the word that is known.
    fn known(&self) -> &str {
        &self.text[..self.unknown_at.unwrap_or(self.text.len())]
    }

    fn is_unknown(&self) -> bool {
        self.unknown_at.is_some()
    }
}

/// One check: its remaining budget and the variables exported earlier on the line.
struct Scan {
    budget: usize,
    exported: Vec<(String, String)>,
}

impl Scan {
    fn new() -> Scan {
        Scan {
            budget: BUDGET_CHARS,
            exported: Vec::new(),
        }
    }

    /// A shell command line.
    fn shell(&mut self, line: &str, depth: usize) -> Option<String> {
        if line.len() > self.budget || depth > MAX_DEPTH {
            return Some(TOO_COMPLEX.to_owned());
        }
        self.budget -= line.len();
        for words in split_words(line) {
            if let Some(found) = self.simple_command(&words, depth) {
                return Some(found);
            }
        }
        None
    }

    /// One simple command from a shell line: remembers `export`ed variables, then
    /// checks it like an argv.
    fn simple_command(&mut self, words: &[Word], depth: usize) -> Option<String> {
        let first = words.first().map(|w| w.text.as_str());
        let exporting = matches!(
            first,
            Some("export" | "declare" | "typeset" | "local" | "readonly")
        );
        if exporting || words.iter().all(|w| assignment(&w.text).is_some()) {
            self.exported
                .extend(words.iter().filter_map(|w| assignment(&w.text)));
        }
        let exported = self.exported.clone();
        self.argv(words, &exported, depth)
    }

    /// One simple command as words; `env` holds variables set earlier on the line.
    fn argv(&mut self, words: &[Word], env: &[(String, String)], depth: usize) -> Option<String> {
        // A wrapper or runner right after the assignments (`env -S '…'`, `xargs -a f git …`)
        // is looked into even when its own options hide where its command starts.
        let first = words
            .iter()
            .position(|w| w.is_unknown() || assignment(&w.text).is_none())?;
        let at = command_position(words);
        let mut env = env.to_vec();
        env.extend(
            words[..at.unwrap_or(first)]
                .iter()
                .filter_map(|w| assignment(&w.text)),
        );
        if at != Some(first)
            && let Some(found) =
                self.runs_other_commands(&words[first], &words[first + 1..], &env, depth)
        {
            return Some(found);
        }
        let at = at?;
        let command = &words[at];
        let rest = &words[at + 1..];
        if command.is_unknown() {
            // `$x push -f`, `$(echo git) push -f`: take it for git.
            return self.git(rest, &env, &mut Vec::new(), depth);
        }
        let base = basename(&command.text);
        if is_git(base) {
            return self.git(rest, &env, &mut Vec::new(), depth);
        }
        if base == "git-push" {
            return self.push(rest, &[]);
        }
        self.runs_other_commands(command, rest, &env, depth)
    }

    /// For a program that runs other programs (`command`): looks at each later word
    /// that may be the program it runs and, for a shell and the like, at each word as a
    /// command line.
    fn runs_other_commands(
        &mut self,
        command: &Word,
        rest: &[Word],
        env: &[(String, String)],
        depth: usize,
    ) -> Option<String> {
        if command.is_unknown() {
            return None;
        }
        let base = basename(&command.text);
        if WRAPPERS.contains(&base) || RUNNERS.contains(&base) {
            // `xargs -n1 git push -f`, `find . -exec git push -f ;`, `chrt -f 10 git push -f`.
            for (i, word) in rest.iter().enumerate() {
                let found = if word.is_unknown() || is_git(basename(&word.text)) {
                    let env_here: Vec<(String, String)> = env
                        .iter()
                        .cloned()
                        .chain(rest[..i].iter().filter_map(|w| assignment(&w.text)))
                        .collect();
                    self.git(&rest[i + 1..], &env_here, &mut Vec::new(), depth)
                } else if basename(&word.text) == "git-push" {
                    self.push(&rest[i + 1..], &[])
                } else {
                    None
                };
                if found.is_some() {
                    return found;
                }
            }
        }
        if !RUNNERS.contains(&base) || rest.is_empty() {
            return None;
        }
        if depth >= MAX_DEPTH {
            return Some(TOO_COMPLEX.to_owned());
        }
        // A word that is itself a command line: `bash -c "git push -f"`,
        // `ssh host 'cd x && git push -f'`. (Not `git commit -m "git push -f"`.)
        for word in rest {
            if let Some(found) = self.shell(&word.text, depth + 1) {
                return Some(found);
            }
        }
        // eval, ssh and watch join their arguments into one line: `eval "git push" -f`.
        // Only a word that could start a command there needs a look.
        if JOINERS.contains(&base) {
            let could_start = |w: &Word| {
                w.is_unknown()
                    || is_git(basename(&w.text))
                    || w.text.contains(|c: char| {
                        c.is_whitespace() || matches!(c, ';' | '&' | '|' | '$' | '`')
                    })
            };
            for i in (0..rest.len()).filter(|&i| could_start(&rest[i])) {
                let joined: Vec<&str> = rest[i..].iter().map(|w| w.text.as_str()).collect();
                if let Some(found) = self.shell(&joined.join(" "), depth + 1) {
                    return Some(found);
                }
            }
        }
        None
    }

    /// The words after `git` (or after a command word taken for it): global options,
    /// the subcommand, its arguments. `config` holds `-c` settings seen so far
    /// (`None` as the value: set from the environment, unknown).
    fn git(
        &mut self,
        args: &[Word],
        env: &[(String, String)],
        config: &mut Vec<(String, Option<String>)>,
        depth: usize,
    ) -> Option<String> {
        if config.is_empty() {
            config.extend(config_from_env(env));
        }
        let mut i = 0;
        // Global options before the subcommand; some take a separate value.
        while let Some(arg) = args.get(i) {
            let text = arg.text.as_str();
            if !text.starts_with('-') {
                break;
            }
            i += 1;
            match text {
                "-c" => {
                    if let Some(setting) = args.get(i) {
                        config.push(setting_of(&setting.text));
                    }
                    i += 1;
                }
                "--config-env" => {
                    if let Some(setting) = args.get(i) {
                        config.push((config_key(&setting.text), None));
                    }
                    i += 1;
                }
                "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix"
                | "--attr-source" => i += 1,
                _ => {
                    if let Some(setting) = text.strip_prefix("--config-env=") {
                        config.push((config_key(setting), None));
                    }
                }
            }
        }
        let subcommand = args.get(i)?;
        let rest = &args[i + 1..];
        if subcommand.is_unknown() {
            // `git $c -f`: take it for push.
            return self.push(rest, config);
        }
        let name = subcommand.text.to_ascii_lowercase();
        let alias = config
            .iter()
            .rev()
            .find(|(key, _)| key.strip_prefix("alias.") == Some(name.as_str()))
            .map(|(_, value)| value.clone());
        if let Some(value) = alias {
            if depth >= MAX_DEPTH {
                return Some(TOO_COMPLEX.to_owned());
            }
            let Some(value) = value else {
                // An alias whose definition comes from the environment: unknown.
                return Some(format!(
                    "{} (alias.{name}, from the environment)",
                    subcommand.text
                ));
            };
            let rest_line: Vec<&str> = rest.iter().map(|w| w.text.as_str()).collect();
            if let Some(shell) = value.strip_prefix('!') {
                let line = format!("{shell} {}", rest_line.join(" "));
                return self.shell(&line, depth + 1);
            }
            if value.len() > self.budget {
                return Some(TOO_COMPLEX.to_owned());
            }
            self.budget -= value.len();
            let mut expanded: Vec<Word> = split_words(&value).into_iter().flatten().collect();
            expanded.extend(rest.iter().cloned());
            return self.git(&expanded, env, config, depth + 1);
        }
        match name.as_str() {
            "push" => self.push(rest, config),
            // `git submodule foreach 'git push -f'` runs its argument as a command line.
            "submodule" if depth < MAX_DEPTH => {
                let foreach = rest.iter().position(|w| w.text == "foreach")?;
                let line: Vec<&str> = rest[foreach + 1..]
                    .iter()
                    .map(|w| w.text.as_str())
                    .skip_while(|w| w.starts_with('-'))
                    .collect();
                self.shell(&line.join(" "), depth + 1)
            }
            _ => None,
        }
    }

    /// The arguments of `git push`, with the `-c` settings in force; returns the first
    /// thing that forces.
    fn push(&mut self, args: &[Word], config: &[(String, Option<String>)]) -> Option<String> {
        if let Some(found) = forcing_config(config) {
            return Some(found);
        }
        check_push_words(args)
    }
}

/// Wrappers that run the rest of their arguments as a command.
const WRAPPERS: &[&str] = &[
    "sudo",
    "doas",
    "env",
    "command",
    "exec",
    "time",
    "nice",
    "nohup",
    "builtin",
    "timeout",
    "xargs",
    "setsid",
    "stdbuf",
    "ionice",
    "chrt",
    "taskset",
    "flock",
    "nocache",
    "unbuffer",
    "chronic",
    "caffeinate",
    "strace",
    "ltrace",
    "find",
    "parallel",
    "firejail",
    "systemd-run",
    "proxychains",
    "proxychains4",
    "torsocks",
    "runuser",
    "su",
    "sg",
    "nsenter",
    "unshare",
    "chroot",
    "script",
    "watch",
    "ssh",
    "eval",
    "busybox",
];

/// Programs that run a word (or their joined words) as a shell command line.
const RUNNERS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "busybox", "eval", "ssh", "su", "runuser",
    "watch", "xargs", "env", "script", "sudo", "parallel", "tmux", "screen",
];

/// Runners that join all their arguments into one command line.
const JOINERS: &[&str] = &["eval", "ssh", "watch"];

/// Index of the word that is the command being run, skipping variable
/// assignments and the common wrappers (with their options and arguments).
fn command_position(words: &[Word]) -> Option<usize> {
    let mut i = 0;
    while i < words.len() {
        let w = words[i].text.as_str();
        if words[i].is_unknown() {
            return Some(i);
        }
        if assignment(w).is_some()
            || matches!(
                w,
                "!" | "{" | "then" | "do" | "else" | "elif" | "if" | "while" | "until" | "coproc"
            )
        {
            i += 1;
            continue;
        }
        let base = basename(w);
        match base {
            "sudo" | "doas" | "env" | "command" | "exec" | "time" | "nice" | "nohup"
            | "builtin" | "timeout" | "setsid" | "stdbuf" | "ionice" | "nocache" => {
                i += 1;
                // Skip the wrapper's options (and an argument for those that take one).
                while i < words.len() && words[i].text.starts_with('-') {
                    let takes_arg = matches!(
                        (base, words[i].text.as_str()),
                        (
                            "sudo",
                            "-u" | "-g" | "-C" | "-D" | "-h" | "-p" | "-U" | "-r" | "-t"
                        ) | (
                            "env",
                            "-u" | "-C" | "-S" | "--unset" | "--chdir" | "--split-string"
                        ) | ("nice", "-n")
                            | ("exec", "-a")
                            | ("timeout", "-s" | "-k" | "--signal" | "--kill-after")
                            | ("stdbuf", "-i" | "-o" | "-e")
                            | ("ionice", "-c" | "-n" | "-p" | "-P" | "-u")
                    );
                    i += if takes_arg { 2 } else { 1 };
                }
                // `timeout DURATION command ...`
                if base == "timeout" && i < words.len() {
                    i += 1;
                }
            }
            _ => return Some(i),
        }
    }
    None
}

/// `NAME=value` as a pair, if the word is an assignment.
fn assignment(word: &str) -> Option<(String, String)> {
    let (name, value) = word.split_once('=')?;
    let valid = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    valid.then(|| (name.to_owned(), value.to_owned()))
}

fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

fn is_git(base: &str) -> bool {
    base == "git" || base == "git.exe"
}

/// A `-c` setting: `key=value`, or a bare `key` (boolean true). Keys are compared
/// lower-cased (git's section and variable names ignore case).
fn setting_of(text: &str) -> (String, Option<String>) {
    match text.split_once('=') {
        Some((key, value)) => (key.to_ascii_lowercase(), Some(value.to_owned())),
        None => (text.to_ascii_lowercase(), Some("true".to_owned())),
    }
}

/// The key of a `--config-env=key=ENVVAR` setting.
fn config_key(text: &str) -> String {
    text.split_once('=')
        .map_or(text, |(key, _)| key)
        .to_ascii_lowercase()
}

/// Settings from `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` and `GIT_CONFIG_PARAMETERS`.
fn config_from_env(env: &[(String, String)]) -> Vec<(String, Option<String>)> {
    let mut config = Vec::new();
    let get = |name: &str| {
        env.iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    for (name, key) in env {
        if let Some(n) = name.strip_prefix("GIT_CONFIG_KEY_") {
            let value = get(&format!("GIT_CONFIG_VALUE_{n}"));
            config.push((key.to_ascii_lowercase(), value));
        }
    }
    if let Some(parameters) = get("GIT_CONFIG_PARAMETERS") {
        for word in split_words(&parameters).into_iter().flatten() {
            config.push(setting_of(&word.text));
        }
    }
    config
}

/// A setting that makes any `git push` force: `remote.X.push` with a `+` refspec (or
/// one from the environment), `remote.X.mirror` true (or from the environment).
fn forcing_config(config: &[(String, Option<String>)]) -> Option<String> {
    for (key, value) in config {
        if !key.starts_with("remote.") {
            continue;
        }
        let shown = || match value {
            Some(v) => format!("-c {key}={v}"),
            None => format!("{key} (from the environment)"),
        };
        if key.ends_with(".push")
            && value
                .as_ref()
                .is_none_or(|v| v.trim_start().starts_with('+'))
        {
            return Some(shown());
        }
        if key.ends_with(".mirror")
            && value.as_ref().is_none_or(|v| {
                !matches!(
                    v.to_ascii_lowercase().as_str(),
                    "false" | "no" | "off" | "0" | ""
                )
            })
        {
            return Some(shown());
        }
    }
    None
}

/// `git push`'s long options (git 2.47): name, and whether a value may follow as
/// the next word (`--repo origin`).
const PUSH_LONG_OPTIONS: &[(&str, bool)] = &[
    ("verbose", false),
    ("quiet", false),
    ("repo", true),
    ("all", false),
    ("branches", false),
    ("mirror", false),
    ("delete", false),
    ("tags", false),
    ("dry-run", false),
    ("porcelain", false),
    ("force", false),
    ("force-with-lease", false),
    ("force-if-includes", false),
    ("recurse-submodules", true),
    ("thin", false),
    ("receive-pack", true),
    ("exec", true),
    ("set-upstream", false),
    ("progress", false),
    ("prune", false),
    ("no-verify", false),
    ("verify", false),
    ("follow-tags", false),
    ("signed", false),
    ("sign", false),
    ("atomic", false),
    ("push-option", true),
    ("ipv4", false),
    ("ipv6", false),
];

/// The long options that force or delete remote refs.
const FORCING: &[&str] = &[
    "force",
    "force-with-lease",
    "force-if-includes",
    "mirror",
    "delete",
    "prune",
];

/// `git push`'s short options that take no value; `o` takes one.
const PUSH_SHORT_FLAGS: &str = "vqdnfu46";

/// The short options that force or delete.
const FORCING_SHORT: &str = "fd";

/// The arguments of `git push` (literal words); returns the first one that forces.
pub fn check_push_args(args: &[String]) -> Option<String> {
    let words: Vec<Word> = args.iter().map(|a| Word::literal(a)).collect();
    check_push_words(&words)
}

fn check_push_words(args: &[Word]) -> Option<String> {
    let mut options_done = false;
    let mut i = 0;
    while i < args.len() {
        let word = &args[i];
        let arg = word.text.as_str();
        let known = word.known();
        i += 1;
        if options_done || !arg.starts_with('-') || arg == "-" {
            // A refspec: `+src:dst` forces, `:dst` deletes (an unknown rest included).
            // A caller's arguments passed on (`"$@"`, `$1`) could be anything.
            if ((arg.starts_with('+') || arg.starts_with(':')) && arg.len() > 1)
                || (known.is_empty() && starts_with_positional(arg))
            {
                return Some(arg.to_owned());
            }
            continue;
        }
        if arg == "--" {
            options_done = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, has_value) = match long.split_once('=') {
                Some((name, _)) => (name, true),
                None => (long, false),
            };
            let name_partly_unknown = word.is_unknown() && !known[2..].contains('=');
            if name_partly_unknown {
                // `--f$x`: any forcing option it could turn out to be.
                let prefix = &known[2..];
                if FORCING.iter().any(|f| f.starts_with(prefix)) {
                    return Some(arg.to_owned());
                }
                continue;
            }
            if name.starts_with("no-") && name != "no-verify" {
                continue; // a negation never forces
            }
            // git takes any unambiguous prefix of a long option; where one is ambiguous
            // git refuses the push, but older versions had fewer options, so every
            // option the prefix could name counts.
            let candidates: Vec<&(&str, bool)> =
                match PUSH_LONG_OPTIONS.iter().find(|(o, _)| *o == name) {
                    Some(exact) => vec![exact],
                    None => PUSH_LONG_OPTIONS
                        .iter()
                        .filter(|(o, _)| o.starts_with(name))
                        .collect(),
                };
            if candidates.iter().any(|(o, _)| FORCING.contains(o)) {
                return Some(format!("--{name}"));
            }
            if let [(_, true)] = candidates.as_slice()
                && !has_value
            {
                i += 1; // the value is the next word
            }
            continue;
        }
        // A cluster of short options: -f, -fu, -uf; `-o` takes the rest (or the next word).
        let cluster = &known[1..];
        let mut forced = None;
        let mut valid = true;
        let mut takes_next = false;
        for (at, c) in cluster.char_indices() {
            if c == 'o' {
                takes_next = at + 1 == cluster.len() && !word.is_unknown();
                break;
            }
            if !PUSH_SHORT_FLAGS.contains(c) {
                valid = false; // git refuses an unknown switch, and so the whole push
                break;
            }
            if forced.is_none() && FORCING_SHORT.contains(c) {
                forced = Some(format!("-{c}"));
            }
        }
        let open_end = valid && word.is_unknown() && !cluster.contains('o');
        if valid && forced.is_some() {
            return forced;
        }
        if open_end {
            return Some(arg.to_owned()); // `-$x`, `-u$x`: could be -f
        }
        if takes_next {
            i += 1;
        }
    }
    None
}

/// Whether a word starts with a positional parameter (`$@`, `$*`, `$1`, `${2}`, …).
fn starts_with_positional(text: &str) -> bool {
    let rest = text.strip_prefix("${").or_else(|| text.strip_prefix('$'));
    rest.is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit() || c == '@' || c == '*'))
}

/// Splits a shell command line into simple commands, each a list of words (as
/// text). See [`split_words`].
pub fn split_simple_commands(line: &str) -> Vec<Vec<String>> {
    split_words(line)
        .into_iter()
        .map(|words| words.into_iter().map(|w| w.text).collect())
        .collect()
}

/// Splits a shell command line into simple commands, each a list of words.
///
/// Honours single quotes, `$'…'`, double quotes (with backslash escapes) and
/// backslashes; splits on whitespace and on unquoted `$IFS`/`${IFS}`; ends a
/// command at `;`, `&`, `|` (so also `&&`, `||`), newlines, `(` and `)`.
/// Redirections (`2>&1`, `>out`, `&>log`) are dropped with their target. The
/// insides of `$(…)` and backticks become commands of their own, and the word
/// they stand in is unknown from there on, as is one with `$x`, `${x}` or an
/// unquoted glob. An unquoted `{a,b}` is brace-expanded. Comments (`#` at the
/// start of a word) run to the end of the line.
pub fn split_words(line: &str) -> Vec<Vec<Word>> {
    Tokeniser::new(line).run()
}

struct Tokeniser {
    chars: Vec<char>,
    pos: usize,
    commands: Vec<Vec<Word>>,
    /// Commands found inside `$(…)` and backticks, added after the line's own.
    inner: Vec<Vec<Word>>,
    words: Vec<Word>,
    word: String,
    unknown_at: Option<usize>,
    in_word: bool,
    /// Where unquoted `{`, `,` and `}` sit in `word`, for brace expansion.
    braces: Vec<(usize, char)>,
    quoted: bool,
    /// The next word is a redirection's target: dropped.
    redirect_target: bool,
}

impl Tokeniser {
    fn new(line: &str) -> Tokeniser {
        Tokeniser {
            chars: line.chars().collect(),
            pos: 0,
            commands: Vec::new(),
            inner: Vec::new(),
            words: Vec::new(),
            word: String::new(),
            unknown_at: None,
            in_word: false,
            braces: Vec::new(),
            quoted: false,
            redirect_target: false,
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        Some(c)
    }

    fn push(&mut self, c: char) {
        self.in_word = true;
        self.word.push(c);
    }

    fn mark_unknown(&mut self, written: &str) {
        self.in_word = true;
        if self.unknown_at.is_none() {
            self.unknown_at = Some(self.word.len());
        }
        self.word.push_str(written);
    }

    fn end_word(&mut self) {
        if !self.in_word {
            return;
        }
        let word = Word {
            text: std::mem::take(&mut self.word),
            unknown_at: self.unknown_at.take(),
        };
        let braces = std::mem::take(&mut self.braces);
        self.in_word = false;
        self.quoted = false;
        if std::mem::take(&mut self.redirect_target) {
            return;
        }
        if braces.is_empty() {
            self.words.push(word);
        } else {
            self.words.extend(brace_expand(word, &braces));
        }
    }

    fn end_command(&mut self) {
        self.end_word();
        self.redirect_target = false;
        if !self.words.is_empty() {
            self.commands.push(std::mem::take(&mut self.words));
        }
    }

    fn run(mut self) -> Vec<Vec<Word>> {
        while let Some(c) = self.next() {
            match c {
                '\'' => {
                    self.in_word = true;
                    self.quoted = true;
                    while let Some(q) = self.next() {
                        if q == '\'' {
                            break;
                        }
                        self.word.push(q);
                    }
                }
                '"' => {
                    self.in_word = true;
                    self.quoted = true;
                    self.double_quoted();
                }
                '\\' => match self.next() {
                    Some('\n') | None => {}
                    Some(n) => {
                        self.quoted = true;
                        self.push(n);
                    }
                },
                '#' if !self.in_word => {
                    while let Some(n) = self.next() {
                        if n == '\n' {
                            break;
                        }
                    }
                    self.end_command();
                }
                '$' => self.dollar(false),
                '`' => {
                    let inner = self.backticks();
                    self.inner.extend(Tokeniser::new(&inner).run());
                    self.mark_unknown(&format!("`{inner}`"));
                }
                '>' | '<' => self.redirection(c),
                '&' if self.peek() == Some('>') => {
                    self.end_word();
                    self.redirection('&');
                }
                ';' | '&' | '|' | '\n' | '(' | ')' => self.end_command(),
                c if c.is_whitespace() => self.end_word(),
                '{' | ',' | '}' => {
                    self.braces.push((self.word.len(), c));
                    self.push(c);
                }
                '*' | '?' | '[' => self.mark_unknown(&c.to_string()),
                c => self.push(c),
            }
        }
        self.end_command();
        let mut commands = self.commands;
        commands.extend(self.inner);
        commands
    }

    /// After an opening `"`: up to the closing one.
    fn double_quoted(&mut self) {
        while let Some(q) = self.next() {
            match q {
                '"' => break,
                '\\' => match self.peek() {
                    Some(n @ ('"' | '\\' | '$' | '`')) => {
                        self.word.push(n);
                        self.pos += 1;
                    }
                    Some('\n') => self.pos += 1,
                    _ => self.word.push('\\'),
                },
                '$' => self.dollar(true),
                '`' => {
                    let inner = self.backticks();
                    self.inner.extend(Tokeniser::new(&inner).run());
                    self.mark_unknown(&format!("`{inner}`"));
                }
                q => self.word.push(q),
            }
        }
    }

    /// After a `$`.
    fn dollar(&mut self, in_quotes: bool) {
        match self.peek() {
            Some('(') if self.peek_at(1) == Some('(') => {
                self.pos += 2;
                let inner = self.until_close('(', ')');
                if self.peek() == Some(')') {
                    self.pos += 1;
                }
                self.mark_unknown(&format!("$(({inner}))"));
            }
            Some('(') => {
                self.pos += 1;
                let inner = self.until_close('(', ')');
                self.inner.extend(Tokeniser::new(&inner).run());
                self.mark_unknown(&format!("$({inner})"));
            }
            Some('{') => {
                self.pos += 1;
                let inner = self.until_close('{', '}');
                let is_ifs = inner.strip_prefix("IFS").is_some_and(|rest| {
                    !rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                });
                if is_ifs && !in_quotes {
                    self.end_word();
                } else {
                    self.mark_unknown(&format!("${{{inner}}}"));
                }
            }
            Some('\'') if !in_quotes => {
                self.pos += 1;
                self.in_word = true;
                self.quoted = true;
                self.ansi_c_quoted();
            }
            Some('"') if !in_quotes => {} // `$"…"`: a double-quoted string
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let mut name = String::new();
                while let Some(c) = self
                    .peek()
                    .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
                {
                    name.push(c);
                    self.pos += 1;
                }
                if name == "IFS" && !in_quotes {
                    self.end_word();
                } else {
                    self.mark_unknown(&format!("${name}"));
                }
            }
            Some(c) if c.is_ascii_digit() || "@*#?$!-".contains(c) => {
                self.pos += 1;
                self.mark_unknown(&format!("${c}"));
            }
            _ => self.push('$'),
        }
    }

    /// The text up to the `close` that matches an already-consumed `open`, quotes honoured.
    fn until_close(&mut self, open: char, close: char) -> String {
        let mut depth = 1;
        let mut text = String::new();
        while let Some(c) = self.next() {
            match c {
                '\\' => {
                    text.push(c);
                    if let Some(n) = self.next() {
                        text.push(n);
                    }
                    continue;
                }
                '\'' | '"' => {
                    text.push(c);
                    while let Some(q) = self.next() {
                        text.push(q);
                        if q == '\\' && c == '"' {
                            if let Some(n) = self.next() {
                                text.push(n);
                            }
                        } else if q == c {
                            break;
                        }
                    }
                    continue;
                }
                c if c == open => depth += 1,
                c if c == close => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            text.push(c);
        }
        text
    }

    /// The text up to the closing backtick (`\`` and `\\` unescaped).
    fn backticks(&mut self) -> String {
        let mut text = String::new();
        while let Some(c) = self.next() {
            match c {
                '`' => break,
                '\\' => match self.next() {
                    Some(n @ ('`' | '\\' | '$')) => text.push(n),
                    Some(n) => {
                        text.push('\\');
                        text.push(n);
                    }
                    None => {}
                },
                c => text.push(c),
            }
        }
        text
    }

    /// After `$'`: bash's ANSI-C quoting, up to the closing `'`.
    fn ansi_c_quoted(&mut self) {
        while let Some(c) = self.next() {
            match c {
                '\'' => break,
                '\\' => {
                    let Some(e) = self.next() else { break };
                    let decoded = match e {
                        'n' => Some('\n'),
                        't' => Some('\t'),
                        'r' => Some('\r'),
                        'a' => Some('\x07'),
                        'b' => Some('\x08'),
                        'e' | 'E' => Some('\x1b'),
                        'f' => Some('\x0c'),
                        'v' => Some('\x0b'),
                        'x' => self.radix_digits(16, 2),
                        'u' => self.radix_digits(16, 4),
                        'U' => self.radix_digits(16, 8),
                        '0'..='7' => {
                            self.pos -= 1;
                            self.radix_digits(8, 3)
                        }
                        other => Some(other),
                    };
                    if let Some(d) = decoded {
                        self.word.push(d);
                    }
                }
                c => self.word.push(c),
            }
        }
    }

    /// Up to `max` digits in `radix`, as a char.
    fn radix_digits(&mut self, radix: u32, max: usize) -> Option<char> {
        let mut value = 0u32;
        let mut seen = 0;
        while seen < max {
            let Some(d) = self.peek().and_then(|c| c.to_digit(radix)) else {
                break;
            };
            value = value.saturating_mul(radix).saturating_add(d);
            self.pos += 1;
            seen += 1;
        }
        if seen == 0 {
            return None;
        }
        char::from_u32(value)
    }

    /// A redirection operator (`c` already consumed): the operator's characters, then its
    /// target word, which is dropped. `<(…)` and `>(…)` are commands of their own.
    fn redirection(&mut self, c: char) {
        // `2>`: a word of digits just before is the file descriptor, not an argument.
        if self.in_word
            && self.unknown_at.is_none()
            && !self.quoted
            && self.word.chars().all(|d| d.is_ascii_digit())
        {
            self.word.clear();
            self.in_word = false;
            self.braces.clear();
        } else {
            self.end_word();
        }
        if c != '&' && self.peek() == Some('(') {
            self.pos += 1;
            let inner = self.until_close('(', ')');
            self.inner.extend(Tokeniser::new(&inner).run());
            return;
        }
        // `>>`, `>&`, `>|`, `<<`, `<>`, `<&`: the operator's other characters.
        while self
            .peek()
            .is_some_and(|n| matches!(n, '>' | '<' | '&' | '|'))
        {
            self.pos += 1;
        }
        self.redirect_target = true;
        // Whitespace before the target is fine; the next word is the target.
        while self.peek().is_some_and(|c| c == ' ' || c == '\t') {
            self.pos += 1;
        }
    }
}

/// An unquoted `pre{a,b}post` as `prea`, `preb` with `post`; other words unchanged.
fn brace_expand(word: Word, braces: &[(usize, char)]) -> Vec<Word> {
    let open = braces.iter().find(|(_, c)| *c == '{');
    let close = braces.iter().rev().find(|(_, c)| *c == '}');
    let (Some(&(open, _)), Some(&(close, _))) = (open, close) else {
        return vec![word];
    };
    let commas: Vec<usize> = braces
        .iter()
        .filter(|(at, c)| *c == ',' && *at > open && *at < close)
        .map(|(at, _)| *at)
        .collect();
    let nested = braces
        .iter()
        .filter(|(at, c)| *c == '{' && *at > open && *at < close)
        .count()
        > 0;
    if commas.is_empty() || close < open || nested || word.unknown_at.is_some_and(|u| u < close) {
        return vec![word];
    }
    let text = &word.text;
    let (pre, post) = (&text[..open], &text[close + 1..]);
    let mut cuts = vec![open];
    cuts.extend(&commas);
    cuts.push(close);
    cuts.windows(2)
        .map(|pair| Word {
            text: format!("{pre}{}{post}", &text[pair[0] + 1..pair[1]]),
            unknown_at: word
                .unknown_at
                .map(|u| u - (close + 1) + pre.len() + (pair[1] - pair[0] - 1)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shell(cmd: &str) -> Option<String> {
        find_force_push_in_shell(cmd, 0)
    }

    /// Claude Code's input (`Bash`, `PowerShell`) is judged as the spec's `bash` is.
    #[test]
    fn claude_codes_input_is_judged_like_the_specs() {
        for (tool, command, blocked) in [
            ("Bash", "git push --force origin main", true),
            ("PowerShell", "git push origin +main", true),
            ("Bash", "git push origin main", false),
        ] {
            let event = hookhost_hook::canonical(json!({
                "session_id": "s", "transcript_path": null, "cwd": "/p",
                "hook_event_name": "PreToolUse", "tool_name": tool,
                "tool_input": {"command": command}, "tool_use_id": "t",
            }));
            assert_eq!(
                check_envelope(&event).is_some(),
                blocked,
                "{tool} {command}"
            );
        }
    }

    #[test]
    fn blocks_force_flags() {
        assert_eq!(
            shell("git push --force origin main").as_deref(),
            Some("--force")
        );
        assert_eq!(shell("git push -f").as_deref(), Some("-f"));
        assert_eq!(shell("git push -uf origin main").as_deref(), Some("-f"));
        assert_eq!(
            shell("git push --force-with-lease").as_deref(),
            Some("--force-with-lease")
        );
        assert_eq!(
            shell("git push --force-with-lease=main:abc origin main").as_deref(),
            Some("--force-with-lease")
        );
    }

    #[test]
    fn blocks_plus_refspec() {
        assert_eq!(shell("git push origin +main").as_deref(), Some("+main"));
        assert_eq!(
            shell("git push origin +HEAD:refs/heads/main").as_deref(),
            Some("+HEAD:refs/heads/main")
        );
        assert_eq!(shell("git push origin -- +main").as_deref(), Some("+main"));
    }

    #[test]
    fn allows_plain_push_and_other_commands() {
        assert_eq!(shell("git push origin main"), None);
        assert_eq!(shell("git push -u origin feature"), None);
        assert_eq!(shell("git push -o ci.skip origin main"), None);
        assert_eq!(shell("git push --follow-tags"), None);
        assert_eq!(shell("git fetch -f origin"), None);
        assert_eq!(shell("git commit -m 'push -f later'"), None);
        assert_eq!(shell("echo git push --force"), None);
        assert_eq!(shell("grep -r 'git push -f' docs"), None);
        assert_eq!(shell("git log --format=+%H"), None);
        assert_eq!(shell("ls; # git push -f"), None);
        assert_eq!(shell("git commit -m 'git push -f is bad'"), None);
        assert_eq!(shell("echo \"git push -f\""), None);
    }

    #[test]
    fn splits_compound_commands() {
        assert_eq!(shell("cargo test && git push -f").as_deref(), Some("-f"));
        assert_eq!(shell("make||git push --force").as_deref(), Some("--force"));
        assert_eq!(
            shell("true;git push origin +main").as_deref(),
            Some("+main")
        );
        assert_eq!(shell("yes | git push -f").as_deref(), Some("-f"));
        assert_eq!(shell("x=$(git push -f)").as_deref(), Some("-f"));
        assert_eq!(shell("(cd sub && git push -f)").as_deref(), Some("-f"));
        assert_eq!(shell("git add .\ngit push -f").as_deref(), Some("-f"));
    }

    #[test]
    fn sees_through_wrappers_options_and_quotes() {
        assert_eq!(shell("GIT_TRACE=1 git push -f").as_deref(), Some("-f"));
        assert_eq!(shell("sudo -u dana git push -f").as_deref(), Some("-f"));
        assert_eq!(
            shell("/usr/bin/git -C sub -c a.b=c push --force").as_deref(),
            Some("--force")
        );
        assert_eq!(
            shell("git --no-pager push '--force'").as_deref(),
            Some("--force")
        );
        assert_eq!(shell("git push origin \"+main\"").as_deref(), Some("+main"));
        assert_eq!(
            shell("bash -c 'git push -f origin main'").as_deref(),
            Some("-f")
        );
        assert_eq!(
            shell("sh -c \"cd x; git push --force\"").as_deref(),
            Some("--force")
        );
        assert_eq!(shell("timeout 60 git push -f").as_deref(), Some("-f"));
        assert_eq!(
            shell("ssh host 'cd repo && git push +main'").as_deref(),
            Some("+main")
        );
    }

    // ---- P1: the review's bypasses --------------------------------------------------------

    #[test]
    fn option_abbreviations_git_accepts() {
        assert_eq!(
            shell("git push --force-w origin main").as_deref(),
            Some("--force-w")
        );
        assert_eq!(
            shell("git push --no-verify --force-with-l origin main").as_deref(),
            Some("--force-with-l")
        );
        assert_eq!(
            shell("git push --force-with-l=main:abc origin main").as_deref(),
            Some("--force-with-l")
        );
        assert_eq!(
            shell("git push --force-i origin main").as_deref(),
            Some("--force-i")
        );
        assert_eq!(
            shell("git push --forc origin main").as_deref(),
            Some("--forc")
        );
        assert_eq!(shell("git push --mir").as_deref(), Some("--mir"));
        assert_eq!(shell("git push --del origin x").as_deref(), Some("--del"));
        assert_eq!(shell("git push --pru origin").as_deref(), Some("--pru"));
        // Prefixes of harmless options only, and negations, pass.
        assert_eq!(shell("git push --follow origin main"), None);
        assert_eq!(shell("git push --set-up origin main"), None);
        assert_eq!(shell("git push --no-force origin main"), None);
        assert_eq!(shell("git push --no-force-with-lease origin main"), None);
        assert_eq!(shell("git push --no-verify origin main"), None);
        // An abbreviated option that takes a value skips it.
        assert_eq!(shell("git push --rep +x main"), None);
        assert_eq!(
            shell("git push --recurse-sub check origin +main").as_deref(),
            Some("+main")
        );
    }

    #[test]
    fn mirror_delete_and_prune_count() {
        assert_eq!(shell("git push --mirror").as_deref(), Some("--mirror"));
        assert_eq!(
            shell("git push --mirror backup").as_deref(),
            Some("--mirror")
        );
        assert_eq!(
            shell("git push --delete origin main").as_deref(),
            Some("--delete")
        );
        assert_eq!(shell("git push -d origin main").as_deref(), Some("-d"));
        assert_eq!(shell("git push origin :main").as_deref(), Some(":main"));
        assert_eq!(
            shell("git push --prune origin refs/heads/*:refs/heads/*").as_deref(),
            Some("--prune")
        );
        assert_eq!(shell("git push origin :"), None); // matching refs, not a deletion
    }

    #[test]
    fn aliases_defined_with_dash_c() {
        assert_eq!(
            shell("git -c alias.p='push --force' p origin main").as_deref(),
            Some("--force")
        );
        assert_eq!(shell("git -c alias.p=push p -f").as_deref(), Some("-f"));
        assert_eq!(shell("git -c alias.P='push -f' p").as_deref(), Some("-f"));
        assert_eq!(
            shell("git -c alias.p='!git push -f' p").as_deref(),
            Some("-f")
        );
        assert_eq!(
            shell("git -c 'alias.p=!f() { git push \"$@\"; }; f' p --force").as_deref(),
            Some("$@")
        );
        assert_eq!(
            shell("git -c alias.q=p -c alias.p='push -f' q").as_deref(),
            Some("-f")
        );
        assert_eq!(shell("git -c alias.a=a a"), Some(TOO_COMPLEX.to_owned())); // a loop
        assert_eq!(
            shell("git --config-env=alias.p=CMD p").as_deref(),
            Some("p (alias.p, from the environment)")
        );
        assert_eq!(
            shell("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0='push -f' git p")
                .as_deref(),
            Some("-f")
        );
        assert_eq!(
            shell("export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0='push -f'; git p").as_deref(),
            Some("-f")
        );
        assert_eq!(
            shell("GIT_CONFIG_PARAMETERS=\"'alias.p'='push -f'\" git p").as_deref(),
            Some("-f")
        );
        assert_eq!(
            shell("git -c remote.origin.push=+refs/heads/*:refs/heads/* push origin").as_deref(),
            Some("-c remote.origin.push=+refs/heads/*:refs/heads/*")
        );
        assert_eq!(
            shell("git -c remote.origin.mirror=true push origin").as_deref(),
            Some("-c remote.origin.mirror=true")
        );
        // Harmless aliases and settings pass.
        assert_eq!(shell("git -c alias.p=push p origin main"), None);
        assert_eq!(shell("git -c alias.p='push -f' status"), None);
        assert_eq!(shell("git -c alias.st=status st"), None);
        assert_eq!(
            shell("git -c remote.origin.push=refs/heads/main push origin"),
            None
        );
        assert_eq!(shell("git -c remote.origin.mirror=false push origin"), None);
    }

    #[test]
    fn ifs_and_ansi_c_quotes_split_and_spell_like_the_shell() {
        assert_eq!(shell("git${IFS}push${IFS}-f").as_deref(), Some("-f"));
        assert_eq!(
            shell("git$IFS'push'$IFS--force").as_deref(),
            Some("--force")
        );
        assert_eq!(
            shell("git${IFS}push${IFS}--force-with-lease").as_deref(),
            Some("--force-with-lease")
        );
        assert_eq!(shell("git$IFS$9push$IFS-f").as_deref(), Some("-f"));
        assert_eq!(shell("$'git' push $'\\x2df'").as_deref(), Some("-f"));
        assert_eq!(shell("$'\\147it' push -f").as_deref(), Some("-f"));
        assert_eq!(shell("{git,push,-f}").as_deref(), Some("-f"));
        assert_eq!(shell("git push {-f,origin}").as_deref(), Some("-f"));
        assert_eq!(
            shell("bash -c 'git${IFS}push${IFS}-f'").as_deref(),
            Some("-f")
        );
        // Quoted, ${IFS} does not split: "git${IFS}push" is one (unknown) word.
        assert_eq!(shell("echo \"git${IFS}push${IFS}-f\""), None);
    }

    #[test]
    fn unreadable_command_words_are_taken_for_git() {
        assert_eq!(shell("$(echo git) push -f").as_deref(), Some("-f"));
        assert_eq!(shell("`echo git` push --force").as_deref(), Some("--force"));
        assert_eq!(shell("x=git; $x push -f").as_deref(), Some("-f"));
        assert_eq!(shell("${GIT:-git} push -f").as_deref(), Some("-f"));
        assert_eq!(shell("\"$x\" push origin +main").as_deref(), Some("+main"));
        assert_eq!(shell("/usr/bin/gi? push -f").as_deref(), Some("-f"));
        assert_eq!(
            shell("/usr/bin/g[i]t push --mirror").as_deref(),
            Some("--mirror")
        );
        assert_eq!(shell("git $sub -f").as_deref(), Some("-f"));
        assert_eq!(shell("git push -$f").as_deref(), Some("-$f"));
        assert_eq!(shell("git push --f$x").as_deref(), Some("--f$x"));
        // Unknown words elsewhere are no reason to block.
        assert_eq!(shell("$EDITOR notes.txt"), None);
        assert_eq!(shell("$CC $CFLAGS -fPIC -o x.o -c x.c"), None);
        assert_eq!(shell("$x push origin main"), None);
        assert_eq!(shell("git push origin \"$branch\""), None);
        assert_eq!(shell("git push origin $(git branch --show-current)"), None);
        assert_eq!(shell("git push -u$x origin main").as_deref(), Some("-u$x"));
        // A caller's arguments passed on could be anything.
        assert_eq!(
            shell("p() { git push \"$@\"; }; p --force").as_deref(),
            Some("$@")
        );
        assert_eq!(shell("git push origin $1").as_deref(), Some("$1"));
        assert_eq!(shell("echo $((1+2)) && git push -f").as_deref(), Some("-f"));
    }

    #[test]
    fn programs_that_run_other_programs() {
        assert_eq!(
            shell("echo origin | xargs git push -f").as_deref(),
            Some("-f")
        );
        assert_eq!(
            shell("echo origin | xargs -n 1 -I{} git push -f {}").as_deref(),
            Some("-f")
        );
        assert_eq!(
            shell("find . -maxdepth 0 -exec git push --force \\;").as_deref(),
            Some("--force")
        );
        assert_eq!(shell("chrt -f 10 git push -f").as_deref(), Some("-f"));
        assert_eq!(
            shell("timeout -s KILL 60 git push -f").as_deref(),
            Some("-f")
        );
        assert_eq!(shell("eval git push -f").as_deref(), Some("-f"));
        assert_eq!(shell("eval \"git push\" -f").as_deref(), Some("-f"));
        assert_eq!(shell("ssh host git push -f").as_deref(), Some("-f"));
        assert_eq!(shell("env -S 'git push -f'").as_deref(), Some("-f"));
        assert_eq!(
            shell("/usr/lib/git-core/git-push -f").as_deref(),
            Some("-f")
        );
        assert_eq!(
            shell("git submodule foreach 'git push -f'").as_deref(),
            Some("-f")
        );
        assert_eq!(shell("exec -a x git push -f").as_deref(), Some("-f"));
        // Running something else is fine.
        assert_eq!(shell("echo a | xargs grep -f patterns"), None);
        assert_eq!(shell("find . -name '*.rs' -exec rm -f {} \\;"), None);
    }

    #[test]
    fn redirections_do_not_split_a_command() {
        assert_eq!(
            shell("git push origin main 2>&1 --force").as_deref(),
            Some("--force")
        );
        assert_eq!(shell("git push &>log -f").as_deref(), Some("-f"));
        assert_eq!(
            shell("git push >out origin +main").as_deref(),
            Some("+main")
        );
        assert_eq!(shell("git push origin main 2>&1 | tee log"), None);
        assert_eq!(shell("cat <(git push -f)").as_deref(), Some("-f"));
    }

    #[test]
    fn oversized_or_looping_input_is_too_complex() {
        let deep = "eval ".repeat(5) + "'git push -f'";
        assert!(shell(&deep).is_some());
        let huge = "eval ".to_owned() + &"'a b' ".repeat(2000);
        assert_eq!(shell(&huge), Some(TOO_COMPLEX.to_owned()));
        let long_but_plain = "eval ".to_owned() + &"a ".repeat(100_000);
        assert_eq!(shell(&long_but_plain), None);
    }

    #[test]
    fn tokeniser() {
        assert_eq!(
            split_simple_commands("a 'b c' \"d\\\"e\" f\\ g; h && i|j"),
            vec![
                vec!["a".to_string(), "b c".into(), "d\"e".into(), "f g".into()],
                vec!["h".to_string()],
                vec!["i".to_string()],
                vec!["j".to_string()],
            ]
        );
        assert_eq!(
            split_simple_commands("a${IFS}b 2>&1 c"),
            vec![vec!["a".to_string(), "b".into(), "c".into()]]
        );
        assert_eq!(
            split_simple_commands("x{a,b}y"),
            vec![vec!["xay".to_string(), "xby".into()]]
        );
        assert_eq!(
            split_simple_commands("'{a,b}'"),
            vec![vec!["{a,b}".to_string()]]
        );
    }

    #[test]
    fn envelopes() {
        let bash = json!({"session_id":"s","hook_event_name":"PreToolUse","cwd":"/p","permission_mode":"auto",
            "tool_name":"bash","tool_input":{"command":"git push --force origin main"},"tool_use_id":"t"});
        assert_eq!(check_envelope(&bash).as_deref(), Some("--force"));

        let exec_argv =
            json!({"tool_name":"exec","tool_input":{"argv":["git","push","-f","origin","main"]}});
        assert_eq!(check_envelope(&exec_argv).as_deref(), Some("-f"));

        let exec_cmd_array =
            json!({"tool_name":"exec","tool_input":{"command":["git","push","origin","+main"]}});
        assert_eq!(check_envelope(&exec_cmd_array).as_deref(), Some("+main"));

        let exec_string =
            json!({"tool_name":"exec","tool_input":{"command":"git push --force-with-lease"}});
        assert_eq!(
            check_envelope(&exec_string).as_deref(),
            Some("--force-with-lease")
        );

        // In an argv, a word with spaces is one argument; it is scanned as a
        // command line when it is handed to a shell.
        let exec_sh = json!({"tool_name":"exec","tool_input":{"argv":["sh","-c","git push -f"]}});
        assert_eq!(check_envelope(&exec_sh).as_deref(), Some("-f"));

        // An argv is not a shell line: `$x` there is literal text, not an expansion.
        let exec_alias = json!({"tool_name":"exec","tool_input":{"argv":["git","-c","alias.p=push --force-w","p"]}});
        assert_eq!(check_envelope(&exec_alias).as_deref(), Some("--force-w"));
        let exec_dollar = json!({"tool_name":"exec","tool_input":{"argv":["$x","push","-f"]}});
        assert_eq!(check_envelope(&exec_dollar), None);

        let other_tool =
            json!({"tool_name":"write_file","tool_input":{"path":"x","content":"git push -f"}});
        assert_eq!(check_envelope(&other_tool), None);

        let plain = json!({"tool_name":"bash","tool_input":{"command":"git push origin main"}});
        assert_eq!(check_envelope(&plain), None);
    }
}
