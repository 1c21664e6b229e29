//! What one run may use: memory and tables (the store's [`ResourceLimiter`], all the
//! run's memories and tables counted together), and time (fuel from the timeout, and
//! the wall-clock backstop the epoch callback enforces). [`WasmExecutor::arm`] puts
//! them all on a fresh store.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use wasmtime::{
    CallHook, CallHookHandler, ResourceLimiter, Store, StoreContextMut, Trap, UpdateDeadline,
};

use super::WasmExecutor;
use super::engine::TICK;
use crate::executor::Failure;

/// The most table elements one run may hold (all tables together).
const TABLE_ELEMENTS_LIMIT: usize = 1 << 20;

/// The most core instances, tables and memories one run may have (the store's caps).
const RUN_INSTANCES: u32 = 64;
const RUN_TABLES: u32 = 64;
const RUN_MEMORIES: u32 = 16;

/// Per-run limits on memory and tables (all memories/tables of the run together).
pub(super) struct Limits {
    memory_cap: usize,
    memory_used: usize,
    /// Set when a growth was refused: what to tell the user.
    pub(super) memory_hit: Option<String>,
    table_used: usize,
    /// The epoch ticker ticks for this run while the store (which holds this) lives.
    ticking: Option<super::engine::Ticking>,
}

impl Limits {
    pub(super) fn new(memory_limit_mib: u64) -> Limits {
        let cap = memory_limit_mib
            .saturating_mul(1 << 20)
            .try_into()
            .unwrap_or(usize::MAX);
        Limits {
            memory_cap: cap,
            memory_used: 0,
            memory_hit: None,
            table_used: 0,
            ticking: None,
        }
    }
}

