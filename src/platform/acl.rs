//! Windows' "the administrator's alone" (docs/contract.md#system-mode), as pure logic over
//! a file's owner SID and its DACL: what POSIX says with uid 0 and mode bits, Windows says
//! with an owner among the administrator's accounts and a DACL that lets no one else
//! write. `windows/ownership.rs` reads the two from the file (`GetSecurityInfo`) and asks
//! [`judge`]; nothing here calls the OS, so the rule is compiled and tested on every OS.
//!
//! The rule, per path a system file depends on:
//! - the owner is SYSTEM, BUILTIN\Administrators or TrustedInstaller (an owner may always
//!   rewrite the DACL, so any other owner, an administrator's own user account included,
//!   is someone the agent may run as);
//! - a DACL exists (a NULL DACL lets everyone do everything);
//! - no entry that allows, and applies to the path itself (not inherit-only), grants a
//!   write-like right ([`WRITE_LIKE`]) to any SID but those three (OWNER RIGHTS counts as
//!   the owner); deny and audit entries only take rights away; an entry of a type this
//!   module does not know is refused, since it might allow; an applying CREATOR OWNER or
//!   CREATOR GROUP entry is refused (it names whoever creates a file, not a fixed SID);
//! - a folder on the way may let others add entries and set its attributes
//!   ([`FOLDER_MAY_GRANT`]), as `C:\` and `C:\ProgramData` let Users: like a sticky `/tmp`,
//!   they can neither delete nor rename what is there (that takes DELETE on the entry or
//!   FILE_DELETE_CHILD on the folder, both refused).

#![cfg_attr(not(windows), allow(dead_code))]

use std::fmt;

/// NT AUTHORITY\SYSTEM.
pub(crate) const SYSTEM: &str = "S-1-5-18";
/// BUILTIN\Administrators.
pub(crate) const ADMINISTRATORS: &str = "S-1-5-32-544";
/// BUILTIN\Users.
pub(crate) const USERS: &str = "S-1-5-32-545";
/// NT SERVICE\TrustedInstaller (owner of Windows' own files).
pub(crate) const TRUSTED_INSTALLER: &str =
    "S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464";
/// OWNER RIGHTS: an entry for it applies to whoever owns the object.
const OWNER_RIGHTS: &str = "S-1-3-4";
/// CREATOR OWNER, CREATOR GROUP and their server twins: placeholders for inheritance.
const CREATORS: [&str; 4] = ["S-1-3-0", "S-1-3-1", "S-1-3-2", "S-1-3-3"];

/// The accounts whose files count as the administrator's.
pub(crate) const ADMIN_SIDS: [&str; 3] = [SYSTEM, ADMINISTRATORS, TRUSTED_INSTALLER];

// Access rights (winnt.h). For a folder, WRITE_DATA is ADD_FILE and APPEND_DATA is
// ADD_SUBDIRECTORY.
const FILE_WRITE_DATA: u32 = 0x0002;
const FILE_APPEND_DATA: u32 = 0x0004;
const FILE_WRITE_EA: u32 = 0x0010;
const FILE_DELETE_CHILD: u32 = 0x0040;
const FILE_WRITE_ATTRIBUTES: u32 = 0x0100;
const DELETE: u32 = 0x0001_0000;
const WRITE_DAC: u32 = 0x0004_0000;
const WRITE_OWNER: u32 = 0x0008_0000;
const MAXIMUM_ALLOWED: u32 = 0x0200_0000;
const GENERIC_ALL: u32 = 0x1000_0000;
const GENERIC_WRITE: u32 = 0x4000_0000;

/// The rights that change what a path holds or who may change it.
pub(crate) const WRITE_LIKE: u32 = FILE_WRITE_DATA
    | FILE_APPEND_DATA
    | FILE_WRITE_EA
    | FILE_WRITE_ATTRIBUTES
    | FILE_DELETE_CHILD
    | DELETE
    | WRITE_DAC
    | WRITE_OWNER
    | GENERIC_WRITE
    | GENERIC_ALL
    | MAXIMUM_ALLOWED;

