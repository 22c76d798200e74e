#include "amplifier/provider/call_reports.hpp"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>

namespace amplifier::provider {

namespace json = boost::json;

void notify_or_warn(const amp::sdk::Host &host, std::string_view event,
                    const json::object &payload) {
  try {
    if (host.notify(event, json::serialize(payload)) != AMP_OK)
      host.warn("could not emit " + std::string(event));
  } catch (const std::exception &e) {
    host.warn("could not emit " + std::string(event) + ": " + e.what());
  }
}

void report_tool_repairs(const amp::sdk::Host &host, std::string_view provider,
                         const std::vector<RepairedToolCall> &repaired,
                         const std::vector<std::string> &dropped_results) {
  for (const std::string &id : dropped_results)
    host.warn("dropped a tool result for '" + id + "': no tool call of that id precedes it");
  if (repaired.empty()) return;
  json::array repairs;
  for (const auto &call : repaired)
    repairs.push_back(
        json::object{{"tool_call_id", call.tool_call_id}, {"tool_name", call.tool_name}});
  notify_or_warn(host, "provider:tool_sequence_repaired",
                 json::object{{"provider", provider},
                              {"repair_count", repaired.size()},
                              {"repairs", std::move(repairs)}});
}

}  // namespace amplifier::provider
