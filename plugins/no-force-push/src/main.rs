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
//! `git send-pack`, the plumbing under push, is judged the same way (`--force`,
//! `--mirror`, `+ref`, `:ref`, and `--stdin`, whose refs it cannot see).
//!
//! The shell string is tokenised, not substring-matched: quotes (also `$'…'`)
//! are honoured, `$IFS`/`${IFS}` split words as the shell would, brace
//! expansion (`{git,push,-f}`) is expanded, and the string is split into simple
//! commands on `;`, `&&`, `||`, `|`, `&`, newlines, parentheses (a `(` after a
//! command's first word is PowerShell's, so `git push ("--force")` is one
//! command); the insides of `$(…)`, backticks and `<(…)` are scanned as commands
//! of their own. Only a `git` in command position counts (after `VAR=value`
//! assignments and wrappers such as `sudo`, `env`, `timeout`, `xargs`, `find
//! -exec`), so `echo git push -f` passes; a program's name is its path's last
//! part after `/` or `\`, without case or `.exe` (`& 'C:\…\git.exe' push`,
//! `GIT.EXE push`). A word given to a shell, `eval`, `ssh`, `pwsh`, `cmd` and the
//! like (`bash -c "git push -f"`, `cmd /c git push -f`) is scanned again as a
//! command line, and so is a here-string given to a shell (`bash <<< '…'`).
//!
//! A shell or an interpreter (`sh`, `bash`, `python3`, `node`, `perl`, `ruby`, …;
//! also `sudo -s`, `su`, `ssh HOST`, `source`) that would read its commands from
//! its standard input — a pipe (`curl … | sh`), `<(…)` (`sh <(curl …)`), the
//! terminal (a bare `bash`, which an agent may then type into) — is refused:
//! hookhost cannot see those commands. A here-document is on the line: its body
//! is scanned as the commands of the shell that reads it (and, fed to another
//! program, as data in which only a `git push` counts); a script file
//! (`bash x.sh`, `bash < x.sh`), `-c '…'`, and options that read no commands
//! (`--version`, `python3 -V`) pass.
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
    if let Some(finding) = check_envelope(&envelope) {
        eprintln!("{}", deny_message(&finding));
        std::process::exit(2);
    }
}

/// Ends the finding for a program that reads commands hookhost cannot see (`cat | sh`,
/// a bare `bash`); the finding starts with the program's name.
pub const UNSEEN: &str = " (reads commands hookhost cannot see)";

/// The reason given for a finding from [`check_envelope`].
pub fn deny_message(finding: &str) -> String {
    if finding == TOO_COMPLEX {
        "force-push is not allowed here, and this command is too complex to check for one".into()
    } else if let Some(name) = finding.strip_suffix(UNSEEN) {
        let how = match how_to_run(name) {
            Some(how) => format!("run them with {how} or from a script file"),
            None => "run them from a script file".to_owned(),
        };
        format!(
            "force-push is not allowed here, and hookhost cannot see the commands {name} reads \
             from its standard input, a pipe or `<(…)`: {how}"
        )
    } else {
        format!("force-push is not allowed here (git push {finding})")
    }
}

/// How to hand `name` its commands as a word, for the deny message.
fn how_to_run(name: &str) -> Option<String> {
    Some(match name {
        "source" => return None,
        "sudo" => "sudo sh -c '…'".to_owned(),
        "ssh" => "ssh HOST '…'".to_owned(),
        _ if reader(name).is_some_and(|r| r.code.contains('e')) => format!("{name} -e '…'"),
        _ => format!("{name} -c '…'"),
    })
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
                        scan.argv(&argv, &[], &Stdin::Unseen, 0)
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
    Scan::new().argv(&words, &[], &Stdin::Unseen, depth)
}

/// Where a simple command's standard input comes from, as far as the line shows.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Stdin {
    /// Not redirected: the input of the line it is on.
    #[default]
    Inherited,
    /// Not on the line: a pipe, a terminal, another descriptor, `< <(…)`, `< /dev/tty`.
    Unseen,
    /// A here-document, whose body is on the line.
    HereDoc,
    /// A here-string (`<<< WORD`).
    HereString(Word),
    /// A file named on the line (`< setup.sh`), like a script's name as an argument.
    File,
}

/// A simple command: its words, its input, and the bodies of its here-documents.
#[derive(Debug, Clone, Default)]
pub struct Command {
    pub words: Vec<Word>,
    pub stdin: Stdin,
    /// Each here-document's body, as commands.
    pub heredocs: Vec<Vec<Command>>,
}

/// One word of a command, after quote removal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The text; an expansion the plugin cannot know is kept as written.
    pub text: String,
    /// Where the first such expansion starts (`$x`, `${x}`, `$(…)`, backticks, an
    /// unquoted glob), if any: only `text[..at]` is known.
    pub unknown_at: Option<usize>,
    /// Where the text after the word's last unquoted backslash starts, if it has one:
    /// PowerShell and cmd keep that backslash (`C:\Git\cmd\git.exe`).
    pub after_backslash: Option<usize>,
}

