//! Windows: the security calls the system scope needs (docs/contract.md#system-mode): a
//! file's owner and DACL, an account's name, whether this process acts as an
//! administrator, its user's profile folder, and a folder made the administrator's alone.
//! What the owner and DACL mean is judged by the OS-neutral [`crate::platform::acl`].

use std::ffi::{OsStr, OsString, c_void};
use std::fs::OpenOptions;
use std::io;
use std::os::windows::ffi::{OsStrExt, OsStringExt};
use std::os::windows::fs::OpenOptionsExt;
use std::os::windows::io::AsRawHandle;
use std::path::{Path, PathBuf};

use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, LocalFree};
use windows_sys::Win32::Security::Authorization::{
    ConvertStringSecurityDescriptorToSecurityDescriptorW, ConvertStringSidToSidW, GetSecurityInfo,
    SDDL_REVISION_1, SE_FILE_OBJECT, SetSecurityInfo,
};
use windows_sys::Win32::Security::{
    ACL, CheckTokenMembership, CreateWellKnownSid, DACL_SECURITY_INFORMATION, GetLengthSid,
    LookupAccountSidW, OWNER_SECURITY_INFORMATION, PSECURITY_DESCRIPTOR, PSID, SECURITY_ATTRIBUTES,
    SECURITY_MAX_SID_SIZE, SID_NAME_USE, TOKEN_QUERY, WinBuiltinAdministratorsSid,
};
use windows_sys::Win32::Storage::FileSystem::{
    CreateDirectoryW, FILE_FLAG_BACKUP_SEMANTICS, FILE_FLAG_OPEN_REPARSE_POINT, FILE_SHARE_DELETE,
    FILE_SHARE_READ, FILE_SHARE_WRITE, READ_CONTROL, WRITE_OWNER,
};
use windows_sys::Win32::System::Threading::{GetCurrentProcess, OpenProcessToken};
use windows_sys::Win32::UI::Shell::GetUserProfileDirectoryW;

use crate::platform::acl::{self, Ace};

/// A path as a NUL-terminated UTF-16 string.
fn wide(text: &OsStr) -> Vec<u16> {
    text.encode_wide().chain(Some(0)).collect()
}

/// Memory the OS allocated with `LocalAlloc`, freed once, on drop.
struct Local(*mut c_void);

impl Drop for Local {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: the pointer came from an API that hands its result to LocalFree,
            // and is freed only here.
            unsafe {
                LocalFree(self.0);
            }
        }
    }
}

/// The owner (as `S-1-…`) and the DACL (`None`: a NULL DACL) of `path` itself, a link
/// not followed: read from a handle opened for READ_CONTROL only.
pub(crate) fn owner_and_dacl(path: &Path) -> io::Result<(String, Option<Vec<Ace>>)> {
    let file = OpenOptions::new()
        .access_mode(READ_CONTROL)
        .share_mode(FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT)
        .open(path)?;
    let mut owner: PSID = std::ptr::null_mut();
    let mut dacl: *mut ACL = std::ptr::null_mut();
    let mut descriptor: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
    // SAFETY: the handle is live (owned by `file`); the out-pointers are ours; on success
    // `owner` and `dacl` point into `descriptor`, which is freed (by `Local`) after them.
    let status = unsafe {
        GetSecurityInfo(
            file.as_raw_handle() as HANDLE,
            SE_FILE_OBJECT,
            OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION,
            &mut owner,
            std::ptr::null_mut(),
            &mut dacl,
            std::ptr::null_mut(),
            &mut descriptor,
        )
    };
    if status != 0 {
        return Err(io::Error::from_raw_os_error(status as i32));
    }
    let _descriptor = Local(descriptor);
    if owner.is_null() {
        return Err(io::Error::other("it has no owner"));
    }
    // SAFETY: `owner` is a valid SID inside the descriptor (GetSecurityInfo succeeded),
    // and GetLengthSid says how many bytes it has.
    let owner_bytes =
        unsafe { std::slice::from_raw_parts(owner as *const u8, GetLengthSid(owner) as usize) };
    let owner =
        acl::sid_string(owner_bytes).ok_or_else(|| io::Error::other("its owner is not a SID"))?;
    if dacl.is_null() {
        return Ok((owner, None));
    }
    // SAFETY: `dacl` points to an ACL inside the descriptor; its header's AclSize is the
    // length of the whole ACL, which lies in the descriptor's memory.
    let dacl_bytes = unsafe {
        let size = usize::from((*dacl).AclSize);
        std::slice::from_raw_parts(dacl as *const u8, size)
    };
    let aces =
        acl::parse_acl(dacl_bytes).ok_or_else(|| io::Error::other("its DACL is malformed"))?;
    Ok((owner, Some(aces)))
}

