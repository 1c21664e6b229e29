//! The warm server's wire and hand-over, in one process.

use super::*;

fn argv(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

/// A caller that never reads its answer cannot hold the server's thread: the write
/// gives up at its deadline, however much of the answer is left.
#[cfg(target_os = "linux")]
#[test]
fn an_answer_nobody_reads_is_given_up_at_its_deadline() {
    let (server, _caller) = std::os::unix::net::UnixStream::pair().unwrap();
    let mut within = Deadline {
        connection: &server,
        until: std::time::Instant::now() + Duration::from_millis(300),
    };
    let began = std::time::Instant::now();
    let written = io::Write::write_all(&mut within, &vec![0u8; 16 << 20]);
    assert_eq!(written.unwrap_err().kind(), io::ErrorKind::TimedOut);
    assert!(
        began.elapsed() < Duration::from_secs(2),
        "{:?}",
        began.elapsed()
    );
}

#[test]
fn the_socket_is_the_flags_when_absolute_and_none_when_relative() {
    let named = argv(&["hookhost", "bridge", "--warm-socket", "/run/x/w.sock"]);
    assert_eq!(socket_for(&named), Some(PathBuf::from("/run/x/w.sock")));
    let joined = argv(&["hookhost", "bridge", "--warm-socket=/run/x/w.sock"]);
    assert_eq!(socket_for(&joined), Some(PathBuf::from("/run/x/w.sock")));
    // A relative one would be resolved against whatever folder the agent is in.
    assert_eq!(
        socket_for(&argv(&["hookhost", "bridge", "--warm-socket", "w.sock"])),
        None
    );
    assert_eq!(
        socket_for(&argv(&["hookhost", "bridge", "--warm-socket"])),
        None
    );
    // Without either flag: none, whatever listens at the default.
    assert_eq!(socket_for(&argv(&["hookhost", "bridge"])), None);
    assert_eq!(
        socket_for(&argv(&["hookhost", "bridge", "--agent", "codex"])),
        None
    );
    // With `--warm`: the default, which no variable of the environment moves.
    assert_eq!(
        socket_for(&argv(&["hookhost", "bridge", "--agent", "codex", "--warm"])),
        default_socket()
    );
    // A socket named wins over `--warm`, wherever either is.
    let both = argv(&[
        "hookhost",
        "bridge",
        "--warm",
        "--warm-socket",
        "/run/x/w.sock",
    ]);
    assert_eq!(socket_for(&both), Some(PathBuf::from("/run/x/w.sock")));
}