impl ResourceLimiter for Limits {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let extra = desired.saturating_sub(current);
        match self.memory_used.checked_add(extra) {
            Some(total) if total <= self.memory_cap => {
                self.memory_used = total;
                Ok(true)
            }
            _ => {
                let why = format!(
                    "memory limit of {} MiB reached (asked for {} MiB more with {} MiB in use)",
                    self.memory_cap >> 20,
                    extra.div_ceil(1 << 20),
                    self.memory_used >> 20
                );
                self.memory_hit = Some(why.clone());
                Err(wasmtime::Error::msg(why))
            }
        }
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let extra = desired.saturating_sub(current);
        match self.table_used.checked_add(extra) {
            Some(total) if total <= TABLE_ELEMENTS_LIMIT => {
                self.table_used = total;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn instances(&self) -> usize {
        RUN_INSTANCES as usize
    }

    fn tables(&self) -> usize {
        RUN_TABLES as usize
    }

    fn memories(&self) -> usize {
        RUN_MEMORIES as usize
    }
}

/// The fuel a timeout buys at `rate` fuel per second.
pub(super) fn fuel_for(timeout: Duration, rate: u64) -> u64 {
    let fuel = timeout.as_millis().saturating_mul(u128::from(rate)) / 1000;
    u64::try_from(fuel).unwrap_or(u64::MAX)
}

/// The wall-clock backstop for a timeout: the timeout plus a quarter of it (at least
/// 100 ms), so that fuel, which is deterministic, normally decides first.
pub(super) fn wall_limit(timeout: Duration) -> Duration {
    timeout + (timeout / 4).max(Duration::from_millis(100))
}

impl WasmExecutor {
    /// Fresh store settings shared by both kinds: fuel, the wall-clock limit (the run
    /// traps once `timeout + slack` has passed), yields to tokio about every tick, and the
    /// memory limiter.
    ///
    /// A long-lived engine (`serve`, `hookhost warm`) checks the clock at the ticks of its
    /// epoch ticker thread, which also make the guest yield. A one-shot engine (a bridge
    /// process: one run or a few) starts no ticker: the thread and its wake-ups were
    /// ~0.13–0.2 ms of a fresh bridged call of ~3.7 ms (BENCHMARKS.md, twenty-fifth and
    /// twenty-sixth sittings). Its guest meets the clock in two places instead, so that no
    /// kind of busy guest escapes it:
    /// - guest code yields every tick's worth of fuel (`fuel_async_yield_interval`);
    /// - every host call looks at the clock ([`HostCallClock`]): it traps past the limit
    ///   and yields once a tick has passed since the last yield. A guest that spends its
    ///   time in host calls (a loop of large `random_get`s) burns one unit of fuel a call
    ///   and would otherwise never yield.
    ///
    /// At each yield the run's `select!` sees the caller's cancellation and its
    /// wall-clock backstop.
    pub(super) fn arm<T: Send + 'static>(
        &self,
        store: &mut Store<T>,
        limits: fn(&mut T) -> &mut Limits,
    ) -> Result<(), Failure> {
        store.limiter(move |s| limits(s) as &mut dyn ResourceLimiter);
        store
            .set_fuel(self.fuel)
            .map_err(|e| Failure::CouldNotStart(format!("cannot set fuel: {e}")))?;
        let started = Instant::now();
        let deadline = started + wall_limit(self.timeout);
        if self.engine.yields_by_fuel {
            let tick = fuel_for(TICK, self.engine.settings.fuel_per_second).max(1);
            store
                .fuel_async_yield_interval(Some(tick))
                .map_err(|e| Failure::CouldNotStart(format!("cannot yield by fuel: {e}")))?;
            store.call_hook_async(HostCallClock {
                started,
                deadline,
                yielded_at_nanos: AtomicU64::new(0),
            });
        } else {
            // The epoch ticker ticks while a run's store lives (no tick is needed otherwise).
            let ticking = self.engine.ticking().map_err(|e| {
                Failure::CouldNotStart(format!("cannot start the epoch ticker: {e}"))
            })?;
            limits(store.data_mut()).ticking = Some(ticking);
        }
        store.set_epoch_deadline(1);
        store.epoch_deadline_callback(move |_| {
            if Instant::now() >= deadline {
                Err(Trap::Interrupt.into())
            } else {
                Ok(UpdateDeadline::Yield(1))
            }
        });
        Ok(())
    }
}

/// A one-shot run's clock at its host calls: past `deadline` the call traps (as the
/// epoch callback traps a late run in the long-lived engines), and a tick after the last
/// yield the guest yields to tokio. Looked at as the guest calls the host, so that a
/// late guest starts no further host call.
struct HostCallClock {
    started: Instant,
    deadline: Instant,
    /// When the guest last yielded here, in nanoseconds after `started` (the handler is
    /// shared, so its state is atomic; one run calls it from one fiber at a time).
    yielded_at_nanos: AtomicU64,
}

#[async_trait::async_trait]
impl<T: Send> CallHookHandler<T> for HostCallClock {
    async fn handle_call_event(
        &self,
        _store: StoreContextMut<'_, T>,
        event: CallHook,
    ) -> wasmtime::Result<()> {
        if !matches!(event, CallHook::CallingHost) {
            return Ok(());
        }
        let now = Instant::now();
        if now >= self.deadline {
            return Err(Trap::Interrupt.into());
        }
        let elapsed = u64::try_from((now - self.started).as_nanos()).unwrap_or(u64::MAX);
        let tick = u64::try_from(TICK.as_nanos()).unwrap_or(u64::MAX);
        if elapsed.saturating_sub(self.yielded_at_nanos.load(Ordering::Relaxed)) >= tick {
            self.yielded_at_nanos.store(elapsed, Ordering::Relaxed);
            tokio::task::yield_now().await;
        }
        Ok(())
    }
}

/// What one run of a program holds of `serve`'s pooling allocator while it runs, read
/// once when the program is prepared ([`WasmExecutor::pool_footprint`]). wasmtime
/// limits each of these across all runs at once ([`PoolTotals`]); a run that would
/// pass one of the totals fails with "maximum concurrent limit … reached", so runs are
/// admitted by these counts, never by their number alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolFootprint {
    /// Core module instances: one for a core module; for a component, one per core
    /// module it instantiates (CPython's, libc's, the adapters', …).
    pub core_instances: u32,
    /// Linear memories the run's core instances define.
    pub memories: u32,
    /// Tables the run's core instances define.
    pub tables: u32,
    /// Component instances: 1 for a component, 0 for a core module.
    pub component_instances: u32,
    /// Fiber stacks: 1 (a run is one async call at a time, on one fiber).
    pub stacks: u32,
    /// Whether `core_instances` was counted in the component's structure; `false` in a
    /// one-shot engine (which has no pool and does not count), and where the structure
    /// is beyond what `component_core_instances` reads (components nested with code of
    /// their own, say): the run is then counted as taking the most core instances a run
    /// may have at all (the store's cap, past which it would fail alone as in a burst).
    pub counted: bool,
}

impl PoolFootprint {
    /// A core module's run: one instance and the memories and tables it defines.
    pub(super) fn of_module(module: &wasmtime::Module) -> PoolFootprint {
        let needs = module.resources_required();
        PoolFootprint {
            core_instances: 1,
            memories: needs.num_memories,
            tables: needs.num_tables,
            component_instances: 0,
            stacks: 1,
            counted: true,
        }
    }