/// `DOMAIN\NAME` of the account `sid` (`S-1-…`), where the OS can name it.
pub(crate) fn account_name(sid: &str) -> Option<String> {
    let text = wide(OsStr::new(sid));
    let mut binary: PSID = std::ptr::null_mut();
    // SAFETY: `text` is NUL-terminated; on success `binary` is LocalAlloc'ed, freed below.
    if unsafe { ConvertStringSidToSidW(text.as_ptr(), &mut binary) } == 0 {
        return None;
    }
    let _binary = Local(binary);
    let mut name = [0u16; 256];
    let mut domain = [0u16; 256];
    let (mut name_len, mut domain_len) = (name.len() as u32, domain.len() as u32);
    let mut usage: SID_NAME_USE = 0;
    // SAFETY: the buffers are ours with their lengths passed; `binary` is a valid SID.
    let found = unsafe {
        LookupAccountSidW(
            std::ptr::null(),
            binary,
            name.as_mut_ptr(),
            &mut name_len,
            domain.as_mut_ptr(),
            &mut domain_len,
            &mut usage,
        )
    };
    if found == 0 {
        return None;
    }
    let name = String::from_utf16_lossy(name.get(..name_len as usize)?);
    let domain = String::from_utf16_lossy(domain.get(..domain_len as usize)?);
    Some(match domain.is_empty() {
        true => name,
        false => format!("{domain}\\{name}"),
    })
}

/// BUILTIN\Administrators' SID, in a buffer of the largest SID's size.
fn administrators_sid() -> io::Result<[u8; SECURITY_MAX_SID_SIZE as usize]> {
    let mut sid = [0u8; SECURITY_MAX_SID_SIZE as usize];
    let mut size = sid.len() as u32;
    // SAFETY: `sid` is ours, `size` its length; a BUILTIN group needs no domain SID.
    let made = unsafe {
        CreateWellKnownSid(
            WinBuiltinAdministratorsSid,
            std::ptr::null_mut(),
            sid.as_mut_ptr().cast(),
            &mut size,
        )
    };
    match made {
        0 => Err(io::Error::last_os_error()),
        _ => Ok(sid),
    }
}

/// Whether this process's token has BUILTIN\Administrators enabled: an elevated
/// administrator. A UAC-filtered token (an administrator's unelevated process, which is
/// what an agent runs as) holds the group for deny only, and answers `false`.
pub(crate) fn is_elevated_administrator() -> bool {
    let Ok(mut sid) = administrators_sid() else {
        return false;
    };
    let mut member = 0;
    // SAFETY: a null token asks about this thread's (else this process's) token; `sid`
    // is a valid SID (made above); `member` is ours.
    let asked =
        unsafe { CheckTokenMembership(std::ptr::null_mut(), sid.as_mut_ptr().cast(), &mut member) };
    asked != 0 && member != 0
}

