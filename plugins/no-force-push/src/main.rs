//! `no-force-push`: a PreToolUse hook that refuses force pushes.
//!
//! Built for `wasm32-wasip1` (a core module), so it answers the Claude Code
//! way by exit code: exit 2 with the reason on stderr blocks the tool call,
//! exit 0 with nothing on stdout lets it through.
//!
//! It looks at `bash` and `exec` tool calls only. The command is
//! `tool_input.command` (a shell string), or for `exec` an argv array in
//! `tool_input.argv` or `tool_input.command`. A `git push` is refused when it
//! carries `--force`/`-f` (also inside a short-flag cluster such as `-fu`),
//! `--force-with-lease[=...]`, or a `+ref` refspec such as `+main` or
//! `+HEAD:main`.
//!
//! The shell string is tokenised, not substring-matched: quotes are honoured,
//! and the string is split into simple commands on `;`, `&&`, `||`, `|`, `&`,
//! newlines, parentheses and backticks. Only a `git` in command position
//! counts (after `VAR=value` assignments and wrappers such as `sudo`, `env`,
//! `command`, `time`, `timeout`), so `echo git push -f` passes. A quoted word
//! given to a shell, `eval`, `ssh` and the like (`bash -c "git push -f"`) is
//! scanned again as a command line.
//!
//! Input it cannot parse is a hook error: exit 1 with a message on stderr
//! (non-blocking in Claude Code's convention).

use std::io::Read;

fn main() {
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("no-force-push: cannot read stdin: {e}");
        std::process::exit(1);
    }
    let envelope: serde_json::Value = match serde_json::from_str(input.trim()) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("no-force-push: stdin is not a JSON hook envelope: {e}");
            std::process::exit(1);
        }
    };
    if let Some(finding) = check_envelope(&envelope) {
        eprintln!("force-push is not allowed here (git push {finding})");
        std::process::exit(2);
    }
}

/// Looks at a PreToolUse envelope; returns the offending push argument
/// (`--force`, `-f`, `--force-with-lease`, `+main`, ...) if it is a force push.
pub fn check_envelope(envelope: &serde_json::Value) -> Option<String> {
    let tool = envelope.get("tool_name")?.as_str()?;
    let input = envelope.get("tool_input")?;
    match tool {
        "bash" => find_force_push_in_shell(input.get("command")?.as_str()?, 0),
        "exec" => {
            for key in ["argv", "command"] {
                match input.get(key) {
                    Some(serde_json::Value::Array(items)) => {
                        let argv: Vec<String> = items
                            .iter()
                            .filter_map(|v| v.as_str().map(str::to_owned))
                            .collect();
                        if let Some(found) = find_force_push_in_argv(&argv, 0) {
                            return Some(found);
                        }
                    }
                    Some(serde_json::Value::String(s)) => {
                        if let Some(found) = find_force_push_in_shell(s, 0) {
                            return Some(found);
                        }
                    }
                    _ => {}
                }
            }
            None
        }
        _ => None,
    }
}

/// How deep quoted command lines (`sh -c "..."`) are re-scanned.
const MAX_DEPTH: usize = 4;

/// Scans a shell command line; returns the offending push argument, if any.
pub fn find_force_push_in_shell(line: &str, depth: usize) -> Option<String> {
    for words in split_simple_commands(line) {
        if let Some(found) = find_force_push_in_argv(&words, depth) {
            return Some(found);
        }
    }
    None
}

/// Scans one simple command given as words (an argv).
pub fn find_force_push_in_argv(words: &[String], depth: usize) -> Option<String> {
    if let Some(git_at) = command_position(words) {
        if is_git(&words[git_at]) {
            if let Some(found) = check_git_args(&words[git_at + 1..]) {
                return Some(found);
            }
        }
    }
    // A word that is itself a command line, handed to something that runs
    // it: `bash -c "git push -f"`, `eval 'git push -f'`,
    // `ssh host "cd x && git push -f"`. (Not `git commit -m "git push -f"`.)
    let runs_command_lines = command_position(words).is_some_and(|at| {
        let w = words[at].as_str();
        let base = w.rsplit('/').next().unwrap_or(w);
        matches!(base, "sh" | "bash" | "zsh" | "dash" | "ksh" | "fish" | "eval" | "ssh" | "su" | "watch" | "xargs")
    });
    if runs_command_lines && depth < MAX_DEPTH {
        for word in words {
            if word.contains(char::is_whitespace) || word.contains([';', '&', '|']) {
                if let Some(found) = find_force_push_in_shell(word, depth + 1) {
                    return Some(found);
                }
            }
        }
    }
    None
}

