// Helpers for mount plan tests: a fake environment and problem lookup.
#pragma once
#include "amplifier/mount_plan.hpp"

#include <doctest/doctest.h>

#include <map>
#include <string>

// An EnvLookup over a fixed map, so tests never depend on the real environment.
inline amplifier::EnvLookup fake_env(std::map<std::string, std::string> vars = {}) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto found = vars.find(std::string(name));
    if (found == vars.end()) return std::nullopt;
    return found->second;
  };
}

// Parses text that must be invalid; returns its problems.
inline std::vector<amplifier::PlanProblem> problems_of(std::string_view yaml,
                                                       amplifier::EnvLookup env = fake_env()) {
  try {
    amplifier::parse_mount_plan(yaml, "plan.yaml", env);
  } catch (const amplifier::MountPlanError &e) {
    return e.problems();
  }
  FAIL("expected a MountPlanError");
  return {};
}

// The single problem whose key is `key` (fails the test when there is not exactly one).
inline amplifier::PlanProblem problem_at(const std::vector<amplifier::PlanProblem> &problems,
                                         std::string_view key) {
  std::vector<amplifier::PlanProblem> matching;
  for (const auto &p : problems)
    if (p.key == key) matching.push_back(p);
  std::string all;
  for (const auto &p : problems) all += p.to_string() + "\n";
  INFO("looking for key '" << std::string(key) << "' among:\n" << all);
  REQUIRE(matching.size() == 1);
  return matching.front();
}

inline bool contains(std::string_view text, std::string_view fragment) {
  return text.find(fragment) != std::string_view::npos;
}
