// What every context module that keeps its sessions (context-persistent on files,
// context-postgres in PostgreSQL) does besides storing: the ContextModule functions on the
// shared engine, the resume (repair, load, the repairs appended like any message), the
// `context:transcript_loaded` event once every hook is mounted, and the `session.transcript`
// capability that tells the host the session persists (and was resumed).
//
// A subclass owns its HistoryStore and hands the base a pointer to it; the engine only keeps
// the pointer until a message arrives, so the store may be constructed after the base.
#pragma once
#include "amplifier/context/budget_settings.hpp"
#include "amplifier/context/context_engine.hpp"
#include "amplifier/context/resume_repair.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::context {

class PersistingContext : public amp::sdk::ContextModule {
 public:
  // Emits the loaded event (when there was a resume). An observation: a failure to emit it
  // must not fail the session.
  void session_ready() override;

  void add_message(std::string_view message_json) override { engine_.add_message(message_json); }
  std::string get_messages() override { return engine_.messages_json(); }
  std::string get_messages_for_request(std::string_view request_json) override {
    return engine_.messages_for_request(request_json);
  }
  void set_messages(std::string_view messages_json) override {
    engine_.set_messages(messages_json);
  }
  void clear() override { engine_.clear(); }

 protected:
  // `module_id` names the module on the observability channel.
  PersistingContext(amp::sdk::Host host, const BudgetSettings &budget, HistoryStore *store,
                    std::string_view module_id);

  // Repairs `loaded` and makes it the history (the repairs that close it are appended through
  // the store). Returns the loaded event's common fields (messages_read, messages, repairs);
  // the subclass adds its own and hands it to announce_loaded().
  boost::json::object resume(std::vector<Entry> loaded, std::optional<transcript::Origin> writer);
  void announce_loaded(boost::json::object event) { loaded_event_ = std::move(event); }

  // Registers `session.transcript` = `where` plus {session_id, resumed, messages}.
  void register_transcript(boost::json::object where, const std::string &session_id, bool resumed);

  std::size_t message_count() const { return engine_.size(); }

 private:
  ContextEngine engine_;
  std::optional<boost::json::object> loaded_event_;  // emitted once every hook is mounted
};

}  // namespace amplifier::context
