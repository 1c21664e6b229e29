//! The `hookhost` binary: see [`hookhost::cli`].

fn main() -> std::process::ExitCode {
    hookhost::cli::main()
}
