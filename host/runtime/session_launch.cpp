#include "session_launch.hpp"

#include "approval_prompt.hpp"
#include "child_policy.hpp"

#include "amplifier/coordinator.hpp"

namespace amplifier::host {
namespace fs = std::filesystem;

std::unique_ptr<Session> launch_session(MountPlan plan, LaunchOptions options) {
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
  return session;
}

}  // namespace amplifier::host
