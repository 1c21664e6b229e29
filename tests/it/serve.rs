//! `hookhost serve` end to end: a real server process over pipes, real hooks. Every
//! read has a timeout, so that a bug cannot hang the suite.

use std::io::{BufRead, BufReader, Write};
use std::time::{Duration, Instant};

use crate::support::{READ_TIMEOUT, Scene, Server, hook, process_alive, sh_hook, wait_until};
use serde_json::{Value, json};

/// `hookhost --no-sandbox serve` in `scene`, not started yet.
fn serve_command(scene: &Scene) -> std::process::Command {
    let mut cmd = scene.hookhost();
    cmd.arg("--no-sandbox").arg("serve");
    cmd
}

fn call(id: Value, command: &str) -> Value {
    json!({"id": id, "type": "pre_tool_use", "tool_name": "bash", "tool_input": {"command": command}})
}

/// A hook that blocks "danger" and sleeps on "sleep N".
fn policy_scene() -> Scene {
    let scene = Scene::new();
    let script = scene.script(
        "policy.sh",
        r#"input=$(cat)
case "$input" in
  *danger*) echo "no danger here" >&2; exit 2 ;;
  *"sleep "*) n=${input#*sleep }; n=${n%%\"*}; sleep "$n" ;;
esac
exit 0"#,
    );
    let prompts = scene.script(
        "prompts.sh",
        r#"input=$(cat)
case "$input" in
  *forbidden*) echo "not that prompt" >&2; exit 2 ;;
esac
echo "extra context"
exit 0"#,
    );
    scene.write_config(&format!(
        "{}{}",
        sh_hook("policy", &script, "tools = [\"bash\"]"),
        hook(
            "prompts",
            "UserPromptSubmit",
            &["/bin/sh", prompts.to_str().unwrap()],
            ""
        )
    ));
    scene
}

/// `serve` shares one session, its host, among the tasks that answer requests
/// (`Arc<Session>`), each run on whichever worker thread takes it. So the host is Send and
/// Sync, the futures of its gates are Send (`tokio::spawn` takes nothing less), and gates
/// run side by side on several threads, with `end_turn` from yet another, each get the
/// verdict they get alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn host_is_send_and_sync() {
    use hookhost::executor::CancellationToken;
    use hookhost::session::{Mode, Session, SessionOptions};
    use std::sync::Arc;

    fn send_sync<T: Send + Sync + 'static>() {}
    send_sync::<Session>();

    let scene = policy_scene();
    let session = Arc::new(
        Session::start(SessionOptions {
            config: Some(scene.config.clone()),
            project: scene.project.clone(),
            no_sandbox: true,
            mode: Mode::Serve,
            log: Some(scene.state().join("host.jsonl")),
            ..SessionOptions::default()
        })
        .expect("the session starts"),
    );
    let blocked =
        |hook: &str, why: &str| Some(format!("blocked by the user's hook \"{hook}\": {why}"));
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..8 {
        let session = session.clone();
        tasks.spawn(async move {
            let cancel = CancellationToken::new();
            let (call, prompt) = if i % 2 == 0 {
                ("rm -rf danger", "forbidden")
            } else {
                ("sleep 0.1", "hello")
            };
            let call = session
                .pre_tool_use("bash", json!({ "command": call }), None, &cancel)
                .await;
            let prompt = session.prompt(prompt, &cancel).await;
            (i, call, prompt)
        });
    }
    // A turn ends from another thread meanwhile: a shared `&Session` is all it needs.
    std::thread::scope(|s| {
        s.spawn(|| session.end_turn());
    });
    let mut answered = 0;
    while let Some(joined) = tasks.join_next().await {
        let (i, call, prompt) = joined.expect("a gate's task ended without a panic");
        if i % 2 == 0 {
            assert_eq!(call.message, blocked("policy", "no danger here"), "{i}");
            assert_eq!(
                prompt.message.as_deref(),
                Some("✗ prompt blocked by hook \"prompts\": not that prompt"),
                "{i}"
            );
        } else {
            assert_eq!(call.message, None, "{i}: {call:?}");
            assert_eq!(prompt.message, None, "{i}: {prompt:?}");
            let context: Vec<_> = prompt.context.iter().map(|c| c.text.as_str()).collect();
            assert_eq!(context, ["extra context"], "{i}");
        }
        answered += 1;
    }
    assert_eq!(answered, 8);
}

