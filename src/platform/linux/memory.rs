//! Linux: facts about the machine's memory that hookhost's choices depend on (today,
//! whether swap is in use, read from `/proc/swaps`).

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
