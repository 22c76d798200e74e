#include "isolation/wire.hpp"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

namespace amplifier::isolation {
namespace {

template <class T>
void put(std::string &out, T value) {
  out.append(reinterpret_cast<const char *>(&value), sizeof value);
}

template <class T>
T get(std::string_view bytes, std::size_t &at) {
  if (bytes.size() - at < sizeof(T)) throw std::runtime_error("truncated frame");
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof value);
  at += sizeof value;
  return value;
}

}  // namespace

std::size_t checked_body_size(const Message &message, std::uint32_t max_body) {
  std::size_t body = kHeaderSize - 4;
  for (std::size_t i = 0; i < message.string_count; ++i) body += 4 + message.strings[i].size();
  if (body > max_body)
    throw std::length_error(fmt::format(
        "a message of {} bytes is larger than the {} MiB a module process accepts "
        "(the module's max_message_mb)", body, max_body >> 20));
  return body;
}

void append_frame(std::string &out, FrameKind kind, std::uint64_t tag, std::uint64_t order,
                  const Message &message, std::uint32_t max_body) {
  const std::size_t body = checked_body_size(message, max_body);
  out.reserve(out.size() + 4 + body);
  put(out, static_cast<std::uint32_t>(body));
  put(out, static_cast<std::uint8_t>(kind));
  put(out, static_cast<std::uint16_t>(message.fn));
  put(out, tag);
  put(out, order);
  put(out, message.a);
  put(out, message.b);
  put(out, message.c);
  put(out, message.string_count);
  for (std::size_t i = 0; i < message.string_count; ++i) {
    put(out, static_cast<std::uint32_t>(message.strings[i].size()));
    out.append(message.strings[i]);
  }
}

std::size_t complete_frame_size(std::string_view bytes, std::uint32_t max_body) {
  if (bytes.size() < 4) return 0;
  std::size_t at = 0;
  auto body = get<std::uint32_t>(bytes, at);
  if (body > max_body)
    throw std::runtime_error(fmt::format("a frame of {} bytes, over the limit of {} MiB", body,
                                         max_body >> 20));
  if (body < kHeaderSize - 4)
    throw std::runtime_error("frame of impossible size " + std::to_string(body));
  return bytes.size() - 4 >= body ? 4 + std::size_t(body) : 0;
}

Frame decode_frame(std::string_view bytes) {
  std::size_t at = 0;
  auto body = get<std::uint32_t>(bytes, at);
  bytes = bytes.substr(0, 4 + std::size_t(body));
  Frame frame;
  auto kind = get<std::uint8_t>(bytes, at);
  if (kind < 1 || kind > 3) throw std::runtime_error("frame of unknown kind");
  frame.kind = static_cast<FrameKind>(kind);
  frame.fn = static_cast<Fn>(get<std::uint16_t>(bytes, at));
  frame.tag = get<std::uint64_t>(bytes, at);
  frame.order = get<std::uint64_t>(bytes, at);
  frame.a = get<std::uint64_t>(bytes, at);
  frame.b = get<std::uint64_t>(bytes, at);
  frame.c = get<std::uint64_t>(bytes, at);
  frame.string_count = get<std::uint8_t>(bytes, at);
  if (frame.string_count > kMaxStrings) throw std::runtime_error("frame with too many strings");
  for (std::size_t i = 0; i < frame.string_count; ++i) {
    auto length = get<std::uint32_t>(bytes, at);
    if (bytes.size() - at < length) throw std::runtime_error("frame string overruns the frame");
    frame.strings[i] = bytes.substr(at, length);
    at += length;
  }
  return frame;
}

const char *to_string(Fn fn) {
  switch (fn) {
    case Fn::hello:
      return "hello";
    case Fn::load_failed:
      return "load_failed";
    case Fn::create:
      return "create";
    case Fn::session_ready:
      return "session_ready";
    case Fn::destroy:
      return "destroy";
    case Fn::provider_get_info:
      return "get_info";
    case Fn::provider_list_models:
      return "list_models";
    case Fn::provider_vtable_complete:
      return "complete";
    case Fn::tool_list:
      return "list_tools";
    case Fn::tool_vtable_execute:
      return "execute";
    case Fn::orchestrator_execute:
      return "execute";
    case Fn::cancel:
      return "cancel";
    case Fn::context_vtable_add:
      return "add_message";
    case Fn::context_vtable_get:
      return "get_messages";
    case Fn::context_vtable_get_for_request:
      return "get_messages_for_request";
    case Fn::context_vtable_set:
      return "set_messages";
    case Fn::context_vtable_clear:
      return "clear";
    case Fn::hook_invoke:
    case Fn::hook_delta_invoke:
      return "hook handler";
    case Fn::contributor_invoke:
      return "contributor";
    default:
      return "host function";
  }
}

}  // namespace amplifier::isolation
