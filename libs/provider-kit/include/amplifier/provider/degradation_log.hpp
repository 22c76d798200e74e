// Collects the degradations of one request: each feature once, with how often it happened, so
// a long conversation with fifty foreign reasoning blocks yields one readable entry, not fifty.
#pragma once
#include "amplifier/model.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::provider {

class DegradationLog {
 public:
  // Records that `feature` could not be honoured. A feature noted again only counts up; the
  // first reason and fallback stay.
  void note(std::string_view feature, std::string reason, std::optional<std::string> fallback = {});

  bool empty() const noexcept { return entries_.empty(); }
  // The degradations in the order first noted; a repeated feature says how often it happened.
  std::vector<amplifier::Degradation> take();

 private:
  struct Entry {
    amplifier::Degradation degradation;
    std::size_t count = 1;
  };
  std::vector<Entry> entries_;
};

}  // namespace amplifier::provider
