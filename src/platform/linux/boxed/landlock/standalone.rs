//! The box's entry point as a program of its own: `build.rs` compiles this file (and
//! `program.rs` with it) for hookhost to carry (see `carried.rs`). Not a module of
//! hookhost.

#[path = "program.rs"]
mod program;

fn main() -> std::process::ExitCode {
    program::entry_main(std::env::args_os())
}
