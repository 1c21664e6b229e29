/* A stand-in for Windows' bcryptprimitives.dll, for wine releases that lack it (wine
 * 8.0, Debian 12). Rust's std and the getrandom crate draw their randomness from its
 * ProcessPrng (Windows 10 and later have it); this one draws from RtlGenRandom
 * (advapi32's SystemFunction036), which wine has. Installed by scripts/windows-smoke.sh
 * into its own wine prefix only; never shipped. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) {
            return FALSE;
        }
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
