// Benchmarks of persistent sessions:
//   1. appends per second through context-persistent's add_message, with fsync (each message
//      durable before add_message returns) and without (page cache only);
//   2. the time to resume a transcript of N messages (default 10,000): the whole session
//      mount, and the transcript read + conversion alone;
//   3. the time to shape one request from that history, without and with compaction.
// Usage: bench_context [messages] [directory]   (directory: where the store goes; default a
// fresh one under the system temp dir, removed afterwards. Put it on the disk you care about.)
#include "amplifier/coordinator.hpp"
#include "amplifier/log.hpp"
#include "amplifier/mount_plan.hpp"
#include "amplifier/session.hpp"
#include "amplifier/session_store.hpp"
#include "amplifier/transcript.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;
namespace json = boost::json;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A realistic mix, one turn per four messages: a prompt, a tool call, a 1 KB tool result and
// an answer.
std::string message(std::size_t index) {
  const std::string n = std::to_string(index);
  switch (index % 4) {
    case 0:
      return json::serialize(json::object{{"role", "user"}, {"content", "Please look at file " + n}});
    case 1: {
      json::object call{{"type", "tool_call"}, {"id", "call_" + n}, {"name", "read_file"},
                        {"input", json::object{{"path", n}}}};
      json::array blocks{json::object{{"type", "text"}, {"text", "Reading it."}}, std::move(call)};
      return json::serialize(json::object{{"role", "assistant"}, {"content", std::move(blocks)}});
    }
    case 2: {
      const std::string id = "call_" + std::to_string(index - 1);
      json::object result{{"type", "tool_result"}, {"tool_call_id", id}, {"output", std::string(1024, 'x')}};
      return json::serialize(json::object{
          {"role", "tool"}, {"tool_call_id", id}, {"content", json::array{std::move(result)}}});
    }
    default: {
      json::array blocks{json::object{{"type", "text"}, {"text", "File " + n + " is fine."}}};
      return json::serialize(json::object{{"role", "assistant"}, {"content", std::move(blocks)}});
    }
  }
}

std::string plan(const fs::path &store, bool fsync, std::int64_t max_tokens) {
  return fmt::format(
      "session:\n  orchestrator: loop-basic\n  context:\n    module: context-persistent\n"
      "    config: {{store_dir: \"{}\", fsync: {}, max_tokens: {}}}\n"
      "providers:\n  - module: provider-mock\n",
      store.string(), fsync ? "true" : "false", max_tokens);
}

std::unique_ptr<amplifier::Session> open(const std::string &yaml, const std::string &id) {
  amplifier::SessionOptions options;
  options.module_path = {AMP_MODULE_DIR};
  options.session_id = id;
  auto session = std::make_unique<amplifier::Session>(amplifier::parse_mount_plan(yaml, "bench"), options);
  session->initialize();
  return session;
}

const amp_context_vtable &context_of(amplifier::Session &session, void *&instance) {
  auto *context = session.coordinator().context();
  instance = context->instance;
  return *context->table<amp_context_vtable>();
}

double appends_per_second(const fs::path &store, bool fsync, std::size_t count, const std::string &id) {
  auto session = open(plan(store, fsync, 200000), id);
  void *instance = nullptr;
  const amp_context_vtable &context = context_of(*session, instance);
  std::vector<std::string> messages;
  for (std::size_t i = 0; i < count; ++i) messages.push_back(message(i));
  const auto start = Clock::now();
  for (const auto &m : messages)
    if (context.add_message(instance, amp::sdk::to_amp(m)) != AMP_OK) throw std::runtime_error("append failed");
  return static_cast<double>(count) / seconds_since(start);
}

double request_ms(amplifier::Session &session) {
  void *instance = nullptr;
  const amp_context_vtable &context = context_of(session, instance);
  amp::sdk::StringWriter out;
  const auto start = Clock::now();
  context.get_messages_for_request(instance, amp::sdk::to_amp(R"({"provider":"provider-mock"})"), &out);
  return seconds_since(start) * 1000;
}

}  // namespace

int main(int argc, char **argv) {
  const std::size_t count = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 10000;
  const bool own_dir = argc <= 2;
  const fs::path store = own_dir ? fs::temp_directory_path() / fmt::format("amp-bench-context-{}", ::getpid())
                                 : fs::path(argv[2]);
  amplifier::set_log_level(amplifier::LogLevel::Error);
  fs::create_directories(store);
  fmt::print("store: {}\n", store.string());

  const std::size_t synced = std::min<std::size_t>(count, 1000);
  fmt::print("appends, fsync on : {:>10.0f} messages/s ({} messages)\n",
             appends_per_second(store, true, synced, "bench-fsync"), synced);
  fmt::print("appends, fsync off: {:>10.0f} messages/s ({} messages)\n",
             appends_per_second(store, false, count, "bench-long"), count);

  const auto files = amplifier::session_store::session_files(store, "bench-long");
  fmt::print("transcript: {} messages, {:.1f} MB\n", count, fs::file_size(files.transcript) / 1e6);
  auto start = Clock::now();
  const auto loaded = amplifier::transcript::load_transcript(files.transcript);
  fmt::print("read + decode transcript:          {:>8.1f} ms ({} records)\n", seconds_since(start) * 1000,
             loaded.records.size());
  start = Clock::now();
  (void)open(plan(store, false, 200000), "bench-empty");
  const double empty_ms = seconds_since(start) * 1000;
  start = Clock::now();
  auto resumed = open(plan(store, false, 200000), "bench-long");
  const double resume_ms = seconds_since(start) * 1000;
  fmt::print("resume (whole session mount):      {:>8.1f} ms (a new, empty session: {:.1f} ms)\n",
             resume_ms, empty_ms);
  fmt::print("shape a request, no compaction:    {:>8.1f} ms\n", request_ms(*resumed));
  resumed.reset();
  auto compacting = open(plan(store, false, 50000), "bench-long");
  fmt::print("shape a request, with compaction:  {:>8.1f} ms (budget 50,000 tokens)\n",
             request_ms(*compacting));
  compacting.reset();
  if (own_dir) fs::remove_all(store);
  return 0;
}
