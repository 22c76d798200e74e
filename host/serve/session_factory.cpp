#include "session_factory.hpp"

#include "api_types.hpp"
#include "agents.hpp"
#include "client_plan.hpp"
#include "session_launch.hpp"

#include "amplifier/events.hpp"
#include "amplifier/session_store.hpp"

#include "amplifier/log.hpp"
#include "plan_loading.hpp"

#include <boost/json/serialize.hpp>
#include <openssl/evp.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

namespace amplifier::host::serve {
namespace fs = std::filesystem;
namespace json = boost::json;
namespace {

bool valid_plan_name(const std::string &name) {
  return !name.empty() && name.size() <= 128 && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  }) && name.find("..") == std::string::npos;
}

std::string problems_text(const MountPlanError &e) {
  std::string text;
  for (const auto &p : e.problems()) text += (text.empty() ? "" : "; ") + p.to_string();
  return text;
}

MountPlan load_checked(const std::function<MountPlan()> &load) {
  try {
    return load();
  } catch (const MountPlanError &e) {
    throw ApiError(400, "invalid_plan", problems_text(e));
  }
}

// What the API says when a session cannot start: the error, then each module that failed.
std::string init_failure(const SessionError &e, const Session &session) {
  std::string text = e.what();
  for (const auto &f : session.load_failures())
    text += fmt::format("; {} '{}': {}", f.mount_point, f.module, f.error);
  return text;
}

void make_private_dir(const fs::path &dir) {
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace);
}

}  // namespace

ApiError store_failure(std::string_view what, amp_status status) {
  // The store's own words name the database (where it is, who connects): the operator reads
  // them in the log, a client gets what it can act on.
  log(LogLevel::Warning, "serve", fmt::format("session store: {}", what));
  if (status == AMP_BUSY)
    return ApiError(409, "session_busy",
                    "another server is running a turn in this session; try again once it ends");
  return ApiError(503, "store_unavailable",
                  "the session store cannot be reached right now; try again shortly");
}

SessionFactory::SessionFactory(SessionFactoryOptions options, Metrics &metrics)
    : options_(std::move(options)), metrics_(metrics) {
  try {
    store_ = ContextSessionStore::open(store_loader_, options_.default_plan.context);
  } catch (const ModuleLoadError &) {
    // Reported with the plan's first session, whose context fails to load the same way.
  }
}

std::optional<fs::path> SessionFactory::named_plan_file(const std::string &name) const {
  if (options_.plans_dir.empty() || !valid_plan_name(name)) return std::nullopt;
  for (const char *ext : {".yaml", ".yml"}) {
    fs::path file = options_.plans_dir / (name + ext);
    if (fs::is_regular_file(file)) return file;
  }
  return std::nullopt;
}

MountPlan SessionFactory::plan_for(const json::value *spec) const {
  if (!spec || spec->is_null()) return options_.default_plan;
  if (spec->is_object()) return client_plan(*spec);
  if (!spec->is_string())
    throw ApiError(400, "invalid_request", "'plan' must be a plan name or a plan object");
  const std::string name(spec->as_string());
  if (options_.plans_dir.empty())
    throw ApiError(400, "invalid_request",
                   "'plan' names a plan, but the server has no --plans-dir");
  auto file = named_plan_file(name);
  if (!file)
    throw ApiError(404, "plan_not_found",
                   fmt::format("no plan '{}' in {}", name, options_.plans_dir.string()));
  return load_checked([&] { return load_mount_plan(*file); });
}

MountPlan SessionFactory::client_plan(const json::value &spec) const {
  if (!options_.allow_inline_plans)
    throw ApiError(403, "inline_plans_disabled",
                   "this server runs its operator's plans only: name one ('plan': \"NAME\", "
                   "from its --plans-dir) or send none for the default (the operator can allow "
                   "plans of clients' own with --allow-inline-plans)");
  // JSON is YAML: the inline plan goes through the same parser and checks as a file, but its
  // ${VAR}s see no variable of the server's.
  const std::string text = json::serialize(spec);
  MountPlan plan = load_checked([&] { return parse_mount_plan(text, "<inline plan>", no_env()); });
  if (const auto refusals = client_plan_refusals(plan, operator_modules()); !refusals.empty())
    throw ApiError(403, "plan_not_allowed", fmt::format("{}", fmt::join(refusals, "; ")));
  // What the operator's default plan requires (an approval hook) is there, as they mount it,
  // and the tools both mount keep the operator's folder and sandbox.
  // ... and the operator's budget, prices and skill folders hold for it (kOperatorSessionKeys).
  narrow_to_parent(plan, options_.default_plan, /*inherit_confinement=*/true);
  return plan;
}

