// What the model asks of the todo tool, checked and applied to the list. Every problem is a
// TodoError whose message names the field and the item at fault.
//
//   create: the list becomes `items` (replaced, not appended: a fresh plan), each
//           {content, status?: pending, id?}; ids left out are numbered 1, 2, ... past those given.
//   update: each {id, status?, content?} changes the item with that id; all or nothing.
//   list:   the list as it is.
#pragma once

#include "amplifier/todo/todo_list.hpp"

#include <boost/json/array.hpp>

#include <string_view>
#include <vector>

namespace tool_todo {

using amplifier::todo::Item;
using amplifier::todo::TodoError;

enum class Action { create, update, list };

struct TodoRequest {
  Action action = Action::list;
  boost::json::array items;
};

// Throws TodoError for input that is not {action, items?} with a known action.
TodoRequest read_request(std::string_view input_json);

std::vector<Item> created_items(const boost::json::array &items, std::size_t max_items);
std::vector<Item> updated_items(std::vector<Item> list, const boost::json::array &updates);

}  // namespace tool_todo
