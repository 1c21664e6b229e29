//! What a hook can reach: the two linkers (WASI preview 1 for modules, exactly the hook
//! world for components, plus the network interfaces with every use denied), the import
//! policy that refuses anything the host does not provide, and the WASI context each run
//! gets (its stdin, capped output pipes, arguments, the read-only project preopen; no
//! environment, no network).
//!
//! Everything a guest is granted is decided here, in one place: a change of policy is a
//! change to this file.

use std::path::Path;

use wasmtime::Engine;
use wasmtime::component::{Component, HasData, ResourceTable};
use wasmtime_wasi::cli::{WasiCli, WasiCliView};
use wasmtime_wasi::clocks::{WasiClocks, WasiClocksView};
use wasmtime_wasi::filesystem::{WasiFilesystem, WasiFilesystemCtx, WasiFilesystemView};
use wasmtime_wasi::p2::pipe::{MemoryInputPipe, MemoryOutputPipe};
use wasmtime_wasi::random::{WasiRandom, WasiRandomCtx};
use wasmtime_wasi::{FsPerms, I32Exit, WasiCtx, WasiCtxBuilder};
use wasmtime_wasi_http::{Error as HttpError, RequestOptions, WasiBody, WasiHttpHooks};

use super::run::{ComponentState, ModuleState};
use super::{WasmError, WasmExecutor};

/// The interfaces the host links for components: exactly the imports of the world in
/// `wit/hook.wit` (the unit tests check that the two agree).
pub const HOOK_WORLD_IMPORTS: &[&str] = &[
    "wasi:cli/environment",
    "wasi:cli/exit",
    "wasi:cli/stdin",
    "wasi:cli/stdout",
    "wasi:cli/stderr",
    "wasi:cli/terminal-input",
    "wasi:cli/terminal-output",
    "wasi:cli/terminal-stdin",
    "wasi:cli/terminal-stdout",
    "wasi:cli/terminal-stderr",
    "wasi:clocks/monotonic-clock",
    "wasi:clocks/wall-clock",
    "wasi:filesystem/types",
    "wasi:filesystem/preopens",
    "wasi:io/error",
    "wasi:io/poll",
    "wasi:io/streams",
    "wasi:random/random",
    "wasi:random/insecure",
    "wasi:random/insecure-seed",
];

/// The network interfaces a toolchain's standard library imports whether or not the hook
/// uses them (componentize-py's CPython, Rust's std on wasip2): linked, so that such a
/// component runs, with every use denied at run time (no address is allowed, no name
/// resolved: each run's WASI context turns TCP, UDP and lookups off), which the guest
/// sees as an ordinary error.
pub const NETWORK_IMPORTS: &[&str] = &[
    "wasi:sockets/network",
    "wasi:sockets/instance-network",
    "wasi:sockets/ip-name-lookup",
    "wasi:sockets/tcp",
    "wasi:sockets/tcp-create-socket",
    "wasi:sockets/udp",
    "wasi:sockets/udp-create-socket",
];

/// The HTTP interfaces componentize-js's runtime imports whether or not the script uses
/// `fetch`: linked, so that such a component runs, with every request denied
/// (the host sends none): the guest sees `HTTP-request-denied`, an ordinary error.
pub const HTTP_IMPORTS: &[&str] = &["wasi:http/types", "wasi:http/outgoing-handler"];

/// The `wasi:http` hooks of a run: no request is ever sent.
#[derive(Debug, Default)]
pub(super) struct NoRequests;

impl WasiHttpHooks for NoRequests {
    fn send_request(
        &mut self,
        _request: http::Request<WasiBody>,
        _options: Option<RequestOptions>,
        _fut: Box<dyn Future<Output = Result<(), HttpError>> + Send>,
    ) -> Box<dyn Future<Output = HttpResponse> + Send> {
        Box::new(std::future::ready(Err(HttpError::HttpRequestDenied)))
    }
}

/// What [`WasiHttpHooks::send_request`] resolves to.
type HttpResponse = Result<
    (
        http::Response<WasiBody>,
        Box<dyn Future<Output = Result<(), HttpError>> + Send>,
    ),
    HttpError,
>;

/// `HasData` for the `wasi:io` interfaces, which work on the resource table.
struct Io;

impl HasData for Io {
    type Data<'a> = &'a mut ResourceTable;
}

fn io_table(state: &mut ComponentState) -> &mut ResourceTable {
    &mut state.table
}

fn random_ctx(state: &mut ComponentState) -> &mut WasiRandomCtx {
    state.ctx.random()
}

