// bad-id-mismatch: the file is bad-id-mismatch.so but the descriptor names another module, so
// loading it by id would mount something other than what the plan asked for.
#include "test_module_support.hpp"

AMP_DEFINE_MODULE(amp_test::NoToolsModule, "tool-someone-else", "1.0.0",
                  "Test module: its descriptor id differs from its file name")
