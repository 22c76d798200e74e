#include "todo_actions.hpp"

#include "amplifier/module_support/json_util.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <set>

namespace tool_todo {

namespace json = boost::json;
namespace ms = amplifier::module_support;
using amplifier::todo::Status;

namespace {

constexpr std::size_t kMaxContentChars = 2000;

std::string where(std::size_t index) { return "items[" + std::to_string(index) + "]"; }

void check_keys(const json::object &item, const std::string &at,
                std::initializer_list<std::string_view> known) {
  for (const auto &[key, value] : item)
    if (std::find(known.begin(), known.end(), key) == known.end())
      throw TodoError(at + ": unknown field '" + std::string(key) +
                      "' (expected id, content, status)");
}

const json::object &item_object(const json::array &items, std::size_t index) {
  const json::object *object = items[index].if_object();
  if (!object)
    throw TodoError(where(index) + " must be an object, got " +
                    std::string(ms::describe_kind(items[index])));
  return *object;
}

// An id as the model may send it: a non-empty string or an integer.
std::optional<std::string> read_id(const json::object &item, const std::string &at) {
  const json::value *id = item.if_contains("id");
  if (!id || id->is_null()) return std::nullopt;
  if (ms::is_integral(*id)) return std::to_string(ms::to_int64(*id));
  if (id->is_string() && !id->get_string().empty()) return std::string(id->get_string());
  throw TodoError(at + ": 'id' must be a non-empty string or an integer, got " +
                  json::serialize(*id));
}

std::optional<std::string> read_content(const json::object &item, const std::string &at) {
  const json::value *content = item.if_contains("content");
  if (!content || content->is_null()) return std::nullopt;
  if (!content->is_string() || content->get_string().empty())
    throw TodoError(at + ": 'content' must be a non-empty string");
  if (ms::utf8_length(content->get_string()) > kMaxContentChars)
    throw TodoError(at + ": 'content' is longer than " + std::to_string(kMaxContentChars) +
                    " characters");
  return std::string(content->get_string());
}

std::optional<Status> read_status(const json::object &item, const std::string &at) {
  const json::value *status = item.if_contains("status");
  if (!status || status->is_null()) return std::nullopt;
  const auto parsed = status->is_string()
                          ? amplifier::todo::status_from_string(status->get_string())
                          : std::nullopt;
  if (!parsed)
    throw TodoError(at + ": 'status' must be pending, in_progress or completed, got " +
                    json::serialize(*status));
  return parsed;
}

std::string known_ids(const std::vector<Item> &list) {
  std::string out;
  for (const auto &item : list) out += (out.empty() ? "" : ", ") + item.id;
  return out.empty() ? "the list is empty" : "ids: " + out;
}

// Ids for the items given none: 1, 2, ... skipping those already taken.
void number_missing_ids(std::vector<Item> &items, std::set<std::string> &taken) {
  long next = 1;
  for (auto &item : items) {
    if (!item.id.empty()) continue;
    while (taken.count(std::to_string(next))) ++next;
    item.id = std::to_string(next);
    taken.insert(item.id);
  }
}

}  // namespace

TodoRequest read_request(std::string_view input_json) {
  json::object input;
  try {
    input = ms::parse_json_object(input_json, "todo input");
  } catch (const std::invalid_argument &e) {
    throw TodoError(e.what());
  }
  check_keys(input, "todo input", {"action", "items"});
  TodoRequest request;
  const std::string_view action = ms::string_at(input, "action");
  if (action == "create")
    request.action = Action::create;
  else if (action == "update")
    request.action = Action::update;
  else if (action == "list")
    request.action = Action::list;
  else
    throw TodoError("todo: 'action' must be create, update or list");
  const json::value *items = input.if_contains("items");
  if (request.action != Action::list) {
    if (!items || !items->is_array())
      throw TodoError(std::string("todo: '") + std::string(action) + "' needs 'items', an array");
    request.items = items->get_array();
  }
  return request;
}

std::vector<Item> created_items(const json::array &items, std::size_t max_items) {
  if (items.size() > max_items)
    throw TodoError("todo: at most " + std::to_string(max_items) + " items, got " +
                    std::to_string(items.size()));
  std::vector<Item> list;
  std::set<std::string> taken;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const json::object &object = item_object(items, i);
    check_keys(object, where(i), {"id", "content", "status"});
    Item item;
    item.content = read_content(object, where(i)).value_or("");
    if (item.content.empty()) throw TodoError(where(i) + ": 'content' is required");
    item.status = read_status(object, where(i)).value_or(Status::pending);
    if (auto id = read_id(object, where(i))) {
      if (!taken.insert(*id).second) throw TodoError(where(i) + ": id '" + *id + "' is used twice");
      item.id = *id;
    }
    list.push_back(std::move(item));
  }
  number_missing_ids(list, taken);
  return list;
}

std::vector<Item> updated_items(std::vector<Item> list, const json::array &updates) {
  if (updates.empty()) throw TodoError("todo: 'update' needs at least one item");
  for (std::size_t i = 0; i < updates.size(); ++i) {
    const json::object &object = item_object(updates, i);
    check_keys(object, where(i), {"id", "content", "status"});
    const auto id = read_id(object, where(i));
    if (!id) throw TodoError(where(i) + ": 'id' is required to update an item");
    auto content = read_content(object, where(i));
    const auto status = read_status(object, where(i));
    if (!content && !status)
      throw TodoError(where(i) + ": give 'status', 'content' or both to change item '" + *id + "'");
    auto found =
        std::find_if(list.begin(), list.end(), [&](const Item &item) { return item.id == *id; });
    if (found == list.end())
      throw TodoError(where(i) + ": no item has id '" + *id + "' (" + known_ids(list) + ")");
    if (content) found->content = std::move(*content);
    if (status) found->status = *status;
  }
  return list;
}

}  // namespace tool_todo
