// The one way the host starts a session from a plan: `run`, `chat` and `serve` all come here,
// so what a session gets (its policy for children, the agents it may delegate to, approvals
// asked at the terminal, confinement to a folder) is decided in one place.
#pragma once
#include "amplifier/session.hpp"

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>

namespace amplifier::host {

struct LaunchOptions {
  SessionOptions session;  // id, resumed, labels (child_policy is set here, not by the caller)
  // The session's folder: where project agents are looked up and children start; empty: the
  // current directory. Trust: the operator's choice (the directory the command runs in, or
  // serve's per-session folder); never taken from a plan or a client.
  std::optional<std::filesystem::path> folder;
  // Keeps the tools that touch files or run commands inside `folder`, for the session and
  // every child it delegates to, whatever their plans say (serve's sessions): the kernel's
  // SessionOptions::confined_to, which the tools read from the session themselves.
  bool confine_to_folder = false;
  // Asks the person at the terminal when a hook wants approval (run, chat). Without it an
  // approval waits for whoever installs a handler on the coordinator (serve's clients).
  bool approvals_at_terminal = false;
  // Runs for every child session before it starts (where its events go); may be empty.
  std::function<void(Session &)> attach_to_children;
};

// A session for `plan`, not yet initialised: the caller attaches its output to the hooks,
// then calls initialize().
std::unique_ptr<Session> launch_session(MountPlan plan, LaunchOptions options);

}  // namespace amplifier::host