/// Links exactly [`HOOK_WORLD_IMPORTS`], [`NETWORK_IMPORTS`] and [`HTTP_IMPORTS`], with
/// the async bindings; each run's context denies every use of the last two.
pub(super) fn link_hook_world(
    l: &mut wasmtime::component::Linker<ComponentState>,
) -> wasmtime::Result<()> {
    use wasmtime_wasi::p2::bindings::{cli, clocks, filesystem, io, random};
    type S = ComponentState;

    io::error::add_to_linker::<S, Io>(l, io_table)?;
    io::poll::add_to_linker::<S, Io>(l, io_table)?;
    io::streams::add_to_linker::<S, Io>(l, io_table)?;
    clocks::wall_clock::add_to_linker::<S, WasiClocks>(l, S::clocks)?;
    clocks::monotonic_clock::add_to_linker::<S, WasiClocks>(l, S::clocks)?;
    filesystem::types::add_to_linker::<S, WasiFilesystem>(l, S::filesystem)?;
    filesystem::preopens::add_to_linker::<S, WasiFilesystem>(l, S::filesystem)?;
    random::random::add_to_linker::<S, WasiRandom>(l, random_ctx)?;
    random::insecure::add_to_linker::<S, WasiRandom>(l, random_ctx)?;
    random::insecure_seed::add_to_linker::<S, WasiRandom>(l, random_ctx)?;
    cli::exit::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::environment::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::stdin::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::stdout::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::stderr::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::terminal_input::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::terminal_output::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::terminal_stdin::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::terminal_stdout::add_to_linker::<S, WasiCli>(l, S::cli)?;
    cli::terminal_stderr::add_to_linker::<S, WasiCli>(l, S::cli)?;
    // The network, linked and denied (NETWORK_IMPORTS).
    use wasmtime_wasi::p2::bindings::sockets;
    use wasmtime_wasi::sockets::{WasiSockets, WasiSocketsView};
    let options = sockets::network::LinkOptions::default();
    sockets::network::add_to_linker::<S, WasiSockets>(l, &options, S::sockets)?;
    sockets::instance_network::add_to_linker::<S, WasiSockets>(l, S::sockets)?;
    sockets::ip_name_lookup::add_to_linker::<S, WasiSockets>(l, S::sockets)?;
    sockets::tcp::add_to_linker::<S, WasiSockets>(l, S::sockets)?;
    sockets::tcp_create_socket::add_to_linker::<S, WasiSockets>(l, S::sockets)?;
    sockets::udp::add_to_linker::<S, WasiSockets>(l, S::sockets)?;
    sockets::udp_create_socket::add_to_linker::<S, WasiSockets>(l, S::sockets)?;
    // HTTP, linked and denied (HTTP_IMPORTS, NoRequests).
    wasmtime_wasi_http::p2::add_only_http_to_linker_async(l)?;
    Ok(())
}

/// Links WASI preview 1 (async), with a `proc_exit` that keeps every exit code.
///
/// wasmtime-wasi's own `proc_exit` turns a status ≥ 126 into a plain error that loses
/// the number; this one always raises [`I32Exit`] with the guest's status.
pub(super) fn link_preview1(l: &mut wasmtime::Linker<ModuleState>) -> wasmtime::Result<()> {
    wasmtime_wasi::p1::add_to_linker_async(l, |s: &mut ModuleState| &mut s.wasi)?;
    l.allow_shadowing(true);
    l.func_wrap(
        "wasi_snapshot_preview1",
        "proc_exit",
        |status: i32| -> wasmtime::Result<()> { Err(wasmtime::Error::new(I32Exit(status))) },
    )?;
    l.allow_shadowing(false);
    Ok(())
}

/// How the host links a component's top-level import `name`: `Some(false)` linked
/// ([`HOOK_WORLD_IMPORTS`]), `Some(true)` linked with every use denied
/// ([`NETWORK_IMPORTS`], [`HTTP_IMPORTS`]), `None` not provided.
fn component_import(name: &str) -> Option<bool> {
    let unversioned = name.split('@').next().unwrap_or(name);
    if NETWORK_IMPORTS.contains(&unversioned) || HTTP_IMPORTS.contains(&unversioned) {
        Some(true)
    } else if HOOK_WORLD_IMPORTS.contains(&unversioned) {
        Some(false)
    } else {
        None
    }
}

/// The one module a core module may import from.
const PREVIEW1: &str = "wasi_snapshot_preview1";

/// How a refused import is named: a component's as it names it, a module's as
/// `` `module::name` ``.
fn unknown_import(path: &Path, import: String) -> WasmError {
    WasmError::UnknownImport {
        path: path.to_path_buf(),
        import,
    }
}

/// Refuses anything the host does not provide; returns whether the component imports
/// network interfaces (linked, every use denied).
pub(super) fn check_component_imports(
    path: &Path,
    engine: &Engine,
    component: &Component,
) -> Result<bool, WasmError> {
    let mut network = false;
    for (name, _) in component.component_type().imports(engine) {
        match component_import(name) {
            Some(denied) => network |= denied,
            None => return Err(unknown_import(path, name.to_string())),
        }
    }
    Ok(network)
}

/// Refuses a module that imports anything but WASI preview 1.
pub(super) fn check_module_imports(
    path: &Path,
    module: &wasmtime::Module,
) -> Result<(), WasmError> {
    for import in module.imports() {
        if import.module() != PREVIEW1 {
            return Err(unknown_import(
                path,
                format!("`{}::{}`", import.module(), import.name()),
            ));
        }
    }
    Ok(())
}