/// What a folder on the way may grant anyone: adding files and folders, and writing its
/// extended attributes and attributes (timestamps, the hidden and read-only flags). Windows'
/// own `C:\ProgramData` grants BUILTIN\Users all four on itself (`(CI)(WD,AD,WEA,WA)`); none
/// changes an entry already there, and a folder on the way is never empty (it holds the
/// next step), so it cannot be made a junction.
pub(crate) const FOLDER_MAY_GRANT: u32 =
    FILE_WRITE_DATA | FILE_APPEND_DATA | FILE_WRITE_EA | FILE_WRITE_ATTRIBUTES;

/// The entry applies only to what inherits it, not to the object itself.
const INHERIT_ONLY_ACE: u8 = 0x08;

/// Where a path stands in what the rule walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Standing {
    /// The file or folder itself.
    End,
    /// A symbolic link or junction followed on the way (judged as itself: whoever can
    /// write it can point it elsewhere).
    Link,
    /// A folder on the way.
    Folder,
}

/// What an ACE's type means for the rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AceClass {
    /// It grants rights.
    Allows,
    /// It only takes rights away, or only audits.
    Restricts,
    /// Not a type this module knows.
    Unknown,
}

fn class_of(kind: u8) -> AceClass {
    match kind {
        // ACCESS_ALLOWED, _OBJECT, _CALLBACK, _CALLBACK_OBJECT.
        0x00 | 0x05 | 0x09 | 0x0B => AceClass::Allows,
        // ACCESS_DENIED, _OBJECT, _CALLBACK, _CALLBACK_OBJECT.
        0x01 | 0x06 | 0x0A | 0x0C => AceClass::Restricts,
        // SYSTEM_AUDIT, SYSTEM_ALARM and their object and callback forms.
        0x02 | 0x03 | 0x07 | 0x08 | 0x0D..=0x10 => AceClass::Restricts,
        // Mandatory label, resource attribute, scoped policy, process trust label, access
        // filter: each narrows access or only carries data.
        0x11..=0x15 => AceClass::Restricts,
        // ACCESS_ALLOWED_COMPOUND (0x04, obsolete) and anything newer.
        _ => AceClass::Unknown,
    }
}

/// One entry of a DACL, as read from the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ace {
    /// `AceType`.
    pub(crate) kind: u8,
    /// `AceFlags` (inheritance).
    pub(crate) flags: u8,
    /// The access mask.
    pub(crate) mask: u32,
    /// The trustee, as `S-1-…`; `None` where it could not be read.
    pub(crate) sid: Option<String>,
}

/// An account a problem names: its SID, and its name where the OS knows it
/// (`BUILTIN\Users`). Shown as `NAME (SID)`, or the SID alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    /// `S-1-…`.
    pub sid: String,
    /// `DOMAIN\NAME`, where it could be looked up.
    pub name: Option<String>,
}

impl Account {
    /// The account of `sid`, its name not looked up.
    pub(crate) fn of(sid: &str) -> Account {
        Account {
            sid: sid.to_owned(),
            name: None,
        }
    }
}

impl fmt::Display for Account {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.name {
            Some(name) => write!(f, "{name} ({})", self.sid),
            None => f.write_str(&self.sid),
        }
    }
}

/// Why a path is not the administrator's alone on Windows (re-exported by
/// [`crate::guard`], which words it in its refusals).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AclProblem {
    /// Owned by this account, not by SYSTEM, Administrators or TrustedInstaller.
    Owner(Account),
    /// No DACL at all: everyone may do everything.
    NullDacl,
    /// An entry lets this account write it, with these rights (an access mask).
    Grants {
        /// The account.
        who: Account,
        /// The write-like rights granted.
        rights: u32,
    },
    /// A CREATOR OWNER or CREATOR GROUP entry applies to the path itself.
    Creator(Account),
    /// An entry of a type this module does not know (it might allow), or whose trustee
    /// could not be read.
    UnknownAce(u8),
    /// The owner or the DACL could not be read.
    Unreadable(String),
}

impl AclProblem {
    /// The account the problem names, if any (for the OS to look its name up).
    pub(crate) fn account_mut(&mut self) -> Option<&mut Account> {
        match self {
            AclProblem::Owner(who) | AclProblem::Creator(who) => Some(who),
            AclProblem::Grants { who, .. } => Some(who),
            AclProblem::NullDacl | AclProblem::UnknownAce(_) | AclProblem::Unreadable(_) => None,
        }
    }
}

