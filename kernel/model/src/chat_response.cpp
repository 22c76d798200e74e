// ChatResponse <-> JSON.
#include "parsers.hpp"

#include <boost/json/array.hpp>

namespace amplifier {
namespace json = boost::json;
using detail::JsonPath;

std::string ChatResponse::text() const {
  std::string out;
  for (const auto &block : content)
    if (const auto *text = block_as<TextBlock>(block)) out += text->text;
  return out;
}

std::string ChatResponse::take_text() {
  std::size_t blocks = 0, size = 0;
  TextBlock *only = nullptr;
  for (auto &block : content)
    if (auto *text = std::get_if<TextBlock>(&block)) {
      ++blocks;
      size += text->text.size();
      only = text;
    }
  if (blocks == 1) return std::move(only->text);
  std::string out;
  out.reserve(size);
  for (auto &block : content)
    if (auto *text = std::get_if<TextBlock>(&block)) {
      out += text->text;
      text->text.clear();
    }
  return out;
}

std::vector<ToolCallBlock> collect_tool_calls(const std::vector<ContentBlock> &blocks) {
  std::vector<ToolCallBlock> calls;
  for (const auto &block : blocks)
    if (const auto *call = block_as<ToolCallBlock>(block)) calls.push_back(*call);
  return calls;
}

json::object to_json(const ChatResponse &response) {
  json::object out;
  out.emplace("content", detail::content_blocks_to_json(response.content));
  if (!response.tool_calls.empty()) {
    json::array calls;
    calls.reserve(response.tool_calls.size());
    for (const auto &call : response.tool_calls) calls.emplace_back(to_json(call));
    out.emplace("tool_calls", std::move(calls));
  }
  if (response.usage) out.emplace("usage", to_json(*response.usage));
  if (!response.degradations.empty()) {
    json::array degradations;
    degradations.reserve(response.degradations.size());
    for (const auto &degradation : response.degradations)
      degradations.emplace_back(to_json(degradation));
    out.emplace("degradations", std::move(degradations));
  }
  detail::put(out, "finish_reason", response.finish_reason);
  detail::put(out, "metadata", response.metadata);
  detail::put_extra(out, response.extra);
  return out;
}

template <>
ChatResponse from_json<ChatResponse>(const json::value &json) {
  const JsonPath root;
  const json::object &object = detail::expect_object(json, root);
  ChatResponse response;
  if (const json::value *content = detail::present(object, "content"))
    response.content = detail::parse_content_blocks(*content, root.child("content"));
  if (const json::value *calls = detail::present(object, "tool_calls"))
    response.tool_calls =
        detail::parse_array<ToolCallBlock>(*calls, root.child("tool_calls"), detail::parse_tool_call);
  if (const json::value *usage = detail::present(object, "usage"))
    response.usage = detail::parse_usage(*usage, root.child("usage"));
  if (const json::value *degradations = detail::present(object, "degradations"))
    response.degradations = detail::parse_array<Degradation>(
        *degradations, root.child("degradations"), detail::parse_degradation);
  response.finish_reason = detail::optional_string(object, "finish_reason", root);
  response.metadata = detail::optional_object(object, "metadata", root);
  response.extra = detail::unknown_fields(
      object, {"content", "tool_calls", "usage", "degradations", "finish_reason", "metadata"});
  return response;
}

}  // namespace amplifier
