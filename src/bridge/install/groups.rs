//! The one algorithm for an event's groups of handlers, JSON or TOML (Claude Code's,
//! Gemini CLI's and Qwen Code's `settings.json`, Codex's `config.toml`): which of
//! hookhost's handlers `install` keeps, and which go. Each file format implements
//! [`Groups`] over its own values, so that the rule is written once.
//!
//! The rule: on install, keep the first of hookhost's handlers in a group matching every
//! tool; else the first one alone in its group, whose matcher is then widened; every
//! other handler of hookhost's goes, and with it a group it leaves empty (never the
//! kept one's). On uninstall, all of them go.

use super::RegisteredEvent;

/// One event's list of groups, as the editor of a file format sees it.
pub(super) trait Groups {
    /// Whether group `group` matches every tool (no matcher, `""` or `"*"`).
    fn matches_every_tool(&self, group: usize) -> bool;

    /// How many handlers group `group` holds; `None` when it holds no list of them.
    fn handler_count(&self, group: usize) -> Option<usize>;

    /// Removes handler `handler` of group `group`; whether the group is now empty, or
    /// `None` when it holds no list of handlers.
    fn remove_handler(&mut self, group: usize, handler: usize) -> Option<bool>;

    /// Removes group `group`.
    fn remove_group(&mut self, group: usize);
}

/// hookhost's handler that install keeps, once the others are gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Keeper {
    /// Its group, counted after the removals.
    pub group: usize,
    /// Its place in that group, counted after the removals.
    pub handler: usize,
    /// Whether the group's matcher must be widened to the event's.
    pub widen: bool,
}

/// Removes every one of hookhost's handlers (`ours`: group and handler, in file order)
/// but the one install keeps, which it returns; on uninstall (`install` false), removes
/// them all and returns `None`.
pub(super) fn fold_ours(
    groups: &mut impl Groups,
    ours: &[(usize, usize)],
    event: &RegisteredEvent,
    install: bool,
) -> Option<Keeper> {
    let mut keeper = install
        .then(|| {
            ours.iter()
                .find(|(g, _)| event.matcher.is_none() || groups.matches_every_tool(*g))
                .map(|&(group, handler)| Keeper {
                    group,
                    handler,
                    widen: false,
                })
                .or_else(|| {
                    ours.iter()
                        .find(|(g, _)| groups.handler_count(*g) == Some(1))
                        .map(|&(group, handler)| Keeper {
                            group,
                            handler,
                            widen: true,
                        })
                })
        })
        .flatten();

    for &(g, h) in ours.iter().rev() {
        if keeper.is_some_and(|k| (k.group, k.handler) == (g, h)) {
            continue;
        }
        let Some(emptied) = groups.remove_handler(g, h) else {
            continue;
        };
        let keeper_group = keeper.map(|k| k.group);
        if emptied && keeper_group != Some(g) {
            groups.remove_group(g);
            if let Some(k) = keeper.as_mut()
                && g < k.group
            {
                k.group -= 1;
            }
        } else if let Some(k) = keeper.as_mut()
            && g == k.group
            && h < k.handler
        {
            k.handler -= 1;
        }
    }
    keeper
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Groups as (matches every tool, handlers: true for hookhost's).
    struct Fake(Vec<(bool, Vec<bool>)>);

    impl Groups for Fake {
        fn matches_every_tool(&self, group: usize) -> bool {
            self.0[group].0
        }
        fn handler_count(&self, group: usize) -> Option<usize> {
            Some(self.0[group].1.len())
        }
        fn remove_handler(&mut self, group: usize, handler: usize) -> Option<bool> {
            let handlers = &mut self.0[group].1;
            handlers.remove(handler);
            Some(handlers.is_empty())
        }
        fn remove_group(&mut self, group: usize) {
            self.0.remove(group);
        }
    }

    fn ours(fake: &Fake) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for (g, (_, handlers)) in fake.0.iter().enumerate() {
            for (h, is_ours) in handlers.iter().enumerate() {
                if *is_ours {
                    out.push((g, h));
                }
            }
        }
        out
    }

    const PRE: RegisteredEvent = RegisteredEvent {
        name: "PreToolUse",
        matcher: Some("*"),
    };

    #[test]
    fn keeps_the_first_in_a_group_matching_every_tool_and_folds_the_rest() {
        // Group 0 matches one tool and holds only ours; group 1 matches all: ours, theirs, ours.
        let mut fake = Fake(vec![(false, vec![true]), (true, vec![true, false, true])]);
        let found = ours(&fake);
        let keeper = fold_ours(&mut fake, &found, &PRE, true);
        assert_eq!(
            keeper,
            Some(Keeper {
                group: 0,
                handler: 0,
                widen: false
            })
        );
        assert_eq!(fake.0, vec![(true, vec![true, false])]);
    }

    #[test]
    fn widens_a_lone_handler_when_no_group_matches_every_tool() {
        let mut fake = Fake(vec![(false, vec![false, true]), (false, vec![true])]);
        let found = ours(&fake);
        let keeper = fold_ours(&mut fake, &found, &PRE, true);
        assert_eq!(
            keeper,
            Some(Keeper {
                group: 1,
                handler: 0,
                widen: true
            })
        );
        assert_eq!(fake.0, vec![(false, vec![false]), (false, vec![true])]);
    }

    #[test]
    fn uninstall_removes_every_one_and_the_groups_left_empty() {
        let mut fake = Fake(vec![(true, vec![true]), (true, vec![false, true])]);
        let found = ours(&fake);
        assert_eq!(fold_ours(&mut fake, &found, &PRE, false), None);
        assert_eq!(fake.0, vec![(true, vec![false])]);
    }
}
