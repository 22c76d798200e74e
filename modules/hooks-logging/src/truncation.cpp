#include "truncation.hpp"

#include "amplifier/module_support/json_util.hpp"

namespace hooks_logging {

std::string truncation_marker(std::size_t cut_bytes, std::size_t original_bytes) {
  return "...[truncated " + std::to_string(cut_bytes) + " of " + std::to_string(original_bytes) +
         " bytes]";
}

std::size_t truncate_long_strings(boost::json::value &value, std::size_t max_bytes) {
  if (max_bytes == 0) return 0;
  switch (value.kind()) {
    case boost::json::kind::string: {
      boost::json::string &text = value.get_string();
      if (text.size() <= max_bytes) return 0;
      const std::size_t keep =
          amplifier::module_support::utf8_prefix_length(std::string_view(text), max_bytes);
      const std::string marker = truncation_marker(text.size() - keep, text.size());
      text.resize(keep);
      text.append(marker);
      return 1;
    }
    case boost::json::kind::array: {
      std::size_t cut = 0;
      for (auto &item : value.get_array()) cut += truncate_long_strings(item, max_bytes);
      return cut;
    }
    case boost::json::kind::object: {
      std::size_t cut = 0;
      for (auto &entry : value.get_object()) cut += truncate_long_strings(entry.value(), max_bytes);
      return cut;
    }
    default:
      return 0;
  }
}

}  // namespace hooks_logging
