// hooks-todo-reminder: before each provider request (`provider:request`, so every step of a
// turn sees the list as it is then), reads the todo list from the todo channel
// (amplifier::todo::kChannel, where tool-todo publishes it) and, while an item is pending or
// in progress, injects it into that request as an ephemeral context injection: the model sees
// it, the conversation history does not keep it (a transcript would otherwise collect one
// stale copy per step). Once every item is completed, or with no list, nothing is injected.
//
// A list that cannot be read is logged and skipped: a reminder is never worth failing a turn.
#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/module_support/json_util.hpp"
#include "amplifier/todo/todo_list.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/serialize.hpp>

namespace hooks_todo_reminder {
namespace {

namespace json = boost::json;
namespace ms = amplifier::module_support;
namespace todo = amplifier::todo;

constexpr const char *kHandlerName = "hooks-todo-reminder";
constexpr const char *kEvent = "provider:request";
constexpr std::int32_t kPriority = 50;

struct ReminderConfig {
  std::string role = "user";
  std::string preamble =
      "Your todo list for this task. Work through the open items, keep exactly one in_progress, "
      "and mark each completed with the todo tool as soon as it is done.";
};

ReminderConfig read_config(const amp::sdk::Host &host, std::string_view config_json) {
  ms::ConfigReader reader(config_json, "hooks-todo-reminder config");
  ReminderConfig config;
  config.role = reader.get_string("role", config.role);
  if (config.role != "user" && config.role != "system")
    throw reader.error("role", "must be user or system, got '" + config.role + "'");
  config.preamble = reader.get_string("preamble", config.preamble);
  reader.warn_unknown_keys(host);
  return config;
}

// Every item every contributor to the channel published (normally one tool-todo).
std::vector<todo::Item> collected_items(const std::string &collected) {
  std::vector<todo::Item> items;
  const json::value contributions = ms::parse_json(collected, "the todo channel");
  if (!contributions.is_array()) return items;
  for (const auto &contribution : contributions.get_array()) {
    const json::object *entry = contribution.if_object();
    const json::object *value = entry ? ms::object_at(*entry, "value") : nullptr;
    const json::value *list = value ? value->if_contains("items") : nullptr;
    if (!list) continue;
    auto more = todo::items_from_json(*list, "the todo channel's items");
    items.insert(items.end(), more.begin(), more.end());
  }
  return items;
}

class TodoReminderHook final : public amp::sdk::HookModule {
 public:
  TodoReminderHook(amp::sdk::Host host, std::string_view config_json)
      : HookModule(host), config_(read_config(host, config_json)) {
    // Last: once registered, the host may call the handler with `this` at any time.
    if (host.hook_register(kEvent, kPriority, kHandlerName, &TodoReminderHook::on_event, this) !=
        AMP_OK)
      throw std::runtime_error(
          "hooks-todo-reminder: registering the provider:request handler failed");
  }

 private:
  static amp_status on_event(void *self, amp_str, amp_str, amp_writer *result) noexcept {
    auto &hook = *static_cast<TodoReminderHook *>(self);
    try {
      amp::sdk::write_to(result, hook.result_json());
    } catch (const std::exception &e) {
      hook.host().warn(std::string("hooks-todo-reminder: no reminder this step: ") + e.what());
      amp::sdk::write_to(result, R"({"action":"continue"})");
    }
    return AMP_OK;
  }

  std::string result_json() const {
    const std::vector<todo::Item> items = collected_items(host().collect(todo::kChannel));
    if (!todo::has_open_items(items)) return R"({"action":"continue"})";
    return json::serialize(json::object{{"action", "inject_context"},
                                        {"context_injection", reminder(items)},
                                        {"context_injection_role", config_.role},
                                        {"ephemeral", true}});
  }

  std::string reminder(const std::vector<todo::Item> &items) const {
    return "<system-reminder source=\"hooks-todo-reminder\">\n" + config_.preamble +
           "\nTodo list (" + todo::summary(items) + "):\n" + todo::render(items) +
           "</system-reminder>";
  }

  const ReminderConfig config_;
};

}  // namespace
}  // namespace hooks_todo_reminder

AMP_DEFINE_MODULE(hooks_todo_reminder::TodoReminderHook, "hooks-todo-reminder", "0.1.0",
                  "Shows the model its open todo items before each provider request (ephemeral)");