impl Word {
    fn literal(text: &str) -> Word {
        Word {
            text: text.to_owned(),
            unknown_at: None,
            after_backslash: None,
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

/// One check: its remaining budget, the variables exported earlier on the line, and
/// whether programs that read their commands from their input are judged here.
struct Scan {
    budget: usize,
    exported: Vec<(String, String)>,
    /// Off in what may be data rather than commands (a word handed to `sudo`, the body
    /// of `cat <<EOF`): a shell there is a name, not a program reading hidden commands.
    judge_input: bool,
    /// Set when a program reads its commands from a here-document, whose body is then
    /// judged as its commands rather than as data.
    read_heredoc: bool,
}

impl Scan {
    fn new() -> Scan {
        Scan {
            budget: BUDGET_CHARS,
            exported: Vec::new(),
            judge_input: true,
            read_heredoc: false,
        }
    }

    /// A shell command line whose input hookhost cannot see (the agent's own call).
    fn shell(&mut self, line: &str, depth: usize) -> Option<String> {
        self.shell_in(line, &Stdin::Unseen, depth)
    }

    /// A shell command line; `input` is where its commands' input comes from when they
    /// do not redirect it (the input of the program that runs the line).
    fn shell_in(&mut self, line: &str, input: &Stdin, depth: usize) -> Option<String> {
        if line.len() > self.budget || depth > MAX_DEPTH {
            return Some(TOO_COMPLEX.to_owned());
        }
        self.budget -= line.len();
        self.commands(&split_commands(line), input, depth)
    }

    /// Simple commands in order, each followed by its here-documents' bodies.
    fn commands(&mut self, commands: &[Command], input: &Stdin, depth: usize) -> Option<String> {
        for command in commands {
            let outer = std::mem::replace(&mut self.read_heredoc, false);
            let found = self.simple_command(command, input, depth);
            let read = std::mem::replace(&mut self.read_heredoc, outer);
            // A command inside it that reads the input (`ssh host bash <<EOF`) reads it for
            // the command around it too.
            self.read_heredoc |= read;
            if found.is_some() {
                return found;
            }
            for body in &command.heredocs {
                // The body is the commands of the program that reads it (`bash <<EOF`), or
                // data (`cat <<EOF`), in which a `git push` still counts but a shell is text.
                let found = if read {
                    self.commands(body, &Stdin::Unseen, depth)
                } else {
                    self.unjudged(|scan| scan.commands(body, &Stdin::Unseen, depth))
                };
                if found.is_some() {
                    return found;
                }
            }
        }
        None
    }

    /// Runs `f` with programs reading their input not judged.
    fn unjudged<T>(&mut self, f: impl FnOnce(&mut Scan) -> T) -> T {
        let judged = std::mem::replace(&mut self.judge_input, false);
        let result = f(self);
        self.judge_input = judged;
        result
    }

    /// One simple command from a shell line: remembers `export`ed variables, then
    /// checks it like an argv.
    fn simple_command(&mut self, command: &Command, input: &Stdin, depth: usize) -> Option<String> {
        let words = &command.words;
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
        let stdin = match &command.stdin {
            Stdin::Inherited => input,
            own => own,
        };
        self.argv(words, &exported, stdin, depth)
    }

    /// One simple command as words; `env` holds variables set earlier on the line, and
    /// `stdin` is where its input comes from.
    fn argv(
        &mut self,
        words: &[Word],
        env: &[(String, String)],
        stdin: &Stdin,
        depth: usize,
    ) -> Option<String> {
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
                self.runs_other_commands(&words[first], &words[first + 1..], &env, stdin, depth)
        {
            return Some(found);
        }
        let at = at?;
        let command = &words[at];
        let rest = &words[at + 1..];
        if command.is_unknown() {
            // `$x push -f`, `$(echo git) push -f`: take it for git.
            return self.git(rest, &env, &mut Vec::new(), stdin, depth);
        }
        match program(command).as_str() {
            "git" => self.git(rest, &env, &mut Vec::new(), stdin, depth),
            "git-push" => self.push(rest, &[]),
            "git-send-pack" => check_words(rest, &SEND_PACK),
            _ => self.runs_other_commands(command, rest, &env, stdin, depth),
        }
    }

    /// For a program that runs other programs (`command`): looks at each later word
    /// that may be the program it runs and, for a shell and the like, at each word as a
    /// command line; and for a shell or an interpreter, at where it reads its commands.
    fn runs_other_commands(
        &mut self,
        command: &Word,
        rest: &[Word],
        env: &[(String, String)],
        stdin: &Stdin,
        depth: usize,
    ) -> Option<String> {
        if command.is_unknown() {
            return None;
        }
        let base = program(command);
        let base = base.as_str();
        if let Some(found) = self.reads_commands(base, rest, env, stdin, depth) {
            return Some(found);
        }
        if WRAPPERS.contains(&base) || RUNNERS.contains(&base) {
            // `xargs -n1 git push -f`, `find . -exec git push -f ;`, `chrt -f 10 git push -f`.
            for (i, word) in rest.iter().enumerate() {
                let name = if word.is_unknown() {
                    "git".to_owned()
                } else {
                    program(word)
                };
                let found = match name.as_str() {
                    "git" => {
                        let env_here: Vec<(String, String)> = env
                            .iter()
                            .cloned()
                            .chain(rest[..i].iter().filter_map(|w| assignment(&w.text)))
                            .collect();
                        self.git(&rest[i + 1..], &env_here, &mut Vec::new(), stdin, depth)
                    }
                    "git-push" => self.push(&rest[i + 1..], &[]),
                    "git-send-pack" => check_words(&rest[i + 1..], &SEND_PACK),
                    _ => None,
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
        // `ssh host 'cd x && git push -f'`. (Not `git commit -m "git push -f"`.) A plain
        // word (`sudo bash script.sh`'s `bash`) may be no command line at all: a shell
        // there reads nothing of its own.
        for word in rest {
            let found = if is_plain(word) {
                self.unjudged(|scan| scan.shell_in(&word.text, stdin, depth + 1))
            } else {
                self.shell_in(&word.text, stdin, depth + 1)
            };
            if found.is_some() {
                return found;
            }
        }
        // eval, ssh and watch join their arguments into one line: `eval "git push" -f`.
        // Only a word that could start a command there needs a look.
        if JOINERS.contains(&base) {
            let could_start = |w: &Word| {
                w.is_unknown()
                    || is_git(&program(w))
                    || runs_commands(&program(w))
                    || w.text.contains(|c: char| {
                        c.is_whitespace() || matches!(c, ';' | '&' | '|' | '$' | '`')
                    })
            };
            for i in (0..rest.len()).filter(|&i| could_start(&rest[i])) {
                let joined: Vec<&str> = rest[i..].iter().map(|w| w.text.as_str()).collect();
                if let Some(found) = self.shell_in(&joined.join(" "), stdin, depth + 1) {
                    return Some(found);
                }
            }
        }
        None
    }

    /// For a shell, an interpreter or a program that starts one (`sudo -s`, `su`, `ssh
    /// HOST`): where it reads its commands from. Commands from its input are refused
    /// unless that input is on the line (a here-document, whose body is scanned; a
    /// here-string, scanned here; a file, like a script's name).
    fn reads_commands(
        &mut self,
        name: &str,
        args: &[Word],
        env: &[(String, String)],
        stdin: &Stdin,
        depth: usize,
    ) -> Option<String> {
        let (source, shell) = match name {
            "sudo" => (sudo_source(args), true),
            "su" | "runuser" => (su_source(args, name == "runuser"), true),
            "ssh" => (ssh_source(args), true),
            // `source <(curl …)`, `. /dev/stdin`: a script read into the shell itself.
            "source" | "." => (args.first().map_or(Source::Elsewhere, script_source), true),
            // `busybox sh`: the applet is the shell.
            "busybox" => {
                let (applet, args) = args.split_first()?;
                let applet = program(applet);
                if !SHELLS.contains(&applet.as_str()) {
                    return None;
                }
                return self.reads_commands(&applet, args, env, stdin, depth);
            }
            _ => {
                let reader = reader(name)?;
                (source(reader, args), reader.shell)
            }
        };
        let unseen = || {
            let name = if name == "." { "source" } else { name };
            Some(format!("{name}{UNSEEN}"))
        };
        match source {
            Source::Elsewhere | Source::Code(None) => None,
            // `bash -c 'cat | sh'`, `bash -c bash`: a command line run with the shell's input.
            Source::Code(Some(word)) if shell => self.shell_in(&word.text, stdin, depth + 1),
            Source::Code(_) => None,
            // `runuser -u dana -- bash`: a command run with its input.
            Source::Command(words) => self.argv(words, env, stdin, depth + 1),
            Source::Unseen if self.judge_input => unseen(),
            Source::Unseen => None,
            Source::Stdin => match stdin {
                Stdin::HereDoc => {
                    // (Not in data: `sudo bash script.sh <<EOF`'s plain `bash` reads nothing.)
                    self.read_heredoc |= self.judge_input;
                    None
                }
                Stdin::File => None,
                Stdin::HereString(word) if shell => {
                    self.shell_in(&word.text, &Stdin::Unseen, depth + 1)
                }
                Stdin::HereString(_) => None,
                Stdin::Unseen | Stdin::Inherited if self.judge_input => unseen(),
                Stdin::Unseen | Stdin::Inherited => None,
            },
        }
    }

    /// The words after `git` (or after a command word taken for it): global options,
    /// the subcommand, its arguments. `config` holds `-c` settings seen so far
    /// (`None` as the value: set from the environment, unknown).
    fn git(
        &mut self,
        args: &[Word],
        env: &[(String, String)],
        config: &mut Vec<(String, Option<String>)>,
        stdin: &Stdin,
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
                return self.shell_in(&line, stdin, depth + 1);
            }
            if value.len() > self.budget {
                return Some(TOO_COMPLEX.to_owned());
            }
            self.budget -= value.len();
            let mut expanded: Vec<Word> = split_words(&value).into_iter().flatten().collect();
            expanded.extend(rest.iter().cloned());
            return self.git(&expanded, env, config, stdin, depth + 1);
        }
        match name.as_str() {
            "push" => self.push(rest, config),
            // The plumbing under push: `--force`, `+ref` and `:ref` mean the same there.
            "send-pack" => check_words(rest, &SEND_PACK),
            // `git submodule foreach 'git push -f'` runs its argument as a command line.
            "submodule" if depth < MAX_DEPTH => {
                let foreach = rest.iter().position(|w| w.text == "foreach")?;
                let line: Vec<&str> = rest[foreach + 1..]
                    .iter()
                    .map(|w| w.text.as_str())
                    .skip_while(|w| w.starts_with('-'))
                    .collect();
                self.shell_in(&line.join(" "), stdin, depth + 1)
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
    "sh",
    "bash",
    "rbash",
    "zsh",
    "dash",
    "ash",
    "ksh",
    "ksh93",
    "mksh",
    "lksh",
    "pdksh",
    "oksh",
    "yash",
    "posh",
    "csh",
    "tcsh",
    "fish",
    "busybox",
    "eval",
    "ssh",
    "su",
    "runuser",
    "watch",
    "xargs",
    "env",
    "script",
    "sudo",
    "parallel",
    "tmux",
    "screen",
    "pwsh",
    "powershell",
    "cmd",
];

/// Runners that join all their arguments into one command line (`cmd /c git push -f`,
/// `pwsh -Command git push -f`).
const JOINERS: &[&str] = &["eval", "ssh", "watch", "pwsh", "powershell", "cmd"];

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
        let base = program(&words[i]);
        match base.as_str() {
            "sudo" | "doas" | "env" | "command" | "exec" | "time" | "nice" | "nohup"
            | "builtin" | "timeout" | "setsid" | "stdbuf" | "ionice" | "nocache" => {
                i += 1;
                // Skip the wrapper's options (and an argument for those that take one).
                while i < words.len() && words[i].text.starts_with('-') {
                    if base == "command" && words[i].text.contains(['v', 'V']) {
                        return None; // `command -v bash` names a program, runs none
                    }
                    let takes_arg = matches!(
                        (base.as_str(), words[i].text.as_str()),
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

/// The POSIX-like shells (and csh): `-c` makes the first operand the command line.
const SHELLS: &[&str] = &[
    "sh", "bash", "rbash", "zsh", "dash", "ash", "ksh", "ksh93", "mksh", "lksh", "pdksh", "oksh",
    "yash", "posh", "csh", "tcsh", "hush",
];

/// How a shell or an interpreter is told what to run, as far as its input goes.
struct Reader {
    /// It runs shell command lines (so its `-c` word and a here-string are scanned).
    shell: bool,
    /// Short options whose value is the code to run (`python -c '…'`, `perl -e '…'`).
    code: &'static str,
    /// Short options that make the first operand the code to run (`sh -c '…'`).
    code_operand: &'static str,
    /// Short options whose value runs instead of a script (`python -m pytest`).
    runs: &'static str,
    /// Short options that read commands from the input after whatever else runs
    /// (`python -i`).
    interactive: &'static str,
    /// Short options that read commands from the input unless code is given (`sh -s`).
    stdin: &'static str,
    /// Short options that take a value, attached or the next word (`sh -o pipefail`).
    value: &'static str,
    /// Short options whose value, if any, is attached (`perl -i.bak`).
    attached: &'static str,
    /// Short options that print something and exit (`python3 -V`).
    prints: &'static str,
    /// Long options (`--name`) that matter.
    long: &'static [(&'static str, Long)],
}

/// What a long option of a [`Reader`] does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Long {
    Code,
    Runs,
    Interactive,
    Stdin,
    Value,
    Prints,
}

const SH: Reader = Reader {
    shell: true,
    code: "",
    code_operand: "c",
    runs: "",
    interactive: "",
    stdin: "si",
    value: "oO",
    attached: "",
    prints: "",
    long: &[
        ("version", Long::Prints),
        ("help", Long::Prints),
        ("rcfile", Long::Value),
        ("init-file", Long::Value),
        ("emulate", Long::Value),
        ("interactive", Long::Stdin),
        ("shinstdin", Long::Stdin),
    ],
};

const FISH: Reader = Reader {
    shell: true,
    code: "c",
    code_operand: "",
    runs: "",
    interactive: "",
    stdin: "i",
    value: "Cdofp",
    attached: "",
    prints: "vh",
    long: &[
        ("command", Long::Code),
        ("init-command", Long::Value),
        ("debug", Long::Value),
        ("debug-output", Long::Value),
        ("features", Long::Value),
        ("profile", Long::Value),
        ("profile-startup", Long::Value),
        ("interactive", Long::Stdin),
        ("version", Long::Prints),
        ("help", Long::Prints),
    ],
};

const PYTHON: Reader = Reader {
    shell: false,
    code: "c",
    code_operand: "",
    runs: "m",
    interactive: "i",
    stdin: "",
    value: "WX",
    attached: "",
    prints: "Vh?",
    long: &[
        ("version", Long::Prints),
        ("help", Long::Prints),
        ("help-env", Long::Prints),
        ("help-xoptions", Long::Prints),
        ("help-all", Long::Prints),
        ("check-hash-based-pycs", Long::Value),
    ],
};

const PERL: Reader = Reader {
    shell: false,
    code: "eE",
    code_operand: "",
    runs: "",
    interactive: "",
    stdin: "",
    value: "I",
    attached: "MmilxdDC0F",
    prints: "vVh",
    long: &[("version", Long::Prints), ("help", Long::Prints)],
};

const RUBY: Reader = Reader {
    shell: false,
    code: "e",
    code_operand: "",
    runs: "",
    interactive: "",
    stdin: "",
    value: "rICE",
    attached: "xTWK0iF",
    prints: "vh",
    long: &[
        ("version", Long::Prints),
        ("help", Long::Prints),
        ("verbose", Long::Prints),
        ("encoding", Long::Value),
        ("external-encoding", Long::Value),
        ("internal-encoding", Long::Value),
    ],
};

const NODE: Reader = Reader {
    shell: false,
    code: "ep",
    code_operand: "",
    runs: "",
    interactive: "i",
    stdin: "",
    value: "rC",
    attached: "",
    prints: "vh",
    long: &[
        ("eval", Long::Code),
        ("print", Long::Code),
        ("test", Long::Runs),
        ("run", Long::Runs),
        ("interactive", Long::Interactive),
        ("require", Long::Value),
        ("import", Long::Value),
        ("conditions", Long::Value),
        ("loader", Long::Value),
        ("experimental-loader", Long::Value),
        ("env-file", Long::Value),
        ("input-type", Long::Value),
        ("title", Long::Value),
        ("version", Long::Prints),
        ("help", Long::Prints),
        ("v8-options", Long::Prints),
    ],
};

/// The shell or interpreter a program name is (`python3.12` is python), if any.
fn reader(name: &str) -> Option<&'static Reader> {
    let versioned = |prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
    };
    if SHELLS.contains(&name) {
        Some(&SH)
    } else if name == "fish" {
        Some(&FISH)
    } else if versioned("python") || versioned("pypy") {
        Some(&PYTHON)
    } else if versioned("perl") {
        Some(&PERL)
    } else if versioned("ruby") {
        Some(&RUBY)
    } else if name == "node" || name == "nodejs" {
        Some(&NODE)
    } else {
        None
    }
}

/// Whether a program name runs commands it may read from its input.
fn runs_commands(name: &str) -> bool {
    reader(name).is_some() || matches!(name, "sudo" | "su" | "runuser" | "ssh" | "source" | ".")
}

/// Where a shell or an interpreter gets its commands.
enum Source<'a> {
    /// It reads none (`--version`), or runs a script file or a module.
    Elsewhere,
    /// From a word (`sh -c '…'`); `None` when it is attached or missing.
    Code(Option<&'a Word>),
    /// It runs these words as a command (`runuser -u dana -- bash`).
    Command(&'a [Word]),
    /// From its standard input.
    Stdin,
    /// From something hookhost cannot see: `sh <(curl …)`, `bash /dev/tty`.
    Unseen,
}

/// Where the program `reader` describes, given `args`, gets its commands.
fn source<'a>(reader: &Reader, args: &'a [Word]) -> Source<'a> {
    let mut code_operand = false;
    let mut reads_input = false;
    let mut interactive = false;
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let text = word.known();
        if text == "-" && reader.shell {
            i += 1; // `sh -`: the end of the options
            break;
        }
        let option = (text.starts_with('-') || (reader.shell && text.starts_with('+')))
            && word.text.len() > 1;
        if !option {
            break; // an operand: the script
        }
        if word.is_unknown() && !text.contains('=') {
            return Source::Stdin; // `bash -$x`: any option, `-s` included
        }
        i += 1;
        if text == "--" {
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            let kind = reader
                .long
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, k)| *k);
            match kind {
                Some(Long::Prints) => return Source::Elsewhere,
                Some(Long::Runs) if !interactive => return Source::Elsewhere,
                Some(Long::Code) if !interactive => {
                    return Source::Code(value.is_none().then(|| args.get(i)).flatten());
                }
                Some(Long::Runs | Long::Code) => return Source::Stdin,
                Some(Long::Value) if value.is_none() => i += 1,
                Some(Long::Stdin) => reads_input = true,
                Some(Long::Interactive) => interactive = true,
                Some(Long::Value) | None => {}
            }
            continue;
        }
        let plus = text.starts_with('+');
        let cluster: Vec<char> = text[1..].chars().collect();
        for (k, c) in cluster.iter().enumerate() {
            let last = k + 1 == cluster.len();
            if plus {
                // `+o name` unsets an option; nothing else takes a value.
                if reader.value.contains(*c) {
                    i += usize::from(last);
                    break;
                }
                continue;
            }
            if reader.prints.contains(*c) {
                return Source::Elsewhere;
            }
            if reader.code.contains(*c) {
                if interactive {
                    return Source::Stdin;
                }
                return Source::Code(if last { args.get(i) } else { None });
            }
            if reader.runs.contains(*c) {
                return if interactive {
                    Source::Stdin
                } else {
                    Source::Elsewhere
                };
            }
            code_operand |= reader.code_operand.contains(*c);
            reads_input |= reader.stdin.contains(*c);
            interactive |= reader.interactive.contains(*c);
            if reader.value.contains(*c) {
                i += usize::from(last);
                break;
            }
            if reader.attached.contains(*c) {
                break;
            }
        }
    }
    let operand = args.get(i);
    if code_operand && !interactive {
        return Source::Code(operand);
    }
    match operand {
        _ if interactive || reads_input => Source::Stdin,
        // No script, or `python3 -`: the input is the script.
        None => Source::Stdin,
        Some(word) if word.text == "-" && !reader.shell => Source::Stdin,
        Some(word) => script_source(word),
    }
}

/// Where a script given by name is read from: `/dev/stdin` is the input, `<(…)` and
/// other devices cannot be seen, anything else is a file.
fn script_source(word: &Word) -> Source<'_> {
    let text = word.text.as_str();
    if is_process_substitution(word) {
        Source::Unseen
    } else if matches!(text, "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0") {
        Source::Stdin
    } else if names_a_device(text) {
        Source::Unseen
    } else {
        Source::Elsewhere
    }
}

/// A device or a process's descriptor (`/dev/tty`, `/proc/self/fd/3`), not `/dev/null`.
fn names_a_device(path: &str) -> bool {
    (path.starts_with("/dev/") && path != "/dev/null") || path.starts_with("/proc/")
}

/// `<(…)` or `>(…)`: a word the shell turns into a pipe's name.
fn is_process_substitution(word: &Word) -> bool {
    word.unknown_at == Some(0) && (word.text.starts_with("<(") || word.text.starts_with(">("))
}

/// `sudo`: `-s` or `-i` without a command starts a shell on sudo's input.
fn sudo_source(args: &[Word]) -> Source<'_> {
    let mut shell = false;
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let text = word.text.as_str();
        if !text.starts_with('-') || text == "-" {
            break;
        }
        i += 1;
        if text == "--" {
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, has_value) = match long.split_once('=') {
                Some((name, _)) => (name, true),
                None => (long, false),
            };
            match name {
                "shell" | "login" => shell = true,
                "help" | "version" | "list" | "validate" | "edit" | "remove-timestamp" => {
                    return Source::Elsewhere;
                }
                "user" | "group" | "chdir" | "chroot" | "prompt" | "role" | "type"
                | "close-from" | "command-timeout" | "other-user" | "host" | "login-class"
                    if !has_value =>
                {
                    i += 1;
                }
                _ => {}
            }
            continue;
        }
        let cluster: Vec<char> = text[1..].chars().collect();
        for (k, c) in cluster.iter().enumerate() {
            let last = k + 1 == cluster.len();
            match c {
                's' | 'i' => shell = true,
                'h' if last => return Source::Elsewhere, // help; `-hHOST` names a host
                'V' | 'l' | 'v' | 'e' | 'K' => return Source::Elsewhere,
                'h' => break,
                'a' | 'C' | 'c' | 'D' | 'g' | 'p' | 'R' | 'r' | 'T' | 't' | 'U' | 'u' => {
                    i += usize::from(last);
                    break;
                }
                _ => {}
            }
        }
    }
    if shell && i >= args.len() {
        Source::Stdin
    } else {
        Source::Elsewhere // a command, found where sudo's options end
    }
}

