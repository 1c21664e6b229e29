//! Linux: paths and other OS strings as bytes (any bytes but NUL, in no set encoding).
//!
//! Reading an OS string's bytes needs nothing from here: `OsStr::as_encoded_bytes` gives
//! them on every OS (on Linux, exactly the bytes).

/// The OS string with exactly these bytes (a name that is not UTF-8, for tests).
#[cfg(test)]
pub(crate) fn os_str_from_bytes(bytes: &[u8]) -> &std::ffi::OsStr {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::OsStr::from_bytes(bytes)
}
