//! Every way found to switch an agent's hooks off at user and project scope
//! (docs/agents.md, each agent's "switch-offs" table; docs/threats.md#r7), each made the
//! way an agent's shell would make it after `hookhost install AGENT`, and what
//! `hookhost doctor --json` says of it: the registration drifted, or a switch-off listed,
//! the detail naming the key, and the report unhealthy (exit 1). Before each move the same
//! report is healthy for that agent, so the move is what doctor sees; after it, `install`
//! run again restores the registration it wrote (or, for a move only the user may undo,
//! leaves doctor reporting it), and never pins the switched-off state.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{Scene, run};

/// A home of its own and a project, with hookhost installed for one agent.
struct Machine {
    scene: Scene,
    home: PathBuf,
}

impl Machine {
    fn new() -> Machine {
        let scene = Scene::new();
        let home = scene.root.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        scene.write_config("");
        Machine { scene, home }
    }

    fn hookhost(&self) -> Command {
        let mut cmd = self.scene.hookhost();
        cmd.env("HOME", &self.home)
            .current_dir(&self.scene.project)
            // No agent program on PATH: install writes the settings as for any version.
            .env("PATH", "/usr/bin:/bin");
        for folder in [
            "CODEX_HOME",
            "COPILOT_HOME",
            "KIMI_CODE_HOME",
            "GEMINI_CLI_HOME",
            "QWEN_HOME",
        ] {
            cmd.env_remove(folder);
        }
        cmd
    }

    fn doctor(&self) -> (i32, Value) {
        let (code, stdout, stderr) = run(self.hookhost().args(["doctor", "--json"]));
        let report = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("doctor --json: {e}\n{stdout}\n{stderr}"));
        (code, report)
    }

    fn file(&self, relative: &str) -> PathBuf {
        self.home.join(relative)
    }

    fn project_file(&self, relative: &str) -> PathBuf {
        let path = self.scene.project.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        path
    }
}