/// Index of the word that is the command being run, skipping variable
/// assignments and wrapper commands (with their common options).
fn command_position(words: &[String]) -> Option<usize> {
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        if is_assignment(w) || matches!(w, "!" | "{" | "then" | "do" | "else" | "elif" | "if" | "while" | "until") {
            i += 1;
            continue;
        }
        let base = w.rsplit('/').next().unwrap_or(w);
        match base {
            "sudo" | "doas" | "env" | "command" | "exec" | "time" | "nice" | "nohup" | "builtin" | "timeout" => {
                i += 1;
                // Skip the wrapper's options (and an argument for the few that take one).
                while i < words.len() && words[i].starts_with('-') {
                    let takes_arg = matches!(
                        (base, words[i].as_str()),
                        ("sudo", "-u" | "-g" | "-C" | "-D" | "-h" | "-p" | "-U")
                            | ("env", "-u" | "-C" | "-S")
                            | ("nice", "-n")
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

fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

fn is_git(word: &str) -> bool {
    let base = word.rsplit('/').next().unwrap_or(word);
    base == "git" || base == "git.exe"
}

/// `args` are the words after `git`: global options, the subcommand, its arguments.
fn check_git_args(args: &[String]) -> Option<String> {
    let mut i = 0;
    // Global options before the subcommand; some take a separate value.
    while i < args.len() && args[i].starts_with('-') {
        let takes_value = matches!(
            args[i].as_str(),
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path" | "--config-env"
        );
        i += if takes_value { 2 } else { 1 };
    }
    if args.get(i).map(String::as_str) != Some("push") {
        return None;
    }
    check_push_args(&args[i + 1..])
}

/// The arguments of `git push`; returns the first one that forces.
pub fn check_push_args(args: &[String]) -> Option<String> {
    let mut options_done = false;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        if options_done || !arg.starts_with('-') || arg == "-" {
            if arg.starts_with('+') && arg.len() > 1 {
                return Some(arg.to_owned());
            }
            continue;
        }
        if arg == "--" {
            options_done = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            match name {
                "force" | "force-with-lease" => return Some(format!("--{name}")),
                // Options whose value is the next word.
                "repo" | "receive-pack" | "exec" | "push-option" | "recurse-submodules"
                    if !long.contains('=') =>
                {
                    i += 1
                }
                _ => {}
            }
            continue;
        }
        // A cluster of short options: -f, -fu, -uf; `-o` takes the rest (or the next word).
        let cluster = &arg[1..];
        for (at, c) in cluster.char_indices() {
            match c {
                'f' => return Some("-f".to_owned()),
                'o' => {
                    if at + 1 == cluster.len() {
                        i += 1;
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    None
}

/// Splits a shell command line into simple commands, each a list of words.
///
/// Honours single quotes, double quotes (with backslash escapes) and
/// backslashes; splits on whitespace, and ends a command at `;`, `&`, `|`
/// (so also `&&`, `||`), newlines, `(`, `)` and backticks. `$(` opens a new
/// command like `(`. Comments (`#` at the start of a word) run to the end of
/// the line.
pub fn split_simple_commands(line: &str) -> Vec<Vec<String>> {
    let mut commands: Vec<Vec<String>> = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();

    fn end_word(words: &mut Vec<String>, word: &mut String, in_word: &mut bool) {
        if *in_word {
            words.push(std::mem::take(word));
            *in_word = false;
        }
    }
    fn end_command(commands: &mut Vec<Vec<String>>, words: &mut Vec<String>) {
        if !words.is_empty() {
            commands.push(std::mem::take(words));
        }
    }

    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => match chars.peek() {
                            Some(&n @ ('"' | '\\' | '$' | '`')) => {
                                word.push(n);
                                chars.next();
                            }
                            Some('\n') => {
                                chars.next();
                            }
                            _ => word.push('\\'),
                        },
                        _ => word.push(q),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') | None => {}
                Some(n) => {
                    in_word = true;
                    word.push(n);
                }
            },
            '#' if !in_word => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        break;
                    }
                }
                end_command(&mut commands, &mut words);
            }
            '$' if chars.peek() == Some(&'(') => {
                chars.next();
                end_word(&mut words, &mut word, &mut in_word);
                end_command(&mut commands, &mut words);
            }
            ';' | '&' | '|' | '\n' | '(' | ')' | '`' => {
                end_word(&mut words, &mut word, &mut in_word);
                end_command(&mut commands, &mut words);
            }
            c if c.is_whitespace() => end_word(&mut words, &mut word, &mut in_word),
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    end_word(&mut words, &mut word, &mut in_word);
    end_command(&mut commands, &mut words);
    commands
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shell(cmd: &str) -> Option<String> {
        find_force_push_in_shell(cmd, 0)
    }

    #[test]
    fn blocks_force_flags() {
        assert_eq!(shell("git push --force origin main").as_deref(), Some("--force"));
        assert_eq!(shell("git push -f").as_deref(), Some("-f"));
        assert_eq!(shell("git push -uf origin main").as_deref(), Some("-f"));
        assert_eq!(shell("git push --force-with-lease").as_deref(), Some("--force-with-lease"));
        assert_eq!(
            shell("git push --force-with-lease=main:abc origin main").as_deref(),
            Some("--force-with-lease")
        );
    }

    #[test]
    fn blocks_plus_refspec() {
        assert_eq!(shell("git push origin +main").as_deref(), Some("+main"));
        assert_eq!(shell("git push origin +HEAD:refs/heads/main").as_deref(), Some("+HEAD:refs/heads/main"));
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
        assert_eq!(shell("true;git push origin +main").as_deref(), Some("+main"));
        assert_eq!(shell("yes | git push -f").as_deref(), Some("-f"));
        assert_eq!(shell("x=$(git push -f)").as_deref(), Some("-f"));
        assert_eq!(shell("(cd sub && git push -f)").as_deref(), Some("-f"));
        assert_eq!(shell("git add .\ngit push -f").as_deref(), Some("-f"));
    }

    #[test]
    fn sees_through_wrappers_options_and_quotes() {
        assert_eq!(shell("GIT_TRACE=1 git push -f").as_deref(), Some("-f"));
        assert_eq!(shell("sudo -u dana git push -f").as_deref(), Some("-f"));
        assert_eq!(shell("/usr/bin/git -C sub -c a.b=c push --force").as_deref(), Some("--force"));
        assert_eq!(shell("git --no-pager push '--force'").as_deref(), Some("--force"));
        assert_eq!(shell("git push origin \"+main\"").as_deref(), Some("+main"));
        assert_eq!(shell("bash -c 'git push -f origin main'").as_deref(), Some("-f"));
        assert_eq!(shell("sh -c \"cd x; git push --force\"").as_deref(), Some("--force"));
        assert_eq!(shell("timeout 60 git push -f").as_deref(), Some("-f"));
        assert_eq!(shell("ssh host 'cd repo && git push +main'").as_deref(), Some("+main"));
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
    }

    #[test]
    fn envelopes() {
        let bash = json!({"session_id":"s","hook_event_name":"PreToolUse","cwd":"/p","permission_mode":"auto",
            "tool_name":"bash","tool_input":{"command":"git push --force origin main"},"tool_use_id":"t"});
        assert_eq!(check_envelope(&bash).as_deref(), Some("--force"));

        let exec_argv = json!({"tool_name":"exec","tool_input":{"argv":["git","push","-f","origin","main"]}});
        assert_eq!(check_envelope(&exec_argv).as_deref(), Some("-f"));

        let exec_cmd_array = json!({"tool_name":"exec","tool_input":{"command":["git","push","origin","+main"]}});
        assert_eq!(check_envelope(&exec_cmd_array).as_deref(), Some("+main"));

        let exec_string = json!({"tool_name":"exec","tool_input":{"command":"git push --force-with-lease"}});
        assert_eq!(check_envelope(&exec_string).as_deref(), Some("--force-with-lease"));

        // In an argv, a word with spaces is one argument; it is scanned as a
        // command line when it is handed to a shell.
        let exec_sh = json!({"tool_name":"exec","tool_input":{"argv":["sh","-c","git push -f"]}});
        assert_eq!(check_envelope(&exec_sh).as_deref(), Some("-f"));

        let other_tool = json!({"tool_name":"write_file","tool_input":{"path":"x","content":"git push -f"}});
        assert_eq!(check_envelope(&other_tool), None);

        let plain = json!({"tool_name":"bash","tool_input":{"command":"git push origin main"}});
        assert_eq!(check_envelope(&plain), None);
    }
}
