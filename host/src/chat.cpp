// The interactive session: `amplifier chat`, and `amplifier run` without a prompt on a
// terminal. Many turns in one session, line editing and history through libedit.
//
// Threads and signals: the InterruptWatcher (started first) receives every SIGINT. During a
// turn it cancels the session (once graceful, twice immediate). At the prompt it writes a
// byte into a pipe that the input loop polls next to the terminal, and the loop, on the main
// thread, clears the line: libedit is only ever touched from the main thread.
#include "approval_prompt.hpp"
#include "child_policy.hpp"
#include "command_errors.hpp"
#include "commands.hpp"
#include "default_plan.hpp"
#include "event_output.hpp"
#include "interrupts.hpp"
#include "ledger_text.hpp"
#include "modes.hpp"
#include "rewind.hpp"
#include "skills.hpp"
#include "session_launch.hpp"

#include "amplifier/coordinator.hpp"
#include "amplifier/model_base.hpp"
#include "amplifier/mount_plan.hpp"
#include "amplifier/session.hpp"
#include "amplifier/terminal_text.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <editline/readline.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace amplifier::host {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

constexpr int kHistoryLimit = 1000;

constexpr const char *kHelp =
    "Type a prompt and press Enter. Commands:\n"
    "  /help    this help\n"
    "  /tools   the mounted tools\n"
    "  /status  session id, provider, turns, tokens and cost\n"
    "  /cost    what the session has cost: its calls, child sessions, tokens\n"
    "  /mode    the modes there are; /mode NAME enters one (plan, review, explore, ...),\n"
    "           /mode off leaves it\n"
    "  /skill   the skills there are; /skill NAME [request] loads one and sends the request\n"
    "  /rewind  the turns there are; /rewind N goes back to the end of turn N (the\n"
    "           conversation), /rewind N files puts back the files later turns changed,\n"
    "           /rewind N all does both\n"
    "  /clear   forget the conversation (clears the context)\n"
    "  /exit    leave (Ctrl-D too)\n"
    "While a turn runs, a line you type (and Enter) goes to the model at its next step.\n"
    "Ctrl-C during a turn: once stops after the running step, twice stops at once.\n"
    "Ctrl-C at the prompt clears the line.\n";

// ${AMPLIFIER_HOME:-~/.amplifier}/history.
fs::path history_file() {
  if (const char *home = std::getenv("AMPLIFIER_HOME"); home && *home) return fs::path(home) / "history";
  const char *user_home = std::getenv("HOME");
  return fs::path(user_home && *user_home ? user_home : ".") / ".amplifier" / "history";
}