/// `su` and `runuser`: `-c` gives the command line; `runuser -u` runs a command; else
/// the user's shell starts, given any words after the user's name (`su root -- -c …`).
fn su_source(args: &[Word], runuser: bool) -> Source<'_> {
    let mut command_mode = false;
    let mut i = 0;
    let mut ended = false;
    let mut operands = Vec::new();
    while let Some(word) = args.get(i) {
        i += 1;
        let text = word.text.as_str();
        if ended || !text.starts_with('-') || text == "-" {
            if text != "-" || ended {
                operands.push(i - 1);
            }
            if command_mode || operands.len() > 1 {
                break; // the command, or the shell's own arguments, from here on
            }
            continue;
        }
        if text == "--" {
            ended = true;
            continue;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((name, _)) => (name, true),
                None => (long, false),
            };
            match name {
                "command" | "session-command" => {
                    return Source::Code(if value { None } else { args.get(i) });
                }
                "help" | "version" => return Source::Elsewhere,
                "user" if runuser => {
                    command_mode = true;
                    i += usize::from(!value);
                }
                "group" | "supp-group" | "shell" | "whitelist-environment" if !value => i += 1,
                _ => {}
            }
            continue;
        }
        let cluster: Vec<char> = text[1..].chars().collect();
        for (k, c) in cluster.iter().enumerate() {
            let last = k + 1 == cluster.len();
            match c {
                'c' => return Source::Code(if last { args.get(i) } else { None }),
                'h' | 'V' => return Source::Elsewhere,
                'u' if runuser => {
                    command_mode = true;
                    i += usize::from(last);
                    break;
                }
                'g' | 'G' | 's' | 'w' => {
                    i += usize::from(last);
                    break;
                }
                _ => {}
            }
        }
    }
    match operands.as_slice() {
        [] if command_mode => Source::Elsewhere,
        [first, ..] if command_mode => Source::Command(&args[*first..]),
        [_, shell_args, ..] => source(&SH, &args[*shell_args..]),
        _ => Source::Stdin,
    }
}

