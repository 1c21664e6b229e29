//! Whose hooks a session runs ([`HookOwner`]), and the words that name them.

use serde::Serialize;

/// Whose hooks a session runs, as every message that names a hook says it: the user's own
/// (`[[hooks]]` in their config), or the administrator's (the system config of
/// `bridge --system`, docs/contract.md#system-mode). A property of the session, decided
/// where the session is made and recorded in its `session.started` line; the wording of
/// both lives here and in `messages`, nowhere else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HookOwner {
    /// The user's hooks: the spec's wording, to the letter.
    #[default]
    User,
    /// The administrator's system hooks, which the user cannot change.
    Administrator,
}

impl HookOwner {
    /// `the user's` or `the administrator's`, as in `blocked by the user's hook "x"`.
    pub fn possessive(self) -> &'static str {
        match self {
            HookOwner::User => "the user's",
            HookOwner::Administrator => "the administrator's",
        }
    }

    /// Whether these are the user's own hooks (the record leaves the field out then).
    pub fn is_user(&self) -> bool {
        *self == HookOwner::User
    }

    /// What the model is asked to tell the user about a failing hook: the spec's
    /// sentence for the user's own, and for the administrator's, that the user cannot
    /// fix it.
    pub(super) fn failing_advice(self) -> &'static str {
        match self {
            HookOwner::User => "Tell the user their hook is failing.",
            HookOwner::Administrator => {
                "Tell the user their administrator's hook is failing. The user cannot fix it: only their administrator can."
            }
        }
    }

    /// Who can let a call of an unknown tool through, and where.
    pub(super) fn unknown_tools_advice(self) -> &'static str {
        match self {
            HookOwner::User => {
                "tell the user, who can let such calls through with unknown_tools = \"allow\" in that hook or at the top of their hookhost config."
            }
            HookOwner::Administrator => {
                "tell the user. The user cannot change it: only their administrator can let such calls through, with unknown_tools = \"allow\" in that hook or at the top of the system hookhost config."
            }
        }
    }
}
