//! Windows: each hook runs in a Job Object of its own, which is to Windows what the
//! process group (plus the subreaper sweep) is to POSIX: killing the job ends the hook
//! and every descendant, and closing its last handle (`KILL_ON_JOB_CLOSE`) ends
//! whatever is left, so no grandchild outlives its hook (see [`crate::process`]).
//!
//! The hook is created suspended, put in its job and only then resumed, so that not
//! even its first child can start outside the job.

use std::collections::HashMap;
use std::os::windows::io::RawHandle;
use std::os::windows::process::CommandExt;
use std::sync::Mutex;

use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, INVALID_HANDLE_VALUE};
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, TH32CS_SNAPTHREAD, THREADENTRY32, Thread32First, Thread32Next,
};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation,
    SetInformationJobObject, TerminateJobObject,
};
use windows_sys::Win32::System::Threading::{
    CREATE_NEW_PROCESS_GROUP, CREATE_NO_WINDOW, CREATE_SUSPENDED, OpenThread, ResumeThread,
    THREAD_SUSPEND_RESUME,
};

/// A job handle, owned; closing it ends what is left in the job.
struct Job(HANDLE);

// SAFETY: a job handle is a kernel object reference, usable from any thread.
unsafe impl Send for Job {}

impl Drop for Job {
    fn drop(&mut self) {
        // SAFETY: the handle is ours and closed once, here.
        unsafe {
            CloseHandle(self.0);
        }
    }
}

/// The live hooks' jobs, by pid.
static JOBS: Mutex<Option<HashMap<u32, Job>>> = Mutex::new(None);

fn jobs() -> std::sync::MutexGuard<'static, Option<HashMap<u32, Job>>> {
    JOBS.lock().unwrap_or_else(|p| p.into_inner())
}

/// The hook starts suspended (so that [`adopt_spawned`] can put it in its job before it
/// runs), in a process group of its own (so that Ctrl-C at the console is not its), and
/// with no console window of its own (its stdio are pipes; a window would flash).
pub(crate) fn own_group_dying_with_spawner(command: &mut std::process::Command) {
    command.creation_flags(CREATE_NEW_PROCESS_GROUP | CREATE_SUSPENDED | CREATE_NO_WINDOW);
}

/// Nothing here: std hands a child only the handles marked inheritable, its stdio's.
pub(crate) fn stdio_only_across_exec(_command: &mut std::process::Command) {}

/// Puts the suspended hook in a fresh job that kills on close, then resumes it.
pub(crate) fn adopt_spawned(child: &tokio::process::Child) -> std::io::Result<()> {
    let (Some(pid), Some(process)) = (child.id(), child.raw_handle()) else {
        return Err(std::io::Error::other(
            "the hook ended before it could start",
        ));
    };
    let job = new_job()?;
    // SAFETY: both handles are live: the job is ours, the process handle is the child's
    // (borrowed for the call).
    if unsafe { AssignProcessToJobObject(job.0, process as RawHandle as HANDLE) } == 0 {
        return Err(last_error("putting the hook in its Job Object"));
    }
    // Resumed first: if that fails, the job is dropped here, which ends the child.
    resume_threads(pid)?;
    jobs().get_or_insert_with(HashMap::new).insert(pid, job);
    Ok(())
}

/// A job whose processes all die when its last handle closes.
fn new_job() -> std::io::Result<Job> {
    // SAFETY: no name, default security; the handle returned is ours.
    let handle = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
    if handle.is_null() {
        return Err(last_error("creating a Job Object"));
    }
    let job = Job(handle);
    let mut limits = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    // SAFETY: the struct is the one this information class names, with its size.
    let set = unsafe {
        SetInformationJobObject(
            job.0,
            JobObjectExtendedLimitInformation,
            (&limits as *const JOBOBJECT_EXTENDED_LIMIT_INFORMATION).cast(),
            std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
        )
    };
    if set == 0 {
        return Err(last_error("setting the Job Object's kill-on-close"));
    }
    Ok(job)
}

/// Resumes every thread of the (suspended) process `pid`: just its first one.
fn resume_threads(pid: u32) -> std::io::Result<()> {
    // SAFETY: a thread snapshot of the system; the handle is closed below.
    let snapshot = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0) };
    if snapshot == INVALID_HANDLE_VALUE {
        return Err(last_error("listing the hook's threads"));
    }
    let mut entry = THREADENTRY32 {
        dwSize: std::mem::size_of::<THREADENTRY32>() as u32,
        ..Default::default()
    };
    let mut resumed = 0;
    // SAFETY: `entry` is ours with its size set; the snapshot handle is live.
    let mut more = unsafe { Thread32First(snapshot, &mut entry) } != 0;
    while more {
        if entry.th32OwnerProcessID == pid {
            // SAFETY: a thread id from the snapshot; the handle is closed at once.
            unsafe {
                let thread = OpenThread(THREAD_SUSPEND_RESUME, 0, entry.th32ThreadID);
                if !thread.is_null() {
                    if ResumeThread(thread) != u32::MAX {
                        resumed += 1;
                    }
                    CloseHandle(thread);
                }
            }
        }
        // SAFETY: as above.
        more = unsafe { Thread32Next(snapshot, &mut entry) } != 0;
    }
    // SAFETY: the snapshot handle is ours.
    unsafe {
        CloseHandle(snapshot);
    }
    if resumed == 0 {
        return Err(std::io::Error::other(
            "the hook was created suspended and could not be resumed",
        ));
    }
    Ok(())
}

fn last_error(doing: &str) -> std::io::Error {
    let e = std::io::Error::last_os_error();
    std::io::Error::new(e.kind(), format!("{doing}: {e}"))
}

/// Closes the hook's job: whatever it left running dies with it.
pub(crate) fn release(pid: u32) {
    let job = jobs().as_mut().and_then(|m| m.remove(&pid));
    drop(job);
}

/// No signals on Windows.
pub(crate) fn exit_signal(_status: &std::process::ExitStatus) -> Option<i32> {
    None
}

/// Ends the hook's job (the hook and every descendant).
pub(crate) fn kill_group(pid: u32) {
    if let Some(job) = jobs().as_ref().and_then(|m| m.get(&pid)) {
        // SAFETY: the job handle is live while it is in the map.
        unsafe {
            TerminateJobObject(job.0, 1);
        }
    }
}

/// Nothing is adopted on Windows (no subreaper).
pub(crate) fn kill_and_reap_child(_pid: u32) {}

/// Nothing is adopted on Windows (no subreaper).
pub(crate) fn children_of(_pid: u32) -> Vec<u32> {
    Vec::new()
}

/// Windows has no open-file limit to raise (handles are bounded by memory).
pub(crate) fn raise_open_file_limit() -> Option<u64> {
    None
}
