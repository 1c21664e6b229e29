//! Builds the box's entry point as a small program of its own, which the hookhost binary
//! carries (src/platform/linux/boxed/landlock/carried.rs): `program.rs` there is written
//! against std alone so that it compiles here with no dependency. On Linux only; where
//! it cannot be built, the file is left empty and the hookhost binary itself is the
//! box's entry point (the same rules, a slower start), as a warning says.

use std::path::{Path, PathBuf};
use std::process::Command;

const SOURCE: &str = "src/platform/linux/boxed/landlock/standalone.rs";

fn main() {
    main_thread_stack();
    println!("cargo:rerun-if-changed={SOURCE}");
    println!("cargo:rerun-if-changed=src/platform/linux/boxed/landlock/program.rs");
    let Some(out_dir) = std::env::var_os("OUT_DIR") else {
        println!("cargo:warning=OUT_DIR is not set: cargo runs this build script");
        std::process::exit(1);
    };
    let out = PathBuf::from(out_dir).join("box-entry");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    // Static first: the program then starts without the dynamic loader.
    let built = linux && (compile(&out, true) || compile(&out, false));
    if !built {
        if linux {
            println!(
                "cargo:warning=the box's entry program could not be built, so boxed hooks start the whole hookhost binary as their entry point (slower, the same rules)"
            );
        }
        if let Err(e) = std::fs::write(&out, b"") {
            println!("cargo:warning=cannot write {}: {e}", out.display());
            std::process::exit(1);
        }
    }
}

/// Gives the binaries' main thread on Windows the 8 MiB Linux and macOS give it (Windows'
/// default is 1 MiB): a bridge process starts its session and runs its gate on that
/// thread (`src/cli/watchdog.rs`), as the blocking threads of 2 MiB it once ran its start
/// on never had to. A stack overflow ends the process, which most agents read as
/// "go ahead".
fn main_thread_stack() {
    let windows = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "windows");
    if !windows {
        return;
    }
    let msvc = std::env::var("CARGO_CFG_TARGET_ENV").is_ok_and(|env| env == "msvc");
    let stack = 8 << 20;
    match msvc {
        true => println!("cargo:rustc-link-arg-bins=/STACK:{stack}"),
        false => println!("cargo:rustc-link-arg-bins=-Wl,--stack,{stack}"),
    }
}

/// Compiles the entry program into `out` for the target being built; whether it worked.
fn compile(out: &Path, static_link: bool) -> bool {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let Ok(target) = std::env::var("TARGET") else {
        return false;
    };
    let mut command = Command::new(rustc);
    command
        .args(["--edition", "2024", "--crate-type", "bin"])
        .args(["--crate-name", "hookhost_box_entry", "--cap-lints", "allow"])
        .args([
            "-C",
            "opt-level=2",
            "-C",
            "panic=abort",
            "-C",
            "strip=symbols",
        ])
        .args(["--target", &target, "-o"])
        .arg(out)
        .arg(SOURCE);
    if static_link {
        command.args(["-C", "target-feature=+crt-static"]);
    }
    command.status().is_ok_and(|status| status.success())
}
