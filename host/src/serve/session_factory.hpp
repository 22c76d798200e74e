// Making the sessions the API asks for: which plan (a name in --plans-dir, an inline plan, the
// server's default), confined to a working directory of their own.
#pragma once
#include "served_session.hpp"
#include "metrics.hpp"

#include "amplifier/mount_plan.hpp"

#include <boost/json/value.hpp>

#include <filesystem>
#include <memory>
#include <optional>

namespace amplifier::host::serve {

struct SessionFactoryOptions {
  MountPlan default_plan;           // --plan, else the built-in plan
  std::filesystem::path plans_dir;  // --plans-dir; empty: plans are not named
  std::filesystem::path root;       // per-session working directories go under root/sessions
};

class SessionFactory {
 public:
  SessionFactory(SessionFactoryOptions options, Metrics &metrics)
      : options_(std::move(options)), metrics_(metrics) {}

  // The plan `spec` selects: null/absent the default, a string a plan name, an object an
  // inline plan. ApiError 400/404 naming the problem.
  MountPlan plan_for(const boost::json::value *spec) const;
  // The plan named `name` if --plans-dir has one, else the default (the chat completions
  // API's `model`).
  MountPlan plan_for_model(const std::string &name) const;

  // A new, initialised session. ApiError 422 (the plan's modules did not load) or 500.
  std::shared_ptr<ServedSession> create(MountPlan plan, boost::json::value metadata) const;

 private:
  std::optional<std::filesystem::path> named_plan_file(const std::string &name) const;

  SessionFactoryOptions options_;
  Metrics &metrics_;
};

// Confines the plan's tool-filesystem and tool-bash to `dir`: their working directory, and
// "." as every allowed path, whatever the plan said.
void confine_tools(MountPlan &plan, const std::filesystem::path &dir);

}  // namespace amplifier::host::serve
