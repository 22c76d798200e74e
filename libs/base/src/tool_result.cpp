#include "amplifier/module_support/tool_result.hpp"

#include "amplifier/model.hpp"

#include <boost/json/serialize.hpp>

namespace amplifier::module_support {

std::string tool_result(bool success, const std::string &text, boost::json::object extra) {
  amplifier::ToolResult result;
  result.success = success;
  result.output = boost::json::string(text);
  if (!success) result.error = amplifier::ToolError{text, {}};
  result.extra = std::move(extra);
  return boost::json::serialize(amplifier::to_json(result));
}

}  // namespace amplifier::module_support
