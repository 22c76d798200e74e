#include "amplifier/context/provider_adaptation.hpp"

#include "amplifier/context/message_json.hpp"

#include <map>
#include <string>

namespace amplifier::context {
namespace json = boost::json;
using transcript::Origin;

namespace {

bool same_provider(const Origin &a, const Origin &b) {
  if (a.module && b.module) return *a.module == *b.module;
  return a.provider == b.provider;
}

std::string describe(const Origin &origin) {
  return origin.module ? *origin.module : origin.provider;
}

bool has_signature(const json::object &block) {
  const json::value *signature = block.if_contains("signature");
  return signature && signature->is_string() && !signature->get_string().empty();
}

bool is_unsigned_by_design(const json::object &block) {
  const json::value *field = block.if_contains(ThinkingBlock::kReasoningFieldKey);
  return field && field->is_string() && !field->get_string().empty();
}

// Collects each kind of change once, counting repeats.
class DegradationTally {
 public:
  void note(const std::string &feature, std::string reason, std::string fallback) {
    auto [it, inserted] = entries_.try_emplace(feature);
    if (inserted) {
      it->second.degradation = Degradation{feature, std::move(reason), std::move(fallback), {}};
      order_.push_back(feature);
    }
    ++it->second.count;
  }
  std::vector<Degradation> take() {
    std::vector<Degradation> out;
    for (const auto &feature : order_) {
      Entry &entry = entries_.at(feature);
      entry.degradation.extra["count"] = entry.count;
      out.push_back(std::move(entry.degradation));
    }
    return out;
  }

 private:
  struct Entry {
    Degradation degradation;
    std::int64_t count = 0;
  };
  std::map<std::string, Entry> entries_;
  std::vector<std::string> order_;
};

class Adapter {
 public:
  Adapter(const Origin &target, const std::optional<Origin> &fallback)
      : target_(target), fallback_(fallback) {}

  json::value adapt(const Entry &entry) {
    const json::array *blocks = blocks_of(entry.message);
    if (role_of(entry.message) != "assistant" || blocks == nullptr) return entry.message;
    const Origin *origin = entry.origin ? &*entry.origin : fallback_ ? &*fallback_ : nullptr;
    const bool foreign = origin && !same_provider(*origin, target_);
    json::array kept;
    for (const json::value &block : *blocks)
      if (keeps(block, foreign, origin)) kept.push_back(block);
    if (kept.size() == blocks->size()) return entry.message;
    if (kept.empty()) kept = replacement_for_empty();
    json::value adapted = entry.message;
    adapted.get_object()["content"] = std::move(kept);
    return adapted;
  }

  std::vector<Degradation> degradations() { return tally_.take(); }

 private:
  bool keeps(const json::value &block, bool foreign, const Origin *origin) {
    const std::string_view type = block_type_of(block);
    // Reasoning from servers that sign nothing (Chat Completions' reasoning_content) goes back
    // to the provider that wrote it, which reads it there (see ThinkingBlock).
    if (type == "thinking" && !foreign && origin && is_unsigned_by_design(block.get_object()))
      return true;
    if (type == "thinking" && !has_signature(block.get_object())) {
      tally_.note("thinking_without_signature",
                  "a thinking block has no signature, so no provider can verify it",
                  "the thinking block was left out of the request");
      return false;
    }
    if (!foreign || (type != "thinking" && type != "redacted_thinking" && type != "reasoning"))
      return true;
    tally_.note("foreign_" + std::string(type),
                "a " + std::string(type) + " block written by " + describe(*origin) +
                    " can only be replayed to that provider, not to " + describe(target_),
                "the block was left out of the request");
    return false;
  }

  json::array replacement_for_empty() {
    tally_.note("empty_assistant_message",
                "an assistant message held nothing but blocks the provider cannot accept",
                "a short text block stands in for it");
    return json::array{json::object{{"type", "text"}, {"text", kOmittedReasoningText}}};
  }

  const Origin &target_;
  const std::optional<Origin> &fallback_;
  DegradationTally tally_;
};

}  // namespace

Adaptation adapt_for_provider(const std::vector<Entry> &entries, const Origin &target,
                              const std::optional<Origin> &fallback_origin) {
  Adapter adapter(target, fallback_origin);
  Adaptation result;
  result.messages.reserve(entries.size());
  for (const Entry &entry : entries) result.messages.push_back(adapter.adapt(entry));
  result.degradations = adapter.degradations();
  return result;
}

}  // namespace amplifier::context
