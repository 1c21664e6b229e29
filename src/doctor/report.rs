//! The report as text (one line per check, ✓ or ✗, with the command that fixes it) and
//! as JSON.

use super::*;

impl Report {
    /// Whether nothing calls for the user.
    pub fn healthy(&self) -> bool {
        let registrations_ok = self.agents.iter().all(|a| {
            a.registrations.iter().all(|r| {
                matches!(
                    r.state,
                    RegistrationState::Pinned | RegistrationState::NotInstalled
                )
            })
        });
        let own_files_ok = self
            .agents
            .iter()
            .all(|a| a.own_files.iter().all(|f| f.ok) && a.switch_offs.is_empty() && a.system.ok());
        registrations_ok
            && own_files_ok
            && self.missing().is_empty()
            && self.config.state != ConfigState::Unreadable
            && !self.hook_files.iter().any(|n| n.verdict.matters())
            && self.pins_problem.is_none()
            && self.sandbox.ok
            && self.wasm_cache.ok
            && self.warm.ok
            && self.records.broken.is_empty()
    }

    /// What hookhost still needs to do its job here: an agent to call it (`hookhost
    /// install AGENT` for each agent found), and a config file (where it goes).
    pub fn missing(&self) -> Vec<Missing> {
        let mut missing = Vec::new();
        let registered = self.agents.iter().any(|a| {
            a.system.registered
                || a.registrations
                    .iter()
                    .any(|r| r.state != RegistrationState::NotInstalled)
        });
        if !registered {
            let fixes: Vec<String> = self
                .agents
                .iter()
                .filter_map(|a| a.install.clone())
                .collect();
            let detail = if fixes.is_empty() {
                let programs: Vec<&str> = AgentKind::ALL
                    .into_iter()
                    .map(|a| a.declaration().program)
                    .collect();
                format!(
                    "hookhost is registered with no agent, so no agent asks it anything; and none of the agents it answers was found here (on PATH: {}; nor their settings folders). Install one, then run hookhost install AGENT",
                    programs.join(", ")
                )
            } else {
                "hookhost is registered with no agent, so no agent asks it anything".to_string()
            };
            missing.push(Missing {
                what: "agent",
                detail,
                fixes,
            });
        }
        if self.config.state == ConfigState::Missing {
            let fixes = match &self.config.file {
                Some(file) => vec![format!(
                    "write [[hooks]] in {} (README: \"Using it\"), then run hookhost check",
                    file.display()
                )],
                None => vec![
                    "set HOME (or HARNESS_HOME), or name a config with --config FILE".to_string(),
                ],
            };
            missing.push(Missing {
                what: "config",
                detail: self.config.detail.clone(),
                fixes,
            });
        }
        missing
    }

