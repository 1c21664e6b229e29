//! Embedding hookhost in a Rust agent: the library API that `serve`, the command line
//! and `eval` all use. No binary involved.
//!
//!     cargo run --example embed
//!
//! Writes a config and two shell hooks under `target/embed-example/` (outside the
//! project, as the path guard requires), then starts a session, gates a few tool calls
//! and a prompt, cancels a slow hook, and ends the turn.

use std::error::Error;
use std::sync::Arc;
use std::time::Duration;

use hookhost::{CancellationToken, Mode, Outcome, Session, SessionOptions};
use serde_json::json;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn Error>> {
    // An embedder that starts processes of its own passes `false` (no subreaper).
    hookhost::harden_host_process(false)?;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/embed-example");
    let (project, hooks) = (root.join("project"), root.join("hooks"));
    std::fs::create_dir_all(&project)?;
    std::fs::create_dir_all(&hooks)?;
    std::fs::write(
        hooks.join("policy.sh"),
        "input=$(cat)\ncase \"$input\" in\n  *--force*) echo 'force-push is not allowed here' >&2; exit 2 ;;\n  *slow*) sleep 60 ;;\nesac\nexit 0\n",
    )?;
    std::fs::write(
        hooks.join("keywords.sh"),
        "cat >/dev/null\necho 'a note for the model'\n",
    )?;
    let config = root.join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[[hooks]]\nname = \"policy\"\nevent = \"PreToolUse\"\ntools = [\"bash\"]\ncommand = [\"/bin/sh\", \"{}\"]\n\n\
             [[hooks]]\nname = \"keywords\"\nevent = \"UserPromptSubmit\"\ncommand = [\"/bin/sh\", \"{}\"]\n",
            hooks.join("policy.sh").display(),
            hooks.join("keywords.sh").display(),
        ),
    )?;

    // 1. Start the session: load, validate, guard, prepare every hook.
    let host = Arc::new(Session::start(SessionOptions {
        config: Some(config),
        project,
        no_sandbox: true, // so that the example runs where bubblewrap does not
        mode: Mode::Serve,
        ..SessionOptions::default()
    })?);
    println!("{}", host.banner());

    // 2. PreToolUse gates. Each call gets its own CancellationToken.
    let never = CancellationToken::new();
    for command in ["git status", "git push --force origin main"] {
        let verdict = host
            .pre_tool_use("bash", json!({ "command": command }), None, &never)
            .await;
        println!(
            "bash {command:?}: {:?} {}",
            verdict.outcome,
            verdict.message.unwrap_or_default()
        );
    }

    // 3. A prompt: allowed, with the hooks' contexts framed for the model.
    let verdict = host.prompt("fix the failing test", &never).await;
    for block in &verdict.context {
        println!("{}", block.framed());
    }

    // 4. Cancel: the running hook's whole process group is stopped at once.
    let cancel = CancellationToken::new();
    let slow = {
        let (host, cancel) = (host.clone(), cancel.clone());
        tokio::spawn(async move {
            host.pre_tool_use("bash", json!({ "command": "slow" }), None, &cancel)
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    cancel.cancel();
    let verdict = slow.await?;
    assert_eq!(verdict.outcome, Outcome::Interrupted);
    println!("cancelled: {}", verdict.message.unwrap_or_default());

    // 5. The turn is over: failure warnings may be shown again in the next one.
    host.end_turn();

    // The same verdict as JSON, exactly what `--json` and `serve` print.
    let verdict = host
        .pre_tool_use("bash", json!({ "command": "ls" }), None, &never)
        .await;
    println!("{}", serde_json::to_string(&verdict)?);
    Ok(())
}