// A pipe the interrupt watcher writes to and the input loop polls.
class WakePipe {
 public:
  WakePipe() {
    if (::pipe2(fds_, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("cannot create a pipe");
  }
  ~WakePipe() {
    ::close(fds_[0]);
    ::close(fds_[1]);
  }
  WakePipe(const WakePipe &) = delete;
  WakePipe &operator=(const WakePipe &) = delete;
  void notify() const {
    char byte = 1;
    [[maybe_unused]] ssize_t n = ::write(fds_[1], &byte, 1);
  }
  // Empties the pipe; true when anything was in it.
  bool drain() const {
    char buffer[64];
    bool any = false;
    while (::read(fds_[0], buffer, sizeof buffer) > 0) any = true;
    return any;
  }
  int read_fd() const { return fds_[0]; }

 private:
  int fds_[2];
};

// libedit's callback interface hands a finished line to a plain function.
struct LineSlot {
  bool ready = false;
  bool eof = false;
  std::string line;
};
LineSlot g_line;

void accept_line(char *line) {
  g_line.ready = true;
  g_line.eof = line == nullptr;
  g_line.line = line ? line : "";
  std::free(line);
  rl_callback_handler_remove();  // the next prompt is installed when the turn is over
}

// What /status and /cost report: the session's ledger as the agent loop last announced it
// (ledger:update, on a provider's or worker's thread), or as the transcript of a resumed
// session holds it.
class LedgerView {
 public:
  explicit LedgerView(std::string session_id) : session_id_(std::move(session_id)) {}

  void listen(HookRegistry &hooks, const std::shared_ptr<LedgerView> &self) {
    hooks.register_handler("ledger:update", [self](std::string_view, const json::object &data) {
      // A child session's own updates reach its parent's ledger through the delegate result.
      const json::value *id = data.if_contains("session_id");
      const json::value *ledger = data.if_contains("ledger");
      if (id && id->is_string() && id->get_string() == self->session_id_ && ledger)
        self->set(cost::ledger_from_json(*ledger));
      return HookResult{};
    });
  }
  void set(const cost::Ledger &ledger) {
    std::lock_guard lock(mutex_);
    latest_ = ledger;
  }
  std::optional<cost::Ledger> latest() const {
    std::lock_guard lock(mutex_);
    return latest_;
  }

 private:
  const std::string session_id_;
  mutable std::mutex mutex_;
  std::optional<cost::Ledger> latest_;
};

class Chat {
 public:
  Chat(Session &session, InterruptWatcher &interrupts, std::shared_ptr<TextOutputState> text,
       std::shared_ptr<LedgerView> ledger, ModeCatalog modes)
      : session_(session), interrupts_(interrupts), text_(std::move(text)), ledger_(std::move(ledger)),
        modes_(std::move(modes)) {
    share_terminal_with_approvals();
  }

  // Called by the interrupt watcher's thread.
  void on_interrupt(int count) {
    if (!turn_running_.load()) {
      wake_.notify();
      return;
    }
    if (count == 1)
      std::fprintf(stderr, "\namplifier: cancelling after the running step (Ctrl-C again to stop now)\n");
    session_.cancel(count == 1 ? CancelLevel::Graceful : CancelLevel::Immediate);
  }

  int loop() {
    std::fputs("amplifier: interactive session; /help for commands, /exit or Ctrl-D to leave\n", stderr);
    for (;;) {
      std::optional<std::string> line = read_line();
      if (!line) break;
      std::string text = trim(*line);
      if (text.empty()) continue;
      add_history(text.c_str());
      if (text.front() == '/') {
        if (!command(text)) break;
        continue;
      }
      run_turn(text);
      if (input_ended_) break;  // Ctrl-D during the turn
    }
    std::fputc('\n', stdout);
    return 0;
  }

 private:
  static std::string trim(const std::string &s) {
    auto first = s.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
  }

  // The next line typed, or nullopt at end of input (Ctrl-D).
  std::optional<std::string> read_line() {
    g_line = LineSlot{};
    prompt_ = prompt_text();
    rl_callback_handler_install(prompt_.c_str(), accept_line);
    while (!g_line.ready) {
      pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {wake_.read_fd(), POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) continue;  // EINTR
      if (fds[1].revents & POLLIN && wake_.drain()) clear_line();
      if (fds[0].revents & (POLLIN | POLLHUP)) rl_callback_read_char();
    }
    if (g_line.eof) return std::nullopt;
    return g_line.line;
  }

  // "amplifier> ", or "amplifier [plan]> " while a mode holds.
  std::string prompt_text() const {
    const auto mode = session_.mode();
    return mode ? "amplifier [" + mode->name + "]> " : std::string("amplifier> ");
  }

  // Ctrl-C at the prompt: drop what was typed and show a fresh prompt.
  void clear_line() {
    rl_replace_line("", 0);
    rl_callback_handler_remove();
    std::fputs("^C\n", stdout);
    std::fflush(stdout);
    rl_callback_handler_install(prompt_.c_str(), accept_line);
  }

  void run_turn(const std::string &prompt) {
    if (text_) {
      text_->streamed = false;
      text_->ends_with_newline = true;
    }
    interrupts_.reset_count();
    turn_running_ = true;
    TurnResult result = execute_steerable(prompt);
    turn_running_ = false;
    if (text_) finish_answer(result);
    if (result.status == "error")
      std::fprintf(stderr, "amplifier: error: %s\n", terminal_safe(error_message(result)).c_str());
    else if (result.status == "cancelled")
      std::fprintf(stderr, "amplifier: the turn was cancelled\n");
    else if (result.status == "budget_exceeded")
      std::fprintf(stderr, "amplifier: %s\n", terminal_safe(result.response).c_str());
    // What was typed too late for the turn to read is not lost: it is the next prompt.
    std::vector<std::string> unread = std::move(result.steering_not_delivered);
    unread.insert(unread.end(), typed_after_turn_.begin(), typed_after_turn_.end());
    typed_after_turn_.clear();
    if (!unread.empty() && result.status == "cancelled") {
      // A cancelled turn's unread lines are not sent on their own: shown, so nothing is lost.
      for (const auto &line : unread)
        std::fprintf(stderr, "amplifier: not sent (the turn was cancelled): %s\n", terminal_safe(line).c_str());
    } else if (!unread.empty()) {
      std::string next;
      for (const auto &line : unread) next += (next.empty() ? "" : "\n") + line;
      std::fputs("amplifier: the turn ended before reading what you typed; it is the next prompt\n", stderr);
      run_turn(next);
    }
  }

  // An approval question (a hook's, a mode's) reads the terminal itself, on the turn's thread:
  // while it asks, the steering reader below lets go of the terminal, so the answer goes to the
  // question, not to the model. The session's handler (children get it too) is wrapped once.
  void share_terminal_with_approvals() {
    auto asks = session_.coordinator().approval_handler();
    if (!asks) return;
    session_.coordinator().set_approval_handler([this, asks](const json::object &request) {
      {
        std::unique_lock lock(terminal_mutex_);
        ++asking_;  // a count: delegated children may ask at the same time
        steer_wake_.notify();
        // Bounded: a reader that is not running (between turns) is paused already.
        terminal_cv_.wait_for(lock, std::chrono::seconds(5), [this] { return reader_paused_; });
      }
      json::object answer;
      try {
        answer = asks(request);
      } catch (...) {
        std::lock_guard lock(terminal_mutex_);
        --asking_;
        throw;
      }
      {
        std::lock_guard lock(terminal_mutex_);
        --asking_;
      }
      steer_wake_.notify();
      return answer;
    });
  }

  // Runs the turn on a thread of its own while this one reads what the user types: each line
  // steers the turn (Session::steer), read by the model at its next step. The terminal is in
  // its normal line mode meanwhile (libedit's handler is removed between prompts), so a line
  // arrives once Enter is pressed.
  TurnResult execute_steerable(const std::string &prompt) {
    WakePipe finished;
    TurnResult result;
    {
      std::lock_guard lock(terminal_mutex_);
      reader_paused_ = false;
    }
    std::exception_ptr failure;  // rethrown here, as execute() on this thread would have
    std::thread turn([&] {
      try {
        result = session_.execute(prompt);
      } catch (...) {
        failure = std::current_exception();
      }
      finished.notify();
    });
    std::string typed;
    bool reading = true;
    while (true) {
      bool asking = false;
      {
        std::lock_guard lock(terminal_mutex_);
        asking = asking_ > 0;
        reader_paused_ = asking;
      }
      if (asking) terminal_cv_.notify_all();
      const short want_input = static_cast<short>(reading && !asking ? POLLIN : 0);
      // Once input ended (Ctrl-D), stdin is left out: a hung-up terminal reports POLLHUP for ever.
      pollfd fds[3] = {{finished.read_fd(), POLLIN, 0}, {steer_wake_.read_fd(), POLLIN, 0},
                       {reading ? STDIN_FILENO : -1, want_input, 0}};
      if (::poll(fds, 3, -1) < 0) continue;  // EINTR
      if (fds[0].revents & POLLIN) break;
      if (fds[1].revents & POLLIN) {
        steer_wake_.drain();
        continue;
      }
      if (!(fds[2].revents & (POLLIN | POLLHUP))) continue;
      char buffer[1024];
      const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
      if (n <= 0) {
        reading = false;  // end of input (Ctrl-D): the turn goes on, then the chat ends
        input_ended_ = true;
        continue;
      }
      typed.append(buffer, static_cast<std::size_t>(n));
      for (auto end = typed.find('\n'); end != std::string::npos; end = typed.find('\n')) {
        steer(trim(typed.substr(0, end)));
        typed.erase(0, end + 1);
      }
    }
    turn.join();
    {
      std::lock_guard lock(terminal_mutex_);
      reader_paused_ = true;
    }
    terminal_cv_.notify_all();
    if (failure) std::rethrow_exception(failure);
    return result;
  }

  void steer(const std::string &line) {
    if (line.empty()) return;
    if (line.front() == '/') {
      std::fputs("amplifier: commands wait until the turn ends (not sent)\n", stderr);
      return;
    }
    try {
      if (session_.steer(line))
        std::fputs("amplifier: the model reads that at its next step\n", stderr);
      else
        typed_after_turn_.push_back(line);  // the turn just ended: it becomes the next prompt
    } catch (const std::invalid_argument &e) {
      std::fprintf(stderr, "amplifier: not sent: %s\n", e.what());
    }
  }

  // Without the display: prints the answer when nothing streamed, and ends its line.
  void finish_answer(const TurnResult &result) {
    if (!text_->streamed.load() && result.status != "error" && result.status != "budget_exceeded")
      std::fputs(terminal_safe(result.response).c_str(), stdout);
    bool ends_with_newline = text_->streamed.load()
                                 ? text_->ends_with_newline.load()
                                 : (!result.response.empty() && result.response.back() == '\n');
    if (!ends_with_newline) std::fputc('\n', stdout);
    std::fflush(stdout);
  }

  // Returns false when the session should end.
  bool command(const std::string &text) {
    const std::string name = text.substr(0, text.find(' '));
    if (name == "/exit" || name == "/quit") return false;
    if (name == "/help") std::fputs(kHelp, stdout);
    else if (name == "/tools") print_tools();
    else if (name == "/status") print_status();
    else if (name == "/cost") print_cost();
    else if (name == "/clear") clear_context();
    else if (name == "/rewind") rewind(trim(text.substr(name.size())));
    else if (name == "/mode") change_mode(trim(text.substr(name.size())));
    else if (name == "/skill") return use_skill(trim(text.substr(name.size())));
    else std::fprintf(stdout, "unknown command %s (try /help)\n", name.c_str());
    std::fflush(stdout);
    return true;
  }

  void print_tools() {
    json::array specs = session_.coordinator().tool_specs();
    if (specs.empty()) std::fputs("no tools are mounted\n", stdout);
    for (const auto &spec : specs) {
      if (!spec.is_object()) continue;
      const auto &o = spec.as_object();
      std::string name = o.contains("name") && o.at("name").is_string() ? std::string(o.at("name").as_string()) : "?";
      std::string description = o.contains("description") && o.at("description").is_string()
                                    ? std::string(o.at("description").as_string()) : "";
      description = description.substr(0, description.find('\n'));
      std::fprintf(stdout, "  %-20s %s\n", name.c_str(), description.c_str());
    }
  }

  void print_status() {
    std::string providers;
    for (const auto *p : session_.coordinator().providers())
      providers += (providers.empty() ? "" : ", ") + p->mount_name;
    const cost::Ledger ledger = ledger_->latest().value_or(cost::Ledger{});
    const cost::Totals total = ledger.total();
    std::fprintf(stdout,
                 "session  %s\nprovider %s\nturns    %lld\ntokens   %lld in, %lld out"
                 " (cache read %lld, cache write %lld)\ncost     %s%s\n",
                 session_.id().c_str(), providers.empty() ? "none" : providers.c_str(),
                 static_cast<long long>(ledger.own.turns),
                 static_cast<long long>(total.tokens.input), static_cast<long long>(total.tokens.output),
                 static_cast<long long>(total.tokens.cache_read),
                 static_cast<long long>(total.tokens.cache_write), usd_text(total.usd).c_str(),
                 total.unpriced_calls ? " (at least: a model has no known price)" : "");
  }

  void print_cost() {
    const auto ledger = ledger_->latest();
    if (!ledger) {
      std::fputs("no provider call yet\n", stdout);
      return;
    }
    std::fputs(ledger_text(*ledger).c_str(), stdout);
  }

  // "/skill": the skills there are; "/skill NAME [request]": a turn whose prompt is the skill's
  // instructions (and files), then the request.
  bool use_skill(const std::string &args) {
    SkillCatalog catalog;
    try {
      catalog = SkillCatalog::discover(session_.plan(), fs::current_path());
    } catch (const std::exception &e) {
      std::fprintf(stdout, "no skills: %s\n", terminal_safe(e.what()).c_str());
      return true;
    }
    if (args.empty()) {
      if (catalog.skills().empty()) std::fputs("no skills (see the README: Skills)\n", stdout);
      for (const auto &skill : catalog.skills())
        std::fprintf(stdout, "  %-24s %s\n", skill.name.c_str(), terminal_safe(skill.description).c_str());
      return true;
    }
    const std::string name = args.substr(0, args.find(' '));
    const SkillDefinition *skill = catalog.find(name);
    if (!skill) {
      std::fprintf(stdout, "there is no skill '%s' (/skill lists them)\n", terminal_safe(name).c_str());
      return true;
    }
    std::string prompt;
    try {
      prompt = load_skill(*skill);
    } catch (const std::exception &e) {
      std::fprintf(stdout, "%s\n", terminal_safe(e.what()).c_str());
      return true;
    }
    const std::string request = name.size() < args.size() ? trim(args.substr(name.size())) : std::string();
    if (!request.empty()) prompt += "\n\n" + request;
    std::fflush(stdout);
    run_turn(prompt);
    return true;
  }

  // "/mode": the modes there are, the current one starred; "/mode NAME": enter it.
  void change_mode(const std::string &name) {
    const auto current = session_.mode();
    if (name.empty()) {
      std::fprintf(stdout, "mode: %s\n", current ? current->name.c_str() : "none");
      std::fputs(terminal_safe(describe_modes(modes_, current ? current->name : "")).c_str(), stdout);
      return;
    }
    try {
      const auto mode = modes_.find(name);
      session_.set_mode(mode);
      if (mode) std::fprintf(stdout, "mode %s: %s\n", mode->name.c_str(), terminal_safe(mode->description).c_str());
      else std::fputs("no mode: every tool of the plan may run\n", stdout);
    } catch (const ModeError &e) {
      std::fprintf(stdout, "%s\n", terminal_safe(e.what()).c_str());
    }
  }

  // "/rewind": the turns; "/rewind N [files|all]": back to the end of turn N.
  void rewind(const std::string &args) {
    try {
      if (args.empty()) {
        std::fputs(terminal_safe(describe_rewind_points(session_)).c_str(), stdout);
        return;
      }
      const std::string number = args.substr(0, args.find(' '));
      const std::string what = trim(args.substr(number.size()));
      RewindRequest request;
      std::size_t used = 0;
      try {
        request.turn = std::stoll(number, &used);
      } catch (const std::exception &) {
        used = 0;
      }
      if (used == 0 || used != number.size()) {
        std::fprintf(stdout, "/rewind takes a turn number (/rewind lists them), not '%s'\n",
                     terminal_safe(number).c_str());
        return;
      }
      if (what == "files") request = {request.turn, false, true};
      else if (what == "all") request = {request.turn, true, true};
      else if (!what.empty()) {
        std::fputs("usage: /rewind N, /rewind N files or /rewind N all\n", stdout);
        return;
      }
      std::fputs(terminal_safe(rewind_session(session_, request)).c_str(), stdout);
    } catch (const std::invalid_argument &e) {  // a turn the session does not have
      std::fprintf(stdout, "%s\n", terminal_safe(e.what()).c_str());
    } catch (const std::exception &e) {
      std::fprintf(stdout, "amplifier: the rewind failed: %s\n", terminal_safe(e.what()).c_str());
    }
  }

  void clear_context() {
    MountedModule *context = session_.coordinator().context();
    const auto *table = context ? context->table<amp_context_vtable>() : nullptr;
    if (!table || table->clear(context->instance) != AMP_OK) {
      std::fputs("amplifier: the context could not be cleared\n", stderr);
      return;
    }
    try {
      forget_turns(session_);
    } catch (const std::exception &e) {
      std::fprintf(stderr, "amplifier: warning: the file checkpoints keep their turns: %s\n",
                   terminal_safe(e.what()).c_str());
    }
    std::fputs("context cleared\n", stdout);
  }

  Session &session_;
  InterruptWatcher &interrupts_;
  std::shared_ptr<TextOutputState> text_;  // null when the display shows the answer
  std::shared_ptr<LedgerView> ledger_;
  std::atomic<bool> turn_running_{false};
  WakePipe wake_;
  ModeCatalog modes_;
  std::vector<std::string> typed_after_turn_;  // lines the turn ended before taking
  bool input_ended_ = false;                   // Ctrl-D came while a turn ran
  // Who reads the terminal during a turn: the steering reader, or an approval question.
  std::mutex terminal_mutex_;
  std::condition_variable terminal_cv_;
  int asking_ = 0;              // approval questions that have the terminal
  bool reader_paused_ = true;   // the steering reader is not reading (or not running)
  WakePipe steer_wake_;         // wakes the steering reader when asking_ changes
  std::string prompt_;  // what libedit shows; kept alive while the handler is installed
};

// libedit history in a file, loaded at the start and saved at the end.
class History {
 public:
  History() : file_(history_file()) {
    using_history();
    stifle_history(kHistoryLimit);
    read_history(file_.c_str());
  }
  ~History() {
    std::error_code ec;
    fs::create_directories(file_.parent_path(), ec);
    write_history(file_.c_str());
  }

 private:
  fs::path file_;
};

}  // namespace

int run_chat(const std::string &plan_file, const std::string &mode, const std::string &resume_id) {
  // Started before any other thread so that only the watcher receives SIGINT; the chat it
  // reports to exists only once the session does.
  // The chat is reached only through `relay`, cleared (waiting for a call in progress) before
  // the chat and the session are destroyed, on every path out.
  InterruptRelay relay;
  InterruptWatcher interrupts([&relay](int count) {
    if (!relay.deliver(count)) std::_Exit(130);
  });

  MountPlan plan = resolve_plan(plan_file, /*with_display=*/true);
  print_plan_warnings(plan);
  ask_folder_trust_once(std::filesystem::current_path());
  const bool display = mounts_display(plan);
  ModeCatalog modes = discover_modes(plan, std::filesystem::current_path());
  // Children (delegate) share the approvals; an inherited display hook shows their stream.
  LaunchOptions launch;
  if (!resume_id.empty()) launch.session = resume_options(plan, !plan_file.empty(), resume_id);
  launch.approvals_at_terminal = true;
  launch.keep_state = true;  // /rewind's file checkpoints
  if (!mode.empty()) launch.session.mode = modes.find(mode);
  const auto launched = launch_session(std::move(plan), std::move(launch));
  Session &session = *launched;
  // With the display mounted, it shows the answer (and thinking and tools); otherwise the
  // host prints the answer text itself.
  std::shared_ptr<TextOutputState> text;
  auto output = PacedOutput::open(stdout);
  if (!display) {
    text = std::make_shared<TextOutputState>();
    attach_text_output(session.hooks(), output, text);
  }
  auto ledger = std::make_shared<LedgerView>(session.id());
  ledger->listen(session.hooks(), ledger);
  try {
    session.initialize();
  } catch (const SessionError &e) {
    std::fprintf(stderr, "amplifier: error: %s\n", e.what());
    return 1;
  }
  if (!resume_id.empty()) check_resumed_session(session);
  // A resumed session's ledger is in its transcript (its last answer's metadata).
  try {
    if (json::value messages = amplifier::parse_json(session.coordinator().context_messages());
        messages.is_array()) {
      if (auto stored = cost::ledger_of_transcript(messages.as_array(), session.id());
          stored.own.calls > 0)
        ledger->set(stored);
    }
  } catch (const std::exception &e) {  // a context that answers nonsense: /cost starts empty
    std::fprintf(stderr, "amplifier: warning: the session's earlier cost is unknown: %s\n", e.what());
  }

  History history;
  Chat interactive(session, interrupts, text, ledger, std::move(modes));
  int code = 0;
  {
    InterruptRelay::Scope reporting(relay,
                                    [&interactive](int count) { interactive.on_interrupt(count); });
    code = interactive.loop();
  }
  forget_unstored_state(session);
  session.cleanup();
  output->close();
  return code;
}

void add_chat_command(CLI::App &app, int &exit_code) {
  auto plan_file = std::make_shared<std::string>();
  auto mode = std::make_shared<std::string>();
  auto resume = std::make_shared<std::string>();
  CLI::App *cmd = app.add_subcommand("chat", "Open an interactive session: many prompts, one session");
  cmd->add_option("--plan", *plan_file, "Mount plan (YAML); default: built-in offline plan")
      ->check(CLI::ExistingFile);
  cmd->add_option("--mode", *mode, "Start in this mode (plan, review, explore, or one of yours)");
  cmd->add_option("--resume", *resume,
                  "Continue this stored session (see: amplifier sessions list; a fork from "
                  "amplifier sessions fork)");
  cmd->callback([plan_file, mode, resume, &exit_code] {
    run_reporting(exit_code, [&] {
      if (!::isatty(STDIN_FILENO))
        throw std::runtime_error("chat needs a terminal on standard input (use `run` otherwise)");
      return run_chat(*plan_file, *mode, *resume);
    });
  });
}

}  // namespace amplifier::host