/// What doctor says about `agent`: its registrations' (state, detail) and its switch-offs.
fn about(report: &Value, agent: &str) -> (Vec<(String, String)>, Vec<String>) {
    let entry = report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["agent"] == agent)
        .unwrap_or_else(|| panic!("no {agent} in {report}"));
    let registrations = entry["registrations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["state"].as_str().unwrap().to_string(),
                r["detail"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let switch_offs = entry["switch_offs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect();
    (registrations, switch_offs)
}

fn edit(path: &Path, change: impl FnOnce(String) -> String) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    std::fs::write(path, change(text)).unwrap();
}

/// One move: the agent, what it does, and the words doctor's detail must hold.
struct Move {
    agent: &'static str,
    what: &'static str,
    make: fn(&Machine),
    says: &'static str,
}

/// What `hookhost install AGENT`, run again after the move, does.
#[derive(PartialEq)]
enum Again {
    /// Puts the registration back as it wrote it, and doctor is healthy for the agent.
    Restores,
    /// Leaves it to the user: the move is in the project's own settings (doctor goes on
    /// naming it), or in a table or mode not install's to remove (Kimi Code's, Qwen Code's),
    /// which install refuses with exit 2 rather than pin.
    LeavesToTheUser,
}

impl Move {
    fn again(&self) -> Again {
        if self.says.contains(" sets ")
            || self.says.contains("DO_NOT_TRUST")
            || self.says.contains("key the agent does not know")
            || self.says.contains("integer beyond")
            || self.says.contains("a settings file")
            // A mode of the user's: install names it and registers nothing behind it.
            || self.says.ends_with("mode)")
            || self.says.ends_with("sandbox)")
        {
            Again::LeavesToTheUser
        } else {
            Again::Restores
        }
    }
}

fn moves() -> Vec<Move> {
    fn json_set(path: &Path, key: &str, value: Value) {
        edit(path, |text| {
            let mut settings: Value = serde_json::from_str(&text).unwrap();
            settings[key] = value;
            settings.to_string()
        });
    }
    vec![
        Move {
            agent: "claude-code",
            what: "disableAllHooks in the user's settings",
            make: |m| {
                json_set(
                    &m.file(".claude/settings.json"),
                    "disableAllHooks",
                    true.into(),
                )
            },
            says: "is switched off by \"disableAllHooks\": true",
        },
        Move {
            agent: "claude-code",
            what: "disableAllHooks in the project's settings.local.json",
            make: |m| {
                std::fs::write(
                    m.project_file(".claude/settings.local.json"),
                    "{\"disableAllHooks\": true}",
                )
                .unwrap()
            },
            says: "settings.local.json sets \"disableAllHooks\": true",
        },
        Move {
            agent: "claude-code",
            what: "disableAllHooks in the project's settings.json",
            make: |m| {
                std::fs::write(
                    m.project_file(".claude/settings.json"),
                    "{\"disableAllHooks\": true}",
                )
                .unwrap()
            },
            says: ".claude/settings.json sets \"disableAllHooks\": true",
        },
        Move {
            agent: "claude-code",
            what: "disableAllHooks in a project settings.json larger than hookhost reads",
            make: |m| {
                let padding = "x".repeat(17 << 20);
                std::fs::write(
                    m.project_file(".claude/settings.json"),
                    format!("{{\"disableAllHooks\": true, \"padding\": \"{padding}\"}}"),
                )
                .unwrap()
            },
            says: ".claude/settings.json, a settings file Claude Code reads: it is larger than 16 MiB",
        },
        Move {
            agent: "claude-code",
            what: "disableAllHooks beside a string hookhost's JSON parser refuses",
            make: |m| {
                std::fs::write(
                    m.project_file(".claude/settings.local.json"),
                    "{\"note\": \"\\ud800\", \"disableAllHooks\": true}",
                )
                .unwrap()
            },
            says: ".claude/settings.local.json, a settings file Claude Code reads: it is malformed JSON",
        },
        Move {
            agent: "claude-code",
            what: "hookhost's PreToolUse group removed",
            make: |m| {
                edit(&m.file(".claude/settings.json"), |text| {
                    let mut settings: Value = serde_json::from_str(&text).unwrap();
                    settings["hooks"]
                        .as_object_mut()
                        .unwrap()
                        .remove("PreToolUse");
                    settings.to_string()
                })
            },
            says: "was changed",
        },
        Move {
            agent: "claude-code",
            what: "the whole registration removed",
            make: |m| std::fs::write(m.file(".claude/settings.json"), "{}").unwrap(),
            says: "was removed",
        },
        Move {
            agent: "codex",
            what: "[features] hooks = false",
            make: |m| {
                edit(&m.file(".codex/config.toml"), |t| {
                    format!("[features]\nhooks = false\n\n{t}")
                })
            },
            says: "[features] hooks = false",
        },
        Move {
            agent: "codex",
            what: "enabled = false in the handler's [hooks.state] table, as /hooks writes it",
            make: |m| {
                edit(&m.file(".codex/config.toml"), |t| {
                    t.replacen("trusted_hash =", "enabled = false\ntrusted_hash =", 1)
                })
            },
            says: "switched off by enabled = false in [hooks.state]",
        },
        Move {
            agent: "codex",
            what: "the handler's trust removed (never trusted in /hooks)",
            make: |m| {
                edit(&m.file(".codex/config.toml"), |t| {
                    t.lines()
                        .filter(|l| !l.starts_with("trusted_hash"))
                        .collect::<Vec<_>>()
                        .join("\n")
                })
            },
            says: "is switched off by a `trusted_hash` for hookhost's handler",
        },
        Move {
            agent: "codex",
            what: "the handler's trust replaced by a hash that is not its own (\"Modified\")",
            make: |m| {
                edit(&m.file(".codex/config.toml"), |t| {
                    t.lines()
                        .map(|l| match l.starts_with("trusted_hash") {
                            true => "trusted_hash = \"sha256:00\"",
                            false => l,
                        })
                        .collect::<Vec<_>>()
                        .join("\n")
                })
            },
            says: "is switched off by a `trusted_hash` for hookhost's handler",
        },
        Move {
            agent: "codex",
            what: "a profile the config selects, whose features switch hooks off",
            make: |m| {
                edit(&m.file(".codex/config.toml"), |t| {
                    format!("profile = \"q\"\n{t}\n\n[profiles.q.features]\nhooks = false\n")
                })
            },
            says: "is switched off by hooks = false in the [profiles.….features] table `profile` selects",
        },
        Move {
            agent: "codex",
            what: "a profile's features in the project's .codex/config.toml",
            make: |m| {
                std::fs::write(
                    m.project_file(".codex/config.toml"),
                    "profile = \"q\"\n\n[profiles.q.features]\nhooks = false\n",
                )
                .unwrap()
            },
            says: ".codex/config.toml sets hooks = false in the [profiles.….features] table `profile` selects",
        },
        Move {
            agent: "codex",
            what: "[features] hooks = false in the project's .codex/config.toml",
            make: |m| {
                std::fs::write(
                    m.project_file(".codex/config.toml"),
                    "[features]\nhooks = false\n",
                )
                .unwrap()
            },
            says: ".codex/config.toml sets [features] hooks = false",
        },
        Move {
            agent: "claude-code",
            what: "a PreToolUse hook that may rewrite a call, added to the user's settings",
            make: |m| {
                let file = m.file(".claude/settings.json");
                let mut settings: Value =
                    serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
                settings["hooks"]["PreToolUse"].as_array_mut().unwrap().push(
                    serde_json::json!({"matcher": "*", "hooks": [{"type": "command", "command": "/bin/sh fmt.sh"}]}),
                );
                std::fs::write(&file, settings.to_string()).unwrap();
            },
            says: "holds a PreToolUse hook that hookhost's `install` did not see (/bin/sh fmt.sh)",
        },
        Move {
            agent: "gemini",
            what: "a BeforeTool hook that may rewrite a call, in the project's settings",
            make: |m| {
                std::fs::write(
                    m.project_file(".gemini/settings.json"),
                    r#"{"hooks": {"BeforeTool": [{"matcher": "*", "hooks": [{"type": "command", "command": "/bin/sh fmt.sh"}]}]}}"#,
                )
                .unwrap()
            },
            says: "holds a BeforeTool hook that hookhost's `install` did not see (/bin/sh fmt.sh)",
        },
        Move {
            agent: "gemini",
            what: "hooksConfig.enabled = false",
            make: |m| {
                json_set(
                    &m.file(".gemini/settings.json"),
                    "hooksConfig",
                    serde_json::json!({"enabled": false}),
                )
            },
            says: "\"hooksConfig\": {\"enabled\": false}",
        },
        Move {
            agent: "gemini",
            what: "hooksConfig.disabled names hookhost",
            make: |m| {
                json_set(
                    &m.file(".gemini/settings.json"),
                    "hooksConfig",
                    serde_json::json!({"disabled": ["hookhost"]}),
                )
            },
            says: "\"hooksConfig\": {\"disabled\": [\"hookhost\"]}",
        },
        Move {
            agent: "gemini",
            what: "hooksConfig.enabled = false in the project's .gemini/settings.json",
            make: |m| {
                std::fs::write(
                    m.project_file(".gemini/settings.json"),
                    "{\"hooksConfig\": {\"enabled\": false}}",
                )
                .unwrap()
            },
            says: ".gemini/settings.json sets \"hooksConfig\": {\"enabled\": false}",
        },
        // B8: read as the agent reads it, or said to be unreadable.
        Move {
            agent: "gemini",
            what: "hooksConfig.enabled = false behind comments in the project's .gemini/settings.json",
            make: |m| {
                std::fs::write(
                    m.project_file(".gemini/settings.json"),
                    "// Gemini CLI strips comments\n{\"hooksConfig\": /* off */ {\"enabled\": false}}",
                )
                .unwrap()
            },
            says: ".gemini/settings.json sets \"hooksConfig\": {\"enabled\": false}",
        },
        Move {
            agent: "qwen-code",
            what: "disableAllHooks in the user's settings",
            make: |m| {
                json_set(
                    &m.file(".qwen/settings.json"),
                    "disableAllHooks",
                    true.into(),
                )
            },
            says: "is switched off by \"disableAllHooks\": true",
        },
        Move {
            agent: "qwen-code",
            what: "disableAllHooks in the project's .qwen/settings.json",
            make: |m| {
                std::fs::write(
                    m.project_file(".qwen/settings.json"),
                    "{\"disableAllHooks\": true}",
                )
                .unwrap()
            },
            says: ".qwen/settings.json sets \"disableAllHooks\": true",
        },
        // A folder Gemini CLI does not trust runs none of its hooks, the user's included.
        Move {
            agent: "gemini",
            what: "GEMINI_CLI_TRUST_WORKSPACE=false in the project's .gemini/.env",
            make: |m| {
                std::fs::write(
                    m.project_file(".gemini/.env"),
                    "# no trust\nexport GEMINI_CLI_TRUST_WORKSPACE=\"false\"\n",
                )
                .unwrap()
            },
            says: ".gemini/.env sets GEMINI_CLI_TRUST_WORKSPACE=false",
        },
        Move {
            agent: "gemini",
            what: "DO_NOT_TRUST for the project in ~/.gemini/trustedFolders.json",
            make: |m| {
                let project = m.project_file("");
                std::fs::write(
                    m.file(".gemini/trustedFolders.json"),
                    serde_json::json!({ project.to_str().unwrap(): "DO_NOT_TRUST" }).to_string(),
                )
                .unwrap()
            },
            says: "trustedFolders.json says DO_NOT_TRUST for this folder",
        },
        // Merged key by key over the user's, a `hooks` that is not an object replaces it.
        Move {
            agent: "gemini",
            what: "\"hooks\": [] in the project's .gemini/settings.json",
            make: |m| {
                std::fs::write(m.project_file(".gemini/settings.json"), "{\"hooks\": []}").unwrap()
            },
            says: ".gemini/settings.json sets \"hooks\" to something other than an object",
        },
        Move {
            agent: "qwen-code",
            what: "\"hooks\": null in the project's .qwen/settings.json",
            make: |m| {
                std::fs::write(m.project_file(".qwen/settings.json"), "{\"hooks\": null}").unwrap()
            },
            says: ".qwen/settings.json sets \"hooks\" to something other than an object",
        },
        // Qwen Code's modes without hooks: its bare and safe modes (a variable its `.env`
        // files or its settings' `env` set) and its shell sandbox.
        Move {
            agent: "qwen-code",
            what: "QWEN_CODE_SIMPLE=1 in the project's .env",
            make: |m| std::fs::write(m.project_file(".env"), "QWEN_CODE_SIMPLE=1\n").unwrap(),
            says: ".env sets QWEN_CODE_SIMPLE=1",
        },
        Move {
            agent: "qwen-code",
            what: "QWEN_CODE_SAFE_MODE in the user's settings' env",
            make: |m| {
                json_set(
                    &m.file(".qwen/settings.json"),
                    "env",
                    serde_json::json!({"QWEN_CODE_SAFE_MODE": "true"}),
                )
            },
            says: "is switched off by \"env\": {\"QWEN_CODE_SAFE_MODE\": …} (its safe mode)",
        },
        Move {
            agent: "qwen-code",
            what: "tools.executionSandbox in the user's settings",
            make: |m| {
                json_set(
                    &m.file(".qwen/settings.json"),
                    "tools",
                    serde_json::json!({"executionSandbox": {"backend": "auto"}}),
                )
            },
            says: "(its shell sandbox)",
        },
        Move {
            agent: "qwen-code",
            what: "QWEN_HOME moved in ~/.env",
            make: |m| std::fs::write(m.file(".env"), "QWEN_HOME=/srv/qwen-elsewhere\n").unwrap(),
            says: ".env sets QWEN_HOME=/srv/qwen-elsewhere",
        },
        Move {
            agent: "copilot",
            what: "disableAllHooks in hookhost's own hooks file",
            make: |m| {
                json_set(
                    &m.file(".copilot/hooks/hookhost.json"),
                    "disableAllHooks",
                    true.into(),
                )
            },
            says: "is switched off by \"disableAllHooks\": true",
        },
        Move {
            agent: "copilot",
            what: "the registration file deleted",
            make: |m| std::fs::remove_file(m.file(".copilot/hooks/hookhost.json")).unwrap(),
            says: "was removed",
        },
        Move {
            agent: "kimi-code",
            what: "a [[hooks]] table with a key Kimi Code does not know",
            make: |m| {
                edit(&m.file(".kimi-code/config.toml"), |t| {
                    format!(
                        "{t}\n[[hooks]]\nevent = \"Stop\"\ncommand = \"true\"\nfail_mode = \"closed\"\n"
                    )
                })
            },
            says: "a [[hooks]] table with a key the agent does not know",
        },
        Move {
            agent: "kimi-code",
            what: "an integer its TOML reader refuses, anywhere in the file",
            make: |m| {
                edit(&m.file(".kimi-code/config.toml"), |t| {
                    format!("{t}\n[raw]\nbig = 9007199254740993\n")
                })
            },
            says: "an integer beyond 2^53 - 1",
        },
        Move {
            agent: "kimi-code",
            what: "hookhost's tables' timeout lowered",
            make: |m| {
                edit(&m.file(".kimi-code/config.toml"), |t| {
                    t.replace("timeout = 30", "timeout = 1")
                })
            },
            says: "was changed",
        },
        Move {
            agent: "cursor",
            what: "the registration file emptied of hooks",
            make: |m| {
                std::fs::write(
                    m.file(".cursor/hooks.json"),
                    "{\"version\": 1, \"hooks\": {}}",
                )
                .unwrap()
            },
            says: "was removed",
        },
        Move {
            agent: "kiro",
            what: "hookhost's agent file deleted",
            make: |m| std::fs::remove_file(m.file(".kiro/agents/hookhost.json")).unwrap(),
            says: "was removed",
        },
    ]
}

/// One move on a fresh machine: healthy after install, then doctor names the move.
fn check(m: &Move) {
    let machine = Machine::new();
    let (code, _, stderr) = run(machine.hookhost().args(["install", m.agent]));
    assert_eq!(code, 0, "install {}: {stderr}", m.agent);
    let (_, before) = machine.doctor();
    let (registrations, switch_offs) = about(&before, m.agent);
    assert!(
        registrations.iter().any(|(state, _)| state == "pinned")
            && registrations.iter().all(|(state, _)| state != "drifted")
            && switch_offs.is_empty(),
        "{}: before the move: {registrations:?} {switch_offs:?}",
        m.agent
    );
    (m.make)(&machine);
    let (code, after) = machine.doctor();
    let (registrations, switch_offs) = about(&after, m.agent);
    let named = registrations
        .iter()
        .any(|(state, detail)| state == "drifted" && detail.contains(m.says))
        || switch_offs.iter().any(|s| s.contains(m.says));
    assert!(
        named,
        "{} ({}): doctor does not say {:?}: {registrations:?} {switch_offs:?}",
        m.agent, m.what, m.says
    );
    assert_eq!(after["healthy"], false, "{} ({})", m.agent, m.what);
    assert_eq!(code, 1, "{} ({}): doctor's exit code", m.agent, m.what);
    // install again: restores what it wrote and pins that, never the switched-off state.
    let (code, _, stderr) = run(machine.hookhost().args(["install", m.agent]));
    let (_, again) = machine.doctor();
    let (registrations, switch_offs) = about(&again, m.agent);
    let healthy = registrations.iter().any(|(state, _)| state == "pinned")
        && registrations.iter().all(|(state, _)| state != "drifted")
        && switch_offs.is_empty();
    match m.again() {
        Again::Restores => assert!(
            code == 0 && healthy,
            "{} ({}): install again: exit {code}, {stderr}; then {registrations:?} {switch_offs:?}",
            m.agent,
            m.what
        ),
        Again::LeavesToTheUser => assert!(
            !healthy && (code == 0 || stderr.contains("fix or remove that entry")),
            "{} ({}): install again: exit {code}, {stderr}; then {registrations:?} {switch_offs:?}",
            m.agent,
            m.what
        ),
    }
}

/// Every move of every agent (four at a time: each is two processes of doctor).
#[test]
fn doctor_json_names_every_switch_off_of_every_agent() {
    let moves = moves();
    for batch in moves.chunks(4) {
        std::thread::scope(|s| {
            for m in batch {
                s.spawn(move || check(m));
            }
        });
    }
    // Every agent hookhost installs for has at least one move here.
    for agent in hookhost::bridge::AgentKind::ALL.map(|a| a.flag_name()) {
        assert!(
            moves.iter().any(|m| m.agent == agent),
            "no move for {agent}"
        );
    }
}
