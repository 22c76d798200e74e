#include "plan_loading.hpp"

#include "default_plan.hpp"

#include "amplifier/mount_plan.hpp"
#include "amplifier/session.hpp"
#include "amplifier/session_store.hpp"

#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <cstdio>

namespace amplifier::host {
namespace fs = std::filesystem;
namespace json = boost::json;

MountPlan resolve_plan(const std::string &plan_file, bool with_display) {
  if (!plan_file.empty()) return load_mount_plan(plan_file);
  DefaultPlan plan = default_plan(with_display);
  std::fprintf(stderr, "amplifier: %s\n", plan.description.c_str());
  return parse_mount_plan(plan.yaml, plan.label);
}

void print_plan_warnings(const MountPlan &plan) {
  for (const auto &w : plan.warnings) std::fprintf(stderr, "amplifier: warning: %s\n", w.c_str());
}

std::string error_message(const TurnResult &result) {
  if (result.error.is_object()) {
    const auto &e = result.error.as_object();
    std::string kind = e.contains("kind") && e.at("kind").is_string()
                           ? std::string(e.at("kind").as_string()) : "error";
    std::string message = e.contains("message") && e.at("message").is_string()
                              ? std::string(e.at("message").as_string())
                              : boost::json::serialize(e);
    return fmt::format("{}: {}", kind, message);
  }
  return result.response.empty() ? "the turn failed" : result.response;
}

fs::path session_store_of(const MountPlan &plan) {
  const json::value *configured = plan.context.config.if_contains("store_dir");
  return session_store::resolve_store_dir(configured && configured->is_string()
                                      ? std::string_view(configured->get_string())
                                      : std::string_view());
}

}  // namespace amplifier::host
