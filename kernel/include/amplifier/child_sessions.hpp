// Child sessions: the kernel's part of delegation (amp_host_api "session_spawn", ABI 1.3).
//
// The kernel links a child to its parent: parent_id, a cancellation that follows the parent's,
// the parent's approvals, the context it starts with, its lifetime within the parent's. Which
// plan the child mounts (agents, overlays, what it inherits) is the host's policy, reached
// through ChildSessionPolicy.
#pragma once
#include "amplifier/mount_plan.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace amplifier {

class Session;

// A parsed "session_spawn" request (see amplifier_plugin.h).
struct SpawnRequest {
  enum class ContextDepth { none, recent, all };
  std::string agent = "self";  // an agent name, or "self": the parent's own plan
  std::string instruction;     // the child's prompt
  ContextDepth context_depth = ContextDepth::none;
  int recent_turns = 3;                    // with ContextDepth::recent: the last N user turns
  std::string resume_session_id;           // resume this earlier child instead of starting one
  std::vector<std::string> exclude_tools;  // module ids of the parent's plan left out
  std::vector<std::string> exclude_hooks;
  int max_depth = 1;  // how deep children may nest (the top session is depth 0)
};

// Throws std::invalid_argument naming the field that is wrong.
SpawnRequest parse_spawn_request(std::string_view request_json);

// What the host decides for one child.
struct ChildSetup {
  MountPlan plan;
  std::string agent;         // the name reported in events and results
  std::string instructions;  // the child's system prompt; empty: none of its own
};

// The host's policy for children. Shared by a session and its children (nested children use
// the same policy). THREADS: called on worker threads, for several children at once.
class ChildSessionPolicy {
 public:
  virtual ~ChildSessionPolicy() = default;
  // The child's plan from the parent's and the request: the agent looked up, exclusions applied,
  // the agent's overlay merged. Throws std::exception with a message the model can read (an
  // unknown agent, say).
  virtual ChildSetup setup(const MountPlan &parent_plan, const SpawnRequest &request) = 0;
  // Before the child is initialised: attaches what the host shows (event output, display).
  virtual void prepare(Session &child) { (void)child; }
  // After a resumed child is initialised: throws when its store did not have the session.
  virtual void check_resumed(Session &child) { (void)child; }
};

// The messages a child starts with: the instructions as a system message, then the part of
// the parent's conversation `depth` asks for, cut at a turn boundary and without a trailing
// tool call that has no result yet (the parent's own delegate call). A named agent has its
// own instructions, so the parent's system messages are left out for it. Returns a JSON array.
std::string child_initial_messages(std::string_view parent_messages_json,
                                   const SpawnRequest &request, std::string_view instructions);

}  // namespace amplifier