    /// A component's run: its memories and tables as wasmtime counts them, and its core
    /// instances counted in `bytes`, its binary, where `pooled` (an engine with a pool to
    /// admit runs to; a one-shot engine skips the count, which its single call does not
    /// need). Where they are not counted, or cannot be, they are the store's cap; and
    /// all three are the store's caps where wasmtime cannot count the memories (a
    /// component that imports core modules, which the host never provides).
    pub(super) fn of_component(
        component: &wasmtime::component::Component,
        bytes: &[u8],
        pooled: bool,
    ) -> PoolFootprint {
        let needs = component.resources_required();
        let counted = needs
            .as_ref()
            .filter(|_| pooled)
            .and_then(|_| component_core_instances(bytes));
        PoolFootprint {
            core_instances: counted.unwrap_or(RUN_INSTANCES),
            memories: needs.as_ref().map_or(RUN_MEMORIES, |n| n.num_memories),
            tables: needs.as_ref().map_or(RUN_TABLES, |n| n.num_tables),
            component_instances: 1,
            stacks: 1,
            counted: counted.is_some(),
        }
    }

    /// Each count with the name of what it counts, for [`PoolTotals::admission`].
    fn by_kind(&self) -> [(u32, &'static str); 5] {
        [
            (self.core_instances, "core instances"),
            (self.memories, "memories"),
            (self.tables, "tables"),
            (self.component_instances, "component instances"),
            (self.stacks, "stacks"),
        ]
    }
}

/// How much of each kind the pooling allocator holds across all runs at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolTotals {
    /// `total_core_instances`.
    pub core_instances: u32,
    /// `total_memories`.
    pub memories: u32,
    /// `total_tables`.
    pub tables: u32,
    /// `total_component_instances`.
    pub component_instances: u32,
    /// `total_stacks`: the most runs at once.
    pub stacks: u32,
}

/// The admission semaphore's permits: each kind of the pool is [`ADMISSION_UNITS`] units
/// in all, and a run takes, in units, the largest share of any one kind it needs.
pub(super) const ADMISSION_UNITS: u32 = 1 << 20;

impl PoolTotals {
    /// Each total with the name of what it counts, in the order of
    /// [`PoolFootprint::by_kind`].
    fn by_kind(&self) -> [u32; 5] {
        [
            self.core_instances,
            self.memories,
            self.tables,
            self.component_instances,
            self.stacks,
        ]
    }

    /// The permits of the admission semaphore ([`ADMISSION_UNITS`] in all) that a run
    /// of `footprint` takes: its largest share of any one kind, rounded up. Runs holding
    /// at most [`ADMISSION_UNITS`] between them thus never hold more of any kind than
    /// the pool has. Computed once per program; a run then takes its permits in one
    /// acquire, as it took one permit before.
    ///
    /// `Err((needs, total, kind))` where one run needs more of a kind than the whole
    /// pool holds: it could never start, and is refused when it is prepared.
    pub(super) fn admission(
        &self,
        footprint: &PoolFootprint,
    ) -> Result<u32, (u32, u32, &'static str)> {
        let mut permits = 0;
        for ((needs, kind), total) in footprint.by_kind().into_iter().zip(self.by_kind()) {
            if needs > total {
                return Err((needs, total, kind));
            }
            let share = (u64::from(needs) * u64::from(ADMISSION_UNITS)).div_ceil(u64::from(total));
            permits = permits.max(u32::try_from(share).unwrap_or(ADMISSION_UNITS));
        }
        Ok(permits.max(1))
    }
}

/// The store's own per-run caps ([`Limits`]'s `instances`, `memories`, `tables`), which
/// a run past them would fail on whatever the load: checked when a program is prepared,
/// in every mode.
pub(super) fn store_caps(footprint: &PoolFootprint) -> Result<(), (u32, u32, &'static str)> {
    let caps = [
        (footprint.core_instances, RUN_INSTANCES, "core instances"),
        (footprint.memories, RUN_MEMORIES, "memories"),
        (footprint.tables, RUN_TABLES, "tables"),
    ];
    for (needs, cap, kind) in caps {
        if needs > cap {
            return Err((needs, cap, kind));
        }
    }
    Ok(())
}

