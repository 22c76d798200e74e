// A measuring shim for benchmarks (never linked into the product): loaded with LD_PRELOAD, it
// counts the large copies and allocations a process makes, the figure issue 29 asks for as
// "bytes copied after the last delta". A copy of a long answer goes through memcpy or memmove
// (std::string, boost::json and the kernel all call them for large sizes), and each copy into
// fresh memory starts with a large allocation, so both are counted at or above a threshold:
//
//   AMP_COPY_COUNTER_MIN    the threshold in bytes (default 65536)
//   AMP_COPY_COUNTER_OUT    where the totals go (default stderr), one JSON line at exit:
//                           {"copies":N,"copied_bytes":B,"allocations":N,"allocated_bytes":B}
//   AMP_COPY_COUNTER_TRACE  1: also a backtrace of each counted copy on stderr (slow; for
//                           finding where the copies come from, with addr2line or perf)
//
// Trust: a benchmark tool the operator loads by hand (or bench/peers/run.mjs, which the operator
// runs); the product never loads it and nothing a serve client, a model, a plan or a cloned
// repository controls can set LD_PRELOAD or these variables for the host.
//
// glibc's own internal copies (inside realloc, stdio) do not pass through these symbols and are
// not counted; every copy made by the program's code and its libraries is.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_realloc(void *, size_t);

typedef void *(*copy_fn)(void *, const void *, size_t);

static copy_fn real_memcpy;
static copy_fn real_memmove;
static size_t threshold = 65536;
static int tracing;
static atomic_ullong copies, copied_bytes, allocations, allocated_bytes;
static __thread int inside;  // no counting (and no recursion) inside our own bookkeeping

// Before the real functions are known (the dynamic loader's own early copies): byte by byte.
static void *slow_move(void *dst, const void *src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  if (d < s) for (size_t i = 0; i < n; ++i) d[i] = s[i];
  else for (size_t i = n; i > 0; --i) d[i - 1] = s[i - 1];
  return dst;
}

static void note_copy(size_t n) {
  atomic_fetch_add_explicit(&copies, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&copied_bytes, n, memory_order_relaxed);
  if (tracing && !inside) {
    inside = 1;
    void *frames[24];
    int depth = backtrace(frames, 24);
    char header[64];
    int len = snprintf(header, sizeof header, "copy of %zu bytes:\n", n);
    write(2, header, (size_t)len);
    backtrace_symbols_fd(frames, depth, 2);
    inside = 0;
  }
}

void *memcpy(void *dst, const void *src, size_t n) {
  if (n >= threshold) note_copy(n);
  return real_memcpy ? real_memcpy(dst, src, n) : slow_move(dst, src, n);
}

void *memmove(void *dst, const void *src, size_t n) {
  if (n >= threshold) note_copy(n);
  return real_memmove ? real_memmove(dst, src, n) : slow_move(dst, src, n);
}

void *malloc(size_t n) {
  if (n >= threshold) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&allocated_bytes, n, memory_order_relaxed);
  }
  return __libc_malloc(n);
}

void *realloc(void *p, size_t n) {
  if (n >= threshold) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&allocated_bytes, n, memory_order_relaxed);
  }
  return __libc_realloc(p, n);
}

__attribute__((constructor)) static void start(void) {
  inside = 1;
  real_memcpy = (copy_fn)dlsym(RTLD_NEXT, "memcpy");
  real_memmove = (copy_fn)dlsym(RTLD_NEXT, "memmove");
  const char *min = getenv("AMP_COPY_COUNTER_MIN");
  if (min && *min) threshold = (size_t)strtoull(min, NULL, 10);
  const char *trace = getenv("AMP_COPY_COUNTER_TRACE");
  tracing = trace && trace[0] == '1';
  inside = 0;
}

__attribute__((destructor)) static void report(void) {
  inside = 1;
  char line[256];
  int len = snprintf(line, sizeof line,
                     "{\"copies\":%llu,\"copied_bytes\":%llu,\"allocations\":%llu,"
                     "\"allocated_bytes\":%llu,\"threshold\":%zu}\n",
                     (unsigned long long)copies, (unsigned long long)copied_bytes,
                     (unsigned long long)allocations, (unsigned long long)allocated_bytes,
                     threshold);
  const char *out = getenv("AMP_COPY_COUNTER_OUT");
  int fd = out && *out ? open(out, O_WRONLY | O_CREAT | O_APPEND, 0644) : 2;
  if (fd >= 0) {
    write(fd, line, (size_t)len);
    if (fd != 2) close(fd);
  }
}
