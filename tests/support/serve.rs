//! `hookhost serve` over pipes, as an agent drives it: answers are read on a thread,
//! stderr is kept, and every read has a timeout, so that a bug cannot hang the suite.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Long enough for a slow, shared machine; a hang still fails.
pub const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// A running `hookhost … serve`; killed on drop.
pub struct Server {
    pub child: Child,
    /// `None` once closed.
    pub stdin: Option<ChildStdin>,
    /// stdout, line by line.
    pub lines: mpsc::Receiver<String>,
    /// All of stderr, sent once the server closed it.
    pub stderr: mpsc::Receiver<String>,
}

impl Server {
    /// Starts `cmd` (a `hookhost … serve`) and reads nothing yet.
    pub fn spawn(mut cmd: Command) -> Server {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start hookhost serve");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let mut err = child.stderr.take().expect("stderr");
        let (etx, stderr) = mpsc::channel();
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = err.read_to_string(&mut text);
            let _ = etx.send(text);
        });
        let stdin = child.stdin.take();
        Server {
            child,
            stdin,
            lines,
            stderr,
        }
    }

    /// Starts `cmd` and reads its first line.
    pub fn start(cmd: Command) -> (Server, Value) {
        let server = Server::spawn(cmd);
        let first = server.recv();
        (server, first)
    }

    /// Starts `cmd` and checks that the first line is `ready`.
    pub fn ready(cmd: Command) -> Server {
        let (server, first) = Server::start(cmd);
        assert_eq!(first["type"], "ready", "{first}");
        server
    }

    /// Writes `line` and a newline.
    pub fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).expect("write a request");
        stdin.write_all(b"\n").expect("write a request");
        stdin.flush().expect("flush");
    }

    /// Writes `value` as one JSON line.
    pub fn send(&mut self, value: &Value) {
        self.send_line(&value.to_string());
    }

    /// The next line, as JSON.
    pub fn recv(&self) -> Value {
        self.recv_within(READ_TIMEOUT)
    }

    /// The next line, as JSON, waiting up to `timeout` (a start that compiles a large
    /// component, say).
    pub fn recv_within(&self, timeout: Duration) -> Value {
        let line = self
            .lines
            .recv_timeout(timeout)
            .expect("a line from the server in time");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Reads `n` answers and returns them by id.
    pub fn recv_answers(&self, n: usize) -> std::collections::HashMap<String, Value> {
        (0..n)
            .map(|_| {
                let v = self.recv();
                (v["id"].to_string(), v)
            })
            .collect()
    }

    /// Sends one PreToolUse call with a `command` and reads its answer.
    pub fn call(&mut self, id: &str, tool: &str, command: &str) -> Value {
        self.send(&json!({"id": id, "type": "pre_tool_use", "tool_name": tool, "tool_input": {"command": command}}));
        let answer = self.recv();
        assert_eq!(answer["id"], id, "{answer}");
        answer
    }

    /// Ends the input.
    pub fn close_stdin(&mut self) {
        self.stdin.take();
    }

    /// Closes stdin, waits for the exit and returns (status, stderr).
    pub fn finish(mut self) -> (i32, String) {
        self.stdin.take();
        let code = self.wait_exit();
        (code, self.stderr_text())
    }

    /// Waits for the exit and returns the status (-1 for a signal).
    pub fn wait_exit(&mut self) -> i32 {
        let deadline = Instant::now() + READ_TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status.code().unwrap_or(-1);
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Everything the server wrote to stderr (once it has closed it).
    pub fn stderr_text(&self) -> String {
        self.stderr.recv_timeout(READ_TIMEOUT).unwrap_or_default()
    }

    /// Sends `signal` to the server.
    pub fn signal(&self, signal: i32) {
        let pid = i32::try_from(self.child.id()).expect("pid");
        // SAFETY: kill takes plain integers.
        assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
