#include "amplifier/orchestrator/tool_result_limit.hpp"

#include "amplifier/module_support/json_util.hpp"

#include <boost/json/serialize.hpp>

namespace amplifier::orchestrator {
namespace json = boost::json;
namespace ms = amplifier::module_support;

std::string tool_output_cut_note(const ToolResultCut &cut) {
  return "[output cut: " + std::to_string(cut.original_chars) + " characters, showing the first " +
         std::to_string(cut.kept_chars) +
         "; ask for a narrower part (a range, a filter, a search) to see the rest]";
}

std::optional<ToolResultCut> limit_tool_output(ToolOutcome &outcome, std::size_t max_chars) {
  if (max_chars == 0) return std::nullopt;
  const std::string structured =
      outcome.output.is_string() ? std::string() : json::serialize(outcome.output);
  const std::string_view text =
      outcome.output.is_string() ? std::string_view(outcome.output.get_string()) : structured;
  // No more bytes than the limit means no more characters either: nothing to count.
  if (text.size() <= max_chars) return std::nullopt;
  const std::size_t chars = ms::utf8_length(text);
  if (chars <= max_chars) return std::nullopt;

  const ToolResultCut cut{chars, max_chars};
  std::string shortened(text.substr(0, ms::utf8_prefix_chars(text, max_chars)));
  shortened += "\n\n";
  shortened += tool_output_cut_note(cut);
  outcome.output = json::string(std::move(shortened));
  return cut;
}

}  // namespace amplifier::orchestrator
