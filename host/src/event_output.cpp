#include "event_output.hpp"

#include <boost/json/serialize.hpp>

#include <limits>
#include <mutex>
#include <string>

namespace amplifier::host {
namespace {

// Runs after every other handler, so the printed payload is what hooks made of it.
constexpr int kLastPriority = std::numeric_limits<int>::max();

std::mutex &output_mutex() {
  static std::mutex m;
  return m;
}

void write_line(std::FILE *out, const std::string &line) {
  std::lock_guard lock(output_mutex());
  std::fwrite(line.data(), 1, line.size(), out);
  std::fputc('\n', out);
  std::fflush(out);
}

}  // namespace

void attach_jsonl_output(HookRegistry &hooks, std::FILE *out) {
  hooks.register_handler(
      std::string(HookRegistry::kAllEvents),
      [out](std::string_view event, const boost::json::object &data) {
        boost::json::object line;
        line["event"] = event;
        line["data"] = data;
        if (auto *id = data.if_contains("session_id")) line["session_id"] = *id;
        if (auto *ts = data.if_contains("timestamp")) line["ts"] = *ts;
        write_line(out, boost::json::serialize(line));
        return HookResult{};
      },
      kLastPriority, "host-jsonl-output");
}

void attach_text_output(HookRegistry &hooks, std::FILE *out,
                        std::shared_ptr<TextOutputState> state) {
  // Each provider response starts new text blocks: separate them from what came before.
  hooks.register_handler(
      "content_block:start",
      [out, state](std::string_view, const boost::json::object &data) {
        auto *type = data.if_contains("block_type");
        if (type && type->is_string() && type->as_string() == "text" && state->streamed.load() &&
            !state->ends_with_newline.load()) {
          std::lock_guard lock(output_mutex());
          std::fputc('\n', out);
          state->ends_with_newline.store(true);
        }
        return HookResult{};
      },
      kLastPriority, "host-text-output");
  hooks.register_handler(
      "content_block:delta",
      [out, state](std::string_view, const boost::json::object &data) {
        auto *delta = data.if_contains("delta");
        if (!delta || !delta->is_object()) return HookResult{};
        auto *type = delta->as_object().if_contains("type");
        auto *text = delta->as_object().if_contains("text");
        if (type && type->is_string() && type->as_string() == "text" && text && text->is_string() &&
            !text->as_string().empty()) {
          std::lock_guard lock(output_mutex());
          std::fwrite(text->as_string().data(), 1, text->as_string().size(), out);
          std::fflush(out);
          state->streamed.store(true);
          state->ends_with_newline.store(text->as_string().back() == '\n');
        }
        return HookResult{};
      },
      kLastPriority, "host-text-output");
}

}  // namespace amplifier::host
