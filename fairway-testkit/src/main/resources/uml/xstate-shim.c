/*
 * Preloaded into linux.uml (user-mode Linux 6.1) by the test harness.
 *
 * On hosts whose CPUs have AMX, the host kernel accepts PTRACE_SETREGSET(NT_X86_XSTATE) only
 * with a buffer of the full XSAVE size of every feature it supports (CPUID 0xD.0 ECX), while
 * GETREGSET hands out the traced task's smaller size, which is what UML passes back. The call
 * fails with EFAULT and UML panics at its first process ("ptrace set fp regs failed, errno =
 * 14"). This pads that one call with zeros to the full size: the XSAVE header's feature bits
 * come from UML's buffer, so the padded components (AMX tile data the task never enabled) are
 * not loaded. Everywhere else it passes every call through unchanged.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <dlfcn.h>
#include <elf.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/uio.h>

static long (*real_ptrace)(enum __ptrace_request, pid_t, void *, void *);
/* UML's kernel runs on one host thread, so one buffer is enough. */
static char padded[1 << 16] __attribute__((aligned(64)));

long ptrace(enum __ptrace_request req, ...) {
  va_list ap;
  va_start(ap, req);
  pid_t pid = va_arg(ap, pid_t);
  void *addr = va_arg(ap, void *);
  void *data = va_arg(ap, void *);
  va_end(ap);
  if (!real_ptrace) real_ptrace = (long (*)(enum __ptrace_request, pid_t, void *, void *)) dlsym(RTLD_NEXT, "ptrace");
  if (req == PTRACE_SETREGSET && (long) addr == NT_X86_XSTATE && data != NULL) {
    unsigned eax, ebx, ecx, edx;
    __cpuid_count(0xd, 0, eax, ebx, ecx, edx);
    struct iovec *iov = data;
    if (ecx > iov->iov_len && ecx <= sizeof padded) {
      memcpy(padded, iov->iov_base, iov->iov_len);
      memset(padded + iov->iov_len, 0, ecx - iov->iov_len);
      struct iovec full = {padded, ecx};
      return real_ptrace(req, pid, addr, &full);
    }
  }
  return real_ptrace(req, pid, addr, data);
}