/// Judges a path's owner and DACL (`None`: a NULL DACL) by the rule above.
pub(crate) fn judge(owner: &str, dacl: Option<&[Ace]>, standing: Standing) -> Option<AclProblem> {
    if !ADMIN_SIDS.contains(&owner) {
        return Some(AclProblem::Owner(Account::of(owner)));
    }
    let Some(dacl) = dacl else {
        return Some(AclProblem::NullDacl);
    };
    let may_grant = match standing {
        Standing::Folder => FOLDER_MAY_GRANT,
        Standing::End | Standing::Link => 0,
    };
    for ace in dacl {
        if ace.flags & INHERIT_ONLY_ACE != 0 {
            continue;
        }
        match class_of(ace.kind) {
            AceClass::Restricts => continue,
            AceClass::Unknown => return Some(AclProblem::UnknownAce(ace.kind)),
            AceClass::Allows => {}
        }
        let Some(sid) = ace.sid.as_deref() else {
            return Some(AclProblem::UnknownAce(ace.kind));
        };
        // The owner is one of the administrator's accounts (checked above).
        if ADMIN_SIDS.contains(&sid) || sid == OWNER_RIGHTS {
            continue;
        }
        if CREATORS.contains(&sid) {
            return Some(AclProblem::Creator(Account::of(sid)));
        }
        let rights = ace.mask & WRITE_LIKE & !may_grant;
        if rights != 0 {
            return Some(AclProblem::Grants {
                who: Account::of(sid),
                rights,
            });
        }
    }
    None
}

/// The rights of `mask` in `icacls`' letters (`WD, AD, DE`), for messages.
pub(crate) struct Rights(pub(crate) u32);

impl fmt::Display for Rights {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NAMES: [(u32, &str); 11] = [
            (GENERIC_ALL, "GA"),
            (GENERIC_WRITE, "GW"),
            (MAXIMUM_ALLOWED, "MA"),
            (FILE_WRITE_DATA, "WD"),
            (FILE_APPEND_DATA, "AD"),
            (FILE_WRITE_EA, "WEA"),
            (FILE_WRITE_ATTRIBUTES, "WA"),
            (FILE_DELETE_CHILD, "DC"),
            (DELETE, "DE"),
            (WRITE_DAC, "WDAC"),
            (WRITE_OWNER, "WO"),
        ];
        let names: Vec<&str> = NAMES
            .iter()
            .filter(|(bit, _)| self.0 & bit != 0)
            .map(|(_, name)| *name)
            .collect();
        f.write_str(&names.join(","))
    }
}

/// A SID's bytes (`SID`: revision, count, 6-byte authority, 32-bit sub-authorities) as
/// `S-1-…`, as `ConvertSidToStringSidW` writes it; `None` when they are not one.
pub(crate) fn sid_string(bytes: &[u8]) -> Option<String> {
    let (&revision, rest) = bytes.split_first()?;
    let (&count, rest) = rest.split_first()?;
    if revision != 1 || count > 15 {
        return None;
    }
    let authority = rest.get(..6)?;
    let authority = authority
        .iter()
        .fold(0u64, |acc, byte| (acc << 8) | u64::from(*byte));
    let mut text = if authority >> 32 == 0 {
        format!("S-1-{authority}")
    } else {
        format!("S-1-0x{authority:012X}")
    };
    let subs = rest.get(6..6 + 4 * usize::from(count))?;
    for sub in subs.chunks_exact(4) {
        let value = u32::from_le_bytes([sub[0], sub[1], sub[2], sub[3]]);
        text.push_str(&format!("-{value}"));
    }
    Some(text)
}

/// The length of the SID at the start of `bytes`, from its sub-authority count.
fn sid_len(bytes: &[u8]) -> Option<usize> {
    let count = usize::from(*bytes.get(1)?);
    let len = 8 + 4 * count;
    (bytes.len() >= len).then_some(len)
}