/// `ssh HOST` without a command: the remote shell reads ssh's input.
fn ssh_source(args: &[Word]) -> Source<'_> {
    let mut host = false;
    let mut i = 0;
    while let Some(word) = args.get(i) {
        i += 1;
        let text = word.text.as_str();
        if text == "--" {
            continue;
        }
        if text.starts_with('-') && text.len() > 1 {
            let cluster: Vec<char> = text[1..].chars().collect();
            for (k, c) in cluster.iter().enumerate() {
                match c {
                    // No command (-N), stdin from /dev/null (-n), a subsystem (-s), a
                    // forward (-W), a control command (-O), a query (-Q), -G, -V.
                    'N' | 'n' | 's' | 'W' | 'O' | 'Q' | 'G' | 'V' => return Source::Elsewhere,
                    'B' | 'b' | 'c' | 'D' | 'E' | 'e' | 'F' | 'I' | 'i' | 'J' | 'L' | 'l' | 'm'
                    | 'o' | 'P' | 'p' | 'R' | 'S' | 'w' => {
                        i += usize::from(k + 1 == cluster.len());
                        break;
                    }
                    _ => {}
                }
            }
            continue;
        }
        if host {
            return Source::Elsewhere; // a command, scanned as a line (JOINERS)
        }
        host = true;
    }
    if host {
        Source::Stdin
    } else {
        Source::Elsewhere
    }
}

