//! `net-probe`: a test program that tries to open a TCP connection.
//!
//! Built for `wasm32-wasip1` (`net-probe-p1.wasm`) and `wasm32-wasip2`
//! (`net-probe-p2.wasm`). It reads all of stdin, then tries
//! `std::net::TcpStream::connect(argv[1])` (an address such as
//! `127.0.0.1:8080`) and prints `CONNECTED` or `ERR: <error>` (+ `\n`) on
//! stdout, exit 0 either way. Without argv[1] it prints
//! `ERR: no address given (argv[1])`.
//!
//! It is a crate of its own because on wasip2 it imports `wasi:sockets`, which
//! a host that grants no network may refuse when instantiating the component;
//! on wasip1 there are no sockets and the connect fails with "unsupported".

use std::io::{Read, Write};

/// The line the probe prints for a connect outcome.
pub fn outcome_line<T>(result: &std::io::Result<T>) -> String {
    match result {
        Ok(_) => "CONNECTED\n".to_owned(),
        Err(e) => format!("ERR: {e}\n"),
    }
}

fn main() {
    let mut input = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut input);
    let line = match std::env::args().nth(1) {
        Some(address) => outcome_line(&std::net::TcpStream::connect(address.as_str())),
        None => "ERR: no address given (argv[1])\n".to_owned(),
    };
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(line.as_bytes());
    let _ = stdout.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        assert_eq!(outcome_line(&Ok::<(), std::io::Error>(())), "CONNECTED\n");
        let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connection refused");
        assert_eq!(outcome_line(&Err::<(), _>(refused)), "ERR: connection refused\n");
    }

    #[test]
    fn connects_on_the_host() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        assert_eq!(outcome_line(&std::net::TcpStream::connect(address.as_str())), "CONNECTED\n");
    }
}
