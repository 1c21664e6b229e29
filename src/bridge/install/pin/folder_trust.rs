//! A folder the agent has come to distrust: in it the agent runs none of its settings'
//! hooks, the user's included, from its next session on ([`FolderTrust`]; Gemini CLI). The
//! agent's own process can bring that about (a rule in its trust file, a variable in a
//! `.env` file it loads), so a call from such a folder is refused while the rule or the
//! variable is there, as for any other switch-off (docs/threats.md#r7).

use std::path::{Path, PathBuf};

use super::dotenv::{env_assignments, read_env_files};
use super::switch_offs::{ProjectFile, read_json, read_settings};
use crate::bridge::{AgentKind, FolderTrust};
use crate::env::Environment;

/// What makes `agent` distrust `cwd`, one message each: a variable set so in the bridge's
/// environment or a `.env` file the agent loads (in `cwd`, a folder above it, or the home
/// folder), or the trust file's rule for `cwd`. Empty for an agent without folder trust.
pub fn distrusted(agent: AgentKind, env: &Environment, cwd: &Path) -> Vec<String> {
    let Some(trust) = agent.declaration().folder_trust else {
        return Vec::new();
    };
    let name = agent.display_name();
    let mut found = Vec::new();
    for (variable, value) in trust.distrusting {
        if env
            .get(variable)
            .is_some_and(|v| v.to_string_lossy().trim().eq_ignore_ascii_case(value))
        {
            found.push(format!(
                "{name} runs with {variable}={value} in its environment, so it trusts no folder and runs none of its hooks; hookhost blocks this agent's calls. Start {name} without it."
            ));
        }
    }
    let home = env.home();
    let extras = agent.declaration().settings.extras_home_variable;
    for ProjectFile { file, bytes, .. } in
        &read_env_files(trust.env_files, cwd, home.as_deref(), None)
    {
        let bytes = match bytes {
            Ok(bytes) => bytes,
            // One the agent may read whole (larger than hookhost reads, not a regular
            // file, past what one call reads): a switch-off it may hold is one hookhost
            // cannot rule out.
            Err(why) => {
                found.push(format!(
                    "hookhost cannot read {}, a .env file {name} loads: {why}; it may make {name} trust no folder and run none of its hooks, so hookhost blocks this agent's calls while it is there.",
                    file.display()
                ));
                continue;
            }
        };
        for (variable, value) in env_assignments(&String::from_utf8_lossy(bytes)) {
            let distrusts = trust
                .distrusting
                .iter()
                .any(|(v, bad)| *v == variable && value.trim().eq_ignore_ascii_case(bad));
            if distrusts {
                found.push(format!(
                    "{} sets {variable}={value}: {name} loads that file and then trusts no folder, so it runs none of its hooks from its next session on; hookhost blocks this agent's calls while it is there. Remove that line.",
                    file.display()
                ));
            } else if variable == trust.rules_variable {
                found.push(format!(
                    "{} sets {variable}: {name} would then read its folder trust rules from another file, which hookhost does not check, and a folder it does not trust runs none of its hooks; hookhost blocks this agent's calls while it is there. Remove that line.",
                    file.display()
                ));
            } else if Some(variable.as_str()) == extras
                && env.get(&variable).is_none_or(|v| v.is_empty())
                && home
                    .as_deref()
                    .is_none_or(|home| super::home_moved::names_another_home(&value, home))
            {
                // Told here for `doctor`, which does not run in the agent's environment;
                // a call's environment holds the value (and says so) once it is loaded.
                found.push(format!(
                    "{} sets {variable}={value}: {name} loads that file and then reads its extensions and trusted hooks from that folder, where hookhost does not look for hooks that could rewrite a call; hookhost blocks this agent's calls while it is there. Remove that line.",
                    file.display()
                ));
            }
        }
    }
    let rules = env
        .get(trust.rules_variable)
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(trust.rules_file)));
    let rules = rules.filter(|_| !trust_switched_off(trust, home.as_deref()));
    let read = rules
        .as_ref()
        .and_then(|r| Some((r, read_settings(r, |_| true)?)));
    if let Some((rules, Err(why))) = &read {
        found.push(format!(
            "hookhost cannot read {}, {name}'s folder trust rules: {why}; a rule there may make {name} run none of its hooks here, so hookhost blocks this agent's calls while it is so.",
            rules.display()
        ));
    }
    if let Some((rules, Ok(bytes))) = &read
        && let Ok(serde_json::Value::Object(map)) = read_json(&String::from_utf8_lossy(bytes))
        && let Some(rule) = rule_for(&map, cwd)
        && rule == FolderTrust::DISTRUST
    {
        found.push(format!(
            "{} says {} for this folder: {name} then runs none of its hooks here from its next session on; hookhost blocks this agent's calls while that rule is there. Remove it, or trust the folder.",
            rules.display(),
            FolderTrust::DISTRUST
        ));
    }
    found
}

