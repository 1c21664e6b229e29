//! Who runs hookhost, and that user's home in the password database.

use std::ffi::{CStr, OsStr};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The real uid.
pub(crate) fn real_uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

/// The home folder of `uid` in the password database (getpwuid_r), if it has an entry.
pub(crate) fn home_of(uid: u32) -> Option<PathBuf> {
    let mut buf = vec![0u8; 1024];
    loop {
        // SAFETY: an all-zero `passwd` is a valid value of a plain C struct.
        let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
        let mut found: *mut libc::passwd = std::ptr::null_mut();
        // SAFETY: every pointer is to live memory of the size passed; getpwuid_r writes
        // strings into `buf` and points `entry`'s fields into it.
        let rc = unsafe {
            libc::getpwuid_r(
                uid,
                &mut entry,
                buf.as_mut_ptr().cast(),
                buf.len(),
                &mut found,
            )
        };
        if rc == libc::ERANGE && buf.len() < 1 << 20 {
            buf.resize(buf.len() * 4, 0);
            continue;
        }
        if rc != 0 || found.is_null() || entry.pw_dir.is_null() {
            return None;
        }
        // SAFETY: on success `pw_dir` points to a NUL-terminated string inside `buf`,
        // which is alive here.
        let dir = unsafe { CStr::from_ptr(entry.pw_dir) };
        let dir = Path::new(OsStr::from_bytes(dir.to_bytes()));
        return (!dir.as_os_str().is_empty()).then(|| dir.to_path_buf());
    }
}
