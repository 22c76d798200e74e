// A tool's result as the kernel expects it (amplifier::ToolResult as JSON text): the text the
// model reads in `output`, repeated as the error message when the call failed, plus any extra
// fields the tool reports.
#pragma once
#include <boost/json/object.hpp>

#include <string>

namespace amplifier::module_support {

std::string tool_result(bool success, const std::string &text, boost::json::object extra = {});

}  // namespace amplifier::module_support