/// Whether the user's settings switch the agent's folder trust off (Gemini CLI:
/// `security.folderTrust.enabled: false`), so that its rules do not apply (its variables
/// still do).
fn trust_switched_off(trust: &FolderTrust, home: Option<&Path>) -> bool {
    let Some(settings) = home.map(|h| h.join(trust.settings_file)) else {
        return false;
    };
    let Some(Ok(bytes)) = read_settings(&settings, |_| true) else {
        return false;
    };
    let Ok(settings) = read_json(&String::from_utf8_lossy(&bytes)) else {
        return false;
    };
    trust
        .switched_off_by
        .iter()
        .try_fold(&settings, |value, key| value.get(key))
        .is_some_and(|enabled| enabled == &serde_json::Value::Bool(false))
}

/// The rule of `rules` that holds for `folder`: the one of the longest path (as written)
/// that is `folder` or a folder above it (for `TRUST_PARENT`, the folder above its path),
/// paths compared once links are resolved where they exist.
fn rule_for<'a>(
    rules: &'a serde_json::Map<String, serde_json::Value>,
    folder: &Path,
) -> Option<&'a str> {
    let folder = resolved(folder);
    let mut best: Option<(usize, &str)> = None;
    for (path, rule) in rules {
        let Some(rule) = rule.as_str() else {
            continue;
        };
        let path_of_rule = Path::new(path);
        let covered = match rule {
            FolderTrust::TRUST_PARENT => path_of_rule.parent().unwrap_or(path_of_rule),
            _ => path_of_rule,
        };
        if folder.starts_with(resolved(covered)) && best.is_none_or(|(len, _)| path.len() > len) {
            best = Some((path.len(), rule));
        }
    }
    best.map(|(_, rule)| rule)
}

/// `path` with its links resolved when it exists, else as written (tidied).
fn resolved(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| crate::paths::lexical(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `.env` Gemini CLI loads that names another `GEMINI_CLI_HOME` is told where the
    /// agent's environment does not hold it (`doctor`'s); where it does, the bridge's
    /// own check names it (docs/threats.md#n11).
    #[test]
    fn a_env_file_that_moves_geminis_extensions_is_named() {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("home");
        let project = root.path().join("p");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        let env = |vars: &[(&str, &str)]| {
            let mut all = vec![("HOME".to_string(), home.to_str().unwrap().to_string())];
            all.extend(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())));
            Environment::from_vars(all.into_iter().map(|(k, v)| (k.into(), v.into())).collect())
        };
        let moved = format!("GEMINI_CLI_HOME={}\n", project.join(".h").display());
        std::fs::write(project.join(".env"), &moved).unwrap();
        let found = distrusted(AgentKind::Gemini, &env(&[]), &project);
        assert!(
            found.len() == 1 && found[0].contains("sets GEMINI_CLI_HOME="),
            "{found:#?}"
        );
        let set = [("GEMINI_CLI_HOME", "/elsewhere")];
        assert!(distrusted(AgentKind::Gemini, &env(&set), &project).is_empty());
        let at_home = format!("GEMINI_CLI_HOME={}\n", home.display());
        std::fs::write(project.join(".env"), at_home).unwrap();
        assert!(distrusted(AgentKind::Gemini, &env(&[]), &project).is_empty());
    }

    /// A `.env` met again up a deep `cwd` (a link to it in every folder) is read once, as
    /// the settings files are: one message, not one per folder.
    #[test]
    fn a_env_file_linked_into_every_folder_is_read_once() {
        let root = tempfile::tempdir().unwrap();
        let env_file = root.path().join("shared.env");
        std::fs::write(&env_file, "GEMINI_CLI_TRUST_WORKSPACE=false\n").unwrap();
        let mut cwd = root.path().join("p");
        for _ in 0..5 {
            std::fs::create_dir_all(&cwd).unwrap();
            std::fs::hard_link(&env_file, cwd.join(".env")).unwrap();
            cwd = cwd.join("d");
        }
        let cwd = cwd.parent().unwrap();
        let env = Environment::from_vars(vec![("HOME".into(), "/nonexistent-home".into())]);
        let found = distrusted(AgentKind::Gemini, &env, cwd);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(
            found[0].contains("GEMINI_CLI_TRUST_WORKSPACE=false"),
            "{}",
            found[0]
        );
    }

    #[test]
    fn the_longest_rule_above_a_folder_holds() {
        let rules = serde_json::json!({
            "/home/u": "DO_NOT_TRUST",
            "/home/u/p": "TRUST_FOLDER",
            "/home/u/p/q/x": "TRUST_PARENT",
            "/home/u/other": "DO_NOT_TRUST",
        });
        let rules = rules.as_object().unwrap();
        assert_eq!(
            rule_for(rules, Path::new("/home/u/p/src")),
            Some("TRUST_FOLDER")
        );
        assert_eq!(
            rule_for(rules, Path::new("/home/u/z")),
            Some("DO_NOT_TRUST")
        );
        assert_eq!(
            rule_for(rules, Path::new("/home/u/p/q")),
            Some("TRUST_PARENT")
        );
        assert_eq!(rule_for(rules, Path::new("/srv")), None);
        // A path that merely starts with a rule's text is not under it.
        assert_eq!(
            rule_for(rules, Path::new("/home/u/pp")),
            Some("DO_NOT_TRUST")
        );
    }
}
