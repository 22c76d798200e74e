#include "session_launch.hpp"

#include "approval_prompt.hpp"
#include "child_policy.hpp"
#include "settings.hpp"
#include "skills.hpp"
#include "plan_loading.hpp"

#include "amplifier/session_store.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "amplifier/coordinator.hpp"

namespace amplifier::host {
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

// The operator's prices (settings.yaml `pricing:`), as `session.operator_pricing`, which the
// agent loop consults before the plan's own `session.pricing`. Trust: the plan may come from
// anywhere and could price a model at 0 to slip past a budget, so whatever it says under
// `operator_pricing` is dropped and only the operator's settings fill it; children get it
// from their parent (narrow_to_parent). A settings file that cannot be read stops a session
// that has a budget, naming the problem, rather than hold the budget at the plan's prices;
// one without a budget runs, warned, its costs at the plan's and the shipped prices (a plan
// given with --plan does not otherwise need the settings).
void apply_operator_pricing(MountPlan &plan) {
  plan.session_extra.erase("operator_pricing");
  json::object prices;
  try {
    if (auto settings = load_user_settings()) prices = pricing_of(*settings);
  } catch (const SettingsError &e) {
    if (plan.session_extra.contains("budget") || plan.orchestrator.config.contains("budget"))
      throw SettingsError(std::string(e.what()) + " (the session has a budget, and the operator's "
                                                  "prices could not be read)");
    std::fprintf(stderr, "amplifier: warning: the operator's prices are not used: %s\n", e.what());
  }
  if (!prices.empty()) plan.session_extra["operator_pricing"] = std::move(prices);
}

}  // namespace

SessionOptions resume_options(MountPlan &plan, bool plan_given, const std::string &id) {
  session_store::check_session_id(id);
  if (!plan_given) {
    plan.context = ModuleSpec{};
    plan.context.module = "context-persistent";
  }
  const auto store = session_store_of(plan);
  if (plan.context.module == "context-persistent" && !session_store::session_exists(store, id))
    throw std::runtime_error(
        fmt::format("no session '{}' in {} (see: amplifier sessions list)", id, store.string()));
  SessionOptions session_options;
  session_options.session_id = id;
  session_options.resumed = true;
  return session_options;
}

void forget_unstored_state(Session &session) {
  const auto &folder = session.options().state_folder;
  if (!folder || transcript_info(session)) return;
  std::error_code ignored;
  fs::remove_all(*folder / "checkpoints", ignored);
  fs::remove(*folder, ignored);  // only when nothing else is there
}

std::unique_ptr<Session> launch_session(MountPlan plan, LaunchOptions options) {
  apply_operator_pricing(plan);
  if (options.keep_state && !options.session.state_folder) {
    if (options.session.session_id.empty()) options.session.session_id = new_uuid();
    options.session.state_folder =
        fs::absolute(session_store_of(plan) / options.session.session_id);
  }
  const fs::path folder = options.folder ? *options.folder : fs::current_path();
  auto children =
      std::make_shared<HostChildPolicy>(std::move(options.attach_to_children), folder);
  if (options.confine_to_folder) options.session.confined_to = fs::absolute(folder);
  options.session.child_policy = std::move(children);
  auto session = std::make_unique<Session>(std::move(plan), options.session);
  if (options.approvals_at_terminal) {
    Session &s = *session;
    s.coordinator().set_approval_handler(
        terminal_approval_handler([&s] { return s.cancellation().is_cancelled(); }));
  }
  publish_agents(*session, folder);
  publish_skills(*session, folder);
  return session;
}

}  // namespace amplifier::host
