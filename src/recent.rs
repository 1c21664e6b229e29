//! A thread's last few results of a function of its input alone, such as a file's text
//! parsed.
//!
//! Why: a warm server's thread reads the same few small files on every call (the config,
//! the pins, the agent's settings) and parsed each of them again (BENCHMARKS.md,
//! twentieth and twenty-first sittings). The files are still read on every call; only
//! what follows from their exact bytes is kept. An input kept is compared whole, never by
//! a digest or a stamp, so a kept result is always the one the computation gives.

use std::cell::RefCell;
use std::thread::LocalKey;

/// How many inputs a place keeps: a call checks one to a few files at each place (a
/// user's and a project's settings), and a thread serves one user.
const KEPT: usize = 4;

/// The largest input a place keeps, in bytes: the files these are (a config, the pins,
/// an agent's settings, a record's first line) run to a few KiB, and what a thread keeps
/// stays bounded ([`KEPT`] of these at each place) whatever size a file is given.
const LARGEST: usize = 64 * 1024;

/// What one place of the code keeps, as its `thread_local!` holds it ([`place`]).
pub(crate) type Place<K, V> = RefCell<Recent<K, V>>;

/// A place with nothing kept yet (for a `thread_local!`).
pub(crate) const fn place<K, V>() -> Place<K, V> {
    RefCell::new(Recent {
        entries: Vec::new(),
    })
}

/// The results one place of the code kept, most recent first.
pub(crate) struct Recent<K, V> {
    entries: Vec<(K, V)>,
}

/// `compute()`'s value for the input that `is_input` recognises: a copy of the one this
/// thread kept at `place`, or computed and kept (as `input()` makes it) when `Ok`. An
/// error is not kept: it is computed again, with whatever it says about the moment. An
/// input of more than [`LARGEST`] bytes (`bytes`) is neither looked for nor kept.
pub(crate) fn or_compute<K, V: Clone, E>(
    place: &'static LocalKey<Place<K, V>>,
    bytes: usize,
    is_input: impl Fn(&K) -> bool,
    input: impl FnOnce() -> K,
    compute: impl FnOnce() -> Result<V, E>,
) -> Result<V, E> {
    if bytes > LARGEST {
        return compute();
    }
    let kept = place.with_borrow(|recent| {
        recent
            .entries
            .iter()
            .find(|(kept, _)| is_input(kept))
            .map(|(_, value)| value.clone())
    });
    if let Some(value) = kept {
        return Ok(value);
    }
    let value = compute()?;
    place.with_borrow_mut(|recent| {
        recent.entries.truncate(KEPT - 1);
        recent.entries.insert(0, (input(), value.clone()));
    });
    Ok(value)
}

/// [`or_compute`] for a computation that cannot fail.
pub(crate) fn or_make<K, V: Clone>(
    place: &'static LocalKey<Place<K, V>>,
    bytes: usize,
    is_input: impl Fn(&K) -> bool,
    input: impl FnOnce() -> K,
    make: impl FnOnce() -> V,
) -> V {
    or_compute(place, bytes, is_input, input, || {
        Ok::<V, std::convert::Infallible>(make())
    })
    .unwrap_or_else(|never| match never {})
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        static LENGTHS: Place<String, usize> = const { place() };
    }

    fn length(text: &str, computed: &mut usize) -> Result<usize, String> {
        or_compute(
            &LENGTHS,
            text.len(),
            |kept| kept == text,
            || text.to_owned(),
            || {
                *computed += 1;
                if text == "bad" {
                    return Err("bad".into());
                }
                Ok(text.len())
            },
        )
    }

    #[test]
    fn a_kept_value_is_the_same_inputs_and_errors_are_never_kept() {
        let mut computed = 0;
        assert_eq!(length("abc", &mut computed), Ok(3));
        assert_eq!(length("abc", &mut computed), Ok(3));
        assert_eq!(computed, 1, "the same input is answered from what was kept");
        assert_eq!(length("abcd", &mut computed), Ok(4));
        assert_eq!(computed, 2, "another input is computed");
        assert_eq!(length("bad", &mut computed), Err("bad".to_string()));
        assert_eq!(length("bad", &mut computed), Err("bad".to_string()));
        assert_eq!(computed, 4, "an error is computed every time");
        // Four inputs fit; the oldest goes first.
        for text in ["1", "22", "333", "4444"] {
            length(text, &mut computed).unwrap();
        }
        let before = computed;
        assert_eq!(length("1", &mut computed), Ok(1));
        assert_eq!(
            computed, before,
            "the last four are kept, the oldest of them too"
        );
        assert_eq!(length("abc", &mut computed), Ok(3));
        assert_eq!(computed, before + 1, "older ones are computed again");
        // A large input is computed every time.
        let large = "x".repeat(LARGEST + 1);
        let before = computed;
        for _ in 0..2 {
            assert_eq!(length(&large, &mut computed), Ok(LARGEST + 1));
        }
        assert_eq!(computed, before + 2);
    }
}
