//! An extension's settings written into its hooks (Gemini CLI's, [`ExtensionSettings`]):
//! the hooks are read with the values the agent gives their `${NAME}`s, so that a hook
//! `install` accepted is the one the agent runs (docs/threats.md#r14).
//!
//! Gemini CLI 0.61.0 reads an extension's settings from the `.env` in its folder of the
//! user's extensions and, in a trusted folder, from the project's `.env` (every variable
//! there, not only the extension's declared settings), and fills every `${NAME}` of its
//! hook file's strings from them, over its own `extensionPath` and `workspacePath`. A
//! project's `.env` that sets `extensionPath` makes an accepted hook
//! `/bin/sh ${extensionPath}/hooks/check.sh` run a script of the agent's. Read here with
//! those values, the hook is another command than the one accepted, and refuses the call.
//! The project's `.env` is read whether or not the folder is trusted: a value the agent
//! would not use blocks calls until removed, rather than a value it uses going unseen.

use std::path::Path;

use super::dotenv::env_assignments;
use super::switch_offs::read_settings;
use crate::bridge::ExtensionSettings;

/// The values `settings` gives the hooks of the extension read from `from`, in the folder
/// of extensions `extensions` with the project `workspace`: the extension's own settings
/// file, then the project's, whose values win. `Err`: a settings file hookhost cannot
/// read, in words that follow the hook file's name.
pub(super) fn values(
    settings: &ExtensionSettings,
    extensions: &Path,
    from: &Path,
    workspace: Option<&Path>,
) -> Result<Vec<(String, String)>, String> {
    // The folder of settings is named by the manifest's `name` (the folder's own name
    // when it has none to read: the agent then loads no extension from it).
    let name = read_settings(&from.join(settings.manifest), |_| true)
        .and_then(Result::ok)
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .and_then(|manifest| Some(manifest.get("name")?.as_str()?.to_string()));
    let own = match name {
        Some(name) if !name.is_empty() && !name.contains(['/', '\\']) && name != ".." => {
            extensions.join(name)
        }
        _ => from.to_path_buf(),
    };
    let files = std::iter::once(own.join(settings.file))
        .chain(workspace.map(|folder| folder.join(settings.file)));
    let mut values: Vec<(String, String)> = Vec::new();
    for file in files {
        let text = match read_settings(&file, |_| true) {
            None => continue,
            Some(Ok(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
            Some(Err(why)) => {
                return Err(format!(
                    "the settings its extension's hooks are filled from, {}, cannot be read: {why}",
                    file.display()
                ));
            }
        };
        for (name, value) in env_assignments(&text) {
            match values.iter_mut().find(|(n, _)| *n == name) {
                Some(kept) => kept.1 = value,
                None => values.push((name, value)),
            }
        }
    }
    values.retain(|(name, _)| !settings.fixed.contains(&name.as_str()));
    Ok(values)
}

/// The hook file `bytes` with every `${NAME}` of its strings that `values` sets replaced
/// by its value, as the agent fills them (JavaScript's `/\${(.*?)}/g`: the shortest
/// name, on one line, each replacement left as it is); `None` when none is, or the file
/// is not JSON (read as it is, and refused as such).
pub(super) fn filled(bytes: &[u8], values: &[(String, String)]) -> Option<Vec<u8>> {
    if values.is_empty() {
        return None;
    }
    let mut hooks: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let mut changed = false;
    fill_strings(&mut hooks, values, &mut changed);
    changed.then(|| hooks.to_string().into_bytes())
}

/// [`filled`] of every string in `value`, its objects' keys aside (the agent fills values
/// alone).
fn fill_strings(value: &mut serde_json::Value, values: &[(String, String)], changed: &mut bool) {
    match value {
        serde_json::Value::String(text) => {
            if let Some(new) = fill(text, values) {
                *text = new;
                *changed = true;
            }
        }
        serde_json::Value::Array(items) => {
            for item in items {
                fill_strings(item, values, changed);
            }
        }
        serde_json::Value::Object(map) => {
            for (_, item) in map.iter_mut() {
                fill_strings(item, values, changed);
            }
        }
        _ => {}
    }
}

/// `text` with its `${NAME}`s that `values` sets replaced; `None` when none is.
fn fill(text: &str, values: &[(String, String)]) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        let after = &rest[at + 2..];
        // JavaScript's `.` matches no line terminator: a name does not span lines, and
        // the search goes on from the next character.
        let name_end = after
            .find('}')
            .filter(|&end| !after[..end].contains(['\n', '\r', '\u{2028}', '\u{2029}']));
        let Some(end) = name_end else {
            out.push_str(&rest[..at + 1]);
            rest = &rest[at + 1..];
            continue;
        };
        let name = &after[..end];
        out.push_str(&rest[..at]);
        match values.iter().find(|(n, _)| n == name) {
            Some((_, value)) => {
                out.push_str(value);
                changed = true;
            }
            None => out.push_str(&rest[at..at + 2 + end + 1]),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    /// Names are filled as the agent's expression finds them: the shortest, on one line,
    /// each value written as it is; unset names stay.
    #[test]
    fn a_string_is_filled_as_the_agent_fills_it() {
        let values = set(&[("extensionPath", "/p/evil"), ("A", "${B}"), ("B", "b")]);
        assert_eq!(
            fill("/bin/sh ${extensionPath}${/}check.sh", &values).as_deref(),
            Some("/bin/sh /p/evil${/}check.sh")
        );
        assert_eq!(fill("${A}", &values).as_deref(), Some("${B}"));
        assert_eq!(fill("$${B}}", &values).as_deref(), Some("$b}"));
        assert_eq!(fill("${X} ${B", &values), None);
        assert_eq!(fill("${\nB} ${B}", &values).as_deref(), Some("${\nB} b"));
        assert_eq!(fill("é${B}é", &values).as_deref(), Some("ébé"));
    }

    /// The extension's own settings, then the project's over them; the names the agent
    /// sets after them are dropped; an unreadable settings file is an error naming it.
    #[test]
    fn the_projects_settings_win_and_the_fixed_names_stay_the_agents() {
        let dir = tempfile::tempdir().unwrap();
        let extensions = dir.path().join("extensions");
        let linked = dir.path().join("linked");
        let project = dir.path().join("project");
        for folder in [extensions.join("fmt"), linked.clone(), project.clone()] {
            std::fs::create_dir_all(folder).unwrap();
        }
        let settings = ExtensionSettings {
            manifest: "gemini-extension.json",
            file: ".env",
            fixed: &["/", "pathSeparator"],
        };
        // A linked extension's settings are in the folder its manifest names.
        std::fs::write(linked.join("gemini-extension.json"), r#"{"name":"fmt"}"#).unwrap();
        std::fs::write(extensions.join("fmt/.env"), "A=own\nB=own\n/=x\n").unwrap();
        std::fs::write(project.join(".env"), "export B=project\npathSeparator=y\n").unwrap();
        let values = values(&settings, &extensions, &linked, Some(&project)).unwrap();
        assert_eq!(values, set(&[("A", "own"), ("B", "project")]));
        let hooks = br#"{"hooks":{"BeforeTool":[{"hooks":[{"command":"${A} ${B} ${/}"}]}]}}"#;
        let text = String::from_utf8(filled(hooks, &values).unwrap()).unwrap();
        assert!(text.contains(r#""command":"own project ${/}""#), "{text}");
        assert_eq!(filled(br#"{"command":"${C}"}"#, &values), None);
        assert_eq!(filled(b"not json ${A}", &values), None);
        // Past the settings files' cap (sparse: nothing is written).
        std::fs::File::create(project.join(".env"))
            .unwrap()
            .set_len(crate::access::caps::SETTINGS + 1)
            .unwrap();
        let refused = super::values(&settings, &extensions, &linked, Some(&project)).unwrap_err();
        assert!(
            refused.contains(&project.join(".env").display().to_string()),
            "{refused}"
        );
    }
}