/// A word that, read as a command line, is one word: a program's name or an argument.
fn is_plain(word: &Word) -> bool {
    !word.is_unknown()
        && !word
            .text
            .contains(|c: char| c.is_whitespace() || "|&;<>()$`\\\"'{}".contains(c))
}

/// `NAME=value` as a pair, if the word is an assignment.
fn assignment(word: &str) -> Option<(String, String)> {
    let (name, value) = word.split_once('=')?;
    let valid = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    valid.then(|| (name.to_owned(), value.to_owned()))
}

/// The program a command word names: the last part of its path (after `/` or `\`), in
/// lower case and without `.exe` (macOS's and Windows' file systems ignore case;
/// `Git push`, `GIT.EXE push` run git). An unquoted `C:\Git\cmd\git.exe` loses its
/// backslashes in a POSIX shell but not in PowerShell or cmd: its last part counts too.
fn program(word: &Word) -> String {
    let name = program_name(&word.text);
    if let Some(at) = word.after_backslash
        && !is_known_program(&name)
    {
        let windows = program_name(&word.text[at..]);
        if is_known_program(&windows) {
            return windows;
        }
    }
    name
}

fn program_name(text: &str) -> String {
    let base = text.rsplit(['/', '\\']).next().unwrap_or(text);
    let lower = base.to_ascii_lowercase();
    match lower.strip_suffix(".exe") {
        Some(stem) => stem.to_owned(),
        None => lower,
    }
}

fn is_known_program(name: &str) -> bool {
    is_git(name)
        || matches!(name, "git-push" | "git-send-pack")
        || WRAPPERS.contains(&name)
        || RUNNERS.contains(&name)
        || runs_commands(name)
}

fn is_git(name: &str) -> bool {
    name == "git"
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

/// `git send-pack`'s long options (git 2.47), as [`PUSH_LONG_OPTIONS`].
const SEND_PACK_LONG_OPTIONS: &[(&str, bool)] = &[
    ("verbose", false),
    ("quiet", false),
    ("receive-pack", true),
    ("exec", true),
    ("remote", true),
    ("all", false),
    ("dry-run", false),
    ("mirror", false),
    ("force", false),
    ("signed", false),
    ("push-option", true),
    ("progress", false),
    ("thin", false),
    ("atomic", false),
    ("stateless-rpc", false),
    ("stdin", false),
    ("helper-status", false),
    ("force-with-lease", false),
];

/// A push command's options, as far as forcing goes.
struct PushOptions {
    /// Long options: name, and whether a value may follow as the next word.
    long: &'static [(&'static str, bool)],
    /// The long options that force or delete remote refs (or, `--stdin`, read refs that
    /// may).
    forcing: &'static [&'static str],
    /// Short options that take no value.
    short_flags: &'static str,
    /// The short options that force or delete.
    forcing_short: &'static str,
    /// The short option that takes a value (the rest of the word or the next one).
    short_value: Option<char>,
}

const PUSH: PushOptions = PushOptions {
    long: PUSH_LONG_OPTIONS,
    forcing: &[
        "force",
        "force-with-lease",
        "force-if-includes",
        "mirror",
        "delete",
        "prune",
    ],
    short_flags: "vqdnfu46",
    forcing_short: "fd",
    short_value: Some('o'),
};

/// `git send-pack`: its refspecs as push's; `--stdin` reads refspecs hookhost cannot see.
const SEND_PACK: PushOptions = PushOptions {
    long: SEND_PACK_LONG_OPTIONS,
    forcing: &["force", "force-with-lease", "mirror", "stdin"],
    short_flags: "vqnf",
    forcing_short: "f",
    short_value: None,
};

/// The arguments of `git push` (literal words); returns the first one that forces.
pub fn check_push_args(args: &[String]) -> Option<String> {
    let words: Vec<Word> = args.iter().map(|a| Word::literal(a)).collect();
    check_push_words(&words)
}

fn check_push_words(args: &[Word]) -> Option<String> {
    check_words(args, &PUSH)
}

