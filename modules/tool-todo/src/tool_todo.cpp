// tool-todo: the `todo` tool, the model's own checklist for work of several steps (create,
// update, list; todo_actions.hpp). The list belongs to the session: it is published on the
// contribution channel amplifier::todo::kChannel, where hooks-todo-reminder reads it, and kept
// in the session's folder when the context is persistent (todo_store.hpp), so a resumed
// session has it back.
//
// THREADS: execute runs on the host's workers, possibly several at once, and the channel's
// contributor on whichever thread collects it; one mutex guards the list and its file.
#include "todo_actions.hpp"
#include "todo_store.hpp"

#include "amplifier/module_support/config_reader.hpp"
#include "amplifier/module_support/tool_result.hpp"
#include "amplifier/todo/todo_list.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/serialize.hpp>

#include <mutex>

namespace tool_todo {
namespace {

namespace json = boost::json;
namespace ms = amplifier::module_support;
namespace todo = amplifier::todo;

constexpr std::string_view kTranscriptCapability = "session.transcript";

struct TodoConfig {
  bool persist = true;
  std::size_t max_items = 100;
};

TodoConfig read_config(const amp::sdk::Host &host, std::string_view config_json) {
  ms::ConfigReader reader(config_json, "tool-todo config");
  TodoConfig config;
  config.persist = reader.get_bool("persist", config.persist);
  config.max_items = static_cast<std::size_t>(reader.get_int("max_items", 100, 1, 10'000));
  reader.warn_unknown_keys(host);
  return config;
}

json::object todo_spec(const TodoConfig &config) {
  const json::object item{
      {"type", "object"},
      {"properties",
       {{"id",
         {{"type", json::array{"string", "integer"}},
          {"description",
           "The item's id (create: optional, numbered 1, 2, ... when left out; "
           "update: required)"}}},
        {"content",
         {{"type", "string"},
          {"minLength", 1},
          {"description", "What to do, in the imperative: 'Run the tests'"}}},
        {"status",
         {{"type", "string"}, {"enum", json::array{"pending", "in_progress", "completed"}}}}}},
      {"additionalProperties", false}};
  return {
      {"name", "todo"},
      {"description",
       "Your checklist for a task of several steps, kept for this session and shown to you "
       "before each step while items are open. action 'create' replaces the list with `items` "
       "(content, optional status and id); 'update' changes the status and/or content of the "
       "items with the given ids; 'list' shows it. Keep one item in_progress at a time and mark "
       "each completed as soon as it is done. At most " +
           std::to_string(config.max_items) + " items."},
      {"parameters",
       {{"type", "object"},
        {"properties",
         {{"action", {{"type", "string"}, {"enum", json::array{"create", "update", "list"}}}},
          {"items", {{"type", "array"}, {"items", item}}}}},
        {"required", json::array{"action"}},
        {"additionalProperties", false}}},
  };
}

std::string list_result(std::string_view heading, const std::vector<todo::Item> &items) {
  const todo::Counts counts = todo::count(items);
  json::object extra{{"todos", todo::items_to_json(items)},
                     {"pending", counts.pending},
                     {"in_progress", counts.in_progress},
                     {"completed", counts.completed}};
  const std::string text =
      std::string(heading) + ": " + todo::summary(items) + "\n" + todo::render(items);
  return ms::tool_result(true, text, std::move(extra));
}

class TodoTool final : public amp::sdk::ToolModule {
 public:
  TodoTool(amp::sdk::Host host, std::string_view config_json)
      : ToolModule(host), config_(read_config(host, config_json)) {
    if (host.contribute(todo::kChannel, "tool-todo", &TodoTool::contribute, this) != AMP_OK)
      throw std::runtime_error("tool-todo: cannot contribute to the " +
                               std::string(todo::kChannel) + " channel");
  }

  // The context is mounted by now: a persistent one names the session's folder.
  void session_ready() override {
    if (!config_.persist) return;
    const auto capability = host().capability(kTranscriptCapability);
    const auto file = capability ? todo_file_for(*capability) : std::nullopt;
    if (!file) return;
    std::lock_guard lock(mutex_);
    store_ = TodoStore(*file);
    try {
      items_ = store_.load();
    } catch (const std::exception &e) {
      host().warn(std::string("tool-todo: the saved list cannot be read, starting empty: ") +
                  e.what());
    }
  }

  std::string list_tools() override { return json::serialize(json::array{todo_spec(config_)}); }

  void execute(amp_call_id call, std::string_view tool, std::string_view input_json) override {
    if (tool != "todo") {
      host().call_fail(call, "not_found", "tool-todo has no tool '" + std::string(tool) + "'",
                       AMP_NOT_FOUND);
      return;
    }
    std::string result;
    try {
      result = run(read_request(input_json));
    } catch (const std::exception &e) {  // TodoError, or a list that could not be saved
      result = ms::tool_result(false, e.what());
    }
    host().call_finish(call, AMP_OK, result);
  }

 private:
  std::string run(const TodoRequest &request) {
    std::lock_guard lock(mutex_);
    if (request.action == Action::list) return list_result("Todo list", items_);
    std::vector<todo::Item> changed = request.action == Action::create
                                          ? created_items(request.items, config_.max_items)
                                          : updated_items(items_, request.items);
    save(changed);  // first: a list that cannot be kept is not taken on
    items_ = std::move(changed);
    return list_result(request.action == Action::create ? "Todo list created" : "Todo list updated",
                       items_);
  }

  void save(const std::vector<todo::Item> &items) const {
    try {
      store_.save(items);
    } catch (const std::exception &e) {
      throw std::runtime_error(std::string("todo: the list was not changed: saving it failed: ") +
                               e.what());
    }
  }

  static amp_status contribute(void *self, amp_writer *out) noexcept {
    try {
      auto &tool = *static_cast<TodoTool *>(self);
      std::lock_guard lock(tool.mutex_);
      amp::sdk::write_to(
          out, json::serialize(json::object{{"items", todo::items_to_json(tool.items_)}}));
      return AMP_OK;
    } catch (...) {
      return AMP_ERROR;
    }
  }

  const TodoConfig config_;
  mutable std::mutex mutex_;
  TodoStore store_;
  std::vector<todo::Item> items_;
};

}  // namespace
}  // namespace tool_todo

AMP_DEFINE_MODULE(tool_todo::TodoTool, "tool-todo", "0.1.0",
                  "todo: the model's checklist for a task, kept with the session");
