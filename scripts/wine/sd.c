/* A file's owner and DACL, read or set, for the system-scope part of the Windows smoke
 * test (scripts/windows-smoke.sh):
 *
 *   sd get PATH        prints the owner and DACL as SDDL (O:…D:…)
 *   sd set PATH SDDL   sets the owner and the DACL that SDDL holds (a "D:P…" DACL is set
 *                      protected, so nothing is inherited)
 *
 * Built with `python3 -m ziglang cc -target x86_64-windows-gnu`; wine's server keeps what
 * `set` writes in the file's `user.wine.sd` extended attribute. */
#include <windows.h>
#include <aclapi.h>
#include <sddl.h>
#include <shellapi.h>
#include <stdio.h>
#include <wchar.h>

static int get(const wchar_t *path) {
    PSECURITY_DESCRIPTOR sd = NULL;
    SECURITY_INFORMATION info = OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION;
    DWORD rc = GetNamedSecurityInfoW(path, SE_FILE_OBJECT, info, NULL, NULL, NULL, NULL, &sd);
    if (rc != ERROR_SUCCESS) {
        fprintf(stderr, "sd get: GetNamedSecurityInfoW failed: %lu\n", rc);
        return 1;
    }
    LPWSTR text = NULL;
    if (!ConvertSecurityDescriptorToStringSecurityDescriptorW(sd, SDDL_REVISION_1, info, &text, NULL)) {
        fprintf(stderr, "sd get: cannot write SDDL: %lu\n", GetLastError());
        return 1;
    }
    printf("%ls\n", text);
    LocalFree(text);
    LocalFree(sd);
    return 0;
}

static int set(const wchar_t *path, const wchar_t *sddl) {
    PSECURITY_DESCRIPTOR sd = NULL;
    if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl, SDDL_REVISION_1, &sd, NULL)) {
        fprintf(stderr, "sd set: not SDDL: %lu\n", GetLastError());
        return 1;
    }
    BOOL present = FALSE, defaulted = FALSE;
    PACL dacl = NULL;
    PSID owner = NULL;
    SECURITY_DESCRIPTOR_CONTROL control = 0;
    DWORD revision = 0;
    GetSecurityDescriptorDacl(sd, &present, &dacl, &defaulted);
    GetSecurityDescriptorOwner(sd, &owner, &defaulted);
    GetSecurityDescriptorControl(sd, &control, &revision);
    SECURITY_INFORMATION info = 0;
    if (owner) info |= OWNER_SECURITY_INFORMATION;
    if (present)
        info |= DACL_SECURITY_INFORMATION | ((control & SE_DACL_PROTECTED)
                                                 ? PROTECTED_DACL_SECURITY_INFORMATION
                                                 : UNPROTECTED_DACL_SECURITY_INFORMATION);
    DWORD rc = SetNamedSecurityInfoW((LPWSTR)path, SE_FILE_OBJECT, info, owner, NULL, dacl, NULL);
    LocalFree(sd);
    if (rc != ERROR_SUCCESS) {
        fprintf(stderr, "sd set: SetNamedSecurityInfoW failed: %lu\n", rc);
        return 1;
    }
    return 0;
}

int main(void) {
    int argc = 0;
    LPWSTR *argv = CommandLineToArgvW(GetCommandLineW(), &argc);
    if (argv && argc == 3 && wcscmp(argv[1], L"get") == 0) return get(argv[2]);
    if (argv && argc == 4 && wcscmp(argv[1], L"set") == 0) return set(argv[2], argv[3]);
    fprintf(stderr, "usage: sd get PATH | sd set PATH SDDL\n");
    return 2;
}