/// Refuses, before anything is compiled, a module or component (`component` says
/// which) that imports what the host does not provide, with the refusal
/// [`check_module_imports`] and [`check_component_imports`] give after compiling.
///
/// Compiling CPython or ruby.wasm takes tens of seconds (minutes on a loaded machine),
/// and one built for another host (`rb-js-abi-host`) was refused only then. This reads
/// the top-level import sections alone, with `wasmparser`, without validating: code
/// sections and nested modules and components (whose imports their enclosing
/// component satisfies) are skipped over: under 2 ms for CPython's 18 MB, unoptimised. A
/// file that does not parse is left to the compiler, which says what is wrong.
pub(super) fn check_imports_before_compiling(
    path: &Path,
    bytes: &[u8],
    component: bool,
) -> Result<(), WasmError> {
    match first_unknown_import(bytes, component) {
        Ok(Some(import)) => Err(unknown_import(path, import)),
        Ok(None) | Err(_) => Ok(()),
    }
}

/// The first top-level import of `bytes` that the host does not provide, named as the
/// refusal names it.
fn first_unknown_import(bytes: &[u8], component: bool) -> wasmparser::Result<Option<String>> {
    use wasmparser::{Chunk, Parser, Payload};
    let mut parser = Parser::new(0);
    let mut at = 0;
    loop {
        let rest = bytes.get(at..).unwrap_or_default();
        let (payload, consumed) = match parser.parse(rest, true)? {
            Chunk::Parsed { payload, consumed } => (payload, consumed),
            // Not with `eof`; the compiler will say what is wrong.
            Chunk::NeedMoreData(_) => return Ok(None),
        };
        at += consumed;
        match payload {
            Payload::ImportSection(imports) if !component => {
                for import in imports.into_imports() {
                    let import = import?;
                    if import.module != PREVIEW1 {
                        return Ok(Some(format!("`{}::{}`", import.module, import.name)));
                    }
                }
            }
            Payload::ComponentImportSection(imports) if component => {
                for import in imports {
                    let name = import?.name.name;
                    if component_import(name).is_none() {
                        return Ok(Some(name.to_string()));
                    }
                }
            }
            Payload::CodeSectionStart { size, .. } => {
                parser.skip_section();
                at += size as usize;
            }
            Payload::ModuleSection {
                unchecked_range, ..
            }
            | Payload::ComponentSection {
                unchecked_range, ..
            } => at = unchecked_range.end,
            Payload::End(_) => return Ok(None),
            _ => {}
        }
    }
}

/// Opens `project` once, as the read-only `/project` preopen every run of a hook shares.
///
/// Opening it per run walked the whole path each time (a tenth of a warm run). Sharing
/// the descriptor is safe: every guest access is relative to it (`openat` and friends
/// through wasmtime-wasi's sandboxed primitives), and directory listings open a
/// descriptor of their own, so runs never share a position.
pub(super) fn open_project(project: &Path) -> Result<WasiFilesystemCtx, WasmError> {
    let refused = |reason: String| WasmError::Project {
        path: project.to_path_buf(),
        reason,
    };
    if let Some(reason) = crate::access::folder_problem(project) {
        return Err(refused(reason));
    }
    let mut builder = WasiCtxBuilder::new();
    // Twice, read-only both times: as `/project`, and as `.`, the preopen through which
    // wasi-libc resolves a relative path, so that `open("notes.txt")` reads the project
    // as an argv hook (run from the project) would. Neither reaches outside it.
    builder
        .preopened_dir(project, "/project", FsPerms::ReadOnly)
        .and_then(|b| b.preopened_dir(project, ".", FsPerms::ReadOnly))
        .map_err(|e| refused(e.to_string()))?;
    Ok(builder.build().filesystem().clone())
}

impl WasmExecutor {
    /// The run's WASI context, less the project preopen ([`Self::share_project`] adds
    /// it once built): its stdin, the capped output pipes and the arguments; no
    /// environment, no network.
    pub(super) fn wasi(
        &self,
        stdin: &[u8],
        stdout: &MemoryOutputPipe,
        stderr: &MemoryOutputPipe,
    ) -> WasiCtxBuilder {
        let mut b = WasiCtxBuilder::new();
        b.stdin(MemoryInputPipe::new(stdin.to_vec()))
            .stdout(stdout.clone())
            .stderr(stderr.clone())
            .args(&self.argv)
            // No network: a component may link `wasi:sockets` (NETWORK_IMPORTS), and every
            // use fails. No TCP, no UDP, no name lookup; and no address passes the
            // address check either (its default, kept).
            .allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            .initial_cwd("/project");
        b
    }

    /// Gives a built context the project preopen this hook opened at start.
    pub(super) fn share_project(&self, ctx: &mut WasiCtx) {
        *ctx.filesystem() = self.preopens.clone();
    }
}
