//! `hookhost-client`: the small program `hookhost install --warm` registers as the bridge
//! (docs/contract.md#the-warm-server). It hands the call to the user's warm server
//! exactly as `hookhost bridge` would ([`hookhost::warm::client`]), without the start of
//! the whole hookhost binary; when no server answers, it runs the call in the hookhost
//! beside it, with the stdin it read.

fn main() -> std::process::ExitCode {
    use hookhost::warm::client::{self, ServerBinary};
    let started = std::time::Instant::now();
    let hookhost = match std::env::current_exe() {
        Ok(exe) => client::hookhost_beside(&exe),
        Err(e) => {
            return client::refuse_for_the_flags_agent(&format!(
                "{}: cannot find its own path ({e}), so this call was blocked. This is not a policy decision: tell the user to register `hookhost bridge` instead.",
                client::CLIENT_NAME
            ));
        }
    };
    match client::hand_over(started, ServerBinary::At(&hookhost)) {
        Ok(code) => code,
        Err(prepared) => client::run_hookhost(&hookhost, started, prepared),
    }
}
