// The conversation a context manager keeps, and the shaping of each request from it.
//
// Both context managers are this engine: context-simple keeps the history in memory only,
// context-persistent hands the engine a HistoryStore that writes every change to disk first.
//
// Messages are validated with the model library and stored as the JSON they arrived as, so
// nothing the model does not know (extra fields, block types) is lost. Legacy-shaped messages
// (`tool_calls` beside string content, tool messages with string content) are converted to
// content blocks on the way in: everything after that boundary sees blocks only.
//
// get_messages_for_request shapes a copy, never the history:
//   1. blocks the target provider cannot accept are left out (provider_adaptation.hpp), each
//      kind recorded as a Degradation and announced once with `context:degraded`;
//   2. when the estimate passes the trigger, the copy is compacted (compaction.hpp), between
//      `context:pre_compact` and `context:post_compact`.
// The budget comes from the hints, else the provider's advertised defaults (providers_list),
// else config; real usage reported in `provider:response` calibrates the estimate. A request
// hinted `context_overflow` (the provider refused the previous one as too long) lowers the
// budget for that provider to compact_target of the refused request's estimate, for this
// request and every later one, and is compacted to fit it.
//
// THREADS: every function may run concurrently (an orchestrator adds tool results from
// several threads); one mutex guards the history and the store.
#pragma once
#include "amplifier/context/budget_settings.hpp"
#include "amplifier/context/provider_adaptation.hpp"
#include "amplifier/context/request_hints.hpp"
#include "amplifier/context/token_estimate.hpp"
#include "amplifier_sdk.hpp"

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::context {

// Where a context manager keeps its history beyond memory. The engine calls it with its lock
// held and BEFORE changing memory, so when a call throws, memory stays as it was and the error
// reaches the caller.
class HistoryStore {
 public:
  virtual ~HistoryStore() = default;
  virtual void append(const Entry &entry) = 0;
  virtual void replace(const std::vector<Entry> &entries) = 0;
  // A request is being shaped for `target` (the provider about to be called).
  virtual void provider_selected(const transcript::Origin &target) = 0;
  // Blocks had to be left out of requests for `target`.
  virtual void degraded(const transcript::Origin &target,
                        const std::vector<Degradation> &degradations) = 0;
};

class ContextEngine {
 public:
  // `store` may be null (memory only); otherwise it must outlive the engine.
  ContextEngine(amp::sdk::Host host, BudgetSettings settings, HistoryStore *store = nullptr);
  ContextEngine(const ContextEngine &) = delete;
  ContextEngine &operator=(const ContextEngine &) = delete;

  // Replaces the history without telling the store (it came from there).
  void load(std::vector<Entry> history);
  // The provider assumed for assistant messages whose origin is unknown.
  void set_fallback_origin(std::optional<transcript::Origin> origin);

  // The ContextModule functions. Invalid input throws std::invalid_argument naming the problem.
  void add_message(std::string_view message_json);
  std::string messages_json() const;
  std::string messages_for_request(std::string_view request_json);
  void set_messages(std::string_view messages_json);
  void clear();

  std::size_t size() const;

 private:
  struct ProviderFacts {
    transcript::Origin identity;  // model left empty: it comes with each request's hints
    ProviderLimits limits;
  };

  // What an entry costs once rather than on every request (filled lazily, under the mutex,
  // dropped with the history it describes): its JSON text, its token estimate, and whether
  // it goes to `checked_for` (a target key) unchanged.
  struct EntryCache {
    std::string json;
    std::int64_t tokens = 0;
    std::string checked_for;
    bool unchanged = false;
  };
  // A request whose every message goes unchanged needs no DOM at all: the cached texts joined.
  struct FastShape {
    bool possible = false;
    std::int64_t message_tokens = 0;
  };

  Entry entry_for(boost::json::value message) const;
  void fill_caches() const;  // with the mutex held
  FastShape fast_shape(const std::optional<ProviderFacts> &target);  // with the mutex held
  std::string joined_messages() const;  // with the mutex held
  void select_target(const std::optional<ProviderFacts> &target);  // with the mutex held
  std::optional<ProviderFacts> target_of(const RequestHints &hints);
  ProviderFacts look_up_provider(const std::string &name) const;
  boost::json::array shape_for(const std::optional<ProviderFacts> &target);
  // `reason`: "threshold" (the estimate passed the trigger) or "context_length" (the provider
  // refused the previous request as too long), reported in the compaction events.
  boost::json::array compact(boost::json::array messages, const TokenBudget &budget,
                             std::int64_t overhead, std::int64_t estimate, std::string_view reason);
  // With the mutex held.
  void learn_overflow(const std::string &key, std::string_view provider, std::int64_t history_tokens);
  void report_degradations(const transcript::Origin &target,
                           const std::vector<Degradation> &degradations);
  void emit(std::string_view event, const boost::json::object &data) const;
  void listen_for_usage();

  const amp::sdk::Host host_;
  const BudgetSettings settings_;
  HistoryStore *const store_;
  UsageCalibration calibration_;

  mutable std::mutex mutex_;  // guards the fields below and every call into store_
  std::vector<Entry> entries_;
  mutable std::vector<EntryCache> caches_;  // parallel to entries_, possibly shorter
  std::optional<transcript::Origin> current_origin_;   // stamps assistant messages
  std::optional<transcript::Origin> fallback_origin_;
  std::map<std::string, ProviderFacts> providers_;            // by mount name
  std::map<std::string, std::string> announced_degradations_;  // target -> what was announced
  // By target key: the estimate (overhead included) of the last request shaped for it, and the
  // budget learnt from a context_length refusal, which caps every later request to it.
  std::map<std::string, std::int64_t> last_request_tokens_;
  std::map<std::string, std::int64_t> overflow_budgets_;
};

}  // namespace amplifier::context
