// The module under test as the kernel sees it in a check: its own descriptor and functions,
// except the description functions, get_info (providers) and list_tools (tools), which pass
// through a filter:
//   - get_info: the module's text when it is a JSON object, else "{}";
//   - list_tools: the module's specs without `parameters`, and only those with a name.
// Why: the checks judge the descriptions themselves (provider-info, tool-specs), so a broken
// description must not stop the behavioral checks from mounting the module; and the kernel
// validates tool input against `parameters` before a tool sees it, while the checks must see
// what the tool itself does with bad input.
#pragma once
#include "amplifier/module_loader.hpp"

#include <memory>

namespace amplifier::host::validate {

// A LoadedModule sharing `real`'s library, with the filtered description functions. One per
// process (the filter keeps the real table in a static): a check's process tests one module.
std::shared_ptr<const LoadedModule> filtered_module(std::shared_ptr<const LoadedModule> real);

}  // namespace amplifier::host::validate
