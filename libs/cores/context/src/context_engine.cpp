#include "amplifier/context/context_engine.hpp"

#include "amplifier/context/compaction.hpp"
#include "amplifier/context/events.hpp"
#include "amplifier/context/message_json.hpp"
#include "amplifier/legacy.hpp"
#include "amplifier/module_support/json_util.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>

namespace amplifier::context {
namespace json = boost::json;
namespace ms = amplifier::module_support;
using transcript::Origin;

namespace {

constexpr std::string_view kUsageHookName = "context-usage-calibration";
constexpr std::string_view kObservabilityChannel = "observability.events";

// The one boundary every message crosses on its way in: validated, legacy shape converted.
json::value normalize(json::value message, std::string_view where) {
  try {
    return read_stored_message(std::move(message));
  } catch (const ModelError &e) {
    throw std::invalid_argument(std::string(where) + ": " + e.what());
  }
}

std::optional<std::int64_t> positive_int(const json::object &object, std::string_view key) {
  const json::value *value = object.if_contains(key);
  if (!value || !ms::is_integral(*value) || ms::to_int64(*value) <= 0) return std::nullopt;
  return ms::to_int64(*value);
}

std::optional<std::string> string_at(const json::object &object, std::string_view key) {
  const json::value *value = object.if_contains(key);
  return value && value->is_string() ? std::optional<std::string>(value->get_string()) : std::nullopt;
}

// ProviderInfo.defaults: Anthropic says max_tokens, others max_output_tokens.
ProviderLimits limits_from_info(const json::value &info) {
  const json::object *object = info.if_object();
  const json::value *defaults = object ? object->if_contains("defaults") : nullptr;
  if (!defaults || !defaults->is_object()) return {};
  const json::object &d = defaults->get_object();
  auto output = positive_int(d, "max_output_tokens");
  return ProviderLimits{positive_int(d, "context_window"), output ? output : positive_int(d, "max_tokens")};
}

std::optional<std::string> default_model(const json::value &info) {
  const json::object *object = info.if_object();
  const json::value *defaults = object ? object->if_contains("defaults") : nullptr;
  return defaults && defaults->is_object() ? string_at(defaults->get_object(), "model") : std::nullopt;
}

amp_status on_provider_response(void *user_data, amp_str, amp_str data_json, amp_writer *) noexcept {
  try {
    const json::value data = json::parse(amp::sdk::from_amp(data_json));
    const json::value *usage = data.is_object() ? data.get_object().if_contains("usage") : nullptr;
    if (!usage || !usage->is_object()) return AMP_OK;
    if (auto prompt = prompt_tokens_of_usage(usage->get_object()))
      static_cast<UsageCalibration *>(user_data)->usage_reported(*prompt);
    return AMP_OK;
  } catch (...) {  // a payload we cannot read only costs the calibration
    return AMP_ERROR;
  }
}

amp_status announce_compaction_events(void *, amp_writer *out) noexcept {
  amp::sdk::write_to(out, R"(["context:pre_compact","context:post_compact","context:degraded"])");
  return AMP_OK;
}

}  // namespace

ContextEngine::ContextEngine(amp::sdk::Host host, BudgetSettings settings, HistoryStore *store)
    : host_(host), settings_(settings), store_(store) {
  listen_for_usage();
  host_.contribute(kObservabilityChannel, "context-engine", &announce_compaction_events, nullptr);
}

// The host unregisters an instance's handlers before destroying it, so the calibration the
// handler points at outlives every call of it.
void ContextEngine::listen_for_usage() {
  if (host_.hook_register(event::kProviderResponse, 0, kUsageHookName, &on_provider_response,
                          &calibration_) != AMP_OK)
    host_.warn("cannot listen to provider:response; token estimates will not use real usage");
}

void ContextEngine::load(std::vector<Entry> history) {
  std::lock_guard lock(mutex_);
  entries_ = std::move(history);
  caches_.clear();
}

void ContextEngine::set_fallback_origin(std::optional<Origin> origin) {
  std::lock_guard lock(mutex_);
  fallback_origin_ = std::move(origin);
  for (EntryCache &cache : caches_) cache.checked_for.clear();  // origins may read differently
}

namespace {

// Who a request goes to, as a cache key: requests to the same provider module keep the same
// blocks.
std::string target_key(const Origin &target) {
  return target.module.value_or("") + "/" + target.provider;
}

}  // namespace

void ContextEngine::fill_caches() const {
  caches_.reserve(entries_.size());
  for (std::size_t i = caches_.size(); i < entries_.size(); ++i)
    caches_.push_back(EntryCache{json::serialize(entries_[i].message),
                                 estimate_message_tokens(entries_[i].message), {}, false});
}

ContextEngine::FastShape ContextEngine::fast_shape(const std::optional<ProviderFacts> &target) {
  fill_caches();
  FastShape shape{true, 0};
  const std::string key = target ? target_key(target->identity) : std::string();
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    EntryCache &cache = caches_[i];
    if (target && cache.checked_for != key) {
      // One entry through the same adaptation the slow path applies: no degradation means
      // it goes as it is stored.
      cache.unchanged =
          adapt_for_provider({entries_[i]}, target->identity, fallback_origin_).degradations.empty();
      cache.checked_for = key;
    }
    if (target && !cache.unchanged) shape.possible = false;
    shape.message_tokens += cache.tokens;
  }
  return shape;
}