// Trust: reads only the operator's files (the default plan, --plans-dir), expanding their
// ${VAR}s from the server's environment as the operator's plans always are. A client's request
// triggers the reading but chooses nothing of it: not the folder, not a file, not a variable;
// its own plan is parsed with no_env() (test_serve: "clients choose among the operator's
// plans ...").
std::set<std::string> SessionFactory::operator_modules() const {
  std::set<std::string> ids;
  auto add = [&](const MountPlan &plan) {
    for (const ModuleSpec *spec : {&plan.orchestrator, &plan.context}) ids.insert(spec->module);
    for (const auto *list : {&plan.providers, &plan.tools, &plan.hooks})
      for (const auto &spec : *list) ids.insert(spec.module);
  };
  add(options_.default_plan);
  std::error_code ec;
  if (!options_.plans_dir.empty())
    for (const auto &entry : fs::directory_iterator(options_.plans_dir, ec)) {
      const auto ext = entry.path().extension();
      if (ext != ".yaml" && ext != ".yml") continue;
      try {
        add(load_mount_plan(entry.path()));
      } catch (const std::exception &) {  // a broken plan names no module anyone may use
      }
    }
  return ids;
}

MountPlan SessionFactory::plan_for_model(const std::string &name) const {
  auto file = named_plan_file(name);
  if (!file) return options_.default_plan;
  return load_checked([&] { return load_mount_plan(*file); });
}

std::string SessionFactory::plan_digest(const MountPlan &plan) {
  const std::string text = mount_plan_yaml(plan);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr) != 1) return {};
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

std::shared_ptr<ServedSession> SessionFactory::create(MountPlan plan, json::value metadata,
                                                      std::optional<std::string> plan_name,
                                                      const std::string &mode,
                                                      const std::optional<Fork> &fork) const {
  SessionOptions session_options;
  session_options.session_id = new_uuid();
  if (fork) {
    session_options.forked_from = fork->from;
    session_options.forked_at_turn = fork->turn;
  }
  const bool reopenable = plan_name && store_;
  json::object serve{{"plan", plan_name.value_or("")}, {"metadata", metadata}};
  if (reopenable) serve["plan_sha256"] = plan_digest(plan);
  // The mode the session starts in (start() reads it here), again when another server reopens it.
  if (!mode.empty()) serve["mode"] = mode;
  if (reopenable || !mode.empty()) session_options.labels = json::object{{"serve", std::move(serve)}};
  auto served = start(std::move(plan), std::move(metadata), std::move(session_options));
  if (reopenable) served->set_reopenable();
  metrics_.session_created();
  return served;
}

MountPlan SessionFactory::recorded_plan(const std::string &id, const json::object &serve) const {
  const json::value *name = serve.if_contains("plan");
  if (!name || !name->is_string() || name->as_string().empty()) return options_.default_plan;
  const std::string plan_name(name->as_string());
  auto file = named_plan_file(plan_name);
  if (!file)
    throw ApiError(409, "plan_unavailable",
                   fmt::format("session {} runs the plan '{}', which this server does not have "
                               "(its --plans-dir has no {}.yaml); open it on a server that does",
                               id, plan_name, plan_name));
  return load_checked([&] { return load_mount_plan(*file); });
}

std::shared_ptr<ServedSession> SessionFactory::reopen(const std::string &id) const {
  if (!store_ || !session_store::is_valid_session_id(id)) return nullptr;
  std::optional<json::object> stored;
  try {
    stored = store_->read(id);
  } catch (const SessionQueryError &e) {
    throw store_failure(e.what(), e.status);
  }
  if (!stored) return nullptr;
  // The plan and the client's metadata the session was created with (sessions from before
  // plans were recorded, and those `amplifier run` made, run on the default plan).
  json::object serve;
  if (const json::value *metadata = stored->if_contains("metadata"); metadata && metadata->is_object())
    if (const json::value *labels = metadata->as_object().if_contains("labels");
        labels && labels->is_object())
      if (const json::value *s = labels->as_object().if_contains("serve"); s && s->is_object())
        serve = s->as_object();
  MountPlan plan = recorded_plan(id, serve);
  if (const json::value *digest = serve.if_contains("plan_sha256");
      digest && digest->is_string() && digest->as_string() != plan_digest(plan))
    log(LogLevel::Warning, "serve",
        fmt::format("session {}: its plan changed since the session was created; it continues "
                    "on the plan as this server has it",
                    id));
  SessionOptions session_options;
  session_options.session_id = id;
  session_options.resumed = true;
  session_options.labels = json::object{{"serve", serve}};
  const json::value *metadata = serve.if_contains("metadata");
  // A session another server still holds: start answers 409 session_busy (its context says
  // AMP_BUSY).
  auto served = start(std::move(plan), metadata ? *metadata : json::value(json::object{}),
                      std::move(session_options));
  served->set_reopenable();
  return served;
}

