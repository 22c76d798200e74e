// The host's policy for child sessions (kernel: amplifier/child_sessions.hpp): agents are
// looked up as `amplifier agents` shows them, the child's plan is the parent's with the agent's
// overlay, and the child's events go where the parent's go.
#pragma once
#include "amplifier/child_sessions.hpp"

#include <filesystem>
#include <boost/json/object.hpp>

#include <functional>
#include <memory>
#include <optional>

namespace amplifier::host {

class HostChildPolicy : public ChildSessionPolicy {
 public:
  // `attach` runs for every child before it starts (event output, say); may be empty.
  explicit HostChildPolicy(std::function<void(Session &)> attach,
                           std::filesystem::path cwd = std::filesystem::current_path());
  ChildSetup setup(const MountPlan &parent_plan, const SpawnRequest &request) override;
  void prepare(Session &child) override;
  void check_resumed(Session &child) override;

 private:
  std::function<void(Session &)> attach_;
  std::filesystem::path cwd_;
};

// Publishes the agents `session`'s children can run as capability "session.agents"
// ([{name, description}]), which tool-delegate lists for the model. Call before initialize.
void publish_agents(Session &session,
                    const std::filesystem::path &cwd = std::filesystem::current_path());

// What the session's context says about its transcript (capability "session.transcript"), when
// it keeps one.
std::optional<boost::json::object> transcript_info(Session &session);

// A resume only means something when the context really loaded the stored session: throws
// std::runtime_error saying why not. (Shared by `run --resume` and resumed children.)
void check_resumed_session(Session &session);

}  // namespace amplifier::host