/// How many core instances one instance of the component `bytes` creates, as wasmtime
/// counts them against `total_core_instances`: one per core `instantiate` of the
/// component, plus one per `canon lower` of a function the component itself provides
/// (wasmtime compiles such lowerings into adapter modules, at most one per lowering).
///
/// Read from the binary, once per program, reading only the component's own sections
/// (nested core modules are skipped by length): what every toolchain here builds (Rust's
/// wasip2, componentize-py, componentize-js) is a flat component whose nested
/// components only re-export typed functions (no code, no instances of their own).
/// `None` for anything else (a nested component with modules, instances or `canon`s of
/// its own, a section or encoding this reader does not know): the caller then counts
/// the most a run may have (the store's cap of 64).
pub(super) fn component_core_instances(bytes: &[u8]) -> Option<u32> {
    let mut component = Reader::new(bytes.get(8..)?);
    // Whether each component function and component instance comes from the guest (a
    // lift, or an instance the component made) rather than the host (an import).
    let mut funcs: Vec<bool> = Vec::new();
    let mut instances: Vec<bool> = Vec::new();
    let mut core_instances: u32 = 0;
    while !component.done() {
        let id = component.u8()?;
        let size = component.u32()?;
        let mut section = Reader::new(component.take(size)?);
        match id {
            // Custom sections, core modules (instantiated by section 2), core types,
            // types.
            0 | 1 | 3 | 7 => continue,
            4 => {
                if !inert_component(section.rest()) {
                    return None;
                }
                continue;
            }
            // Vectors of entries, read below.
            2 | 5 | 6 | 8 | 10 | 11 => {}
            // A start function, values, anything newer.
            _ => return None,
        }
        for _ in 0..section.u32()? {
            match id {
                // Core instances.
                2 => match section.u8()? {
                    0x00 => {
                        core_instances = core_instances.checked_add(1)?;
                        section.u32()?;
                        for _ in 0..section.u32()? {
                            section.name()?;
                            (section.u8()? == 0x12).then_some(())?;
                            section.u32()?;
                        }
                    }
                    0x01 => {
                        for _ in 0..section.u32()? {
                            section.name()?;
                            section.u8()?;
                            section.u32()?;
                        }
                    }
                    _ => return None,
                },
                // Component instances (of inert components, or bundles of exports).
                5 => {
                    match section.u8()? {
                        0x00 => {
                            section.u32()?;
                            for _ in 0..section.u32()? {
                                section.name()?;
                                section.sort_index()?;
                            }
                        }
                        0x01 => {
                            for _ in 0..section.u32()? {
                                section.extern_name()?;
                                section.sort_index()?;
                            }
                        }
                        _ => return None,
                    }
                    instances.push(true);
                }
                // Aliases.
                6 => {
                    let sort = section.sort()?;
                    match section.u8()? {
                        0x00 => {
                            let instance = *instances.get(section.u32()? as usize)?;
                            section.name()?;
                            match sort {
                                Sort::Func => funcs.push(instance),
                                Sort::Instance => instances.push(instance),
                                _ => {}
                            }
                        }
                        0x01 => {
                            section.u32()?;
                            section.name()?;
                        }
                        0x02 => {
                            section.u32()?;
                            section.u32()?;
                            // Outer aliases name types, modules and components only.
                            if matches!(sort, Sort::Func | Sort::Instance) {
                                return None;
                            }
                        }
                        _ => return None,
                    }
                }
                // Canonical functions: lifts make guest functions; a lowering of one
                // is an adapter.
                8 => match section.u8()? {
                    0x00 => {
                        (section.u8()? == 0x00).then_some(())?;
                        section.u32()?;
                        section.canon_options()?;
                        section.u32()?;
                        funcs.push(true);
                    }
                    0x01 => {
                        (section.u8()? == 0x00).then_some(())?;
                        if *funcs.get(section.u32()? as usize)? {
                            core_instances = core_instances.checked_add(1)?;
                        }
                        section.canon_options()?;
                    }
                    // resource.new, resource.drop, resource.rep.
                    0x02..=0x04 => {
                        section.u32()?;
                    }
                    _ => return None,
                },
                // Imports: the host's.
                10 => {
                    section.extern_name()?;
                    match section.extern_desc()? {
                        Sort::Func => funcs.push(false),
                        Sort::Instance => instances.push(false),
                        _ => {}
                    }
                }
                // Exports: each is a new index of what it exports.
                11 => {
                    section.extern_name()?;
                    let (sort, index) = section.sort_index()?;
                    match section.u8()? {
                        0x00 => {}
                        0x01 => {
                            section.extern_desc()?;
                        }
                        _ => return None,
                    }
                    match sort {
                        Sort::Func => funcs.push(*funcs.get(index as usize)?),
                        Sort::Instance => instances.push(*instances.get(index as usize)?),
                        _ => {}
                    }
                }
                _ => unreachable!("only vector sections get here"),
            }
        }
        section.done().then_some(())?;
    }
    Some(core_instances)
}

