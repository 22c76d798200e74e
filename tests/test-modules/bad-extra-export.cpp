// bad-extra-export: a correct tool module (no tools) that also exports a helper function, as
// a module built without the exports version script does. Another module or the host could
// bind to it by accident; `module validate` must name it (only-export).
#include "test_module_support.hpp"

extern "C" AMP_EXPORT int amp_test_leaked_helper(int value) { return value + 1; }

AMP_DEFINE_MODULE(amp_test::NoToolsModule, "bad-extra-export", "1.0.0",
                  "Test module: exports a symbol besides its entry point")
