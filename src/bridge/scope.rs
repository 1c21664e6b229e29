//! How `hookhost bridge --system` joins its two sessions' answers: the administrator's
//! (the system config) and the user's own `[[hooks]]`, run after it
//! (docs/contract.md#system-mode). The one place the rule lives: the user's hooks can add
//! policy, never remove it.

use super::Ruling;

/// The answer of a call judged by the system session (`system`) and then the user's
/// (`user`; `None` when the system session blocked and the user's was not run).
///
/// - A block from either blocks; the system's comes first, so when it blocks its reason
///   is the answer and the user's hooks are not asked at all.
/// - Otherwise the user's block is the answer (a broken user config is such a block: the
///   user's session refused to start).
/// - With no block, contexts are joined system first, by a blank line as within one
///   session, and so are the hooks that gave them.
/// - Warnings are kept from both, system first.
pub fn combine(system: Ruling, user: Option<Ruling>) -> Ruling {
    let Some(user) = user else {
        return system;
    };
    let mut warnings = system.warnings;
    warnings.extend(user.warnings);
    if system.block.is_some() {
        return Ruling { warnings, ..system };
    }
    if user.block.is_some() {
        return Ruling { warnings, ..user };
    }
    let context = match (system.context, user.context) {
        (Some(s), Some(u)) => Some(format!("{s}\n\n{u}")),
        (s, u) => s.or(u),
    };
    let mut context_hooks = system.context_hooks;
    context_hooks.extend(user.context_hooks);
    Ruling {
        block: None,
        context,
        context_hooks,
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context(text: &str, hook: &str) -> Ruling {
        Ruling {
            context: Some(text.into()),
            context_hooks: vec![hook.into()],
            warnings: vec![format!("w-{hook}")],
            ..Ruling::default()
        }
    }

    #[test]
    fn a_system_block_is_the_answer() {
        let system = Ruling::block("system says no");
        let out = combine(system, Some(Ruling::block("user says no")));
        assert_eq!(out.block.as_deref(), Some("system says no"));
        assert_eq!(
            combine(Ruling::block("s"), None).block.as_deref(),
            Some("s")
        );
    }

    #[test]
    fn a_user_block_after_a_system_allow_blocks() {
        let out = combine(context("sys", "a"), Some(Ruling::block("user says no")));
        assert_eq!(out.block.as_deref(), Some("user says no"));
        assert_eq!(out.context, None);
        assert_eq!(out.warnings, ["w-a"]);
    }

    #[test]
    fn contexts_join_system_first() {
        let out = combine(context("sys", "a"), Some(context("usr", "b")));
        assert_eq!(out.block, None);
        assert_eq!(out.context.as_deref(), Some("sys\n\nusr"));
        assert_eq!(out.context_hooks, ["a", "b"]);
        assert_eq!(out.warnings, ["w-a", "w-b"]);
        let only_user = combine(Ruling::no_objection(), Some(context("usr", "b")));
        assert_eq!(only_user.context.as_deref(), Some("usr"));
    }
}
