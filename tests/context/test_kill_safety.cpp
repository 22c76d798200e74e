// Crash safety: a child process appending through context-persistent is killed with SIGKILL at
// random points; every transcript must then load, hold every acknowledged message intact, lose
// at most the one being written, and resume into a valid conversation.
#include "context_test_support.hpp"
#include "kill_test_messages.hpp"

#include "amplifier/session_store.hpp"
#include "amplifier/transcript.hpp"
#include "amplifier/validation.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <random>

using namespace ctxtest;
namespace transcript = amplifier::transcript;
namespace store = amplifier::session_store;

namespace {

const std::string kChild = AMP_BINARY_DIR "/tests/context/transcript_append_child";

// The child, its stdout as a stream of lines ("ack N", or "writing").
class AppendingChild {
 public:
  AppendingChild(const fs::path &store_dir, const std::string &session_id, std::uint32_t seed,
                 bool fsync)
      : AppendingChild({store_dir.string(), session_id, std::to_string(seed), fsync ? "1" : "0"}) {}

  explicit AppendingChild(const std::vector<std::string> &args) {
    int pipe_fds[2];
    REQUIRE(::pipe(pipe_fds) == 0);
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      ::dup2(pipe_fds[1], STDOUT_FILENO);
      ::close(pipe_fds[0]);
      ::close(pipe_fds[1]);
      std::vector<char *> argv{const_cast<char *>(kChild.c_str())};
      for (const auto &arg : args) argv.push_back(const_cast<char *>(arg.c_str()));
      argv.push_back(nullptr);
      ::execv(kChild.c_str(), argv.data());
      ::_exit(127);
    }
    ::close(pipe_fds[1]);
    acks_ = ::fdopen(pipe_fds[0], "r");
  }
  ~AppendingChild() {
    if (pid_ > 0) kill_and_reap();
    if (acks_) std::fclose(acks_);
  }

  // Blocks until the child acknowledges one more message; false when it ended instead.
  bool next_ack() { return next_line().has_value(); }

  // Blocks for the child's next line (without its newline); nullopt when it ended.
  std::optional<std::string> next_line() {
    char line[64];
    if (!std::fgets(line, sizeof line, acks_)) return std::nullopt;
    ++acknowledged_;
    std::string text(line);
    if (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
  }
  std::uint64_t acknowledged() const { return acknowledged_; }

  // SIGKILL, then wait for it: returns the signal that ended it. The acks it wrote before
  // dying and nobody read yet are still in the pipe: they are counted too.
  int kill_and_reap() {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    while (next_ack()) {
    }
    return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  }

 private:
  pid_t pid_ = -1;
  std::FILE *acks_ = nullptr;
  std::uint64_t acknowledged_ = 0;
};

// Every tool call is answered, every result has its call, no two user messages in a row.
void check_valid_conversation(const json::array &messages) {
  check_alternation(messages);
  std::vector<amplifier::Message> parsed;
  for (const auto &m : messages) parsed.push_back(amplifier::from_json<amplifier::Message>(m));
  CHECK(amplifier::validate_conversation(parsed).empty());
  std::set<std::string> calls, answered;
  for (const auto &m : messages) {
    const auto *blocks = m.at("content").if_array();
    if (!blocks) continue;
    for (const auto &b : *blocks) {
      if (b.at("type") == "tool_call") calls.insert(std::string(b.at("id").as_string()));
      if (b.at("type") == "tool_result") answered.insert(std::string(b.at("tool_call_id").as_string()));
    }
  }
  CHECK(calls == answered);
}

}  // namespace

TEST_CASE("SIGKILL at random points during appends: every transcript loads and resumes") {
  TempDir dir;
  std::mt19937 random(std::random_device{}());
  constexpr int kTrials = 16;
  int torn_tails = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    const std::string session_id = "kill-" + std::to_string(trial);
    const std::uint32_t seed = random();
    const bool fsync = trial % 4 == 0;  // mostly page cache: more appends per trial
    CAPTURE(trial);
    CAPTURE(seed);
    std::uint64_t acknowledged = 0;
    {
      AppendingChild child(dir.path(), session_id, seed, fsync);
      const std::uint64_t kill_after = 1 + random() % 40;
      while (child.acknowledged() < kill_after) REQUIRE(child.next_ack());
      CHECK(child.kill_and_reap() == SIGKILL);
      acknowledged = child.acknowledged();
    }

    const auto files = store::session_files(dir.path(), session_id);
    const transcript::Transcript loaded = transcript::load_transcript(files.transcript);
    // Acknowledged messages were written before the ack; at most the next one also made it.
    CHECK(loaded.records.size() >= acknowledged);
    CHECK(loaded.records.size() <= acknowledged + 1);
    // Nothing but a torn last line is ever skipped.
    CHECK(loaded.skipped.size() <= 1);
    if (!loaded.skipped.empty()) {
      CHECK(loaded.torn_tail);
      ++torn_tails;
    }
    for (std::size_t i = 0; i < loaded.records.size(); ++i)
      CHECK_MESSAGE(loaded.records[i].message == json::value(kill_test_message(seed, i)),
                    "record " << i << " differs from what was written");

    // Resuming repairs the conversation and appends after the (cut off) torn tail.
    json::array messages;
    {
      auto resumed = open_session(persistent_plan(dir.path()), session_id, true);
      ContextHandle context(*resumed.session);
      messages = context.messages();
      CHECK(messages.size() >= loaded.records.size());
      check_valid_conversation(messages);
      context.add_ok(text_message("user", "after the crash"));
    }
    const transcript::Transcript reloaded = transcript::load_transcript(files.transcript);
    CHECK(reloaded.skipped.empty());
    CHECK(reloaded.records.size() == messages.size() + 1);
  }
  MESSAGE(torn_tails << " of " << kTrials << " kills landed inside a write");
}

TEST_CASE("SIGKILL inside one long write(2): the torn line is reported, skipped and cut off") {
  TempDir dir;
  const fs::path file = dir / "transcript.jsonl";
  int torn = 0;
  constexpr int kAttempts = 5;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    CAPTURE(attempt);
    fs::remove(file);
    {
      AppendingChild child({"--huge-line", file.string()});
      REQUIRE(child.next_line() == "writing");
      CHECK(child.kill_and_reap() == SIGKILL);
    }
    const transcript::Transcript loaded = transcript::load_transcript(file);
    if (loaded.skipped.empty()) {
      // The kill came before the first byte of the line or after its last one.
      CHECK((loaded.records.size() == 3 || loaded.records.size() == 4));
      continue;
    }
    ++torn;
    CHECK(loaded.records.size() == 3);  // every complete line, nothing of the torn one
    CHECK(loaded.torn_tail);
    REQUIRE(loaded.skipped.size() == 1);
    CHECK(loaded.skipped[0].line == 4);

    transcript::TranscriptWriter writer(file, transcript::TranscriptWriter::Sync::each_line);
    CHECK(writer.discarded_tail_bytes() > 0);
    CHECK(fs::file_size(file) == loaded.intact_bytes);  // cut back to the last whole line
    writer.append(transcript::encode_line(text_message("user", "after"), std::nullopt, ""));
    const transcript::Transcript reloaded = transcript::load_transcript(file);
    CHECK(reloaded.skipped.empty());
    CHECK(reloaded.records.size() == 4);
  }
  // A kill that arrives before the copy starts or after it ends is possible on a loaded
  // machine, so the count is reported rather than required; every attempt checks the
  // invariants above.
  MESSAGE(torn << " of " << kAttempts << " kills tore the line being written");
}
