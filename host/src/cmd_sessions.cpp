// `amplifier sessions list | show ID | fork ID | migrate ID`: the stored sessions of persisting
// contexts.
// Sessions on files (context-persistent, the default) are read from the store directory. When
// --plan names a context that keeps its sessions elsewhere (context-postgres), every command
// goes through that module's sessions_query instead, and `migrate` imports a session from
// files into it.
#include "command_errors.hpp"
#include "commands.hpp"
#include "ledger_text.hpp"
#include "plan_loading.hpp"
#include "session_fork.hpp"

#include "amplifier/model.hpp"
#include "amplifier/mount_plan.hpp"
#include "amplifier/session_query.hpp"
#include "amplifier/session_store.hpp"
#include "amplifier/transcript.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>

namespace amplifier::host {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
namespace store = session_store;

constexpr std::size_t kToolPreviewChars = 300;

struct StoreChoice {
  std::string store_dir;  // --store
  std::string plan_file;  // --plan: the store its context is configured with
};

struct SessionsOptions {
  StoreChoice store;
  std::string id;
  bool as_json = false;
  std::string from_dir;  // migrate into a plan's store: the file store the session comes from
  std::optional<std::int64_t> at;  // fork: the last turn the fork keeps (default: all)
};

// The sessions of a plan whose context keeps them itself (not on files), with the library
// that answers for them loaded.
struct PlanStore {
  ModuleLoader loader;
  std::optional<ContextSessionStore> store;
};

// The --plan's context store when its module answers sessions queries; nullptr for files.
std::unique_ptr<PlanStore> module_store(const StoreChoice &choice) {
  if (choice.plan_file.empty()) return nullptr;
  const MountPlan plan = load_mount_plan(choice.plan_file);
  auto found = std::make_unique<PlanStore>();
  found->store = ContextSessionStore::open(found->loader, plan.context);
  if (!found->store) return nullptr;
  return found;
}

fs::path chosen_store(const StoreChoice &choice) {
  if (!choice.store_dir.empty()) return store::resolve_store_dir(choice.store_dir);
  if (!choice.plan_file.empty()) return session_store_of(load_mount_plan(choice.plan_file));
  return store::default_store_dir();
}

void add_store_options(CLI::App *command, StoreChoice &choice) {
  auto *dir = command->add_option("--store", choice.store_dir,
                                  "The session store (default: $XDG_DATA_HOME/amplifier/sessions, "
                                  "else ~/.local/share/amplifier/sessions)");
  command->add_option("--plan", choice.plan_file, "Use the store of this mount plan's context")
      ->check(CLI::ExistingFile)
      ->excludes(dir);
}

// ---- list -------------------------------------------------------------------------------

std::vector<store::SessionSummary> summaries_of(const json::array &rows) {
  std::vector<store::SessionSummary> sessions;
  for (const auto &row : rows)
    if (row.is_object()) sessions.push_back(store::summary_from_json(row.get_object()));
  return sessions;
}

int print_sessions(const std::vector<store::SessionSummary> &sessions, const std::string &where,
                   bool as_json) {
  if (as_json) {
    json::array rows;
    for (const auto &s : sessions) rows.push_back(store::to_json(s));
    fmt::print("{}\n", json::serialize(rows));
    return 0;
  }
  if (sessions.empty()) {
    fmt::print(stderr, "amplifier: no sessions in {}\n", where);
    return 0;
  }
  fmt::print("{:<36}  {:<24}  {:>5}  {:<18}  {}\n", "ID", "UPDATED", "TURNS", "PROVIDER",
             "PREVIEW");
  for (const auto &s : sessions) {
    fmt::print("{:<36}  {:<24}  {:>5}  {:<18}  {}\n", s.id, s.updated,
               s.turn_count ? std::to_string(*s.turn_count) : std::string("?"),
               s.provider.value_or("-"), s.preview);
    if (s.problem) fmt::print(stderr, "amplifier: warning: session {}: {}\n", s.id, *s.problem);
  }
  return 0;
}

int list_sessions(const SessionsOptions &options) {
  if (auto plan = module_store(options.store))
    return print_sessions(summaries_of(plan->store->list()), plan->store->module_id(),
                          options.as_json);
  const fs::path where = chosen_store(options.store);
  return print_sessions(store::list_sessions(where), where.string(), options.as_json);
}

// ---- show -------------------------------------------------------------------------------

std::string block_line(const ContentBlock &block) {
  if (const auto *text = block_as<TextBlock>(block)) return text->text;
  if (const auto *thinking = block_as<ThinkingBlock>(block))
    return fmt::format("(thinking, {} characters{})", thinking->thinking.size(),
                       thinking->signature ? ", signed" : "");
  if (const auto *call = block_as<ToolCallBlock>(block))
    return fmt::format("-> {} {} [{}]", call->name,
                       store::one_line_preview(json::serialize(call->input), kToolPreviewChars),
                       call->id);
  if (const auto *result = block_as<ToolResultBlock>(block)) {
    const std::string output = result->output.is_string() ? std::string(result->output.as_string())
                                                          : json::serialize(result->output);
    return fmt::format("<- [{}] {}", result->tool_call_id,
                       store::one_line_preview(output, kToolPreviewChars));
  }
  return fmt::format("({} block)", block_type(block));
}

// `text` with every line indented, so multi-line texts stay inside their message.
std::string indented(std::string_view text) {
  std::string out = "  ";
  for (char c : text) {
    out.push_back(c);
    if (c == '\n') out += "  ";
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
  return out;
}

// `turns` counts the user messages so far: each begins a turn, numbered as `fork --at` and
// chat's /rewind take them.
void print_message(const json::value &stored, std::int64_t &turns) {
  const Message message = from_json<Message>(stored);
  if (message.role == Role::user)
    fmt::print("[user, turn {}]\n", ++turns);
  else
    fmt::print("[{}]\n", to_string(message.role));
  if (const auto *text = std::get_if<std::string>(&message.content)) {
    fmt::print("{}\n", indented(*text));
    return;
  }
  for (const auto &block : std::get<std::vector<ContentBlock>>(message.content))
    fmt::print("{}\n", indented(block_line(block)));
}

void print_header(const std::string &id, const std::optional<store::SessionMetadata> &metadata,
                  const std::string &location) {
  fmt::print("session {}\n", id);
  if (metadata) {
    fmt::print("created {}, updated {}, {} turn(s)", metadata->created, metadata->updated,
               metadata->turn_count);
    if (metadata->provider)
      fmt::print(", provider {}{}", *metadata->provider,
                 metadata->model ? " (" + *metadata->model + ")" : std::string());
    if (metadata->parent_id) fmt::print(", parent {}", *metadata->parent_id);
    if (const auto from = fork_origin_of(metadata->extra))
      fmt::print(", forked from {} at turn {}", from->session, from->turn);
    fmt::print("\n");
    for (const auto &d : metadata->degradations)
      fmt::print("degradation: {}: {}\n", d.feature, d.reason);
  }
  fmt::print("{}\n\n", location);
}

void print_footer(std::size_t messages, const transcript::Transcript &read) {
  fmt::print("\n({} message(s){})\n", messages,
             read.legacy_records ? fmt::format(", {} in the legacy format", read.legacy_records)
                                 : std::string());
}

// The session's cost and tokens, as its last answer's metadata records them (written by the
// agent loop after every provider call); nothing for a transcript from before the ledger.
void print_ledger(const json::array &messages, const std::string &id) {
  if (const cost::Ledger ledger = cost::ledger_of_transcript(messages, id); ledger.own.calls > 0)
    fmt::print("\n{}", ledger_text(ledger));
}

// Printed as it is read, one message at a time, so a transcript of any length is shown in
// bounded memory (each line up to the default max_line_bytes).
// A session the plan's context module keeps, as it reads it back.
int show_stored_session(const ContextSessionStore &from, const SessionsOptions &options) {
  const auto session = from.read(options.id);
  if (!session)
    throw std::runtime_error(
        fmt::format("no session '{}' in the store of {}", options.id, from.module_id()));
  const json::array &messages = session->at("messages").get_array();
  if (options.as_json) {
    fmt::print("{}\n", json::serialize(messages));
    return 0;
  }
  std::optional<store::SessionMetadata> metadata;
  if (const json::value *saved = session->if_contains("metadata"); saved && saved->is_object()) {
    try {
      metadata = store::metadata_from_json(*saved);
    } catch (const std::exception &e) {
      fmt::print(stderr, "amplifier: warning: {}\n", e.what());
    }
  }
  print_header(options.id, metadata, "stored by " + from.module_id());
  std::int64_t turns = 0;
  for (const auto &message : messages) print_message(message, turns);
  fmt::print("\n({} message(s))\n", messages.size());
  print_ledger(messages, options.id);
  return 0;
}

int show_session(const SessionsOptions &options) {
  if (auto plan = module_store(options.store)) return show_stored_session(*plan->store, options);
  const fs::path where = chosen_store(options.store);
  const store::SessionFiles files = store::session_files(where, options.id);
  if (!store::session_exists(where, options.id))
    throw std::runtime_error(fmt::format("no session '{}' in {}", options.id, where.string()));
  std::optional<store::SessionMetadata> metadata;
  if (!options.as_json) {
    try {
      metadata = store::read_metadata(files.metadata);
    } catch (const std::exception &e) {
      fmt::print(stderr, "amplifier: warning: {}\n", e.what());
    }
    print_header(options.id, metadata, "transcript " + files.transcript.string());
  }
  std::size_t messages = 0;
  std::int64_t turns = 0;
  std::optional<cost::Ledger> last_ledger;  // of the last message carrying one
  if (options.as_json) fmt::print("[");
  const transcript::Transcript read = transcript::read_transcript(
      files.transcript,
      [&](transcript::Record &&record) {
        if (options.as_json) {
          fmt::print("{}{}", messages == 0 ? "" : ",", json::serialize(record.message));
        } else {
          print_message(record.message, turns);
          // The ledger the last answer carries is the session's (each answer has it whole).
          if (auto ledger = cost::ledger_of_message(record.message);
              ledger && ledger->session_id == options.id)
            last_ledger = *ledger;
        }
        ++messages;
        return true;
      },
      transcript::ReadLimits{transcript::kDefaultMaxLineBytes, 0});
  if (options.as_json) fmt::print("]\n");
  for (const auto &line : read.skipped)
    fmt::print(stderr, "amplifier: warning: {}: line {}: {}\n", files.transcript.string(),
               line.line, line.reason);
  if (!options.as_json) {
    print_footer(messages, read);
    if (last_ledger) fmt::print("\n{}", ledger_text(*last_ledger));
  }
  return 0;
}

// ---- fork -------------------------------------------------------------------------------

int fork_session(const SessionsOptions &options) {
  const auto plan = module_store(options.store);
  const ForkResult fork = plan ? fork_session_in(*plan->store, options.id, options.at)
                               : fork_session_files(chosen_store(options.store), options.id,
                                                    options.at);
  const std::string where = options.store.plan_file.empty()
                                ? std::string()
                                : " --plan " + options.store.plan_file;
  fmt::print("forked session {} at turn {} into {} ({} message(s)); continue it with:\n"
             "  amplifier chat{} --resume {}\n",
             options.id, fork.turn, fork.id, fork.messages, where, fork.id);
  return 0;
}

// ---- migrate ----------------------------------------------------------------------------

// Copies a session from files into the plan's context store, converting legacy lines on the
// way; the files stay as they were.
int import_session(const ContextSessionStore &into, const SessionsOptions &options) {
  store::check_session_id(options.id);
  const fs::path from = options.from_dir.empty() ? store::default_store_dir()
                                                 : store::resolve_store_dir(options.from_dir);
  if (!store::session_exists(from, options.id))
    throw std::runtime_error(fmt::format("no session '{}' in {}", options.id, from.string()));
  const store::SessionFiles files = store::session_files(from, options.id);
  json::array messages, origins;
  const transcript::Transcript read = transcript::read_transcript(
      files.transcript,
      [&](transcript::Record &&record) {
        messages.push_back(std::move(record.message));
        origins.push_back(record.origin ? json::value(transcript::origin_json(*record.origin))
                                        : json::value());
        return true;
      },
      transcript::ReadLimits{transcript::kDefaultMaxLineBytes, 0});
  for (const auto &line : read.skipped)
    fmt::print(stderr, "amplifier: warning: line {} left out: {}\n", line.line, line.reason);
  const auto metadata = store::read_metadata(files.metadata);
  const std::size_t count = messages.size();
  into.query({{"op", "import"},
              {"session_id", options.id},
              {"metadata", metadata ? json::value(store::to_json(*metadata)) : json::value()},
              {"messages", std::move(messages)},
              {"origins", std::move(origins)}});
  fmt::print(
      "imported session {} from {} into {}: {} message(s), {} converted from the legacy "
      "format; the files are left as they were\n",
      options.id, from.string(), into.module_id(), count, read.legacy_records);
  return 0;
}

int migrate_session(const SessionsOptions &options) {
  if (auto plan = module_store(options.store)) return import_session(*plan->store, options);
  if (!options.from_dir.empty())
    throw std::runtime_error(
        "--from needs a --plan whose context keeps sessions itself "
        "(such as context-postgres): files are migrated in place");
  const fs::path where = chosen_store(options.store);
  const store::MigrationResult result = store::migrate_session(where, options.id);
  for (const auto &line : result.skipped)
    fmt::print(stderr, "amplifier: warning: line {} left out: {}\n", line.line, line.reason);
  if (!result.backup) {
    fmt::print("session {} is already in the current format ({} message(s)); nothing to do\n",
               options.id, result.records);
    return 0;
  }
  fmt::print(
      "migrated session {}: {} message(s), {} converted from the legacy format; "
      "the original is kept in {}\n",
      options.id, result.records, result.converted, result.backup->string());
  return 0;
}

// Runs a subcommand, turning any failure into one line on stderr and exit code 1.

}  // namespace

void add_sessions_command(CLI::App &app, int &exit_code) {
  CLI::App *sessions = app.add_subcommand(
      "sessions",
      "Inspect and migrate stored sessions (on files, or in the store of --plan's "
      "context)");
  sessions->require_subcommand(1);
  auto options = std::make_shared<SessionsOptions>();

  CLI::App *list = sessions->add_subcommand("list",
                                            "List stored sessions, newest first, with a "
                                            "one-line preview of each");
  add_store_options(list, options->store);
  list->add_flag("--json", options->as_json, "Print a JSON array instead of a table");
  list->callback(
      [options, &exit_code] { run_reporting(exit_code, [&] { return list_sessions(*options); }); });

  CLI::App *show = sessions->add_subcommand("show", "Print a stored session's conversation");
  add_store_options(show, options->store);
  show->add_option("id", options->id, "The session id")->required();
  show->add_flag("--json", options->as_json,
                 "Print the messages as a JSON array (legacy lines converted)");
  show->callback(
      [options, &exit_code] { run_reporting(exit_code, [&] { return show_session(*options); }); });

  CLI::App *fork = sessions->add_subcommand(
      "fork",
      "Start a new session from a stored one's conversation, through one of its turns (the "
      "original is left as it is); prints the new session's id");
  add_store_options(fork, options->store);
  fork->add_option("id", options->id, "The session to fork")->required();
  fork->add_option("--at", options->at,
                   "The last turn the fork keeps (1 is the first; 0 keeps none; default: all). "
                   "`sessions show` numbers them");
  fork->callback(
      [options, &exit_code] { run_reporting(exit_code, [&] { return fork_session(*options); }); });

  CLI::App *migrate = sessions->add_subcommand(
      "migrate",
      "Rewrite a session's transcript in the current format, keeping a backup of the "
      "original (sessions in the legacy format also load without this); with a "
      "--plan whose context is a database, import the session from files into it");
  add_store_options(migrate, options->store);
  migrate->add_option("id", options->id, "The session id")->required();
  migrate->add_option("--from", options->from_dir,
                      "With a --plan whose context keeps sessions itself (context-postgres): "
                      "the file store to import the session from (default: the default store)");
  migrate->callback([options, &exit_code] {
    run_reporting(exit_code, [&] { return migrate_session(*options); });
  });
}

}  // namespace amplifier::host
