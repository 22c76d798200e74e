// The kill test's child, in one of two modes:
//   transcript_append_child <store_dir> <session_id> <seed> <fsync: 0|1>
//     mounts context-persistent in a real session and appends messages in a loop, printing
//     "ack N" after message N was accepted, until it is killed;
//   transcript_append_child --huge-line <file>
//     appends three small lines, prints "writing", then appends one line of 60 MiB (under the
//     reader's default max_line_bytes, so it loads when the kill comes late), whose
//     write(2) lasts long enough for a SIGKILL sent on "writing" to land inside it.
#include "kill_test_messages.hpp"

#include "amplifier/coordinator.hpp"
#include "amplifier/mount_plan.hpp"
#include "amplifier/session.hpp"
#include "amplifier/transcript.hpp"
#include "amplifier_sdk.hpp"

#include <cstdio>
#include <cstdlib>

namespace {

int append_huge_line(const char *file) {
  using amplifier::transcript::TranscriptWriter;
  TranscriptWriter writer(file, TranscriptWriter::Sync::none);
  for (int i = 0; i < 3; ++i)
    writer.append(amplifier::transcript::encode_line(
        boost::json::object{{"role", "user"}, {"content", "small " + std::to_string(i)}}, std::nullopt, ""));
  const std::string huge = amplifier::transcript::encode_line(
      boost::json::object{{"role", "user"}, {"content", std::string(60 << 20, 'h')}}, std::nullopt, "");
  std::printf("writing\n");
  std::fflush(stdout);
  writer.append(huge);
  std::printf("written\n");
  std::fflush(stdout);
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc == 3 && std::string(argv[1]) == "--huge-line") return append_huge_line(argv[2]);
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s STORE_DIR SESSION_ID SEED FSYNC\n", argv[0]);
    return 2;
  }
  const std::string store = argv[1], session_id = argv[2];
  const auto seed = static_cast<std::uint32_t>(std::strtoul(argv[3], nullptr, 10));
  const std::string fsync = std::string(argv[4]) == "1" ? "true" : "false";
  try {
    const std::string plan =
        "session:\n  orchestrator: loop-basic\n  context:\n    module: context-persistent\n"
        "    config: {store_dir: " + boost::json::serialize(boost::json::value(store)) +
        ", fsync: " + fsync + "}\n";
    amplifier::SessionOptions options;
    options.module_path = {AMP_MODULE_DIR};
    options.session_id = session_id;
    amplifier::Session session(amplifier::parse_mount_plan(plan, "kill-test"), options);
    session.initialize();
    const auto &context = *session.coordinator().context();
    const auto *table = context.table<amp_context_vtable>();
    for (std::uint64_t index = 0;; ++index) {
      const std::string message = boost::json::serialize(ctxtest::kill_test_message(seed, index));
      if (table->add_message(context.instance, amp::sdk::to_amp(message)) != AMP_OK) {
        std::fprintf(stderr, "add_message %llu failed\n", static_cast<unsigned long long>(index));
        return 1;
      }
      std::printf("ack %llu\n", static_cast<unsigned long long>(index));
      std::fflush(stdout);
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "child: %s\n", e.what());
    return 1;
  }
}