    /// The report as text, one line each.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for agent in &self.agents {
            let name = agent.agent.display_name();
            let found = agent
                .found
                .as_deref()
                .unwrap_or("not found on this machine");
            lines.push(format!("{name}: {found}"));
            for r in &agent.registrations {
                let mark = match r.state {
                    RegistrationState::Pinned => "✓",
                    RegistrationState::NotInstalled => "-",
                    _ => "✗",
                };
                lines.push(format!(
                    "  {mark} {} scope, {}: {}",
                    r.scope,
                    r.file.display(),
                    r.detail
                ));
            }
            lines.extend(system_lines(agent));
            for own in &agent.own_files {
                lines.push(format!(
                    "  {} {} {}: {}",
                    mark(own.ok),
                    own.what,
                    own.file.display(),
                    own.detail
                ));
            }
            for switch_off in &agent.switch_offs {
                lines.push(format!("  ✗ {switch_off}"));
            }
            if let Some(command) = &agent.install {
                lines.push(format!("  to use hookhost with it: {command}"));
            }
            if agent
                .registrations
                .iter()
                .any(|r| r.state != RegistrationState::NotInstalled)
            {
                lines.push(format!(
                    "  when hookhost cannot answer: {}",
                    agent.when_hookhost_cannot_answer
                ));
            }
        }
        lines.extend(unmapped_tool_lines());
        if let Some(problem) = &self.pins_problem {
            lines.push(format!("✗ pins: {problem}"));
        }
        let missing = self.missing();
        if let Some(agents) = missing.iter().find(|m| m.what == "agent") {
            lines.push(with_fixes(
                &format!("✗ agents: {}", agents.detail),
                &agents.fixes,
            ));
        }
        let config = &self.config;
        let shown = config
            .file
            .as_ref()
            .map(|f| format!(" {}", f.display()))
            .unwrap_or_default();
        lines.push(match config.state {
            ConfigState::Hooks => format!("✓ config{shown}: {}", config.detail),
            ConfigState::NoHooks => format!("- config{shown}: {}", config.detail),
            ConfigState::Unreadable => format!("✗ config{shown}: {}", config.detail),
            ConfigState::Missing => {
                let fixes = missing
                    .iter()
                    .find(|m| m.what == "config")
                    .map(|m| m.fixes.as_slice())
                    .unwrap_or_default();
                with_fixes(&format!("✗ config: {}", config.detail), fixes)
            }
        });
        for note in &self.hook_files {
            let ok = !note.verdict.matters();
            lines.push(format!(
                "{} hook {}: {}",
                mark(ok),
                note.hook,
                link_line(note)
            ));
        }
        let check = |what: &str, c: &Check| format!("{} {what}: {}", mark(c.ok), c.detail);
        lines.push(check("box", &self.sandbox));
        lines.push(check("WASM cache", &self.wasm_cache));
        lines.push(check("warm server", &self.warm));
        let records = &self.records;
        lines.push(format!(
            "{} session records: {} most recent checked, {} broken, {} written before the chain",
            mark(records.broken.is_empty()),
            records.checked,
            records.broken.len(),
            records.unchained
        ));
        for (file, why) in &records.broken {
            lines.push(format!(
                "  ✗ {}: the hash chain breaks at {why}",
                file.display()
            ));
        }
        lines.push(if self.healthy() {
            "healthy".to_string()
        } else {
            "not healthy: see the lines marked ✗".to_string()
        });
        lines
    }

    /// The report as JSON, for scripts.
    pub fn to_json(&self) -> Value {
        let agents: Vec<Value> = self
            .agents
            .iter()
            .map(|a| {
                json!({
                    "agent": a.agent.flag_name(),
                    "found": a.found,
                    "registrations": a.registrations.iter().map(|r| json!({
                        "scope": r.scope.name(),
                        "file": r.file,
                        "state": r.state.name(),
                        "detail": r.detail,
                    })).collect::<Vec<_>>(),
                    "when_hookhost_cannot_answer": a.when_hookhost_cannot_answer,
                    "install": a.install,
                    "own_files": a.own_files.iter().map(|f| json!({
                        "what": f.what,
                        "file": f.file,
                        "ok": f.ok,
                        "detail": f.detail,
                    })).collect::<Vec<_>>(),
                    "switch_offs": a.switch_offs,
                    "in_force": a.system.in_force(&a.registrations),
                    "system": {
                        "file": a.system.file,
                        "none_because": a.system.none_because,
                        "registered": a.system.registered,
                        "as_installed": a.system.as_installed,
                        "weakened": a.system.weakened,
                        "could_weaken": a.system.could_weaken,
                    },
                })
            })
            .collect();
        json!({
            "healthy": self.healthy(),
            "agents": agents,
            "pins_problem": self.pins_problem,
            "box": {"ok": self.sandbox.ok, "detail": self.sandbox.detail},
            "wasm_cache": {"ok": self.wasm_cache.ok, "detail": self.wasm_cache.detail},
            "warm": {"ok": self.warm.ok, "detail": self.warm.detail},
            "missing": self.missing().iter().map(|m| json!({
                "what": m.what, "detail": m.detail, "fix": m.fixes,
            })).collect::<Vec<_>>(),
            "config": {
                "file": self.config.file,
                "state": self.config.state.name(),
                "hooks": self.config.hooks,
                "detail": self.config.detail,
            },
            "hook_files": self.hook_files.iter().map(|n| json!({
                "hook": n.hook,
                "program": n.subject,
                "path": n.path,
                "names": n.links,
                "matters": n.verdict.matters(),
                "detail": link_line(n),
            })).collect::<Vec<_>>(),
            "records": {
                "checked": self.records.checked,
                "unchained": self.records.unchained,
                "broken": self.records.broken.iter().map(|(file, why)| json!({
                    "file": file, "where": why,
                })).collect::<Vec<_>>(),
            },
        })
    }
}

/// The system scope's lines for one agent: its file and registration, which scope is in
/// force, what weakens it; nothing for an agent not found here and not registered there.
fn system_lines(agent: &AgentReport) -> Vec<String> {
    let system = &agent.system;
    let flag = agent.agent.flag_name();
    let mut lines = Vec::new();
    match (&system.file, system.none_because) {
        (Some(file), _) if system.registered => {
            let in_force = system.in_force(&agent.registrations);
            let detail = if system.as_installed {
                format!("hookhost is registered (in force: {in_force})")
            } else {
                format!(
                    "hookhost is registered, but not as `hookhost install {flag} --scope system` writes it: run that as root"
                )
            };
            lines.push(format!(
                "  {} system scope, {}: {detail}",
                mark(system.ok()),
                file.display()
            ));
            lines.extend(system.weakened.iter().map(|w| format!("  ✗ {w}")));
            lines.extend(
                system
                    .could_weaken
                    .iter()
                    .map(|w| format!("  ! a user could weaken it: {w}")),
            );
        }
        (Some(file), _) if agent.found.is_some() => lines.push(format!(
            "  - system scope, {}: not registered (`hookhost install {flag} --scope system`, as root)",
            file.display()
        )),
        (None, Some(reason)) if agent.found.is_some() => {
            lines.push(format!("  - system scope: none: {reason}"))
        }
        _ => {}
    }
    lines
}

/// One line per agent naming the tools it offers that have no hookhost name: a hook
/// with `tools = [...]` never runs for them (docs/agents.md#tools-with-no-hookhost-name).
pub(super) fn unmapped_tool_lines() -> Vec<String> {
    crate::bridge::tools::unmapped_lines()
        .into_iter()
        .map(|line| format!("- tools: {line}"))
        .collect()
}

pub(super) fn mark(ok: bool) -> &'static str {
    if ok { "✓" } else { "✗" }
}

/// `PROGRAM has N names (hard links)`, then whether that matters and why.
pub(super) fn link_line(note: &LinkNote) -> String {
    let sep = if note.verdict.matters() { "," } else { ";" };
    format!(
        "{} has {} names (hard links){sep} {}",
        note.subject, note.links, note.verdict
    )
}

/// `line`, then `. To fix it, run: A, or B` (or `. To fix it: STEP`), when there are fixes.
pub(super) fn with_fixes(line: &str, fixes: &[String]) -> String {
    match fixes {
        [] => line.to_string(),
        [fix] if !fix.starts_with("hookhost ") => format!("{line}. To fix it: {fix}"),
        _ => format!("{line}. To fix it, run: {}", fixes.join(", or ")),
    }
}
