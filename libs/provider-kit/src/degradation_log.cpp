#include "amplifier/provider/degradation_log.hpp"

namespace amplifier::provider {

void DegradationLog::note(std::string_view feature, std::string reason,
                          std::optional<std::string> fallback) {
  for (auto &entry : entries_) {
    if (entry.degradation.feature == feature) {
      ++entry.count;
      return;
    }
  }
  amplifier::Degradation degradation;
  degradation.feature = std::string(feature);
  degradation.reason = std::move(reason);
  degradation.fallback = std::move(fallback);
  entries_.push_back(Entry{std::move(degradation), 1});
}

std::vector<amplifier::Degradation> DegradationLog::take() {
  std::vector<amplifier::Degradation> out;
  out.reserve(entries_.size());
  for (auto &entry : entries_) {
    if (entry.count > 1) entry.degradation.reason += " (" + std::to_string(entry.count) + " times)";
    out.push_back(std::move(entry.degradation));
  }
  entries_.clear();
  return out;
}

}  // namespace amplifier::provider
