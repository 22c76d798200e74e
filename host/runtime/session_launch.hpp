// The one way the host starts a session from a plan: `run`, `chat` and `serve` all come here,
// so what a session gets (its policy for children, the agents it may delegate to, approvals
// asked at the terminal, confinement to a folder) is decided in one place.
#pragma once
#include "amplifier/session.hpp"

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

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
  // Gives the session a folder of its own for per-session state (SessionOptions::state_folder:
  // tool-filesystem's rewind checkpoints): <the plan's session store>/<session id> (run, chat).
  // A session whose context does not store it leaves nothing there (forget_unstored_state).
  bool keep_state = false;
};

// The options that continue stored session `id` (run --resume, chat --resume). Without a plan
// file (`plan_given` false) the built-in plan's in-memory context is swapped for
// context-persistent, which keeps transcripts. A session on files must exist in the store the
// plan's context uses; any other context (context-postgres) is asked once mounted
// (check_resumed_session). Throws std::runtime_error / std::invalid_argument naming the problem.
SessionOptions resume_options(MountPlan &plan, bool plan_given, const std::string &id);

// Removes the state folder of a session whose context did not store it (context-simple): its
// checkpoints cannot be rewound to once the process ends. Call after the last turn and BEFORE
// cleanup(): whether the context stores the session is asked of the mounted context.
void forget_unstored_state(Session &session);

// A session for `plan`, not yet initialised: the caller attaches its output to the hooks,
// then calls initialize().
std::unique_ptr<Session> launch_session(MountPlan plan, LaunchOptions options);

}  // namespace amplifier::host
