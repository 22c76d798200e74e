#include "amplifier/context/compaction.hpp"

#include "amplifier/context/message_json.hpp"
#include "amplifier/context/token_estimate.hpp"
#include "amplifier/module_support/json_util.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>

namespace amplifier::context {
namespace json = boost::json;

namespace {


bool is_kept_always(std::string_view role) { return role == "system" || role == "developer"; }

// The beginning of a long tool output and a note saying how much was left out.
json::value shortened(const json::value &output) {
  const std::string text = output.is_string() ? std::string(output.get_string()) : json::serialize(output);
  const std::size_t kept = amplifier::module_support::utf8_prefix_length(text, kKeptToolResultChars);
  return json::value(text.substr(0, kept) + "\n[... " + std::to_string(text.size() - kept) +
                     " more characters of this tool result were left out to fit the context window]");
}

bool is_long(const json::value &output) {
  return serialized_chars(output) > kKeptToolResultChars + 200;  // a cut must save something
}

// Cuts every long output of a tool message; returns how many it cut.
std::size_t truncate_tool_message(json::value &message) {
  json::object &object = message.get_object();
  json::value &content = object["content"];
  if (content.is_string()) {
    if (!is_long(content)) return 0;
    content = shortened(content);
    return 1;
  }
  std::size_t cut = 0;
  if (json::array *blocks = content.if_array()) {
    for (json::value &block : *blocks) {
      if (block_type_of(block) != "tool_result") continue;
      json::value &output = block.get_object()["output"];
      if (!is_long(output)) continue;
      output = shortened(output);
      ++cut;
    }
  }
  return cut;
}

class Compactor {
 public:
  Compactor(json::array messages, const CompactionLimits &limits)
      : messages_(std::move(messages)), limits_(limits), dropped_(messages_.size(), false) {
    tokens_.reserve(messages_.size());
    for (const json::value &message : messages_) tokens_.push_back(estimate_message_tokens(message));
    total_ = limits.overhead;
    for (std::int64_t t : tokens_) total_ += t;
    find_protected_range();
  }

  Compaction run() {
    Compaction result;
    result.report.messages_before = messages_.size();
    result.report.tokens_before = total_;
    if (!fits()) stage("truncate_tool_results", truncate_old_tool_results(result.report), result.report);
    if (!fits()) stage("drop_old_turns", drop_units(turn_starts(), last_turn_, result.report), result.report);
    if (!fits())
      stage("drop_old_tool_rounds", drop_units(round_starts(), protected_from_, result.report),
            result.report);
    for (std::size_t i = 0; i < messages_.size(); ++i)
      if (!dropped_[i]) result.messages.push_back(std::move(messages_[i]));
    result.report.messages_after = result.messages.size();
    result.report.tokens_after = total_;
    result.report.within_target = fits();
    return result;
  }

 private:
  bool fits() const { return total_ <= limits_.target; }

  static void stage(const char *name, bool changed, CompactionReport &report) {
    if (changed) report.stages.emplace_back(name);
  }

  // The last turn starts at the last user message; the latest tool round at the last message
  // carrying tool calls, when that comes after it. Nothing from there on is touched.
  void find_protected_range() {
    last_turn_ = 0;
    for (std::size_t i = messages_.size(); i-- > 0;) {
      if (role_of(messages_[i]) == "user") {
        last_turn_ = i;
        break;
      }
    }
    protected_from_ = last_turn_;
    for (std::size_t i = messages_.size(); i-- > last_turn_;) {
      if (!tool_calls_of(messages_[i]).empty()) {
        protected_from_ = i;
        break;
      }
    }
  }

  bool truncate_old_tool_results(CompactionReport &report) {
    std::size_t cut = 0;
    for (std::size_t i = 0; i < protected_from_ && !fits(); ++i) {
      if (role_of(messages_[i]) != "tool") continue;
      const std::size_t here = truncate_tool_message(messages_[i]);
      if (here == 0) continue;
      cut += here;
      const std::int64_t now = estimate_message_tokens(messages_[i]);
      total_ -= tokens_[i] - now;
      tokens_[i] = now;
    }
    report.truncated_tool_results += cut;
    return cut > 0;
  }

  // Starts of the turns before the last one: index 0 (whatever precedes the first user
  // message is a turn of its own) and every user message.
  std::vector<std::size_t> turn_starts() const {
    std::vector<std::size_t> starts{0};
    for (std::size_t i = 1; i < last_turn_; ++i)
      if (role_of(messages_[i]) == "user") starts.push_back(i);
    return starts;
  }

  // Starts of the tool rounds of the last turn before the latest one: each assistant message.
  std::vector<std::size_t> round_starts() const {
    std::vector<std::size_t> starts;
    for (std::size_t i = last_turn_ + 1; i < protected_from_; ++i)
      if (role_of(messages_[i]) == "assistant") starts.push_back(i);
    return starts;
  }

  // Drops the units [starts[k], starts[k+1]) (the last one ends at `end`), oldest first,
  // until the estimate fits. Returns whether anything was dropped.
  bool drop_units(const std::vector<std::size_t> &starts, std::size_t end, CompactionReport &report) {
    bool dropped_any = false;
    for (std::size_t k = 0; k < starts.size() && !fits(); ++k) {
      const std::size_t unit_end = k + 1 < starts.size() ? starts[k + 1] : end;
      for (std::size_t i = starts[k]; i < unit_end; ++i) {
        if (dropped_[i] || is_kept_always(role_of(messages_[i]))) continue;
        dropped_[i] = true;
        total_ -= tokens_[i];
        ++report.dropped_messages;
        dropped_any = true;
      }
    }
    return dropped_any;
  }

  json::array messages_;  // the compactor's own: the caller's messages are never edited
  const CompactionLimits limits_;
  std::vector<std::int64_t> tokens_;
  std::vector<bool> dropped_;
  std::int64_t total_ = 0;
  std::size_t last_turn_ = 0;
  std::size_t protected_from_ = 0;
};

}  // namespace

std::int64_t estimate_request_tokens(const json::array &messages, std::int64_t overhead) {
  std::int64_t total = overhead;
  for (const json::value &message : messages) total += estimate_message_tokens(message);
  return total;
}

Compaction compact_messages(json::array messages, const CompactionLimits &limits) {
  return Compactor(std::move(messages), limits).run();
}

}  // namespace amplifier::context
