// The wire format between the host and a module it runs in its own process
// (amplifier-module-host): the ABI's calls, carried as frames over a socketpair.
//
// One frame shape for everything, so there is one encoder and one decoder:
//   u32 body_length | u8 kind | u16 fn | u64 tag | u64 order | u64 a | u64 b | u64 c
//   | u8 string_count | (u32 length | bytes) * string_count
// Integers are in the machine's byte order: both ends are the same machine and build.
//   kind     request (expects one reply), reply, or notify (one-way, handled in order)
//   fn       which ABI function (Fn below); a reply repeats its request's fn
//   tag      request and reply: the correlation id
//   order    notify: the sender's sequence number; request: the sequence number of the last
//            notify the sending thread sent before it (see Channel: ordering)
//   a, b, c  the call's integer arguments (call ids, levels, statuses, handler ids), per Fn
//   strings  the call's text arguments (JSON payloads, names), per Fn
#pragma once
#include "amplifier_abi_description.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace amplifier::isolation {

enum class FrameKind : std::uint8_t { request = 1, reply = 2, notify = 3 };

// The ABI's host functions that cross the process boundary: every function and get_proc
// name plugin-api/abi.json marks `wire: request` or `wire: notify` gets a code of its own
// name, generated, so a function added to the description has its code here at once (and the
// host's handler, isolated_module.cpp, does not compile until it answers it).
#define AMP_WIRE_CODE_request(name) name,
#define AMP_WIRE_CODE_notify(name) name,
#define AMP_WIRE_CODE_local(name)
#define AMP_WIRE_HOST_FUNCTION_CODE(name, since, wire) AMP_WIRE_CODE_##wire(name)
#define AMP_WIRE_HOST_PROC_CODE(name, macro, type, since, wire) AMP_WIRE_CODE_##wire(name)

// Every function that crosses the process boundary. Each line: direction, kind, arguments
// (a, b, c, strings), and for requests what the reply carries (a = amp_status, then b and
// strings as noted).
enum class Fn : std::uint16_t {
  // --- child -> host, at start -------------------------------------------------------------
  hello = 1,    // notify: a = kind, b = abi_major << 32 | abi_minor, c = kWireIdentity,
                //   [id, version, description, "1" when session_ready exists else ""]
  load_failed,  // notify: [reason]
  // --- host -> child: the module's own functions --------------------------------------------
  create = 10,                     // request: [config_json]; reply [error text]
  session_ready,                   // request; reply [error text]
  destroy,                         // request; reply (the child exits after it)
  provider_get_info,               // request; reply [json]
  provider_list_models,            // request; reply [json]
  provider_vtable_complete,        // notify: a = call, [request_json]
  tool_list,                       // request; reply [json]
  tool_vtable_execute,             // notify: a = call, [tool, input_json]
  orchestrator_execute,            // notify: a = call, [prompt_json]
  cancel,                          // notify: a = call, b = level
  context_vtable_add,              // request: [message_json]
  context_vtable_get,              // request; reply [json]
  context_vtable_get_for_request,  // request: [request_json]; reply [json]
  context_vtable_set,              // request: [messages_json]
  context_vtable_clear,            // request
  hook_invoke,         // request: a = child handler id, [event, data_json]; reply [result]
  contributor_invoke,  // request: a = child contributor id; reply [json]
  sink_event,          // notify: a = child sink id, b = call, [event_json]
  sink_delta,          // notify: a = child sink id, b = call, c = pack_delta, [text]
  sink_finish,         // notify: a = child sink id, b = call, c = status, [payload_json]
  hook_delta_invoke,   // request: a = child handler id, c = pack_delta, [text]; reply a = status
  // --- child -> host: the host API (generated from abi.json, in its order) -------------------
  // How each carries its arguments:
  //   log                  notify: a = level, [message]
  //   session_info         request; reply [json]
  //   emit                 request: c = 1 when a result is wanted, [event, data_json];
  //                        reply [result json]
  //   hook_register        request: a = priority (int32 bits), b = child handler id,
  //                        [event, name]
  //   hook_unregister      request: [name]
  //   capability_register  request: [name, value_json]
  //   capability_get       request: [name]; reply [json]
  //   channel_contribute   request: b = child contributor id, [channel, name]
  //   channel_collect      request: [channel]; reply [json]
  //   call_event           notify: a = call, [event_json]
  //   call_finish          notify: a = call, b = status, [payload_json]
  //   providers_list, tools_list   request; reply [json]
  //   provider_complete    request: a = child sink id, b = 1 when the sink takes typed deltas,
  //                        [provider, request_json]; reply a = status, b = call id
  //   tool_execute         request: as provider_complete, [tool, input_json]
  //   session_spawn        request: as provider_complete, ["", request_json]
  //   call_cancel          request: a = call, b = level
  //   context_add_message, context_set_messages   request: [json]
  //   context_get_messages                        request; reply [json]
  //   context_get_messages_for_request            request: [request_json]; reply [json]
  //   context_clear                               request
  //   request_approval     request: [request_json]; reply [json]
  //   call_delta           notify: a = call, c = pack_delta, [text]
  //   emit_content_delta   notify: c = pack_delta, [text]
  //   hook_has_handlers    request: [event]; reply a = 0 | 1
  //   tools_changed        request; reply a = status
  //   hook_register_delta  request: a = priority (int32 bits), b = child handler id, c = 1 when
  //                        it has a JSON handler too, [name]
  host_api_codes = 39,
  AMP_ABI_HOST_FUNCTIONS(AMP_WIRE_HOST_FUNCTION_CODE)
  AMP_ABI_HOST_PROCS(AMP_WIRE_HOST_PROC_CODE)
};