std::string ContextEngine::joined_messages() const {
  std::size_t size = 2;
  for (const EntryCache &cache : caches_) size += cache.json.size() + 1;
  std::string out;
  out.reserve(size);
  out.push_back('[');
  for (std::size_t i = 0; i < caches_.size(); ++i) {
    if (i) out.push_back(',');
    out += caches_[i].json;
  }
  out.push_back(']');
  return out;
}

Entry ContextEngine::entry_for(json::value message) const {
  Entry entry{std::move(message), std::nullopt};
  if (role_of(entry.message) == "assistant") entry.origin = current_origin_;
  return entry;
}

void ContextEngine::add_message(std::string_view message_json) {
  json::value message = normalize(ms::parse_json(message_json, "message"), "message");
  std::lock_guard lock(mutex_);
  Entry entry = entry_for(std::move(message));
  if (store_) store_->append(entry);
  entries_.push_back(std::move(entry));
}

std::string ContextEngine::messages_json() const {
  std::lock_guard lock(mutex_);
  fill_caches();
  return joined_messages();  // what serialising the array gives, from texts made once
}

void ContextEngine::set_messages(std::string_view messages_json) {
  json::value parsed = ms::parse_json(messages_json, "messages");
  if (!parsed.is_array())
    throw std::invalid_argument("messages must be a JSON array, got " +
                                std::string(ms::describe_kind(parsed)));
  std::vector<json::value> messages;
  for (std::size_t i = 0; i < parsed.get_array().size(); ++i)
    messages.push_back(normalize(parsed.get_array()[i], "messages[" + std::to_string(i) + "]"));

  std::lock_guard lock(mutex_);  // replaced all at once, or not at all
  caches_.clear();
  std::vector<Entry> replacement;
  replacement.reserve(messages.size());
  for (std::size_t i = 0; i < messages.size(); ++i) {
    // A message that stays where it was keeps its origin; a new one's origin is unknown.
    const bool unchanged = i < entries_.size() && entries_[i].message == messages[i];
    replacement.push_back(Entry{std::move(messages[i]),
                                unchanged ? entries_[i].origin : std::nullopt});
  }
  if (store_) store_->replace(replacement);
  entries_ = std::move(replacement);
}

void ContextEngine::clear() {
  std::lock_guard lock(mutex_);
  if (store_) store_->replace({});
  entries_.clear();
  caches_.clear();
}

std::size_t ContextEngine::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