/// Makes Administrators the owner of `path` (a file the system scope's administrator just
/// wrote): an elevated token may name its Administrators group as owner, and where the
/// machine's policy makes an administrator's own account the default owner of what it
/// creates, the file would otherwise fail the administrator-only rule (that account is
/// also the one the agent runs as, unelevated).
pub(crate) fn give_to_administrators(path: &Path) -> io::Result<()> {
    let file = OpenOptions::new()
        .access_mode(WRITE_OWNER)
        .share_mode(FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT)
        .open(path)?;
    let mut sid = administrators_sid()?;
    // SAFETY: the handle is live (owned by `file`) and opened for WRITE_OWNER; `sid` is a
    // valid SID (made above); nothing but the owner is set.
    let status = unsafe {
        SetSecurityInfo(
            file.as_raw_handle() as HANDLE,
            SE_FILE_OBJECT,
            OWNER_SECURITY_INFORMATION,
            sid.as_mut_ptr().cast(),
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    match status {
        0 => Ok(()),
        error => Err(io::Error::from_raw_os_error(error as i32)),
    }
}

/// The profile folder of the user this process runs as, from the token (the profile list
/// in the registry), never from `USERPROFILE`, which whoever starts hookhost sets.
pub(crate) fn token_profile_folder() -> Option<PathBuf> {
    let mut token: HANDLE = std::ptr::null_mut();
    // SAFETY: the pseudo-handle of this process; `token` is ours and closed below.
    if unsafe { OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &mut token) } == 0 {
        return None;
    }
    let mut buffer = vec![0u16; 1024];
    let mut size = buffer.len() as u32;
    // SAFETY: the token is live; `buffer` is ours with its length in `size`.
    let got = unsafe { GetUserProfileDirectoryW(token, buffer.as_mut_ptr(), &mut size) };
    // SAFETY: the token handle is ours, closed once.
    unsafe {
        CloseHandle(token);
    }
    if got == 0 {
        return None;
    }
    let len = buffer.iter().position(|c| *c == 0).unwrap_or(buffer.len());
    let path = PathBuf::from(OsString::from_wide(&buffer[..len]));
    (path.is_absolute()).then_some(path)
}

/// The security a folder of the system scope is made with: owned by Administrators; a
/// protected DACL (nothing inherited, so not `C:\ProgramData`'s "Users may create files")
/// that gives SYSTEM and Administrators full control and Users read and execute, on the
/// folder and everything made in it.
const ADMIN_FOLDER_SDDL: &str = "O:BAD:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;0x1200a9;;;BU)";

/// Makes `dir` and each missing folder above it with [`ADMIN_FOLDER_SDDL`]; a folder that
/// exists is left as it is (the caller checks it: see `system_scope::make_admin_folder`).
pub(crate) fn make_admin_folders(dir: &Path) -> io::Result<()> {
    let missing: Vec<&Path> = dir
        .ancestors()
        .take_while(|folder| std::fs::symlink_metadata(folder).is_err())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let sddl = wide(OsStr::new(ADMIN_FOLDER_SDDL));
    let mut descriptor: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
    // SAFETY: `sddl` is NUL-terminated; on success `descriptor` is LocalAlloc'ed and freed
    // by `Local` after the last CreateDirectoryW.
    let converted = unsafe {
        ConvertStringSecurityDescriptorToSecurityDescriptorW(
            sddl.as_ptr(),
            SDDL_REVISION_1,
            &mut descriptor,
            std::ptr::null_mut(),
        )
    };
    if converted == 0 {
        return Err(io::Error::last_os_error());
    }
    let descriptor = Local(descriptor);
    let attributes = SECURITY_ATTRIBUTES {
        nLength: std::mem::size_of::<SECURITY_ATTRIBUTES>() as u32,
        lpSecurityDescriptor: descriptor.0,
        bInheritHandle: 0,
    };
    for folder in missing.into_iter().rev() {
        let name = wide(folder.as_os_str());
        // SAFETY: `name` is NUL-terminated; `attributes` and the descriptor it points to
        // live across the call.
        if unsafe { CreateDirectoryW(name.as_ptr(), &attributes) } == 0 {
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::AlreadyExists {
                return Err(io::Error::new(
                    error.kind(),
                    format!("{}: {error}", folder.display()),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::acl::{ADMINISTRATORS, Standing, judge};

    /// On Windows itself, as an elevated administrator (elsewhere it says why it did
    /// nothing): the folders `install --scope system` makes, and a cache file given to
    /// Administrators, are owned by Administrators and pass the rule. Not under wine,
    /// which keeps no security a program sets (docs/system-scope.md#windows).
    #[test]
    fn what_the_system_scope_makes_is_the_administrators_alone() {
        if !is_elevated_administrator() {
            eprintln!("SKIPPED: not an elevated administrator");
            return;
        }
        let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let cache = root.path().join("hookhost").join("cache");
        make_admin_folders(&cache).unwrap_or_else(|e| panic!("{e}"));
        let file = cache.join("artifact");
        std::fs::write(&file, b"x").unwrap_or_else(|e| panic!("{e}"));
        give_to_administrators(&file).unwrap_or_else(|e| panic!("{e}"));
        for path in [root.path().join("hookhost"), cache, file] {
            let (owner, dacl) = owner_and_dacl(&path).unwrap_or_else(|e| panic!("{e}"));
            if owner == "S-1-5-21-0-0-0-1000" {
                eprintln!("SKIPPED: wine, which keeps no owner a program sets");
                return;
            }
            assert_eq!(owner, ADMINISTRATORS, "{}", path.display());
            assert_eq!(
                judge(&owner, dacl.as_deref(), Standing::End),
                None,
                "{}",
                path.display()
            );
        }
    }

    #[test]
    fn well_known_accounts_are_named() {
        let name = account_name(ADMINISTRATORS).unwrap_or_default();
        assert!(name.ends_with("Administrators"), "{name}");
        assert_eq!(account_name("not a SID"), None);
    }
}
