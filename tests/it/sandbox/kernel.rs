//! What the box keeps from the network and the kernel: TCP and Unix sockets, the seccomp filter, io_uring and TIOCSTI, capabilities, socket families.

use super::*;

#[test]
fn no_network_to_a_host_tcp_port() {
    let Some(f) = fixture("no_network_to_a_host_tcp_port") else {
        return;
    };
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let port = listener.local_addr().expect("addr").port();
    let o = py(
        &f.spec,
        &format!(
            "import socket\ntry:\n socket.create_connection(('127.0.0.1', {port}), timeout=3)\n print('CONNECTED')\nexcept OSError as e:\n print('REFUSED', e)"
        ),
    );
    let out = ok(&o);
    assert!(out.starts_with("REFUSED"), "{out}");
    assert!(
        listener.accept().is_err(),
        "the host listener got a connection"
    );
}

/// A Unix socket server on the host, in the project (readable in the box).
fn unix_server(dir: &Path) -> (PathBuf, UnixListener) {
    let path = dir.join("host.sock");
    let l = UnixListener::bind(&path).expect("bind unix");
    l.set_nonblocking(true).expect("nonblocking");
    (path, l)
}

const CONNECT_UNIX: &str = "import socket, sys
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
except OSError as e:
    print('SOCKET', e.errno); sys.exit(0)
try:
    s.connect(sys.argv[1]); print('CONNECTED')
except OSError as e:
    print('CONNECT', e.errno)";

fn accepted(l: &UnixListener) -> bool {
    let deadline = Instant::now() + Duration::from_secs(2);
    while Instant::now() < deadline {
        if l.accept().is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn no_way_out_through_a_host_unix_socket() {
    let Some(f) = fixture("no_way_out_through_a_host_unix_socket") else {
        return;
    };
    let (path, listener) = unix_server(&f.project);
    let o = run_in(
        &f.spec,
        &["python3", "-c", CONNECT_UNIX, path.to_str().expect("utf-8")],
    );
    assert_eq!(
        ok(&o).trim(),
        format!("SOCKET {}", libc::EPERM),
        "socket() itself must fail"
    );
    assert!(!accepted(&listener));
}

#[test]
fn without_the_seccomp_filter_the_same_box_would_connect() {
    let Some(f) = fixture("without_the_seccomp_filter_the_same_box_would_connect") else {
        return;
    };
    let (path, listener) = unix_server(&f.project);
    let argv: Vec<OsString> = ["python3", "-c", CONNECT_UNIX, path.to_str().expect("utf-8")]
        .iter()
        .map(OsString::from)
        .collect();
    let mut args = f.spec.bwrap_args(0, None, &argv).expect("args");
    let at = args
        .iter()
        .position(|a| a == "--seccomp")
        .expect("--seccomp is there");
    args.drain(at..at + 2);
    let o = Command::new(&f.spec.program)
        .args(&args)
        .env_clear()
        .envs(env())
        .stdin(Stdio::null())
        .output()
        .expect("spawn");
    assert_eq!(ok(&o).trim(), "CONNECTED");
    assert!(accepted(&listener));
}

#[test]
fn io_uring_and_tiocsti_are_refused() {
    let Some(f) = fixture("io_uring_and_tiocsti_are_refused") else {
        return;
    };
    let code = format!(
        "import ctypes, fcntl, os, termios
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall({nr}, 1, ctypes.c_void_p(0)); print('uring', ctypes.get_errno())
try:
    fcntl.ioctl(0, termios.TIOCSTI, b'x'); print('tiocsti 0')
except OSError as e:
    print('tiocsti', e.errno)
import socket
a, b = socket.socketpair(); print('stream pair ok')
try:
    socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); print('dgram pair ok')
except OSError as e:
    print('dgram pair', e.errno)",
        nr = libc::SYS_io_uring_setup
    );
    let out = ok(&py(&f.spec, &code));
    let eperm = libc::EPERM;
    assert_eq!(
        out,
        format!("uring {eperm}\ntiocsti {eperm}\nstream pair ok\ndgram pair {eperm}\n"),
        "{out}"
    );
}

#[test]
fn no_capabilities_and_no_new_privileges() {
    let Some(f) = fixture("no_capabilities_and_no_new_privileges") else {
        return;
    };
    let status = ok(&sh(&f.spec, "cat /proc/self/status"));
    assert!(
        status.lines().any(|l| l == "CapEff:\t0000000000000000"),
        "{status}"
    );
    assert!(status.lines().any(|l| l == "NoNewPrivs:\t1"), "{status}");
}

/// Security review I1: only the socket families a hook needs can be created; vsock
/// (which the network namespace does not scope on every kernel), packet and Bluetooth
/// sockets are refused like Unix ones, with EPERM.
#[test]
fn only_inet_inet6_and_netlink_sockets_can_be_created() {
    let Some(f) = fixture("only_inet_inet6_and_netlink_sockets_can_be_created") else {
        return;
    };
    // SAFETY: socket and close with plain integer arguments.
    let host_has_inet6 = unsafe {
        let fd = libc::socket(libc::AF_INET6, libc::SOCK_DGRAM, 0);
        fd >= 0 && libc::close(fd) == 0
    };
    let code = format!(
        "import socket
for name, family, kind in [('vsock', {vsock}, 1), ('packet', {packet}, 3), ('bluetooth', {bt}, 1),
                           ('unix', {unix}, 1), ('inet', {inet}, 1), ('inet6', {inet6}, 2), ('netlink', {netlink}, 3)]:
    try:
        socket.socket(family, kind, 0).close(); print(name, 'ok')
    except OSError as e:
        print(name, e.errno)",
        vsock = libc::AF_VSOCK,
        packet = libc::AF_PACKET,
        bt = libc::AF_BLUETOOTH,
        unix = libc::AF_UNIX,
        inet = libc::AF_INET,
        inet6 = libc::AF_INET6,
        netlink = libc::AF_NETLINK,
    );
    let out = ok(&py(&f.spec, &code));
    let eperm = libc::EPERM;
    let inet6 = if host_has_inet6 {
        "inet6 ok".to_string()
    } else {
        eprintln!("this host has no IPv6 sockets: inet6 is not checked");
        out.lines()
            .find(|l| l.starts_with("inet6"))
            .unwrap_or("inet6")
            .to_string()
    };
    assert_eq!(
        out,
        format!(
            "vsock {eperm}\npacket {eperm}\nbluetooth {eperm}\nunix {eperm}\ninet ok\n{inet6}\nnetlink ok\n"
        )
    );
}
