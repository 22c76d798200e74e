// Making the sessions the API asks for: which plan (a name in --plans-dir, an inline plan, the
// server's default), confined to a working directory of their own.
#pragma once
#include "api_types.hpp"
#include "served_session.hpp"
#include "metrics.hpp"

#include "amplifier/mount_plan.hpp"
#include "amplifier/session_query.hpp"

#include <boost/json/value.hpp>

#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

namespace amplifier::host::serve {

struct SessionFactoryOptions {
  MountPlan default_plan;           // --plan, else the built-in plan
  std::filesystem::path plans_dir;  // --plans-dir; empty: plans are not named
  std::filesystem::path root;       // per-session working directories go under root/sessions
  bool allow_inline_plans = false;  // --allow-inline-plans (client_plan.hpp: what they may not do)
};

class SessionFactory {
 public:
  // Opens the default plan's context store when its module keeps sessions (sessions_query).
  SessionFactory(SessionFactoryOptions options, Metrics &metrics);

  // The plan `spec` selects: null/absent the default, a string a plan name, an object an
  // inline plan (client_plan). ApiError 400/403/404 naming the problem.
  MountPlan plan_for(const boost::json::value *spec) const;
  // The plan named `name` if --plans-dir has one, else the default (the chat completions
  // API's `model`).
  MountPlan plan_for_model(const std::string &name) const;

  // A new, initialised session. ApiError 422 (the plan's modules did not load) or 500.
  // `plan_name`: "" for the default plan, a --plans-dir name, nullopt for a plan no other
  // server can have (a client's own, a chat completion's one-off). A session on a named or the
  // default plan whose context store is shared is stored with that name, the plan's SHA-256
  // and `metadata` (SessionOptions::labels "serve"), can be unloaded, and is reopened on the
  // same plan by any server.
  // `mode`: the mode it starts in ("" none; a name it lacks is a 400 ApiError).
  // `fork`: the session and turn a history fork comes from (session:fork announces them).
  struct Fork {
    std::string from;
    std::int64_t turn = 0;
  };
  std::shared_ptr<ServedSession> create(MountPlan plan, boost::json::value metadata,
                                        std::optional<std::string> plan_name,
                                        const std::string &mode = "",
                                        const std::optional<Fork> &fork = std::nullopt) const;

  // The default plan's context store; null when sessions live only in this process.
  const ContextSessionStore *store() const { return store_ ? &*store_ : nullptr; }

  // Session `id` as the store keeps it, opened on the plan it was created with (the session another
  // server, or this one before it unloaded it, ran). nullptr when the store has no such
  // session (or there is no store). ApiError 409 (another server holds the session),
  // 503 (the store cannot be reached), 422.
  std::shared_ptr<ServedSession> reopen(const std::string &id) const;

  // What a session's shared store passes on from other servers, on the context's thread:
  // `signal` null when one asks for the session (context:release_requested), else what one
  // sent it (context:signal: a cancel, an approval's answer). Null callback: nobody is told.
  // Replacing it waits for a call in progress, so after on_store_event(nullptr) none runs.
  using StoreEvent = std::function<void(const std::string &id, const boost::json::object *signal)>;
  void on_store_event(StoreEvent callback);

 private:
  std::optional<std::filesystem::path> named_plan_file(const std::string &name) const;
  // A client's own plan: ApiError 403 unless --allow-inline-plans, and when it may not run.
  MountPlan client_plan(const boost::json::value &spec) const;
  // The module ids the operator's plans mount (the default plan, the plans in --plans-dir).
  std::set<std::string> operator_modules() const;
  std::shared_ptr<ServedSession> start(MountPlan plan, boost::json::value metadata,
                                       SessionOptions session_options) const;
  // The plan a stored session records (labels "serve"): the default one when it names none;
  // ApiError 409 plan_unavailable when it names one this server does not have.
  MountPlan recorded_plan(const std::string &id, const boost::json::object &serve) const;
  // SHA-256 (hex) of the plan as `plan show` prints it: recorded, compared on reopen.
  static std::string plan_digest(const MountPlan &plan);

  SessionFactoryOptions options_;
  Metrics &metrics_;
  ModuleLoader store_loader_;  // before store_: keeps its library loaded
  std::optional<ContextSessionStore> store_;
  // on_store_event's callback; the mutex is held while it runs.
  mutable std::mutex store_event_mutex_;
  StoreEvent store_event_;
};

// What the API answers when a shared store refuses or fails: 409 session_busy when another
// server holds the session (`status` AMP_BUSY, as context-postgres says it), else 503. `what`,
// the store's own words, goes to the log only: it may name the database.
ApiError store_failure(std::string_view what, amp_status status);

}  // namespace amplifier::host::serve
