//! `hookhost install AGENT --scope system` through the binary, as root, inside a private
//! mount namespace whose `/etc` is a copy: the machine's own `/etc` is never touched
//! (docs/system-scope.md). Without root these tests are SKIPPED; under CI
//! (`HOOKHOST_REQUIRE_ROOT`) that is a failure.

use crate::support::SystemRoot;

/// Runs `script` (sh) as root in `root`'s private mount namespace (a copy of `/etc`), with
/// `$BIN` the hookhost binary and `$ROOT` a folder `nobody` can reach. Returns its stdout
/// and stderr, with the exit status of each step in its own lines.
fn in_private_etc(root: &SystemRoot, script: &str) -> String {
    let output = root
        .command("sh")
        .args(["-c", script])
        .env("BIN", root.hookhost())
        .env("ROOT", root.dir.path())
        .env("HOME", &root.home)
        .output()
        .unwrap_or_else(|e| panic!("unshare: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(output.status.code(), Some(0), "{text}");
    text
}

#[test]
fn a_system_install_writes_the_managed_file_root_owned_0644_and_uninstall_removes_only_ours() {
    let test = "a_system_install_writes_the_managed_file_root_owned_0644";
    let Some(root) = SystemRoot::new(test) else {
        return;
    };
    let admins = r#"{"permissions":{"deny":["Bash(curl:*)"]}}"#;
    let out = in_private_etc(
        &root,
        &format!(
            r#"
F=/etc/claude-code/managed-settings.json
rm -rf /etc/claude-code
"$BIN" install claude-code --scope system; echo "first rc=$?"
echo "owner+mode $(stat -c '%u %a' "$F") folder $(stat -c '%u %a' /etc/claude-code)"
echo "registered: $(grep -c -- "bridge --agent claude-code --system" "$F")"
"$BIN" install claude-code --scope system; echo "second rc=$?"
setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$ROOT" "$BIN" install claude-code --scope system; echo "nobody rc=$?"
setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$ROOT" "$BIN" uninstall claude-code --scope system --dry-run; echo "nobody dry run rc=$?"
"$BIN" uninstall claude-code --scope system; echo "uninstall rc=$?"
test -e "$F" && echo "file left" || echo "file gone"
printf '%s\n' '{admins}' > "$F"
"$BIN" install claude-code --scope system >/dev/null; echo "over the admin's rc=$?"
"$BIN" uninstall claude-code --scope system >/dev/null; echo "uninstall again rc=$?"
echo "left: $(tr -d '\n' < "$F")"
"$BIN" install copilot --scope system; echo "copilot rc=$?"
"#
        ),
    );
    for expected in [
        "first rc=0",
        "owner+mode 0 644 folder 0 755",
        "registered: 3",
        "already installed for Claude Code in /etc/claude-code/managed-settings.json; nothing to change",
        "second rc=0",
        "run it as root",
        "nobody rc=2",
        "Dry run: nothing is written.",
        "nobody dry run rc=0",
        "uninstall rc=0",
        "file gone",
        "over the admin's rc=0",
        "uninstall again rc=0",
        "Copilot CLI has no system scope",
        "copilot rc=2",
    ] {
        assert!(out.contains(expected), "{expected:?} not in:\n{out}");
    }
    let left = out
        .lines()
        .find_map(|l| l.strip_prefix("left: "))
        .unwrap_or_default();
    let left: serde_json::Value = serde_json::from_str(left).unwrap_or_default();
    let admins: serde_json::Value = serde_json::from_str(admins).unwrap_or_default();
    assert_eq!(left, admins, "{out}");
}
