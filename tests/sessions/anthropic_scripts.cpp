#include "anthropic_scripts.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <vector>

namespace amp_test {
namespace {

namespace json = boost::json;
using amplifier::loopback::ScriptedResponse;

std::string sse_event(std::string_view type, const json::object &data) {
  return fmt::format("event: {}\ndata: {}\n\n", type, json::serialize(data));
}

std::string message_start(std::string_view id) {
  return sse_event("message_start", {{"type", "message_start"},
                                     {"message",
                                      {{"id", id},
                                       {"type", "message"},
                                       {"role", "assistant"},
                                       {"model", "claude-test"},
                                       {"content", json::array{}},
                                       {"usage", {{"input_tokens", 10}, {"output_tokens", 1}}}}}});
}

std::string message_end(std::string_view stop_reason, int output_tokens) {
  return sse_event("content_block_stop", {{"type", "content_block_stop"}, {"index", 0}}) +
         sse_event("message_delta", {{"type", "message_delta"},
                                     {"delta", {{"stop_reason", stop_reason}}},
                                     {"usage", {{"output_tokens", output_tokens}}}}) +
         sse_event("message_stop", {{"type", "message_stop"}});
}

}  // namespace

ScriptedResponse paced_answer(int deltas, std::chrono::milliseconds interval) {
  const std::string head =
      message_start("msg_paced") +
      sse_event("content_block_start", {{"type", "content_block_start"},
                                        {"index", 0},
                                        {"content_block", {{"type", "text"}, {"text", ""}}}});
  const std::string delta = sse_event(
      "content_block_delta",
      {{"type", "content_block_delta"},
       {"index", 0},
       {"delta", {{"type", "text_delta"}, {"text", "t=" + std::string(kSendTimeStamp) + ";"}}}});
  const std::string tail = message_end("end_turn", deltas);
  std::string body = head;
  std::vector<std::size_t> pieces{head.size()};
  for (int i = 0; i < deltas; ++i) {
    body += delta;
    pieces.push_back(delta.size());
  }
  body += tail;
  pieces.push_back(tail.size());
  ScriptedResponse response = ScriptedResponse::sse(std::move(body), std::move(pieces));
  response.piece_interval = interval;
  response.send_time_placeholder = std::string(kSendTimeStamp);
  return response;
}

ScriptedResponse bash_call(const std::string &command) {
  std::string body =
      message_start("msg_tool") +
      sse_event("content_block_start", {{"type", "content_block_start"},
                                        {"index", 0},
                                        {"content_block",
                                         {{"type", "tool_use"},
                                          {"id", "toolu_slow"},
                                          {"name", "bash"},
                                          {"input", json::object{}}}}}) +
      sse_event("content_block_delta",
                {{"type", "content_block_delta"},
                 {"index", 0},
                 {"delta",
                  {{"type", "input_json_delta"},
                   {"partial_json", json::serialize(json::object{{"command", command}})}}}}) +
      message_end("tool_use", 5);
  return ScriptedResponse::sse(std::move(body));
}

std::optional<std::int64_t> send_time_in(std::string_view text) {
  for (auto at = text.find("t="); at != std::string_view::npos; at = text.find("t=", at + 2)) {
    const std::string_view digits = text.substr(at + 2, kSendTimeStamp.size());
    if (digits.size() < kSendTimeStamp.size()) return std::nullopt;
    std::int64_t sent = 0;
    bool all_digits = true;
    for (char c : digits) {
      all_digits = all_digits && c >= '0' && c <= '9';
      sent = sent * 10 + (c - '0');
    }
    if (all_digits) return sent;
  }
  return std::nullopt;
}

}  // namespace amp_test