std::string ContextEngine::messages_for_request(std::string_view request_json) {
  const RequestHints hints = parse_request_hints(request_json);
  const std::optional<ProviderFacts> target = target_of(hints);
  const std::string key = target ? target_key(target->identity) : std::string();
  TokenBudget budget = compute_budget(settings_, hints.context_window, hints.max_output_tokens,
                                      target ? target->limits : ProviderLimits{});
  const std::int64_t overhead = calibration_.overhead();
  {
    std::lock_guard lock(mutex_);
    select_target(target);
    const FastShape shape = fast_shape(target);
    if (hints.context_overflow)
      learn_overflow(key, hints.provider.value_or("the provider"), shape.message_tokens + overhead);
    if (auto learnt = overflow_budgets_.find(key); learnt != overflow_budgets_.end())
      budget = cap_budget(settings_, budget, learnt->second);
    // The usual request: every message goes as stored and nothing needs compacting. It costs
    // the copy of texts serialised once, when each message arrived.
    if (!hints.context_overflow && shape.possible &&
        shape.message_tokens + overhead <= budget.trigger) {
      calibration_.request_sent(shape.message_tokens);
      last_request_tokens_[key] = shape.message_tokens + overhead;
      return joined_messages();
    }
  }
  json::array messages = shape_for(target);
  const std::int64_t estimate = estimate_request_tokens(messages, overhead);
  if (estimate > budget.trigger)
    messages = compact(std::move(messages), budget, overhead, estimate,
                       hints.context_overflow ? "context_length" : "threshold");
  const std::int64_t sent = estimate_request_tokens(messages, 0);
  calibration_.request_sent(sent);
  {
    std::lock_guard lock(mutex_);
    last_request_tokens_[key] = sent + overhead;
  }
  return json::serialize(messages);
}

// The provider behind `key` refused the last request as too long. Its real window is below
// that request's estimate (or, when this engine shaped none for it, the history's), whatever
// the window it advertises: from now on its requests are budgeted well below it.
void ContextEngine::learn_overflow(const std::string &key, std::string_view provider,
                                   std::int64_t history_tokens) {
  const auto last = last_request_tokens_.find(key);
  const std::int64_t refused = last != last_request_tokens_.end() ? last->second : history_tokens;
  const std::int64_t budget = budget_after_overflow(settings_, refused);
  auto [learnt, added] = overflow_budgets_.emplace(key, budget);
  if (!added) learnt->second = std::min(learnt->second, budget);
  host_.info(std::string(provider) + " refused a request of about " + std::to_string(refused) +
             " tokens as too long; its requests are now budgeted to " +
             std::to_string(learnt->second) + " tokens");
}

std::optional<ContextEngine::ProviderFacts> ContextEngine::target_of(const RequestHints &hints) {
  if (!hints.provider) return std::nullopt;
  std::optional<ProviderFacts> cached;
  {
    std::lock_guard lock(mutex_);
    if (auto it = providers_.find(*hints.provider); it != providers_.end()) cached = it->second;
  }
  // Looked up outside the lock: it calls the host. Providers never change once mounted.
  ProviderFacts facts = cached ? *cached : look_up_provider(*hints.provider);
  if (!cached) {
    std::lock_guard lock(mutex_);
    providers_.emplace(*hints.provider, facts);
  }
  if (hints.model) facts.identity.model = hints.model;
  return facts;
}

ContextEngine::ProviderFacts ContextEngine::look_up_provider(const std::string &name) const {
  ProviderFacts facts{Origin{name, std::nullopt, std::nullopt}, {}};
  json::value listing;
  try {
    listing = json::parse(host_.providers());
  } catch (const std::exception &e) {
    host_.warn(std::string("cannot list providers: ") + e.what());
    return facts;
  }
  if (!listing.is_array()) return facts;
  for (const json::value &item : listing.get_array()) {
    const json::object *provider = item.if_object();
    if (!provider || string_at(*provider, "name") != name) continue;
    facts.identity.module = string_at(*provider, "module");
    if (const json::value *info = provider->if_contains("info")) {
      facts.identity.model = default_model(*info);
      facts.limits = limits_from_info(*info);
    }
  }
  return facts;
}