#[test]
fn ready_line_then_block_and_allow_answers_with_their_ids() {
    let scene = policy_scene();
    let mut server = Server::spawn(serve_command(&scene));
    assert_eq!(
        server.recv(),
        json!({"type": "ready", "banner": "hooks: policy (bash, on the host) · prompts (prompts, on the host)", "warnings": []})
    );
    server.send(&call(json!(1), "rm -rf danger"));
    assert_eq!(
        server.recv(),
        json!({"id": 1, "outcome": "block", "message": "blocked by the user's hook \"policy\": no danger here", "hook": "policy", "context": [], "warnings": []})
    );
    server.send(&call(json!("call-2"), "ls"));
    assert_eq!(
        server.recv(),
        json!({"id": "call-2", "outcome": "allow", "message": null, "hook": null, "context": [], "warnings": []})
    );
    // A tool the hook does not cover, with a tool_use_id given.
    server.send(&json!({"id": 3, "type": "pre_tool_use", "tool_name": "read_file", "tool_input": {"path": "danger"}, "tool_use_id": "toolu_x"}));
    assert_eq!(server.recv()["outcome"], "allow");
    server.send(&json!({"id": 4, "type": "user_prompt_submit", "prompt": "hello"}));
    assert_eq!(
        server.recv(),
        json!({"id": 4, "outcome": "allow", "message": null, "hook": null, "context": [{"hook": "prompts", "text": "extra context"}], "warnings": []})
    );
    server.send(&json!({"id": 5.5, "type": "user_prompt_submit", "prompt": "forbidden"}));
    let v = server.recv();
    assert_eq!(v["id"], json!(5.5));
    assert_eq!(v["outcome"], "block");
    assert_eq!(
        v["message"],
        "✗ prompt blocked by hook \"prompts\": not that prompt"
    );
    server.close_stdin();
    assert_eq!(server.wait_exit(), 0);
}

#[test]
fn a_bad_config_is_refused_with_exit_2() {
    let scene = Scene::new();
    scene.write_config(
        "[[hooks]]\nname = \"x\"\nevent = \"PreToolUse\"\ncommand = [\"/bin/true\"]\nmatcher = \"Bash\"\n",
    );
    let mut server = Server::spawn(serve_command(&scene));
    let v = server.recv();
    assert_eq!(v["type"], "refused", "{v}");
    let error = v["error"].as_str().unwrap();
    assert!(error.contains("hook x: unknown key \"matcher\""), "{error}");
    assert_eq!(server.wait_exit(), 2);

    // A guard refusal: the hook's program is in the project.
    let scene = Scene::new();
    let inside = scene.project.join("hook.sh");
    std::fs::write(&inside, "exit 0\n").unwrap();
    scene.write_config(&sh_hook("inproject", &inside, ""));
    let mut server = Server::spawn(serve_command(&scene));
    let v = server.recv();
    assert_eq!(v["type"], "refused", "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("is in the project"),
        "{v}"
    );
    assert_eq!(server.wait_exit(), 2);
}