/// An `ACL`'s bytes (header, then `AceCount` entries of `AceSize` bytes each) as its
/// entries; `None` when the bytes are not a well-formed ACL.
pub(crate) fn parse_acl(bytes: &[u8]) -> Option<Vec<Ace>> {
    let header = bytes.get(..8)?;
    let size = usize::from(u16::from_le_bytes([header[2], header[3]]));
    let count = usize::from(u16::from_le_bytes([header[4], header[5]]));
    let body = bytes.get(8..size)?;
    let mut aces = Vec::with_capacity(count);
    let mut at = 0;
    for _ in 0..count {
        let head = body.get(at..at + 4)?;
        let ace_size = usize::from(u16::from_le_bytes([head[2], head[3]]));
        if ace_size < 4 {
            return None;
        }
        let ace = body.get(at..at + ace_size)?;
        aces.push(parse_ace(ace));
        at += ace_size;
    }
    Some(aces)
}

/// One entry's bytes (header included); the trustee is `None` where its place is not
/// known or the bytes end early.
fn parse_ace(ace: &[u8]) -> Ace {
    let (kind, flags) = (ace[0], ace[1]);
    let mask = ace
        .get(4..8)
        .map(|m| u32::from_le_bytes([m[0], m[1], m[2], m[3]]))
        .unwrap_or(0);
    let sid_at = match kind {
        // Mask, then the SID (callback types carry data after it).
        0x00..=0x03 | 0x09 | 0x0A | 0x0D | 0x11..=0x15 => Some(8),
        // Mask, object flags, up to two GUIDs as the flags say, then the SID.
        0x05..=0x08 | 0x0B | 0x0C | 0x0E..=0x10 => ace.get(8..12).map(|f| {
            let object_flags = u32::from_le_bytes([f[0], f[1], f[2], f[3]]);
            12 + 16 * (object_flags & 1) as usize + 16 * ((object_flags >> 1) & 1) as usize
        }),
        _ => None,
    };
    let sid = sid_at
        .and_then(|at| ace.get(at..))
        .and_then(|rest| sid_len(rest).and_then(|len| sid_string(&rest[..len])));
    Ace {
        kind,
        flags,
        mask,
        sid,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const USER: &str = "S-1-5-21-1-2-3-1001";
    const AUTHENTICATED: &str = "S-1-5-11";
    const FULL: u32 = 0x001F_01FF;
    const READ_EXECUTE: u32 = 0x0012_00A9;
    const OI_CI: u8 = 0x01 | 0x02;

    fn allow(sid: &str, mask: u32, flags: u8) -> Ace {
        Ace {
            kind: 0,
            flags,
            mask,
            sid: Some(sid.into()),
        }
    }

    /// What `install --scope system` writes: SYSTEM and Administrators full, Users read.
    fn protected() -> Vec<Ace> {
        vec![
            allow(SYSTEM, FULL, OI_CI),
            allow(ADMINISTRATORS, FULL, OI_CI),
            allow(USERS, READ_EXECUTE, OI_CI),
        ]
    }

    #[test]
    fn the_protected_dacl_holds_everywhere() {
        for standing in [Standing::End, Standing::Link, Standing::Folder] {
            for owner in ADMIN_SIDS {
                assert_eq!(judge(owner, Some(&protected()), standing), None);
            }
        }
        assert_eq!(judge(SYSTEM, Some(&[]), Standing::End), None);
    }

    #[test]
    fn an_owner_outside_the_administrators_accounts_is_refused() {
        assert_eq!(
            judge(USER, Some(&protected()), Standing::End),
            Some(AclProblem::Owner(Account::of(USER)))
        );
        assert_eq!(
            judge(USER, Some(&protected()), Standing::Folder),
            Some(AclProblem::Owner(Account::of(USER)))
        );
    }

    #[test]
    fn a_null_dacl_is_everyones() {
        assert_eq!(
            judge(ADMINISTRATORS, None, Standing::End),
            Some(AclProblem::NullDacl)
        );
    }

    #[test]
    fn each_write_like_right_to_another_sid_is_refused() {
        for bit in [
            FILE_WRITE_DATA,
            FILE_APPEND_DATA,
            FILE_WRITE_EA,
            FILE_WRITE_ATTRIBUTES,
            FILE_DELETE_CHILD,
            DELETE,
            WRITE_DAC,
            WRITE_OWNER,
            GENERIC_WRITE,
            GENERIC_ALL,
            MAXIMUM_ALLOWED,
        ] {
            let mut dacl = protected();
            dacl.push(allow(USER, bit | READ_EXECUTE, 0));
            assert_eq!(
                judge(ADMINISTRATORS, Some(&dacl), Standing::End),
                Some(AclProblem::Grants {
                    who: Account::of(USER),
                    rights: bit
                }),
                "{bit:#x}"
            );
        }
    }

    #[test]
    fn read_rights_and_deny_and_audit_entries_are_fine() {
        let mut dacl = protected();
        dacl.push(allow(AUTHENTICATED, READ_EXECUTE, 0));
        // Denied and audited writes take nothing away from the rule's answer.
        for kind in [0x01, 0x02, 0x06, 0x0A, 0x0C, 0x11] {
            dacl.push(Ace {
                kind,
                flags: 0,
                mask: FULL,
                sid: Some(USER.into()),
            });
        }
        assert_eq!(judge(SYSTEM, Some(&dacl), Standing::End), None);
    }

    #[test]
    fn every_allowing_type_counts() {
        for kind in [0x00, 0x05, 0x09, 0x0B] {
            let dacl = [Ace {
                kind,
                flags: 0,
                mask: FILE_WRITE_DATA,
                sid: Some(USER.into()),
            }];
            assert!(
                matches!(
                    judge(SYSTEM, Some(&dacl), Standing::End),
                    Some(AclProblem::Grants { .. })
                ),
                "{kind:#x}"
            );
        }
    }

    #[test]
    fn an_unknown_type_or_an_unreadable_trustee_is_refused() {
        for kind in [0x04, 0x16, 0xFF] {
            let dacl = [Ace {
                kind,
                flags: 0,
                mask: 0,
                sid: None,
            }];
            assert_eq!(
                judge(SYSTEM, Some(&dacl), Standing::End),
                Some(AclProblem::UnknownAce(kind))
            );
        }
        let dacl = [Ace {
            kind: 0,
            flags: 0,
            mask: READ_EXECUTE,
            sid: None,
        }];
        assert_eq!(
            judge(SYSTEM, Some(&dacl), Standing::End),
            Some(AclProblem::UnknownAce(0))
        );
    }

    #[test]
    fn inherit_only_entries_do_not_apply() {
        let mut dacl = protected();
        dacl.push(allow(AUTHENTICATED, FULL, OI_CI | INHERIT_ONLY_ACE));
        dacl.push(allow(CREATORS[0], GENERIC_ALL, OI_CI | INHERIT_ONLY_ACE));
        assert_eq!(judge(SYSTEM, Some(&dacl), Standing::End), None);
    }

    #[test]
    fn an_applying_creator_entry_is_refused_and_owner_rights_is_the_owner() {
        let dacl = [allow(CREATORS[0], READ_EXECUTE, 0)];
        assert_eq!(
            judge(SYSTEM, Some(&dacl), Standing::Folder),
            Some(AclProblem::Creator(Account::of(CREATORS[0])))
        );
        let dacl = [allow(OWNER_RIGHTS, FULL, 0)];
        assert_eq!(judge(ADMINISTRATORS, Some(&dacl), Standing::End), None);
    }

    #[test]
    fn a_folder_on_the_way_may_let_users_add_entries_like_programdata() {
        // C:\ProgramData as Windows ships it, and C:\'s Authenticated Users entries.
        let mut program_data = protected();
        program_data.push(allow(USERS, 0x0002 | 0x0004 | 0x0010 | 0x0100, 0x02));
        program_data.push(allow(CREATORS[0], GENERIC_ALL, OI_CI | INHERIT_ONLY_ACE));
        program_data.push(allow(AUTHENTICATED, FILE_APPEND_DATA, 0));
        assert_eq!(judge(SYSTEM, Some(&program_data), Standing::Folder), None);
        // The same on the file itself, or on a link, lets Users write it.
        assert!(judge(SYSTEM, Some(&program_data), Standing::End).is_some());
        assert!(judge(SYSTEM, Some(&program_data), Standing::Link).is_some());
        // Deleting or renaming entries is not allowed even on the way.
        let mut open = protected();
        open.push(allow(USERS, FILE_DELETE_CHILD | FILE_WRITE_DATA, 0));
        assert_eq!(
            judge(SYSTEM, Some(&open), Standing::Folder),
            Some(AclProblem::Grants {
                who: Account::of(USERS),
                rights: FILE_DELETE_CHILD
            })
        );
    }

    fn sid_bytes(authority: u8, subs: &[u32]) -> Vec<u8> {
        let mut bytes = vec![1, subs.len() as u8, 0, 0, 0, 0, 0, authority];
        for sub in subs {
            bytes.extend_from_slice(&sub.to_le_bytes());
        }
        bytes
    }

    #[test]
    fn sids_read_as_windows_writes_them() {
        assert_eq!(sid_string(&sid_bytes(5, &[18])).as_deref(), Some(SYSTEM));
        assert_eq!(
            sid_string(&sid_bytes(5, &[32, 544])).as_deref(),
            Some(ADMINISTRATORS)
        );
        assert_eq!(
            sid_string(&sid_bytes(
                5,
                &[
                    80, 956008885, 3418522649, 1831038044, 1853292631, 2271478464
                ]
            ))
            .as_deref(),
            Some(TRUSTED_INSTALLER)
        );
        assert_eq!(sid_string(&[1, 2, 0, 0, 0, 0, 0, 5, 32, 0]), None);
        assert_eq!(sid_string(&[2, 0, 0, 0, 0, 0, 0, 5]), None);
    }

    fn ace_bytes(kind: u8, flags: u8, mask: u32, middle: &[u8], sid: &[u8]) -> Vec<u8> {
        let size = (8 + middle.len() + sid.len()) as u16;
        let mut bytes = vec![kind, flags];
        bytes.extend_from_slice(&size.to_le_bytes());
        bytes.extend_from_slice(&mask.to_le_bytes());
        bytes.extend_from_slice(middle);
        bytes.extend_from_slice(sid);
        bytes
    }

    fn acl_bytes(aces: &[Vec<u8>]) -> Vec<u8> {
        let body: Vec<u8> = aces.concat();
        let size = (8 + body.len()) as u16;
        let mut bytes = vec![2, 0];
        bytes.extend_from_slice(&size.to_le_bytes());
        bytes.extend_from_slice(&(aces.len() as u16).to_le_bytes());
        bytes.extend_from_slice(&[0, 0]);
        bytes.extend_from_slice(&body);
        bytes
    }

    #[test]
    fn acls_parse_plain_and_object_entries() {
        let users = sid_bytes(5, &[32, 545]);
        // An object entry with one GUID (flags 1) before its SID.
        let mut object = 1u32.to_le_bytes().to_vec();
        object.extend_from_slice(&[0xAB; 16]);
        let acl = acl_bytes(&[
            ace_bytes(0, OI_CI, READ_EXECUTE, &[], &sid_bytes(5, &[18])),
            ace_bytes(5, 0, FILE_WRITE_DATA, &object, &users),
            ace_bytes(0x42, 0, 0, &[], &[]),
        ]);
        let aces = parse_acl(&acl).expect("well formed");
        assert_eq!(aces[0], allow(SYSTEM, READ_EXECUTE, OI_CI));
        assert_eq!(
            aces[1],
            Ace {
                kind: 5,
                flags: 0,
                mask: FILE_WRITE_DATA,
                sid: Some(USERS.into())
            }
        );
        assert_eq!(aces[2].sid, None);
        assert_eq!(
            judge(SYSTEM, Some(&aces), Standing::End),
            Some(AclProblem::Grants {
                who: Account::of(USERS),
                rights: FILE_WRITE_DATA
            })
        );
    }

    #[test]
    fn a_malformed_acl_is_none() {
        let mut acl = acl_bytes(&[ace_bytes(0, 0, 0, &[], &sid_bytes(5, &[18]))]);
        assert!(parse_acl(&acl).is_some());
        acl[4] = 2; // two entries claimed, one there
        assert_eq!(parse_acl(&acl), None);
        assert_eq!(parse_acl(&[2, 0, 200, 0, 0, 0, 0, 0]), None);
        assert_eq!(parse_acl(&[2, 0]), None);
    }

    #[test]
    fn rights_and_accounts_are_named_as_icacls_names_them() {
        assert_eq!(
            Rights(FILE_WRITE_DATA | FILE_APPEND_DATA | DELETE).to_string(),
            "WD,AD,DE"
        );
        let mut users = Account::of(USERS);
        assert_eq!(users.to_string(), USERS);
        users.name = Some("BUILTIN\\Users".into());
        assert_eq!(users.to_string(), "BUILTIN\\Users (S-1-5-32-545)");
    }
}
