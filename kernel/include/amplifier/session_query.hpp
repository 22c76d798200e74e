// Asking a persisting context module about the sessions it keeps, without a session: the
// kernel side of amp_context_vtable.sessions_query (ABI 1.4). The host uses it so that
// `amplifier sessions` and `amplifier serve` reach sessions through whichever store a plan's
// context names, instead of reading a store's files themselves.
#pragma once
#include "amplifier/module_loader.hpp"
#include "amplifier/mount_plan.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace amplifier {

// A query the module answered with an error status: its status and the module's reason.
class SessionQueryError : public std::runtime_error {
 public:
  SessionQueryError(amp_status status, const std::string &what)
      : std::runtime_error(what), status(status) {}
  amp_status status;
};

// The session store of one context module and its config. Holds the library loaded.
// THREADS: query() may be called from any thread, concurrently.
class ContextSessionStore {
 public:
  // The store of `context` (a plan's context spec), loaded through `loader`; nullopt when its
  // module keeps no sessions (no sessions_query: a module built before ABI 1.4, an in-memory
  // context). Throws ModuleLoadError when the module cannot be loaded.
  static std::optional<ContextSessionStore> open(ModuleLoader &loader, const ModuleSpec &context);

  const std::string &module_id() const { return module_id_; }

  // Runs `query` ({"op": ...} as amplifier_plugin.h lists) and returns the module's answer.
  // Throws SessionQueryError with the module's status and reason (AMP_NOT_FOUND for a session
  // it does not have), or when the answer is not JSON.
  boost::json::value query(const boost::json::object &query) const;

  // The common queries.
  // Newest first; `limit` at most when given.
  boost::json::array list(std::optional<std::int64_t> limit = std::nullopt) const;
  // {"metadata": object|null, "messages": [...]}; nullopt when the store has no such session.
  std::optional<boost::json::object> read(const std::string &session_id) const;

 private:
  using QueryFn = amp_status (*)(amp_str, amp_str, amp_writer *);
  ContextSessionStore(std::shared_ptr<const LoadedModule> module, QueryFn fn,
                      std::string config_json);

  std::shared_ptr<const LoadedModule> module_;  // keeps `fn_` mapped
  QueryFn fn_;
  std::string config_json_;
  std::string module_id_;
};

}  // namespace amplifier