#[test]
fn bad_lines_get_error_lines_and_the_server_goes_on() {
    let scene = policy_scene();
    let mut server = Server::ready(serve_command(&scene));
    server.send_line("this is not json");
    let v = server.recv();
    assert_eq!(v["type"], "error");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("the line is not JSON"),
        "{v}"
    );
    assert!(v.get("id").is_none());

    server.send_line("[1, 2]");
    assert_eq!(
        server.recv(),
        json!({"type": "error", "error": "a request must be a JSON object"})
    );
    server.send_line(r#"{"id": 7, "type": "launch_missiles"}"#);
    let v = server.recv();
    assert_eq!(v["id"], 7);
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("unknown type \"launch_missiles\""),
        "{v}"
    );
    server.send_line(r#"{"id": "m", "type": "pre_tool_use", "tool_input": {}}"#);
    assert_eq!(
        server.recv(),
        json!({"type": "error", "id": "m", "error": "missing field \"tool_name\" in a pre_tool_use request"})
    );
    server.send_line(r#"{"type": "user_prompt_submit", "prompt": "hi"}"#);
    assert_eq!(
        server.recv(),
        json!({"type": "error", "error": "missing field \"id\" in a user_prompt_submit request"})
    );
    server.send_line(r#"{"type": "cancel", "id": 999}"#);
    assert_eq!(
        server.recv(),
        json!({"type": "error", "id": 999, "error": "no request with id 999 is running"})
    );
    // Blank lines are skipped; the server still answers.
    server.send_line("");
    server.send(&call(json!(8), "danger"));
    let v = server.recv();
    assert_eq!(
        (v["id"].clone(), v["outcome"].clone()),
        (json!(8), json!("block"))
    );
    server.close_stdin();
    assert_eq!(server.wait_exit(), 0);
}

#[test]
fn a_duplicate_id_while_the_first_runs_is_an_error() {
    let scene = policy_scene();
    let mut server = Server::ready(serve_command(&scene));
    server.send(&call(json!("d"), "sleep 1"));
    server.send(&call(json!("d"), "ls"));
    assert_eq!(
        server.recv(),
        json!({"type": "error", "id": "d", "error": "a request with id \"d\" is already running"})
    );
    assert_eq!(server.recv()["outcome"], "allow");
    // Answered: the id may be used again.
    server.send(&call(json!("d"), "danger"));
    assert_eq!(server.recv()["outcome"], "block");
}

#[test]
fn long_lines_are_answered_or_refused_and_the_server_goes_on() {
    let scene = policy_scene();
    let mut server = Server::ready(serve_command(&scene));
    // A tool_input of 2 MiB is an ordinary request.
    let big = "x".repeat(2 << 20);
    server.send(&call(json!(1), &format!("danger {big}")));
    assert_eq!(server.recv()["outcome"], "block");
    // A line over 16 MiB is refused and skipped.
    let huge = format!(
        r#"{{"id":2,"type":"pre_tool_use","tool_name":"bash","tool_input":{{"command":"{}"}}}}"#,
        "y".repeat(16 << 20)
    );
    server.send_line(&huge);
    assert_eq!(
        server.recv(),
        json!({"type": "error", "error": "the line is longer than 16 MiB; it was skipped"})
    );
    server.send(&call(json!(3), "ls"));
    assert_eq!(server.recv()["id"], 3);
}

#[test]
fn requests_run_concurrently_and_answers_carry_their_ids() {
    let scene = policy_scene();
    let mut server = Server::ready(serve_command(&scene));
    let started = Instant::now();
    for id in 1..=4 {
        server.send(&call(json!(id), "sleep 1.5"));
    }
    let answers = server.recv_answers(4);
    let elapsed = started.elapsed();
    for id in 1..=4 {
        assert_eq!(answers[&id.to_string()]["outcome"], "allow", "{answers:?}");
    }
    // Concurrently: four calls that each sleep 1.5 s take well under 4 × 1.5 s.
    assert!(
        elapsed < Duration::from_secs(3),
        "four 1.5 s calls took {elapsed:?}"
    );
}

#[test]
fn cancel_interrupts_that_request_and_kills_its_hook() {
    let scene = policy_scene();
    let mut server = Server::ready(serve_command(&scene));
    server.send(&call(json!("slow"), "sleep 71.23"));
    server.send(&call(json!("other"), "sleep 2"));
    assert!(
        wait_until(|| process_alive("sleep 71.23")),
        "the hook never started"
    );
    let started = Instant::now();
    server.send_line(r#"{"type":"cancel","id":"slow"}"#);
    let answers = server.recv_answers(2);
    assert_eq!(
        answers["\"slow\""],
        json!({"id": "slow", "outcome": "interrupted", "message": "interrupted while the user's hook \"policy\" ran; the call did not run.", "hook": "policy", "context": [], "warnings": []})
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(
        wait_until(|| !process_alive("sleep 71.23")),
        "the cancelled hook's process is still alive"
    );
    // The other request was not touched.
    assert_eq!(answers["\"other\""]["outcome"], "allow", "{answers:?}");
}

#[test]
fn sigterm_interrupts_everything_in_flight_answers_and_exits_143() {
    let scene = policy_scene();
    let mut server = Server::ready(serve_command(&scene));
    server.send(&call(json!(1), "sleep 72.51"));
    server.send(&json!({"id": 2, "type": "pre_tool_use", "tool_name": "bash", "tool_input": {"command": "sleep 72.52"}}));
    assert!(wait_until(
        || process_alive("sleep 72.51") && process_alive("sleep 72.52")
    ));
    server.signal(libc::SIGTERM);
    let answers = server.recv_answers(2);
    for id in ["1", "2"] {
        assert_eq!(answers[id]["outcome"], "interrupted", "{answers:?}");
    }
    assert_eq!(server.wait_exit(), 143);
    assert!(!process_alive("sleep 72.51"));
    assert!(!process_alive("sleep 72.52"));
}

#[test]
fn sigint_exits_130() {
    let scene = policy_scene();
    let mut server = Server::ready(serve_command(&scene));
    server.send(&call(json!(1), "sleep 73.1"));
    assert!(wait_until(|| process_alive("sleep 73.1")));
    server.signal(libc::SIGINT);
    assert_eq!(server.recv()["outcome"], "interrupted");
    assert_eq!(server.wait_exit(), 130);
    assert!(!process_alive("sleep 73.1"));
}

#[test]
fn end_of_input_waits_for_the_calls_in_flight() {
    let scene = policy_scene();
    let mut server = Server::ready(serve_command(&scene));
    server.send(&call(json!("late"), "sleep 1"));
    server.send(&json!({"id": "p", "type": "user_prompt_submit", "prompt": "hi"}));
    server.close_stdin();
    let answers = server.recv_answers(2);
    assert_eq!(answers["\"late\""]["outcome"], "allow", "{answers:?}");
    assert_eq!(answers["\"p\""]["context"][0]["text"], "extra context");
    assert_eq!(server.wait_exit(), 0);
}

#[test]
fn a_failing_hook_warns_once_per_turn_and_again_after_end_turn() {
    let scene = Scene::new();
    let failing = scene.script("fail.sh", "exit 1");
    scene.write_config(&sh_hook("flaky", &failing, "on_failure = \"continue\""));
    let mut server = Server::ready(serve_command(&scene));
    let warning =
        "⚠ hook flaky failed (exited with code 1); on_failure = \"continue\" let the call through.";
    server.send(&call(json!(1), "ls"));
    let v = server.recv();
    assert_eq!(
        (v["outcome"].clone(), v["warnings"].clone()),
        (json!("allow"), json!([warning]))
    );
    server.send(&call(json!(2), "ls"));
    let v = server.recv();
    assert_eq!(
        (v["outcome"].clone(), v["warnings"].clone()),
        (json!("allow"), json!([]))
    );
    server.send_line(r#"{"type":"end_turn"}"#);
    server.send(&call(json!(3), "ls"));
    let v = server.recv();
    assert_eq!(
        (v["id"].clone(), v["warnings"].clone()),
        (json!(3), json!([warning]))
    );
}

// ---- What stdin and stdout may be ----------------------------------------------------------

/// `fcntl(F_GETFL)` of `fd` has `O_NONBLOCK`.
fn non_blocking(fd: &impl std::os::fd::AsRawFd) -> bool {
    // SAFETY: F_GETFL on a descriptor the caller owns.
    let flags = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) };
    assert!(flags >= 0, "fcntl: {}", std::io::Error::last_os_error());
    flags & libc::O_NONBLOCK != 0
}

#[test]
fn serve_drives_its_pipes_itself_and_leaves_them_blocking() {
    // serve reads and writes pipes on its event loop, in non-blocking mode, which is a
    // property of the pipe end that every holder shares: the test keeps the same ends,
    // sees the mode while serve runs, and sees it put back when serve is done.
    let scene = policy_scene();
    let (requests_out, requests_in) = std::io::pipe().expect("pipe");
    let (answers_out, answers_in) = std::io::pipe().expect("pipe");
    let mut child = serve_command(&scene)
        .stdin(requests_out.try_clone().expect("dup"))
        .stdout(answers_in.try_clone().expect("dup"))
        .spawn()
        .expect("start hookhost serve");
    drop(answers_in);
    let mut answers = BufReader::new(answers_out);
    let mut line = String::new();
    answers.read_line(&mut line).expect("ready line");
    assert!(line.contains("\"ready\""), "{line}");
    assert!(
        non_blocking(&requests_out),
        "stdin is not on the event loop"
    );
    let mut requests_in = requests_in;
    writeln!(requests_in, "{}", call(json!(1), "rm -rf danger")).expect("write");
    line.clear();
    answers.read_line(&mut line).expect("answer");
    let answer: Value = serde_json::from_str(&line).expect("JSON");
    assert_eq!(answer["outcome"], "block", "{answer}");
    drop(requests_in);
    assert_eq!(child.wait().expect("wait").code(), Some(0));
    assert!(!non_blocking(&requests_out), "stdin was left non-blocking");
}

#[test]
fn serve_over_a_unix_socket_and_from_a_file() {
    use std::os::unix::net::UnixStream;
    let scene = policy_scene();
    // A socketpair, as Node's child_process gives its children.
    let (agent, ours) = UnixStream::pair().expect("socketpair");
    let mut child = serve_command(&scene)
        .stdin(std::os::fd::OwnedFd::from(ours.try_clone().expect("dup")))
        .stdout(std::os::fd::OwnedFd::from(ours.try_clone().expect("dup")))
        .spawn()
        .expect("start hookhost serve");
    agent.set_read_timeout(Some(READ_TIMEOUT)).expect("timeout");
    let mut answers = BufReader::new(agent.try_clone().expect("dup"));
    let mut line = String::new();
    answers.read_line(&mut line).expect("ready line");
    assert!(line.contains("\"ready\""), "{line}");
    assert!(non_blocking(&ours), "the socket is not on the event loop");
    writeln!(&agent, "{}", call(json!("s"), "ls")).expect("write");
    line.clear();
    answers.read_line(&mut line).expect("answer");
    let answer: Value = serde_json::from_str(&line).expect("JSON");
    assert_eq!(
        (&answer["id"], &answer["outcome"]),
        (&json!("s"), &json!("allow"))
    );
    agent.shutdown(std::net::Shutdown::Write).expect("shutdown");
    assert_eq!(child.wait().expect("wait").code(), Some(0));
    assert!(!non_blocking(&ours), "the socket was left non-blocking");

    // Requests from a file, answers to a file: tokio's thread-backed streams.
    let requests = scene.root.path().join("requests.jsonl");
    let answers = scene.root.path().join("answers.jsonl");
    std::fs::write(
        &requests,
        format!(
            "{}\n{}\n",
            call(json!(1), "rm -rf danger"),
            call(json!(2), "ls")
        ),
    )
    .expect("write");
    let status = serve_command(&scene)
        .stdin(std::fs::File::open(&requests).expect("open"))
        .stdout(std::fs::File::create(&answers).expect("create"))
        .status()
        .expect("run hookhost serve");
    assert_eq!(status.code(), Some(0));
    let text = std::fs::read_to_string(&answers).expect("read");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(lines[0]["type"], "ready");
    let outcome = |id: i64| {
        lines
            .iter()
            .find(|l| l["id"] == json!(id))
            .map(|l| l["outcome"].clone())
    };
    assert_eq!(outcome(1), Some(json!("block")), "{text}");
    assert_eq!(outcome(2), Some(json!("allow")), "{text}");
}
