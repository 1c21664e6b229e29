//! Linux: facts about the machine's memory that hookhost's choices depend on (whether
//! swap is in use, read from `/proc/swaps`), and advice on how to back a large buffer.

/// Whether any swap area is in use. An unreadable `/proc/swaps` counts as swap: the
/// safe side for the callers, which turn an optimisation off when swap is in use.
pub(crate) fn swap_in_use() -> bool {
    lists_a_swap_area(&read_swaps())
}

fn read_swaps() -> String {
    // Unreadable /proc/swaps: assume swap, the safe side.
    std::fs::read_to_string("/proc/swaps").unwrap_or_else(|_| "?\n?".into())
}

/// Whether `/proc/swaps` (a header line, then one line per swap area) lists an area.
fn lists_a_swap_area(swaps: &str) -> bool {
    swaps.lines().skip(1).any(|line| !line.trim().is_empty())
}

/// The size of a huge page on x86-64 and aarch64 with 4 KiB pages, the unit
/// transparent huge pages come in.
const HUGE_PAGE: usize = 2 << 20;

/// Asks the kernel to back the whole 2 MiB pieces of `buffer` (memory not touched yet)
/// with huge pages where it can: a buffer of megabytes about to be filled (a Python
/// component's `.wasm`, 18 MB) otherwise takes a page fault per 4 KiB, which cost more
/// than the copy into it in a VM (benchmarks, seventh sitting). Advice only: refused
/// or ignored (transparent huge pages `never`), nothing changes.
pub(crate) fn prefer_huge_pages(buffer: &[std::mem::MaybeUninit<u8>]) {
    let start = buffer.as_ptr() as usize;
    let first = start.next_multiple_of(HUGE_PAGE);
    let end = (start + buffer.len()) / HUGE_PAGE * HUGE_PAGE;
    if end > first {
        // SAFETY: advice about whole huge pages inside a buffer this process owns; it
        // changes how pages are backed, never their contents.
        unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn swap_areas_are_read_from_proc_swaps() {
        let none = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n";
        assert!(!super::lists_a_swap_area(none));
        let one = format!(
            "{none}/dev/zram0                              partition\t8388604\t\t0\t\t100\n"
        );
        assert!(super::lists_a_swap_area(&one));
        // What the engine reads when /proc/swaps cannot be read: assume swap.
        assert!(super::lists_a_swap_area("?\n?"));
    }
}
