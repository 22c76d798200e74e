// A todo list: items with an id, content and a status (pending, in_progress, completed), as
// tool-todo keeps it and hooks-todo-reminder shows it.
//
// The two modules share it through the contribution channel kChannel: tool-todo contributes
// {"items": [...]} (the list as items_to_json writes it); the reminder collects the channel
// before each provider request. No global state: each session's tool instance contributes to
// that session's channel.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace amplifier::todo {

inline constexpr std::string_view kChannel = "todo.items";

enum class Status { pending, in_progress, completed };

struct Item {
  std::string id;
  std::string content;
  Status status = Status::pending;
};

// Input that is not a todo list, with a message naming the problem.
class TodoError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

std::string_view to_string(Status status);
std::optional<Status> status_from_string(std::string_view name);

// [{"id","content","status"}, ...]
boost::json::array items_to_json(const std::vector<Item> &items);
// Reads what items_to_json wrote. Throws TodoError naming `what` and the item at fault.
std::vector<Item> items_from_json(const boost::json::value &value, std::string_view what);

struct Counts {
  std::size_t pending = 0;
  std::size_t in_progress = 0;
  std::size_t completed = 0;
};
Counts count(const std::vector<Item> &items);
// Whether anything is still to do (pending or in progress).
bool has_open_items(const std::vector<Item> &items);

// "2 of 5 completed, 1 in progress, 2 pending" (or "empty").
std::string summary(const std::vector<Item> &items);
// One line per item: "[x] 1: Write the parser", "[>] 2: ... (in progress)", "[ ] 3: ...".
std::string render(const std::vector<Item> &items);

}  // namespace amplifier::todo