// What a module process and its host must agree on to talk: the description the host-API codes
// come from, and the revision of everything else here (bump kWireRevision when a module-side
// code, a frame's layout or an argument's meaning changes). The process sends it in its hello;
// the host refuses a process that says another (an amplifier-module-host from another build).
// hello and load_failed keep their codes (1 and 2) for ever, so a mismatch is always heard.
inline constexpr std::uint64_t kWireRevision = 2;
inline constexpr std::uint64_t kWireIdentity = AMP_ABI_DESCRIPTION_DIGEST ^ kWireRevision;

// Stream reports: sent in batches, without waiting for each to reach the socket (Channel).
inline bool is_streamed(Fn fn) {
  return fn == Fn::call_event || fn == Fn::call_delta || fn == Fn::emit_content_delta ||
         fn == Fn::sink_event || fn == Fn::sink_delta || fn == Fn::log;
}

// A typed delta's block index and amp_delta_kind, in one integer.
inline std::uint64_t pack_delta(std::uint32_t index, std::uint32_t kind) {
  return (std::uint64_t(index) << 32) | kind;
}
inline std::uint32_t delta_index(std::uint64_t packed) { return std::uint32_t(packed >> 32); }
inline std::uint32_t delta_kind(std::uint64_t packed) { return std::uint32_t(packed); }

inline constexpr std::size_t kMaxStrings = 4;
inline constexpr std::size_t kHeaderSize = 4 + 1 + 2 + 8 * 5 + 1;
// The largest frame body a channel sends or accepts unless the plan says otherwise (a module's
// `max_message_mb:`): larger is a broken or hostile peer, not a payload. The check is made on
// the 4-byte header, so a peer cannot make the other end buffer more than this. No message of
// ours comes near it: a whole transcript of a long session is a few MiB.
inline constexpr std::uint32_t kDefaultMaxFrameBytes = 64u << 20;
// The most `max_message_mb:` may allow.
inline constexpr std::uint32_t kMaxFrameBytesCeiling = 1u << 30;

// A decoded frame. Its strings are views into the buffer it was decoded from.
struct Frame {
  FrameKind kind = FrameKind::notify;
  Fn fn = Fn::hello;
  std::uint64_t tag = 0;
  std::uint64_t order = 0;
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  std::uint64_t c = 0;
  std::uint8_t string_count = 0;
  std::string_view strings[kMaxStrings];

  std::string_view string(std::size_t i) const {
    return i < string_count ? strings[i] : std::string_view();
  }
};

// What a frame carries, before it is encoded (the channel fills in kind, tag and order).
// The strings are views: they must outlive the send, not the Message.
struct Message {
  Fn fn;
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  std::uint64_t c = 0;
  std::string_view strings[kMaxStrings];
  std::uint8_t string_count = 0;

  explicit Message(Fn f, std::initializer_list<std::string_view> texts = {}, std::uint64_t a_ = 0,
                   std::uint64_t b_ = 0, std::uint64_t c_ = 0)
      : fn(f), a(a_), b(b_), c(c_) {
    for (auto text : texts)
      if (string_count < kMaxStrings) strings[string_count++] = text;
  }
};

// The body size of `message`'s frame; throws std::length_error when it is larger than
// `max_body` (the peer would refuse it).
std::size_t checked_body_size(const Message &message, std::uint32_t max_body);

// Appends one encoded frame to `out`. Throws std::length_error when its body would be larger
// than `max_body` (the peer would refuse it).
void append_frame(std::string &out, FrameKind kind, std::uint64_t tag, std::uint64_t order,
                  const Message &message, std::uint32_t max_body = kDefaultMaxFrameBytes);

// The size of the complete frame at the start of `bytes`, 0 when more bytes are needed.
// Throws std::runtime_error for a frame no peer of ours would send (a body larger than
// `max_body`, too many strings), as soon as its header is there.
std::size_t complete_frame_size(std::string_view bytes,
                                std::uint32_t max_body = kDefaultMaxFrameBytes);

// Decodes the complete frame at the start of `bytes` (complete_frame_size said it is there).
// Throws std::runtime_error when its strings overrun it.
Frame decode_frame(std::string_view bytes);

const char *to_string(Fn fn);

}  // namespace amplifier::isolation
