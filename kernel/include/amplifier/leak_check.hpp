// check_leaks_before_exit(): for processes that end with _Exit (the module host, validate's
// check processes), which skips the check LeakSanitizer makes at exit. In an ASan build it
// makes that check now (a leak is reported, and the process dies with ASan's exit code); in
// any other build it does nothing.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define AMP_LEAK_CHECK_AVAILABLE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AMP_LEAK_CHECK_AVAILABLE 1
#endif
#endif

#ifdef AMP_LEAK_CHECK_AVAILABLE
#include <sanitizer/lsan_interface.h>
#endif

namespace amplifier {
inline void check_leaks_before_exit() {
#ifdef AMP_LEAK_CHECK_AVAILABLE
  __lsan_do_leak_check();
#endif
}
}  // namespace amplifier
