//! The one place where a test that lacks something decides whether to skip or to fail.
//!
//! Some tests need what a developer's machine may not have: bubblewrap, root, an
//! unprivileged user to run as, a component built by another language's toolchain. Where
//! it is missing, such a test prints `SKIPPED <test>: <why>` on stderr and returns. CI
//! has all of them, and there a skipped test would hide a broken machine (or a broken
//! probe), so each [`Prerequisite`] has a switch: set (to anything but the empty string),
//! a missing prerequisite fails the test instead, naming it and what is missing.
//!
//! | switch | what must be there |
//! |---|---|
//! | `HOOKHOST_REQUIRE_BOX` | bubblewrap, installed and able to run here |
//! | `HOOKHOST_REQUIRE_ROOT` | root, with the powers root has on a machine of its own (mount, setpriv, a PID namespace) |
//! | `HOOKHOST_REQUIRE_OTHER_USER` | the unprivileged user (`nobody`, uid 65534; or a stranger's uid) to run as, with setpriv |
//! | `HOOKHOST_REQUIRE_COMPONENTS` | the Python and JavaScript components (`plugins/build.sh`) |
//! | `HOOKHOST_REQUIRE_AGENTS` | the real agent CLIs under `target/agents/` (`scripts/agents.sh`) |
//! | `HOOKHOST_REQUIRE_STATIC_CLIENT` | a statically linked `hookhost-client` in `target/static-client/` (`scripts/static-client.sh`, which `scripts/test.sh` runs) |
//!
//! Every skip for one of these goes through [`skip_or_fail`]: the helpers that probe
//! ([`super::bwrap_or_skip`], [`root_or_skip`], [`super::nobody_or_skip`],
//! [`super::OtherUserWorld::new`], [`super::component_or_skip`], the real agents' finder in
//! `tests/it/real_agents/`) and the tests that find
//! out another way. A skip for anything else (a kernel without Landlock, a checkout path
//! with a blank in it) has no switch and prints its own line.

/// What a test may need that a machine may lack, each with the switch that turns its
/// absence from a skip into a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prerequisite {
    /// Bubblewrap, installed and able to run here (`HOOKHOST_REQUIRE_BOX`).
    Bubblewrap,
    /// Root, able to do what root does on a machine of its own: mount, drop a
    /// capability with setpriv, make a PID namespace (`HOOKHOST_REQUIRE_ROOT`).
    Root,
    /// An unprivileged user to run commands as with setpriv (`nobody`, or a uid with no
    /// password-database entry), and a folder it can reach (`HOOKHOST_REQUIRE_OTHER_USER`).
    OtherUser,
    /// A component built by another language's toolchain (`HOOKHOST_REQUIRE_COMPONENTS`).
    Components,
    /// A real agent CLI installed by `scripts/agents.sh` under `target/agents/`
    /// (`HOOKHOST_REQUIRE_AGENTS`).
    Agents,
    /// A statically linked `hookhost-client` in `target/static-client/`
    /// (`HOOKHOST_REQUIRE_STATIC_CLIENT`).
    StaticClient,
}

impl Prerequisite {
    /// The environment variable that makes this prerequisite's absence a failure.
    pub const fn switch(self) -> &'static str {
        match self {
            Prerequisite::Bubblewrap => "HOOKHOST_REQUIRE_BOX",
            Prerequisite::Root => "HOOKHOST_REQUIRE_ROOT",
            Prerequisite::OtherUser => "HOOKHOST_REQUIRE_OTHER_USER",
            Prerequisite::Components => "HOOKHOST_REQUIRE_COMPONENTS",
            Prerequisite::Agents => "HOOKHOST_REQUIRE_AGENTS",
            Prerequisite::StaticClient => "HOOKHOST_REQUIRE_STATIC_CLIENT",
        }
    }

    /// What is missing, for the failure's message.
    pub const fn what(self) -> &'static str {
        match self {
            Prerequisite::Bubblewrap => "a bubblewrap that runs",
            Prerequisite::Root => "root",
            Prerequisite::OtherUser => "an unprivileged user",
            Prerequisite::Components => "a built component",
            Prerequisite::Agents => "a real agent CLI",
            Prerequisite::StaticClient => "a statically linked hookhost-client",
        }
    }

    /// Whether this run requires the prerequisite (its switch is set and not empty).
    pub fn required(self) -> bool {
        std::env::var_os(self.switch()).is_some_and(|v| !v.is_empty())
    }
}

/// `test` lacks `need`, for the reason `why`. With the prerequisite's switch set this
/// fails the test (a panic naming it and what is missing); without, it prints `SKIPPED
/// {test}: {why}` on stderr, and the caller returns (or leaves out the part that needs
/// it).
#[track_caller]
pub fn skip_or_fail(test: &str, need: Prerequisite, why: &str) {
    if need.required() {
        panic!(
            "{test} needs {what}, and it is missing: {why} ({switch} is set, so this fails \
             instead of skipping)",
            what = need.what(),
            switch = need.switch(),
        );
    }
    eprintln!("SKIPPED {test}: {why}");
}

/// Whether this process runs as root; where not, [`skip_or_fail`] with `why` (which
/// says what needs root), and `false`.
#[track_caller]
pub fn root_or_skip(test: &str, why: &str) -> bool {
    if super::is_root() {
        return true;
    }
    skip_or_fail(test, Prerequisite::Root, why);
    false
}