void SessionFactory::on_store_event(StoreEvent callback) {
  std::lock_guard lock(store_event_mutex_);
  store_event_ = std::move(callback);
}

std::shared_ptr<const SessionMode> mode_or_400(const ModeCatalog &modes, std::string_view name) {
  try {
    return modes.find(name);
  } catch (const ModeError &e) {
    throw ApiError(400, "invalid_request", e.what());
  }
}

// The mode a reopened session was created in. One this server does not have (its file or plan
// changed, another server's) fails closed: the session opens (so it can be read, continued in
// another mode or deleted) with no tool allowed until a client sets a mode.
std::shared_ptr<const SessionMode> recorded_mode(const ModeCatalog &modes, std::string_view name) {
  try {
    return modes.find(name);
  } catch (const ModeError &e) {
    log(LogLevel::Warning, "serve", fmt::format("{}; the reopened session allows no tool until its mode is set", e.what()));
    auto closed = std::make_shared<SessionMode>();
    closed->name = std::string(name);
    closed->description = "a mode this server does not have: no tool may run";
    closed->allowed_tools_set = true;
    closed->source = "unavailable";
    return closed;
  }
}

std::shared_ptr<ServedSession> SessionFactory::start(MountPlan plan, json::value metadata,
                                                     SessionOptions session_options) const {
  const fs::path dir = options_.root / "sessions" / session_options.session_id;
  make_private_dir(dir);
  // The session, and every child it delegates to, works in its own folder; approvals wait for
  // the client's answer (ServedSession installs the handler).
  const std::string id = session_options.session_id;
  const bool resumed = session_options.resumed;
  // The modes its clients may choose: a session folder is never a trusted project, so only
  // the built-ins, the operator's and the plan's (a mode only narrows what may run).
  ModeCatalog modes = ModeCatalog::discover(plan, dir);
  if (const json::value *serve = session_options.labels.if_contains("serve"); serve && serve->is_object())
    if (const json::value *mode = serve->as_object().if_contains("mode"); mode && mode->is_string())
      session_options.mode = session_options.resumed ? recorded_mode(modes, mode->as_string())
                                                     : mode_or_400(modes, mode->as_string());
  LaunchOptions launch;
  launch.session = std::move(session_options);
  launch.folder = dir;
  launch.confine_to_folder = true;
  auto session = launch_session(std::move(plan), std::move(launch));
  Session &kernel_session = *session;
  metrics_.observe(kernel_session.hooks());
  for (std::string_view event : {events::kContextReleaseRequested, events::kContextSignal})
    kernel_session.hooks().register_handler(
        std::string(event),
        [this, id](std::string_view name, const json::object &data) {
          const json::value *signal = data.if_contains("signal");
          if (name == events::kContextSignal && !(signal && signal->is_object()))
            return HookResult{};
          std::lock_guard lock(store_event_mutex_);
          if (store_event_) store_event_(id, signal ? &signal->get_object() : nullptr);
          return HookResult{};
        },
        0, "serve-store-events");
  auto served = std::make_shared<ServedSession>(std::move(session), std::move(metadata), dir);
  served->set_modes(std::move(modes));
  served->set_session_mode(kernel_session.mode());
  try {
    kernel_session.initialize();
  } catch (const SessionError &e) {
    const std::string message = init_failure(e, kernel_session);
    // A context that refused because another host has the session open (AMP_BUSY:
    // context-postgres's lease) is a 409 the client may retry, not a broken plan.
    const auto &failures = kernel_session.load_failures();
    const bool busy = std::any_of(failures.begin(), failures.end(), [](const LoadFailure &f) {
      return f.mount_point == "context" && f.status == AMP_BUSY;
    });
    // A refused reopen leaves the folder alone: with a shared --root it is the holder's.
    end_session(std::move(served), /*remove_work_dir=*/!resumed);
    if (busy) throw store_failure(message, AMP_BUSY);
    throw ApiError(422, "session_init_failed", message);
  }
  return served;
}

}  // namespace amplifier::host::serve