// Who is being called: assistant messages from now on are theirs, and a store records it.
void ContextEngine::select_target(const std::optional<ProviderFacts> &target) {
  if (!target) return;
  current_origin_ = target->identity;
  if (store_) store_->provider_selected(target->identity);
}

// The history as the target can take it (the slow path: DOM copies, degradations reported).
json::array ContextEngine::shape_for(const std::optional<ProviderFacts> &target) {
  std::vector<Degradation> degradations;
  json::array messages;
  {
    std::lock_guard lock(mutex_);
    if (!target) {
      messages.reserve(entries_.size());
      for (const Entry &entry : entries_) messages.push_back(entry.message);
      return messages;
    }
    Adaptation adaptation = adapt_for_provider(entries_, target->identity, fallback_origin_);
    messages = std::move(adaptation.messages);
    degradations = std::move(adaptation.degradations);
  }
  if (!degradations.empty()) report_degradations(target->identity, degradations);
  return messages;
}

// Announced once per target and kind of change: the same foreign blocks are left out of every
// later request, and saying so each time would bury everything else.
void ContextEngine::report_degradations(const Origin &target,
                                        const std::vector<Degradation> &degradations) {
  json::array list;
  for (const Degradation &degradation : degradations) list.push_back(to_json(degradation));
  std::string summary = json::serialize(list);
  const std::string key = target.module.value_or("") + "/" + target.provider;
  {
    std::lock_guard lock(mutex_);
    std::string &announced = announced_degradations_[key];
    if (announced == summary) return;
    announced = summary;
    if (store_) store_->degraded(target, degradations);
  }
  for (const Degradation &degradation : degradations)
    host_.warn("request for " + target.provider + ": " + degradation.reason + "; " +
               degradation.fallback.value_or(""));
  json::object data = transcript::origin_json(target);
  data["degradations"] = std::move(list);
  emit(event::kDegraded, data);
}

json::array ContextEngine::compact(json::array messages, const TokenBudget &budget,
                                   std::int64_t overhead, std::int64_t estimate,
                                   std::string_view reason) {
  emit(event::kPreCompact, json::object{{"reason", reason},
                                        {"messages", messages.size()},
                                        {"estimated_tokens", estimate},
                                        {"budget_tokens", budget.budget},
                                        {"trigger_tokens", budget.trigger},
                                        {"target_tokens", budget.target}});
  Compaction compaction = compact_messages(std::move(messages), CompactionLimits{budget.target, overhead});
  const CompactionReport &report = compaction.report;
  json::array stages;
  for (const auto &stage : report.stages) stages.emplace_back(stage);
  emit(event::kPostCompact, json::object{{"reason", reason},
                                         {"messages_before", report.messages_before},
                                         {"messages_after", report.messages_after},
                                         {"tokens_before", report.tokens_before},
                                         {"tokens_after", report.tokens_after},
                                         {"truncated_tool_results", report.truncated_tool_results},
                                         {"dropped_messages", report.dropped_messages},
                                         {"stages", std::move(stages)},
                                         {"within_target", report.within_target},
                                         {"budget_tokens", budget.budget}});
  if (!report.within_target)
    host_.warn("the last turn alone (about " + std::to_string(report.tokens_after) +
               " tokens) is over the compaction target of " + std::to_string(budget.target) +
               " tokens; the request is sent as small as compaction could make it");
  return std::move(compaction.messages);
}

// Events are observations: a hook that rejects one must not cost the request.
void ContextEngine::emit(std::string_view event, const json::object &data) const {
  try {
    (void)host_.emit(event, json::serialize(data));
  } catch (const std::exception &e) {
    host_.warn("cannot emit " + std::string(event) + ": " + e.what());
  }
}

}  // namespace amplifier::context
