//! A registered bridge's arguments, read without clap.
//!
//! Every agent call starts `hookhost bridge` with the few arguments `install` wrote, and
//! clap's parse of them (building the whole command tree first) was ~5 % of a bridged call
//! in its own process (BENCHMARKS.md, thirteenth sitting). [`registered_bridge`] reads
//! exactly those shapes and gives what clap gives for them; any other command line,
//! however close, is clap's (its errors and help included).

use std::ffi::OsString;

use super::{AGENT_NAMES, Cli, Command, GlobalOptions};

/// `PROGRAM bridge` followed by at most one each of `--agent NAME`, `--budget-ms N`,
/// `--system`, `--warm` and `--warm-socket PATH`, in any order, each a separate argument
/// (no `--flag=value`): the [`Cli`] clap would parse from them; `None` for anything
/// else, or a value clap would check and refuse (an unknown agent, a budget of 0).
pub(super) fn registered_bridge(args: &[OsString]) -> Option<Cli> {
    let mut rest = args.iter().skip(1);
    if rest.next()?.to_str()? != "bridge" {
        return None;
    }
    let (mut agent, mut budget_ms, mut system, mut warm, mut warm_socket) =
        (None, None, false, false, None);
    while let Some(flag) = rest.next() {
        // A flag's value as clap takes it: the next argument, not itself a flag.
        let mut value = || {
            rest.next()
                .and_then(|v| v.to_str())
                .filter(|v| !v.starts_with('-'))
        };
        match flag.to_str()? {
            "--agent" if agent.is_none() => {
                let name = value()?;
                agent = Some(AGENT_NAMES.iter().find(|&&n| n == name)?.to_string());
            }
            "--budget-ms" if budget_ms.is_none() => {
                let n = value().filter(|n| n.bytes().all(|b| b.is_ascii_digit()))?;
                budget_ms = Some(n.parse::<u64>().ok().filter(|&n| n >= 1)?);
            }
            "--system" if !system => system = true,
            "--warm" if !warm => warm = true,
            "--warm-socket" if warm_socket.is_none() => warm_socket = Some(value()?.into()),
            _ => return None,
        }
    }
    Some(Cli {
        global: GlobalOptions {
            // clap's default for it; every other global option's is its type's default.
            permission_mode: "auto".into(),
            ..GlobalOptions::default()
        },
        command: Command::Bridge {
            agent,
            budget_ms,
            system,
            warm,
            warm_socket,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use proptest::prelude::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    /// Both readings of `args`: ours, and clap's (or its error).
    fn both(args: &[&str]) -> (Option<String>, Result<String, String>) {
        let args = os(args);
        let ours = registered_bridge(&args).map(|cli| format!("{cli:?}"));
        let clap = Cli::try_parse_from(&args)
            .map(|cli| format!("{cli:?}"))
            .map_err(|e| e.kind().to_string());
        (ours, clap)
    }

    #[test]
    fn what_install_writes_reads_as_clap_reads_it() {
        for agent in AGENT_NAMES {
            for tail in [
                &[][..],
                &["--budget-ms", "9000"],
                &["--warm"],
                &["--warm-socket", "/run/me/w.sock"],
                &["--system"],
                &["--warm", "--budget-ms", "1", "--warm-socket", "/s"],
            ] {
                let mut args = vec!["/usr/bin/hookhost", "bridge", "--agent", agent];
                args.extend_from_slice(tail);
                let (ours, clap) = both(&args);
                assert_eq!(ours, Some(clap.unwrap()), "{args:?}");
            }
        }
        assert_eq!(
            both(&["h", "bridge"]).0,
            Some(both(&["h", "bridge"]).1.unwrap())
        );
    }

    #[test]
    fn anything_else_is_claps() {
        for args in [
            &["h"][..],
            &["h", "serve"],
            &["h", "--config", "/c.toml", "bridge", "--agent", "codex"],
            &["h", "bridge", "--agent=codex"],
            &["h", "bridge", "--agent", "nobody"],
            &["h", "bridge", "--agent"],
            &["h", "bridge", "--agent", "codex", "--agent", "codex"],
            &["h", "bridge", "--budget-ms", "0"],
            &["h", "bridge", "--budget-ms", "+5"],
            &["h", "bridge", "--budget-ms", "99999999999999999999999"],
            &["h", "bridge", "--warm-socket", "-v"],
            &["h", "bridge", "-v"],
            &["h", "bridge", "--help"],
            &["h", "bridge", "extra"],
            &["h", "bridge", "--", "--warm"],
        ] {
            assert_eq!(both(args).0, None, "{args:?}");
        }
    }

    proptest! {
        /// Whatever we read, clap reads alike.
        #[test]
        fn ours_is_always_clap_s(words in proptest::collection::vec(
            prop::sample::select(vec![
                "bridge", "--agent", "codex", "claude-code", "bogus", "--budget-ms", "0",
                "1", "007", "18446744073709551616", "--system", "--warm", "--warm-socket",
                "/s", "-x", "--config", "--", "-v", "--agent=kiro",
            ]),
            0..7,
        )) {
            let mut args = vec!["hookhost"];
            args.extend(words.iter().copied());
            let (ours, clap) = both(&args);
            if let Some(ours) = ours {
                prop_assert_eq!(Ok(ours), clap, "{:?}", args);
            }
        }
    }
}