/// Whether a nested component (its binary) holds nothing that makes core instances or
/// adapters: only types, imports, exports and aliases (a typed re-export, as
/// wit-component nests them).
fn inert_component(bytes: &[u8]) -> bool {
    let Some(body) = bytes.get(8..) else {
        return false;
    };
    let mut component = Reader::new(body);
    while !component.done() {
        let (Some(id), Some(size)) = (component.u8(), component.u32()) else {
            return false;
        };
        if component.take(size).is_none() || !matches!(id, 0 | 3 | 6 | 7 | 10 | 11) {
            return false;
        }
    }
    true
}

/// The sorts of the component model, as far as [`component_core_instances`] tells them
/// apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sort {
    Core,
    Func,
    Value,
    Type,
    Component,
    Instance,
}

/// A cursor over a component's bytes; every read is `None` past the end.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes }
    }

    fn done(&self) -> bool {
        self.bytes.is_empty()
    }

    fn rest(&self) -> &'a [u8] {
        self.bytes
    }

    fn u8(&mut self) -> Option<u8> {
        let (&first, rest) = self.bytes.split_first()?;
        self.bytes = rest;
        Some(first)
    }

    fn take(&mut self, n: u32) -> Option<&'a [u8]> {
        let n = usize::try_from(n).ok()?;
        let taken = self.bytes.get(..n)?;
        self.bytes = &self.bytes[n..];
        Some(taken)
    }

    /// An unsigned LEB128 of at most 32 bits.
    fn u32(&mut self) -> Option<u32> {
        let mut value: u32 = 0;
        for shift in (0..35).step_by(7) {
            let byte = self.u8()?;
            let bits = u32::from(byte & 0x7f);
            if shift == 28 && bits > 0x0f {
                return None;
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    }

    /// A signed LEB128 of at most 33 bits (a value type: a primitive or a type index).
    fn s33(&mut self) -> Option<()> {
        for _ in 0..5 {
            if self.u8()? & 0x80 == 0 {
                return Some(());
            }
        }
        None
    }

    /// A name (a length and that many bytes).
    fn name(&mut self) -> Option<()> {
        let size = self.u32()?;
        self.take(size).map(|_| ())
    }

    /// An import or export name (a name after a 0x00 or, in older binaries, 0x01).
    fn extern_name(&mut self) -> Option<()> {
        matches!(self.u8()?, 0x00 | 0x01).then_some(())?;
        self.name()
    }

    fn sort(&mut self) -> Option<Sort> {
        Some(match self.u8()? {
            0x00 => {
                self.u8()?;
                Sort::Core
            }
            0x01 => Sort::Func,
            0x02 => Sort::Value,
            0x03 => Sort::Type,
            0x04 => Sort::Component,
            0x05 => Sort::Instance,
            _ => return None,
        })
    }

    fn sort_index(&mut self) -> Option<(Sort, u32)> {
        let sort = self.sort()?;
        Some((sort, self.u32()?))
    }

    /// An import's or export's type; returns its sort.
    fn extern_desc(&mut self) -> Option<Sort> {
        Some(match self.u8()? {
            0x00 => {
                (self.u8()? == 0x11).then_some(())?;
                self.u32()?;
                Sort::Core
            }
            0x01 => {
                self.u32()?;
                Sort::Func
            }
            0x02 => {
                self.s33()?;
                Sort::Value
            }
            0x03 => {
                match self.u8()? {
                    0x00 => {
                        self.u32()?;
                    }
                    0x01 => {}
                    _ => return None,
                }
                Sort::Type
            }
            0x04 => {
                self.u32()?;
                Sort::Component
            }
            0x05 => {
                self.u32()?;
                Sort::Instance
            }
            _ => return None,
        })
    }

    /// A `canon`'s options.
    fn canon_options(&mut self) -> Option<()> {
        for _ in 0..self.u32()? {
            match self.u8()? {
                0x00..=0x02 | 0x06 | 0x09 => {}
                0x03..=0x05 | 0x07 | 0x08 => {
                    self.u32()?;
                }
                _ => return None,
            }
        }
        Some(())
    }
}
