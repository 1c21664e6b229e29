//! A hook's `tools` and `unknown_tools`: which tools it runs for, and what it does with a
//! tool hookhost has no name for (docs/contract.md#unknown_tools).

use super::*;

/// What a hook with `tools = [...]` does with a call of a tool hookhost has no name
/// for and does not know to have none (docs/contract.md#unknown_tools): a tool of a
/// newer agent version, or one whose spelling hookhost has never seen. Such a hook cannot
/// tell whether the call is one of its tools.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnknownTools {
    /// The call is blocked, with a message naming the tool, the agent and this key.
    #[default]
    Block,
    /// The call goes on; the hook does not run for it.
    Allow,
}

impl UnknownTools {
    /// The key's value as written.
    pub fn as_str(self) -> &'static str {
        match self {
            UnknownTools::Block => "block",
            UnknownTools::Allow => "allow",
        }
    }

    fn from_config(s: &str) -> Option<UnknownTools> {
        match s {
            "block" => Some(UnknownTools::Block),
            "allow" => Some(UnknownTools::Allow),
            _ => None,
        }
    }
}

/// A hook's `tools = [...]`, with what it does for a tool hookhost cannot name
/// ([`UnknownTools`]: the hook's `unknown_tools`, else the file's, else `block`). It reads
/// as the list of names. In a record it is the list alone when `unknown_tools` is
/// `block` (so records written before the key read the same), else
/// `{"names": [...], "unknown_tools": "allow"}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolList {
    names: Vec<String>,
    unknown: UnknownTools,
}

impl ToolList {
    /// `names`, with `unknown` for the tools hookhost cannot name.
    pub fn new(names: Vec<String>, unknown: UnknownTools) -> ToolList {
        ToolList { names, unknown }
    }

    /// The tool names, as written.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// What a call of a tool hookhost cannot name gets from this hook.
    pub fn unknown_tools(&self) -> UnknownTools {
        self.unknown
    }
}

impl From<Vec<String>> for ToolList {
    fn from(names: Vec<String>) -> ToolList {
        ToolList::new(names, UnknownTools::default())
    }
}

impl std::ops::Deref for ToolList {
    type Target = [String];
    fn deref(&self) -> &[String] {
        &self.names
    }
}

impl serde::Serialize for ToolList {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        if self.unknown == UnknownTools::Block {
            return self.names.serialize(serializer);
        }
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("names", &self.names)?;
        map.serialize_entry("unknown_tools", &self.unknown)?;
        map.end()
    }
}

impl<'de> serde::Deserialize<'de> for ToolList {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum Written {
            Names(Vec<String>),
            Full {
                names: Vec<String>,
                unknown_tools: UnknownTools,
            },
        }
        Ok(match Written::deserialize(deserializer)? {
            Written::Names(names) => ToolList::from(names),
            Written::Full {
                names,
                unknown_tools,
            } => ToolList::new(names, unknown_tools),
        })
    }
}

/// The top-level `unknown_tools` (absent: `block`).
pub(super) fn parse_top_unknown_tools(
    value: Option<&Value>,
    problems: &mut Vec<Problem>,
) -> UnknownTools {
    let message = match value {
        None => return UnknownTools::default(),
        Some(Value::String(s)) => match UnknownTools::from_config(s) {
            Some(policy) => return policy,
            None => format!("unknown_tools {s:?} is not valid: {UNKNOWN_TOOLS_VALUES}"),
        },
        Some(other) => format!(
            "unknown_tools must be \"block\" or \"allow\", not {}",
            other.type_str()
        ),
    };
    problems.push(Problem {
        item: None,
        message,
    });
    UnknownTools::default()
}

/// What `unknown_tools` takes, for its messages.
pub(super) const UNKNOWN_TOOLS_VALUES: &str = "use \"block\" (a hook with tools = [...] blocks a call of a tool hookhost has no name for) or \"allow\" (such a call goes on without the hook)";

/// A hook's `unknown_tools`: `Some(None)` when absent, `Some(Some(policy))` when valid,
/// `None` when a problem was reported. It means something only beside `tools`: a hook
/// without `tools` runs for every call, a tool hookhost cannot name included.
pub(super) fn parse_hook_unknown_tools(
    table: &toml::Table,
    event: Option<Event>,
    out: &mut ItemProblems<'_>,
) -> Option<Option<UnknownTools>> {
    let Some(value) = table.get("unknown_tools") else {
        return Some(None);
    };
    if event == Some(Event::UserPromptSubmit) {
        out.push("unknown_tools is for PreToolUse hooks with tools = [...]; a UserPromptSubmit hook runs for every prompt".into());
        return None;
    }
    if !table.contains_key("tools") {
        out.push("unknown_tools means something only beside tools = [...]: a hook without tools already runs for every call, a tool hookhost has no name for included".into());
        return None;
    }
    match value {
        Value::String(s) => match UnknownTools::from_config(s) {
            Some(policy) => Some(Some(policy)),
            None => {
                out.push(format!(
                    "unknown_tools {s:?} is not valid: {UNKNOWN_TOOLS_VALUES}"
                ));
                None
            }
        },
        other => {
            out.push(format!(
                "unknown_tools must be \"block\" or \"allow\", not {}",
                other.type_str()
            ));
            None
        }
    }
}

/// `Some(None)` = every tool; `Some(Some(list))` = those; `None` = a problem was reported.
pub(super) fn parse_tools(
    value: Option<&Value>,
    event: Option<Event>,
    out: &mut ItemProblems<'_>,
) -> Option<Option<Vec<String>>> {
    let Some(value) = value else {
        return Some(None);
    };
    if event == Some(Event::UserPromptSubmit) {
        out.push(
            "tools is for PreToolUse hooks; a UserPromptSubmit hook runs for every prompt".into(),
        );
        return None;
    }
    match value {
        Value::Array(items) => {
            let tools: Option<Vec<String>> = items
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect();
            match tools {
                Some(tools) if tools.is_empty() => {
                    out.push("tools = [] covers no tool, so this hook would never run: list its tools, or leave tools out for every tool".into());
                    None
                }
                Some(tools) => Some(Some(tools)),
                None => {
                    out.push("tools must be a list of tool names, such as [\"bash\"]".into());
                    None
                }
            }
        }
        other => {
            out.push(format!(
                "tools must be a list of tool names, such as [\"bash\"], not {}",
                other.type_str()
            ));
            None
        }
    }
}
