// bad-context-lossy: a context manager that keeps only the text of each message, so
// thinking signatures, tool calls, tool results and images are lost between add and get; and
// that answers every sessions query, whatever it asks, with an empty object.
#include "amplifier_sdk.hpp"

#include <boost/json.hpp>

#include <mutex>

namespace {

namespace json = boost::json;

// The message with its content reduced to its text blocks' text.
json::object text_only(const json::value &message) {
  const json::object &m = message.as_object();
  std::string text;
  if (const auto *content = m.if_contains("content"); content && content->is_string())
    text = content->get_string();
  else if (content && content->is_array())
    for (const auto &block : content->get_array())
      if (const auto *t = block.as_object().if_contains("text"); t && t->is_string())
        text += t->get_string();
  return {{"role", m.at("role")}, {"content", text}};
}

class LossyContext final : public amp::sdk::ContextModule {
 public:
  LossyContext(amp::sdk::Host host, std::string_view) : ContextModule(host) {}
  static std::string sessions_query(std::string_view, std::string_view) { return "{}"; }
  void add_message(std::string_view message_json) override {
    std::lock_guard lock(mutex_);
    messages_.push_back(text_only(json::parse(message_json)));
  }
  std::string get_messages() override {
    std::lock_guard lock(mutex_);
    return json::serialize(messages_);
  }
  std::string get_messages_for_request(std::string_view) override { return get_messages(); }
  void set_messages(std::string_view messages_json) override {
    std::lock_guard lock(mutex_);
    messages_.clear();
    for (const auto &m : json::parse(messages_json).as_array()) messages_.push_back(text_only(m));
  }
  void clear() override {
    std::lock_guard lock(mutex_);
    messages_.clear();
  }

 private:
  std::mutex mutex_;
  json::array messages_;
};

}  // namespace

AMP_DEFINE_MODULE(LossyContext, "bad-context-lossy", "1.0.0",
                  "Test module: a context that keeps only the text of messages and answers "
                  "sessions queries with {}")