/// The arguments of a push command (`git push`, `git send-pack`); returns the first
/// one that forces.
fn check_words(args: &[Word], options: &PushOptions) -> Option<String> {
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
                if options.forcing.iter().any(|f| f.starts_with(prefix)) {
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
            let candidates: Vec<&(&str, bool)> = match options.long.iter().find(|(o, _)| *o == name)
            {
                Some(exact) => vec![exact],
                None => options
                    .long
                    .iter()
                    .filter(|(o, _)| o.starts_with(name))
                    .collect(),
            };
            if candidates.iter().any(|(o, _)| options.forcing.contains(o)) {
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
            if Some(c) == options.short_value {
                takes_next = at + 1 == cluster.len() && !word.is_unknown();
                break;
            }
            if !options.short_flags.contains(c) {
                valid = false; // git refuses an unknown switch, and so the whole push
                break;
            }
            if forced.is_none() && options.forcing_short.contains(c) {
                forced = Some(format!("-{c}"));
            }
        }
        let open_end =
            valid && word.is_unknown() && options.short_value.is_none_or(|v| !cluster.contains(v));
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

/// Splits a shell command line into simple commands, each a list of words (those
/// of here-documents' bodies after their command's). See [`split_commands`].
pub fn split_words(line: &str) -> Vec<Vec<Word>> {
    fn flatten(commands: Vec<Command>, into: &mut Vec<Vec<Word>>) {
        for command in commands {
            if !command.words.is_empty() {
                into.push(command.words);
            }
            for body in command.heredocs {
                flatten(body, into);
            }
        }
    }
    let mut words = Vec::new();
    flatten(Tokeniser::new(line).run(), &mut words);
    words
}

/// Splits a shell command line into simple commands.
///
/// Honours single quotes, `$'…'`, double quotes (with backslash escapes) and
/// backslashes; splits on whitespace and on unquoted `$IFS`/`${IFS}`; ends a
/// command at `;`, `&`, `|` (so also `&&`, `||`), newlines, and `(` and `)` at its
/// start or end (a `(` after a command's first word, a syntax error in a POSIX shell,
/// is PowerShell's: `git push ("--force")` is one command). Redirections (`2>&1`,
/// `>out`, `&>log`) are dropped with their target, but a command's input is noted: a
/// pipe, a file, a here-string, a here-document (whose body, up to its delimiter
/// line, becomes the command's `heredocs`). The insides of `$(…)`, backticks, `<(…)`
/// and `>(…)` become commands of their own, and the word they stand in is unknown
/// from there on, as is one with `$x`, `${x}` or an unquoted glob. An unquoted `{a,b}`
/// is brace-expanded. Comments (`#` at the start of a word) run to the end of the line.
pub fn split_commands(line: &str) -> Vec<Command> {
    Tokeniser::new(line).run()
}

struct Tokeniser {
    chars: Vec<char>,
    pos: usize,
    commands: Vec<Command>,
    /// Commands found inside `$(…)`, backticks and `<(…)`, added after the line's own.
    inner: Vec<Command>,
    words: Vec<Word>,
    word: String,
    unknown_at: Option<usize>,
    /// Where the text after the last unquoted backslash starts in `word`.
    after_backslash: Option<usize>,
    in_word: bool,
    /// Where unquoted `{`, `,` and `}` sit in `word`, for brace expansion.
    braces: Vec<(usize, char)>,
    quoted: bool,
    /// The next word is a redirection's target: what for (it is dropped).
    target: Option<Target>,
    /// The current command's input.
    stdin: Stdin,
    /// `(`s after the current command's first word not yet closed (PowerShell's
    /// `git push ("--force")`).
    parens: usize,
    /// Here-documents whose bodies start after the current line.
    heredocs: Vec<PendingHeredoc>,
}

/// What a redirection's target word is for.
#[derive(Debug, Clone, Copy)]
enum Target {
    /// Another descriptor than the input's.
    Other,
    /// The input's file (`< file`, `<> file`).
    InputFile,
    /// The input's descriptor (`<&3`, `<&-`).
    InputDup,
    /// A here-string (`<<< word`), the command's input or not.
    HereString { input: bool },
    /// A here-document's delimiter (`<<EOF`, `<<-EOF`).
    HereDoc { input: bool, strip_tabs: bool },
}

/// A here-document whose body has not been read yet.
struct PendingHeredoc {
    delimiter: String,
    strip_tabs: bool,
    /// Its command's index in `commands`, once the command has ended (`Some(None)`
    /// when the redirection had no command).
    owner: Option<Option<usize>>,
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
            after_backslash: None,
            in_word: false,
            braces: Vec::new(),
            quoted: false,
            target: None,
            stdin: Stdin::Inherited,
            parens: 0,
            heredocs: Vec::new(),
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
            after_backslash: self.after_backslash.take(),
        };
        let braces = std::mem::take(&mut self.braces);
        self.in_word = false;
        self.quoted = false;
        if let Some(target) = self.target.take() {
            self.redirected(target, word);
            return;
        }
        if braces.is_empty() {
            self.words.push(word);
        } else {
            self.words.extend(brace_expand(word, &braces));
        }
    }

    /// A redirection's target word: what it says about the command's input.
    fn redirected(&mut self, target: Target, word: Word) {
        match target {
            Target::Other | Target::HereString { input: false } => {}
            Target::InputFile if names_a_device(&word.text) => self.stdin = Stdin::Unseen,
            Target::InputFile => self.stdin = Stdin::File,
            Target::InputDup => self.stdin = Stdin::Unseen,
            Target::HereString { input: true } => self.stdin = Stdin::HereString(word),
            Target::HereDoc { input, strip_tabs } => {
                if input {
                    self.stdin = Stdin::HereDoc;
                }
                self.heredocs.push(PendingHeredoc {
                    delimiter: word.text,
                    strip_tabs,
                    owner: None,
                });
            }
        }
    }

    fn end_command(&mut self) {
        self.end_word();
        self.target = None;
        self.parens = 0;
        let stdin = std::mem::take(&mut self.stdin);
        let index = (!self.words.is_empty()).then_some(self.commands.len());
        for heredoc in &mut self.heredocs {
            heredoc.owner.get_or_insert(index);
        }
        if index.is_some() {
            self.commands.push(Command {
                words: std::mem::take(&mut self.words),
                stdin,
                heredocs: Vec::new(),
            });
        } else if stdin == Stdin::Unseen {
            // `echo ls | (bash)`: the pipe is the input of what the `(` starts.
            self.stdin = stdin;
        }
    }

    /// After the end of a line: the bodies of its here-documents, each up to the line
    /// that is its delimiter.
    fn heredoc_bodies(&mut self) {
        for heredoc in std::mem::take(&mut self.heredocs) {
            let mut body = String::new();
            while self.pos < self.chars.len() {
                let start = self.pos;
                while self.peek().is_some_and(|c| c != '\n') {
                    self.pos += 1;
                }
                let line: String = self.chars[start..self.pos].iter().collect();
                if self.peek().is_some() {
                    self.pos += 1;
                }
                let line = if heredoc.strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    &line
                };
                if line == heredoc.delimiter {
                    break;
                }
                body.push_str(line);
                body.push('\n');
            }
            let commands = Tokeniser::new(&body).run();
            match heredoc.owner.flatten() {
                Some(owner) => self.commands[owner].heredocs.push(commands),
                None => self.commands.push(Command {
                    heredocs: vec![commands],
                    ..Command::default()
                }),
            }
        }
    }

    /// Whether the next character other than a blank is `c`.
    fn next_non_blank_is(&self, c: char) -> bool {
        self.chars[self.pos..]
            .iter()
            .find(|n| **n != ' ' && **n != '\t')
            .is_some_and(|n| *n == c)
    }

    fn run(mut self) -> Vec<Command> {
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
                        self.after_backslash = Some(self.word.len());
                        self.push(n);
                    }
                },
                '#' if !self.in_word => {
                    let mut line_end = false;
                    while let Some(n) = self.next() {
                        if n == '\n' {
                            line_end = true;
                            break;
                        }
                    }
                    self.end_command();
                    if line_end {
                        self.heredoc_bodies();
                    }
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
                '|' if self.peek() == Some('|') => {
                    self.pos += 1;
                    self.end_command();
                }
                '|' => {
                    // `a | b`, `a |& b`: b reads a pipe.
                    if self.peek() == Some('&') {
                        self.pos += 1;
                    }
                    self.end_command();
                    self.stdin = Stdin::Unseen;
                }
                '\n' => {
                    self.end_command();
                    self.heredoc_bodies();
                }
                '(' => {
                    self.end_word();
                    // A subshell, `name()` defining a function, a case pattern `(a)`: a
                    // new command. After a command's first word it is PowerShell's.
                    if self.words.is_empty()
                        || self.next_non_blank_is(')')
                        || self.words.iter().any(|w| w.text == "case")
                    {
                        self.end_command();
                    } else {
                        self.parens += 1;
                    }
                }
                ')' if self.parens > 0 => {
                    self.parens -= 1;
                    self.end_word();
                }
                // PowerShell's array: `git push @("--force", "-u")`.
                ',' if self.parens > 0 => self.end_word(),
                ';' | '&' | ')' => self.end_command(),
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
    /// target word, which is dropped, what it says about the command's input noted.
    /// `<(…)` and `>(…)` are commands of their own, and a word (a pipe's name) where
    /// they are not a redirection's target.
    fn redirection(&mut self, c: char) {
        // `2>`: a word of digits just before is the file descriptor, not an argument.
        let mut fd = None;
        if self.in_word
            && self.unknown_at.is_none()
            && !self.quoted
            && self.word.chars().all(|d| d.is_ascii_digit())
        {
            fd = Some(self.word.parse::<u64>().unwrap_or(u64::MAX));
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
            match self.target.take() {
                // `< <(…)`: the input is a command's output.
                Some(Target::InputFile) => self.stdin = Stdin::Unseen,
                Some(_) => {}
                None => {
                    self.mark_unknown(&format!("{c}({inner})"));
                    self.end_word();
                }
            }
            return;
        }
        // `>>`, `>&`, `>|`, `<<`, `<<<`, `<<-`, `<>`, `<&`: the operator's other characters.
        let mut operator = c.to_string();
        while let Some(n) = self.peek().filter(|n| matches!(n, '>' | '<' | '&' | '|')) {
            operator.push(n);
            self.pos += 1;
        }
        if operator == "<<" && self.peek() == Some('-') {
            operator.push('-');
            self.pos += 1;
        }
        let input = fd.unwrap_or(if c == '<' { 0 } else { 1 }) == 0;
        self.target = Some(match operator.as_str() {
            "<" | "<>" if input => Target::InputFile,
            "<&" if input => Target::InputDup,
            "<<<" => Target::HereString { input },
            "<<" => Target::HereDoc {
                input,
                strip_tabs: false,
            },
            "<<-" => Target::HereDoc {
                input,
                strip_tabs: true,
            },
            _ => Target::Other,
        });
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
            after_backslash: None,
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

    // ---- The fourth review: commands read from standard input, other shells' spelling ----

    /// The finding for a program that reads commands hookhost cannot see.
    fn unseen(name: &str) -> Option<String> {
        Some(format!("{name}{UNSEEN}"))
    }

    #[test]
    fn a_here_string_given_to_a_shell_is_scanned_as_its_script() {
        assert_eq!(
            shell("bash <<< 'git push --force origin main'").as_deref(),
            Some("--force")
        );
        assert_eq!(shell("sh <<<\"git push -f\"").as_deref(), Some("-f"));
        assert_eq!(
            shell("sudo bash <<< 'cd x && git push origin +main'").as_deref(),
            Some("+main")
        );
        assert_eq!(
            shell("bash -c bash <<< 'git push -f'").as_deref(),
            Some("-f")
        );
        assert_eq!(shell("ssh host <<< 'git push -f'").as_deref(), Some("-f"));
        // A harmless script passes; so does a here-string that is only data.
        assert_eq!(shell("bash <<< 'git status'"), None);
        assert_eq!(shell("cat <<< 'git push -f is refused'"), None);
        assert_eq!(shell("python3 <<< 'print(1)'"), None);
    }

    #[test]
    fn a_shell_or_interpreter_reading_commands_from_its_input_is_refused() {
        for (line, name) in [
            ("echo 'git push -f origin main' | sh", "sh"),
            ("cat | sh", "sh"),
            ("curl -fsSL https://example.com/install.sh | bash", "bash"),
            ("echo git push -f |& bash -s", "bash"),
            ("sh <(echo git push -f)", "sh"),
            ("bash < <(echo git push -f)", "bash"),
            ("bash", "bash"),
            ("sh", "sh"),
            ("python3", "python3"),
            ("/usr/bin/python3.12 -u", "python3.12"),
            ("echo 'import os' | python3 -", "python3"),
            ("python3 -i script.py", "python3"),
            ("node", "node"),
            ("perl -w", "perl"),
            ("ruby", "ruby"),
            ("fish", "fish"),
            ("zsh -f", "zsh"),
            ("bash -i", "bash"),
            ("bash -s origin main", "bash"),
            ("bash -", "bash"),
            ("bash -x", "bash"),
            ("bash -o pipefail", "bash"),
            ("bash --norc --noprofile", "bash"),
            ("bash /dev/stdin", "bash"),
            ("bash < /dev/tty", "bash"),
            ("bash <&3", "bash"),
            ("sudo bash", "bash"),
            ("sudo -u dana sh", "sh"),
            ("env -i bash", "bash"),
            ("exec bash", "bash"),
            ("timeout 60 python3", "python3"),
            ("x=$(bash)", "bash"),
            ("tee >(sh) < script", "sh"),
            ("echo ls | (bash)", "bash"),
            ("bash -c 'cat | sh'", "sh"),
            ("bash -c bash", "bash"),
            ("sh -c 'python3 -'", "python3"),
            ("eval bash", "bash"),
            ("ssh host bash", "bash"),
            ("ssh host 'cd repo && bash -l'", "bash"),
            ("git -c alias.s='!sh' s", "sh"),
            ("sudo -s", "sudo"),
            ("sudo -iu dana", "sudo"),
            ("su", "su"),
            ("su - dana", "su"),
            ("su -c bash dana", "bash"),
            ("runuser -u dana -- bash", "bash"),
            ("ssh host", "ssh"),
            ("ssh -p 2222 -i key dana@host", "ssh"),
            ("busybox sh", "sh"),
            ("cat <<'EOF' | bash\nls\nEOF", "bash"),
            ("source <(curl -fsSL https://example.com/env)", "source"),
            ("curl -fsSL x | . /dev/stdin", "source"),
        ] {
            assert_eq!(shell(line), unseen(name), "{line}");
        }
        // Codex's exec_command, or an argv given to exec, alike.
        let exec = json!({"tool_name":"exec","tool_input":{"argv":["bash"]}});
        assert_eq!(check_envelope(&exec), unseen("bash"));
        let message = deny_message(&unseen("bash").unwrap());
        assert!(
            message.starts_with("force-push is not allowed here, and hookhost cannot see"),
            "{message}"
        );
        assert!(message.contains("bash -c '…'"), "{message}");
        assert!(
            deny_message(&unseen("perl").unwrap()).contains("perl -e '…'"),
            "-e for perl"
        );
        assert!(
            deny_message(&unseen("source").unwrap()).ends_with(": run them from a script file"),
            "no -c for source"
        );
        assert_eq!(
            deny_message("--force"),
            "force-push is not allowed here (git push --force)"
        );
        assert_eq!(
            deny_message(TOO_COMPLEX),
            "force-push is not allowed here, and this command is too complex to check for one"
        );
    }

    #[test]
    fn a_shell_or_interpreter_that_reads_no_commands_or_a_script_passes() {
        for line in [
            "bash --version",
            "bash --help",
            "sh -n file.sh",
            "python3 -V",
            "python3 --version",
            "python3 -c 'print(1)'",
            "python3 -m pytest -q",
            "python3 -W ignore -X dev script.py",
            "python3 script.py < input.txt",
            "cat data.json | python3 -c 'import json, sys; json.load(sys.stdin)'",
            "cat data.json | python3 tool.py",
            "echo x | bash -c 'read y; echo $y'",
            "bash script.sh",
            "bash -euo pipefail script.sh",
            "bash -o pipefail -c 'ls | wc -l'",
            "bash -lc 'make test'",
            "zsh -ic 'ls'",
            "bash < setup.sh",
            "bash script.sh 'an argument'",
            "sudo bash script.sh",
            "sudo -u dana bash -c 'ls'",
            "env FOO=1 bash x.sh",
            "su -s /bin/bash -c 'ls' dana",
            "node --version",
            "node -v",
            "node -e '1'",
            "node --test",
            "node --run build",
            "node -r ts-node/register app.ts",
            "perl -v",
            "perl -pi -e 's/a/b/' file",
            "perl -0777 -ne 'print' file",
            "ruby -v",
            "ruby -Ilib -e 'p 1'",
            "fish -c 'ls'",
            "fish --version",
            "ssh host ls",
            "ssh host python3 x.py",
            "ssh -N -L 8080:localhost:80 host",
            "ssh -nT git@github.com",
            "ssh -T git@github.com < /dev/null",
            "ssh -V",
            "command -v bash",
            "command -v python3 && python3 x.py",
            "which bash",
            "find . | xargs -n1 bash -c 'echo $0'",
            "sudo -l",
            "su -c 'make install' root",
            "source ~/.bashrc",
            ". venv/bin/activate",
        ] {
            assert_eq!(shell(line), None, "{line}");
        }
        let exec = json!({"tool_name":"exec","tool_input":{"argv":["python3","-c","print(1)"]}});
        assert_eq!(check_envelope(&exec), None);
    }

    #[test]
    fn here_documents_feed_their_reader_or_are_data() {
        // A shell's here-document is its script, scanned as now.
        assert_eq!(shell("bash <<EOF\ngit push -f\nEOF").as_deref(), Some("-f"));
        assert_eq!(
            shell("bash <<'EOF'\ncd repo\ngit push origin +main\nEOF").as_deref(),
            Some("+main")
        );
        assert_eq!(
            shell("bash <<-EOF\n\tgit push -f\n\tEOF").as_deref(),
            Some("-f")
        );
        assert_eq!(shell("bash <<'EOF'\ngit status\nEOF"), None);
        assert_eq!(shell("python3 - <<'EOF'\nprint(1)\nEOF"), None);
        assert_eq!(shell("python3 <<EOF\nimport sys\nEOF\necho done"), None);
        assert_eq!(
            shell("bash <<EOF\nls\nEOF\ngit push -f").as_deref(),
            Some("-f")
        );
        assert_eq!(
            shell("ssh host <<'EOF'\ngit push -f\nEOF").as_deref(),
            Some("-f")
        );
        // A here-document that is data is still searched for git pushes, as before ...
        assert_eq!(
            shell("cat > push.sh <<'EOF'\ngit push -f\nEOF").as_deref(),
            Some("-f")
        );
        // ... but a shell in it is data, not a program reading hidden commands.
        assert_eq!(
            shell(
                "cat > install.sh <<'EOF'\n#!/bin/sh\ncurl -fsSL x | sh\nbash\nEOF\nchmod +x install.sh"
            ),
            None
        );
        assert_eq!(
            shell("git commit -m \"$(cat <<'EOF'\nDeny cat | sh and a bare bash.\nEOF\n)\""),
            None
        );
        assert_eq!(shell("sudo tee /etc/motd <<'EOF'\npython3\nEOF"), None);
    }

    #[test]
    fn powershell_and_cmd_spellings() {
        // PowerShell passes ("--force") to git as --force.
        assert_eq!(
            shell("git push origin main (\"--force\")").as_deref(),
            Some("--force")
        );
        assert_eq!(
            shell("git push origin main @('--force')").as_deref(),
            Some("--force")
        );
        assert_eq!(
            shell("git push origin main @(\"-u\", \"--force\")").as_deref(),
            Some("--force")
        );
        assert_eq!(shell("( git push -f )").as_deref(), Some("-f"));
        assert_eq!(shell("(cd sub; git push -f) && ls").as_deref(), Some("-f"));
        assert_eq!(shell("f() { git push -f; }; f").as_deref(), Some("-f"));
        assert_eq!(
            shell("function f () { git push -f; }").as_deref(),
            Some("-f")
        );
        assert_eq!(
            shell("case $x in a) git push -f;; esac").as_deref(),
            Some("-f")
        );
        assert_eq!(
            shell("case $x in (a) git push -f;; esac").as_deref(),
            Some("-f")
        );
        assert_eq!(
            shell("if true; then case $x in (a) git push -f;; esac; fi").as_deref(),
            Some("-f")
        );
        assert_eq!(shell("git push origin main (\"--no-verify\")"), None);
        // The call operator, Windows paths, quoted or not.
        assert_eq!(
            shell("& 'C:\\Program Files\\Git\\cmd\\git.exe' push --force").as_deref(),
            Some("--force")
        );
        assert_eq!(
            shell("& \"C:\\Program Files\\Git\\cmd\\git.exe\" push origin +main").as_deref(),
            Some("+main")
        );
        assert_eq!(
            shell("C:\\Git\\cmd\\git.exe push -f").as_deref(),
            Some("-f")
        );
        assert_eq!(shell("& git push -f").as_deref(), Some("-f"));
        assert_eq!(shell("g\\it push -f").as_deref(), Some("-f"));
        assert_eq!(shell("\\git push -f").as_deref(), Some("-f"));
        // Program names without case (macOS, Windows), with or without .exe.
        assert_eq!(shell("Git push --force").as_deref(), Some("--force"));
        assert_eq!(shell("GIT.EXE push -f").as_deref(), Some("-f"));
        assert_eq!(shell("/usr/bin/GIT push -f").as_deref(), Some("-f"));
        assert_eq!(shell("BASH -c 'git push -f'").as_deref(), Some("-f"));
        assert_eq!(shell("bash.exe -c 'git push -f'").as_deref(), Some("-f"));
        assert_eq!(shell("sudo GIT push -f").as_deref(), Some("-f"));
        let exec =
            json!({"tool_name":"exec","tool_input":{"argv":["C:\\Git\\cmd\\GIT.exe","push","-f"]}});
        assert_eq!(check_envelope(&exec).as_deref(), Some("-f"));
        // PowerShell and cmd run a command line too.
        assert_eq!(
            shell("pwsh -Command \"git push --force\"").as_deref(),
            Some("--force")
        );
        assert_eq!(
            shell("powershell.exe -NoProfile -c git push -f").as_deref(),
            Some("-f")
        );
        assert_eq!(shell("cmd /c git push --force").as_deref(), Some("--force"));
        assert_eq!(
            shell("cmd.exe /c \"git push origin +main\"").as_deref(),
            Some("+main")
        );
        assert_eq!(shell("cmd /c dir"), None);
        assert_eq!(shell("Git status"), None);
        assert_eq!(shell("legit push -f"), None);
    }

    #[test]
    fn send_pack_is_a_push() {
        assert_eq!(
            shell("git send-pack --force origin main").as_deref(),
            Some("--force")
        );
        assert_eq!(
            shell("git send-pack -f host:repo.git main").as_deref(),
            Some("-f")
        );
        assert_eq!(
            shell("git send-pack host:repo.git +main:main").as_deref(),
            Some("+main:main")
        );
        assert_eq!(
            shell("git send-pack host:repo.git :main").as_deref(),
            Some(":main")
        );
        assert_eq!(
            shell("git send-pack --mirror host:repo.git").as_deref(),
            Some("--mirror")
        );
        assert_eq!(
            shell("git send-pack --force-with-lease host:repo.git main").as_deref(),
            Some("--force-with-lease")
        );
        assert_eq!(
            shell("git send-pack --forc host:repo.git main").as_deref(),
            Some("--forc")
        );
        assert_eq!(
            shell("git send-pack --stdin host:repo.git").as_deref(),
            Some("--stdin")
        );
        assert_eq!(
            shell("git -c x.y=z send-pack --force h:r main").as_deref(),
            Some("--force")
        );
        assert_eq!(
            shell("git -C dir send-pack --force h:r main").as_deref(),
            Some("--force")
        );
        assert_eq!(
            shell("/usr/lib/git-core/git-send-pack --force h:r main").as_deref(),
            Some("--force")
        );
        assert_eq!(shell("xargs git send-pack -f h:r").as_deref(), Some("-f"));
        // `git -c x=y push`, `git -C dir push` as before.
        assert_eq!(shell("git -c x.y=z push -f").as_deref(), Some("-f"));
        assert_eq!(shell("git -C dir push -f").as_deref(), Some("-f"));
        assert_eq!(shell("git send-pack host:repo.git main"), None);
        assert_eq!(shell("git send-pack --all --thin host:repo.git"), None);
        assert_eq!(
            shell("git send-pack --receive-pack /x/git-receive-pack h:r main"),
            None
        );
    }

    #[test]
    fn tokeniser_notes_input_and_here_documents() {
        let commands = split_commands("a | b; c < f; d <<< 'x y'; e <<-END | f\n\tg h\n\tEND\ni");
        let summary: Vec<(Vec<&str>, &Stdin, usize)> = commands
            .iter()
            .map(|c| {
                let words = c.words.iter().map(|w| w.text.as_str()).collect();
                (words, &c.stdin, c.heredocs.len())
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                (vec!["a"], &Stdin::Inherited, 0),
                (vec!["b"], &Stdin::Unseen, 0),
                (vec!["c"], &Stdin::File, 0),
                (vec!["d"], &Stdin::HereString(Word::literal("x y")), 0),
                (vec!["e"], &Stdin::HereDoc, 1),
                (vec!["f"], &Stdin::Unseen, 0),
                (vec!["i"], &Stdin::Inherited, 0),
            ]
        );
        let body: Vec<&str> = commands[4].heredocs[0][0]
            .words
            .iter()
            .map(|w| w.text.as_str())
            .collect();
        assert_eq!(body, ["g", "h"]);
        assert_eq!(
            split_simple_commands("git push origin main (\"--force\") | sh"),
            vec![
                vec![
                    "git".to_string(),
                    "push".into(),
                    "origin".into(),
                    "main".into(),
                    "--force".into()
                ],
                vec!["sh".to_string()],
            ]
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
