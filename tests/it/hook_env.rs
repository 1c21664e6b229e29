//! The hooks' environment through the real binary: credential-looking variables are
//! withheld from host and boxed hooks alike, `[sandbox] keep_env` passes a name through,
//! `remove_env` withholds more, and bad entries are load errors.

use crate::support;
use std::collections::BTreeMap;

use crate::support::{Scene, sh_hook};

/// What reached hooks (docs/threats.md#f21), with values that look real.
const REVIEW_FOUND: &[(&str, &str)] = &[
    ("GITHUB_TOKEN", "ghp_review"),
    ("GH_TOKEN", "gho_review"),
    ("NPM_TOKEN", "npm_review"),
    ("HUGGING_FACE_HUB_TOKEN", "hf_review"),
    ("SLACK_BOT_TOKEN", "xoxb-review"),
    ("API_KEY", "review"),
    ("OPENAI_KEY", "sk-review"),
    ("ANTHROPIC_KEY", "sk-ant-review"),
    ("COHERE_API_KEY_V2", "review"),
    ("OPENAI_API_KEY_OLD", "sk-review-old"),
    ("DATABASE_URL", "postgres://app:hunter2@db:5432/app"),
];

/// The variables a hook printed with `env`, from the block message.
fn hook_env(v: &serde_json::Value) -> BTreeMap<String, String> {
    let message = v["message"].as_str().unwrap_or_else(|| panic!("{v}"));
    let printed = message
        .strip_prefix("blocked by the user's hook \"env\": ")
        .unwrap_or_else(|| panic!("{message}"));
    printed
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Runs one gate whose only hook prints its environment; `sandbox` says where it runs.
fn printed_env(scene: &Scene, extra_args: &[&str], sandbox: bool) -> BTreeMap<String, String> {
    // Only the variables the test looks at: a reason is cut to its first characters.
    let mut names: Vec<&str> = REVIEW_FOUND.iter().map(|(k, _)| *k).collect();
    names.extend([
        "HOOK_TEST_KEPT_TOKEN",
        "CORP_INTERNAL_SETTING",
        "VAULT_ADDR",
        "HOOK_TEST_PLAIN",
        "HOOK_TEST_PLAIN_URL",
        "PWD",
    ]);
    let script = scene.script(
        "env.sh",
        &format!("env | grep -E '^({})=' >&2; exit 2", names.join("|")),
    );
    let config = format!(
        "{}\n[sandbox]\nkeep_env = [\"HOOK_TEST_KEPT_TOKEN\"]\nremove_env = [\"CORP_*\", \"VAULT_ADDR\"]\n",
        sh_hook("env", &script, &format!("sandbox = {sandbox}")),
    );
    scene.write_config(&config);
    let mut cmd = scene.hookhost();
    for (k, v) in REVIEW_FOUND {
        cmd.env(k, v);
    }
    let out = cmd
        .env("HOOK_TEST_KEPT_TOKEN", "kept")
        .env("CORP_INTERNAL_SETTING", "corp")
        .env("VAULT_ADDR", "https://vault.corp")
        .env("HOOK_TEST_PLAIN", "plain")
        .env("HOOK_TEST_PLAIN_URL", "postgres://app@db/app")
        .args(extra_args)
        .args(["pre-tool-use", "--json", "--tool", "bash", "--input", "{}"])
        .output()
        .unwrap();
    hook_env(&support::verdict(&out))
}

fn assert_scrubbed(env: &BTreeMap<String, String>, where_: &str) {
    for (k, _) in REVIEW_FOUND {
        assert!(
            !env.contains_key(*k),
            "{where_}: {k} reached the hook: {env:?}"
        );
    }
    assert!(
        !env.contains_key("CORP_INTERNAL_SETTING"),
        "{where_}: {env:?}"
    );
    assert!(!env.contains_key("VAULT_ADDR"), "{where_}: {env:?}");
    assert_eq!(
        env.get("HOOK_TEST_KEPT_TOKEN").map(String::as_str),
        Some("kept")
    );
    assert_eq!(
        env.get("HOOK_TEST_PLAIN").map(String::as_str),
        Some("plain")
    );
    assert_eq!(
        env.get("HOOK_TEST_PLAIN_URL").map(String::as_str),
        Some("postgres://app@db/app"),
        "{where_}: a URL without a password is not a secret"
    );
}

#[test]
fn a_host_hook_gets_no_credential_looking_variable() {
    let scene = Scene::new();
    let env = printed_env(&scene, &["--no-sandbox"], false);
    assert_scrubbed(&env, "host hook");
}

#[test]
fn a_boxed_hook_gets_no_credential_looking_variable() {
    let test = "a_boxed_hook_gets_no_credential_looking_variable";
    if !support::bwrap_or_skip(test) {
        return;
    }
    let scene = Scene::new();
    let env = printed_env(&scene, &[], true);
    assert_scrubbed(&env, "boxed hook");
    // It ran in the box: bwrap sets PWD to the project.
    let project = std::fs::canonicalize(&scene.project).unwrap();
    assert_eq!(env.get("PWD").map(String::as_str), project.to_str());
}

#[test]
fn hookhost_box_gets_the_same_environment() {
    let test = "hookhost_box_gets_the_same_environment";
    if !support::bwrap_or_skip(test) {
        return;
    }
    let scene = Scene::new();
    scene.write_config("[sandbox]\nkeep_env = [\"HOOK_TEST_KEPT_TOKEN\"]\n");
    let mut cmd = scene.hookhost();
    for (k, v) in REVIEW_FOUND {
        cmd.env(k, v);
    }
    let out = cmd
        .env("HOOK_TEST_KEPT_TOKEN", "kept")
        .args(["box", "--", "env"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (k, _) in REVIEW_FOUND {
        assert!(
            !stdout.lines().any(|l| l.starts_with(&format!("{k}="))),
            "{k}: {stdout}"
        );
    }
    assert!(
        stdout.lines().any(|l| l == "HOOK_TEST_KEPT_TOKEN=kept"),
        "{stdout}"
    );
}

#[test]
fn bad_keep_env_and_remove_env_entries_are_load_errors() {
    let scene = Scene::new();
    scene.write_config(
        "[sandbox]\nkeep_env = [\"GH_*\", \"\"]\nremove_env = [\"A=B\", \"X**\", \"OK_*\", 3]\n",
    );
    let out = scene
        .hookhost()
        .args(["--no-sandbox", "check"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let file = scene.config.display();
    for line in [
        format!(
            "{file}: [sandbox] keep_env entry \"GH_*\" is a pattern: keep_env takes exact names, so that no credential passes unnoticed"
        ),
        format!("{file}: [sandbox] keep_env entry \"\" is empty"),
        format!(
            "{file}: [sandbox] remove_env entry \"A=B\" holds \"=\", which no variable name can hold"
        ),
        format!(
            "{file}: [sandbox] remove_env entry \"X**\" has \"**\": one \"*\" already matches any run of characters"
        ),
        format!(
            "{file}: [sandbox] remove_env must be a list of variable names or patterns such as \"CORP_*\", and 3 is not a string"
        ),
    ] {
        assert!(
            stderr.lines().any(|l| l == line),
            "missing {line:?} in:\n{stderr}"
        );
    }
    assert_eq!(stderr.lines().count(), 5, "{stderr}");
}

/// Security review N14: credentials the old rules let through, by name and by value
/// shape, with values that look real; and ordinary variables that must still arrive.
const N14_WITHHELD: &[(&str, &str)] = &[
    ("MYSQL_PWD", "n14-mysql"),
    ("DB_PASS", "n14-db"),
    ("SMTP_PASS", "n14-smtp"),
    ("GPG_PASSPHRASE", "n14-gpg"),
    ("HTTPS_PROXY", "http://user:n14proxy@proxy:3128"),
    ("NPM_CONFIG__AUTH", "bjE0OmF1dGg="),
    ("DOCKER_AUTH_CONFIG", "{\"auths\":{}}"),
    ("CI_JOB_JWT", "n14-jwt"),
    ("BW_SESSION", "n14-bitwarden"),
    (
        "AZURE_STORAGE_CONNECTION_STRING",
        "AccountName=a;AccountKey=n14key==;EndpointSuffix=core.windows.net",
    ),
    ("JDBC_URL", "jdbc:mysql://db/app?user=u&password=n14jdbc"),
    ("MYSQL_DSN", "root:n14dsn@tcp(127.0.0.1:3306)/app"),
    ("DATABASE_URL_RO", "postgres://ro:n14ro@db/app"),
    (
        "HOOK_TEST_BEARER",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJuMTQifQ.c2lnbmF0dXJl",
    ),
];

const N14_KEPT: &[(&str, &str)] = &[
    ("http_proxy", "http://proxy:3128"),
    ("GIT_AUTHOR_NAME", "Dana Scully"),
    ("PASSWORD_STORE_DIR", "/home/dana/.password-store"),
    ("DESKTOP_SESSION", "ubuntu"),
    ("HOOK_TEST_DB_URL", "postgres://app@db/app"),
];

/// What a host hook sees of [`N14_WITHHELD`] and [`N14_KEPT`], with `keep_env` as given.
fn n14_seen(scene: &Scene, keep_env: &[&str]) -> BTreeMap<String, String> {
    let seen = scene.root.path().join("seen.env");
    let _ = std::fs::remove_file(&seen);
    let script = scene.script("env.sh", &format!("env > '{}'", seen.display()));
    let keep: Vec<String> = keep_env.iter().map(|k| format!("{k:?}")).collect();
    scene.write_config(&format!(
        "{}\n[sandbox]\nkeep_env = [{}]\n",
        sh_hook("env", &script, "sandbox = false"),
        keep.join(", ")
    ));
    let mut cmd = scene.hookhost();
    for (k, v) in N14_WITHHELD.iter().chain(N14_KEPT) {
        cmd.env(k, v);
    }
    let out = cmd
        .args(["--no-sandbox", "pre-tool-use", "--json"])
        .args(["--tool", "bash", "--input", "{}"])
        .output()
        .unwrap();
    assert_eq!(support::verdict(&out)["outcome"], "allow", "{out:?}");
    std::fs::read_to_string(&seen)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn credentials_by_name_and_by_value_shape_are_withheld_unless_kept() {
    let scene = Scene::new();
    let env = n14_seen(&scene, &[]);
    for (k, _) in N14_WITHHELD {
        assert!(!env.contains_key(*k), "{k} reached the hook: {env:?}");
    }
    for (k, v) in N14_KEPT {
        assert_eq!(env.get(*k).map(String::as_str), Some(*v), "{k}: {env:?}");
    }
    // `keep_env` is the way back, for each of them.
    let names: Vec<&str> = N14_WITHHELD.iter().map(|(k, _)| *k).collect();
    let env = n14_seen(&scene, &names);
    for (k, v) in N14_WITHHELD.iter().chain(N14_KEPT) {
        assert_eq!(env.get(*k).map(String::as_str), Some(*v), "{k}: {env:?}");
    }
}
