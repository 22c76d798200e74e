// Walking a conversation for a request mapping, the part every vendor does the same way: each
// message by role; tool results (tool messages, or tool_result blocks in a user message)
// collected and handed back in call order right after the calls they answer; blocks the
// vendor has no place for recorded as degradations. A mapping derives from it and writes its
// vendor's messages in the hooks.
#pragma once
#include "amplifier/model.hpp"
#include "amplifier/provider/degradation_log.hpp"
#include "amplifier/provider/tool_results.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::provider {

// An image source as a URL: its url, or base64 data as a data: URL; nullopt otherwise.
std::optional<std::string> image_data_url(const boost::json::object &source);

class ConversationWalker {
 public:
  ConversationWalker(DegradationLog &degradations, std::string vendor);
  virtual ~ConversationWalker() = default;
  ConversationWalker(const ConversationWalker &) = delete;
  ConversationWalker &operator=(const ConversationWalker &) = delete;

  // Every message through the hooks below, then the last calls' results.
  void walk(const std::vector<amplifier::Message> &messages);

  const std::vector<RepairedToolCall> &repaired_tool_calls() const {
    return tool_results_.repaired();
  }
  const std::vector<std::string> &dropped_tool_results() const { return tool_results_.dropped(); }

 protected:
  // A system or developer message's text (never empty).
  virtual void on_system(const std::string &text) = 0;
  virtual void on_developer(const std::string &text) { on_system(text); }
  // A user message; its tool_result blocks have been taken as results already (skip them).
  virtual void on_user(const amplifier::Message &message) = 0;
  // An assistant message; report each tool call with call_made().
  virtual void on_assistant(const amplifier::Message &message) = 0;
  // The results of the calls just closed, in call order (synthetic for missing ones).
  virtual void on_results(std::vector<ToolResultSequencer::Result> results) = 0;

  void call_made(const amplifier::ToolCallBlock &call);
  // Hands the open calls' results to on_results (nothing when no call is open).
  void close_tool_calls();
  // Records that `block` in a `role` message has no place at this vendor.
  void drop_block(const amplifier::ContentBlock &block, std::string_view role);
  DegradationLog &degradations() { return degradations_; }

 private:
  void add_tool_message(const amplifier::Message &message);
  void take_results_of(const amplifier::Message &message);

  DegradationLog &degradations_;
  const std::string vendor_;
  ToolResultSequencer tool_results_;
};

}  // namespace amplifier::provider
