#include "amplifier/context/resume_repair.hpp"

#include "amplifier/context/message_json.hpp"

#include <algorithm>

namespace amplifier::context {
namespace json = boost::json;

namespace {

json::object synthetic_metadata() { return json::object{{"synthetic", "resume"}}; }

json::value synthetic_result(const ToolCallRef &call) {
  json::object block{{"type", "tool_result"},
                     {"tool_call_id", call.id},
                     {"output", kInterruptedToolText},
                     {"is_error", true}};
  return json::object{{"role", "tool"},
                      {"tool_call_id", call.id},
                      {"name", call.name},
                      {"content", json::array{std::move(block)}},
                      {"metadata", synthetic_metadata()}};
}

json::value closing_note() {
  return json::object{{"role", "assistant"},
                      {"content", json::array{json::object{{"type", "text"},
                                                           {"text", kInterruptedTurnText}}}},
                      {"metadata", synthetic_metadata()}};
}

class Repairer {
 public:
  Repair run(std::vector<Entry> loaded) {
    for (Entry &entry : loaded) visit(std::move(entry));
    for (const ToolCallRef &call : open_calls_) {
      repair_.tail.push_back(synthetic_result(call));
      ++repair_.report.synthetic_tool_results;
    }
    if (turn_unfinished()) {
      repair_.tail.push_back(closing_note());
      ++repair_.report.closing_messages;
    }
    return std::move(repair_);
  }

 private:
  void visit(Entry entry) {
    const std::string_view role = role_of(entry.message);
    if (role == "tool") return visit_result(std::move(entry));
    if (role == "user" || role == "assistant") close_open_calls_in_place();
    if (role == "assistant") open_calls_ = tool_calls_of(entry.message);
    repair_.history.push_back(std::move(entry));
  }

  // A result is kept when it answers a call still open; anything else cannot be placed.
  void visit_result(Entry entry) {
    bool answers_open_call = false;
    for (const std::string &id : answered_call_ids(entry.message)) {
      auto open = std::find_if(open_calls_.begin(), open_calls_.end(),
                               [&](const ToolCallRef &call) { return call.id == id; });
      if (open == open_calls_.end()) continue;
      open_calls_.erase(open);
      answers_open_call = true;
    }
    if (!answers_open_call) {
      ++repair_.report.dropped_tool_results;
      return;
    }
    repair_.history.push_back(std::move(entry));
  }

  void close_open_calls_in_place() {
    for (const ToolCallRef &call : open_calls_) {
      repair_.history.push_back(Entry{synthetic_result(call), std::nullopt});
      ++repair_.report.synthetic_tool_results;
    }
    open_calls_.clear();
  }

  // The conversation (tail included) ends with a user or tool message: the turn never got
  // its answer. System messages do not count either way.
  bool turn_unfinished() const {
    if (!repair_.tail.empty()) return true;  // results of interrupted calls end it
    for (auto it = repair_.history.rbegin(); it != repair_.history.rend(); ++it) {
      const std::string_view role = role_of(it->message);
      if (role == "system" || role == "developer") continue;
      return role == "user" || role == "tool";
    }
    return false;
  }

  Repair repair_;
  std::vector<ToolCallRef> open_calls_;
};

}  // namespace

Repair repair_for_resume(std::vector<Entry> loaded) { return Repairer().run(std::move(loaded)); }

}  // namespace amplifier::context
