#include "amplifier/todo/todo_list.hpp"

namespace amplifier::todo {

namespace json = boost::json;

namespace {

const char *mark(Status status) {
  switch (status) {
    case Status::completed:
      return "[x] ";
    case Status::in_progress:
      return "[>] ";
    case Status::pending:
      break;
  }
  return "[ ] ";
}

std::string string_field(const json::object &item, std::string_view key, const std::string &where) {
  const json::value *value = item.if_contains(key);
  if (!value || !value->is_string() || value->get_string().empty())
    throw TodoError(where + ": '" + std::string(key) + "' must be a non-empty string");
  return std::string(value->get_string());
}

}  // namespace

std::string_view to_string(Status status) {
  switch (status) {
    case Status::in_progress:
      return "in_progress";
    case Status::completed:
      return "completed";
    case Status::pending:
      break;
  }
  return "pending";
}

std::optional<Status> status_from_string(std::string_view name) {
  for (Status status : {Status::pending, Status::in_progress, Status::completed})
    if (to_string(status) == name) return status;
  return std::nullopt;
}

json::array items_to_json(const std::vector<Item> &items) {
  json::array out;
  for (const auto &item : items)
    out.push_back(json::object{
        {"id", item.id}, {"content", item.content}, {"status", to_string(item.status)}});
  return out;
}

std::vector<Item> items_from_json(const json::value &value, std::string_view what) {
  if (!value.is_array()) throw TodoError(std::string(what) + " must be an array of items");
  std::vector<Item> items;
  for (std::size_t i = 0; i < value.get_array().size(); ++i) {
    const std::string where = std::string(what) + "[" + std::to_string(i) + "]";
    const json::object *object = value.get_array()[i].if_object();
    if (!object) throw TodoError(where + " must be an object");
    Item item{string_field(*object, "id", where), string_field(*object, "content", where)};
    const auto status = status_from_string(string_field(*object, "status", where));
    if (!status) throw TodoError(where + ": unknown status");
    item.status = *status;
    items.push_back(std::move(item));
  }
  return items;
}

Counts count(const std::vector<Item> &items) {
  Counts counts;
  for (const auto &item : items) {
    if (item.status == Status::pending) ++counts.pending;
    if (item.status == Status::in_progress) ++counts.in_progress;
    if (item.status == Status::completed) ++counts.completed;
  }
  return counts;
}

bool has_open_items(const std::vector<Item> &items) {
  const Counts counts = count(items);
  return counts.pending + counts.in_progress > 0;
}

std::string summary(const std::vector<Item> &items) {
  if (items.empty()) return "empty";
  const Counts counts = count(items);
  return std::to_string(counts.completed) + " of " + std::to_string(items.size()) + " completed, " +
         std::to_string(counts.in_progress) + " in progress, " + std::to_string(counts.pending) +
         " pending";
}

std::string render(const std::vector<Item> &items) {
  std::string out;
  for (const auto &item : items) {
    out += mark(item.status) + item.id + ": " + item.content;
    if (item.status == Status::in_progress) out += " (in progress)";
    out += '\n';
  }
  return out;
}

}  // namespace amplifier::todo
