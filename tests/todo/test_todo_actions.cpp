// The todo list's rules: what create and update accept, and how the list reads.
#include "todo_actions.hpp"

#include <boost/json/parse.hpp>
#include <doctest/doctest.h>

namespace tool_todo {
namespace {

namespace json = boost::json;
using amplifier::todo::Status;

json::array items(std::string_view text) { return json::parse(text).as_array(); }

std::vector<Item> sample() {
  return created_items(items(R"([{"content":"Plan"},{"content":"Build","status":"in_progress"},
                                 {"id":"ship","content":"Ship","status":"completed"}])"),
                       10);
}

TEST_CASE("todo create: ids numbered where missing, statuses default to pending") {
  const auto list = sample();
  REQUIRE(list.size() == 3);
  CHECK(list[0].id == "1");
  CHECK(list[0].status == Status::pending);
  CHECK(list[1].id == "2");
  CHECK(list[2].id == "ship");
  const auto numbered = created_items(items(R"([{"id":1,"content":"a"},{"content":"b"}])"), 10);
  CHECK(numbered[0].id == "1");
  CHECK(numbered[1].id == "2");  // 1 is taken
  CHECK(amplifier::todo::render(list) ==
        "[ ] 1: Plan\n[>] 2: Build (in progress)\n[x] ship: Ship\n");
  CHECK(amplifier::todo::summary(list) == "1 of 3 completed, 1 in progress, 1 pending");
}

TEST_CASE("todo create: bad items are refused, naming the item and the field") {
  const std::pair<std::string, std::string> cases[] = {
      {R"([{"status":"pending"}])", "items[0]: 'content' is required"},
      {R"([{"content":""}])", "items[0]: 'content' must be a non-empty string"},
      {R"([{"content":"a","status":"done"}])",
       "items[0]: 'status' must be pending, in_progress or completed, got \"done\""},
      {R"([{"content":"a","id":"x"},{"content":"b","id":"x"}])", "items[1]: id 'x' is used twice"},
      {R"([{"content":"a","priority":"high"}])", "items[0]: unknown field 'priority'"},
      {R"(["just text"])", "items[0] must be an object, got a string"},
      {R"([{"content":"a","id":true}])", "'id' must be a non-empty string or an integer"},
  };
  for (const auto &[input, message] : cases) {
    CAPTURE(input);
    CHECK_THROWS_WITH_AS(created_items(items(input), 10), doctest::Contains(message.c_str()),
                         TodoError);
  }
  CHECK_THROWS_WITH_AS(created_items(items(R"([{"content":"a"},{"content":"b"}])"), 1),
                       doctest::Contains("at most 1 items, got 2"), TodoError);
}

TEST_CASE("todo update: changes items by id, all or nothing") {
  auto list = updated_items(
      sample(), items(R"([{"id":1,"status":"completed"},{"id":"2","content":"Build it"}])"));
  CHECK(list[0].status == Status::completed);
  CHECK(list[1].content == "Build it");
  CHECK(list[1].status == Status::in_progress);
  CHECK_THROWS_WITH_AS(
      updated_items(sample(),
                    items(R"([{"id":"1","status":"completed"},{"id":"9","status":"completed"}])")),
      doctest::Contains("items[1]: no item has id '9' (ids: 1, 2, ship)"), TodoError);
  CHECK_THROWS_WITH_AS(updated_items(sample(), items(R"([{"id":"1"}])")),
                       doctest::Contains("give 'status', 'content' or both"), TodoError);
  CHECK_THROWS_WITH_AS(updated_items(sample(), items(R"([{"status":"completed"}])")),
                       doctest::Contains("'id' is required"), TodoError);
  CHECK_THROWS_WITH_AS(updated_items({}, items(R"([{"id":"1","status":"completed"}])")),
                       doctest::Contains("the list is empty"), TodoError);
  CHECK_THROWS_WITH_AS(updated_items(sample(), json::array{}),
                       doctest::Contains("at least one item"), TodoError);
}

TEST_CASE("todo requests: the action is checked, and items are needed to create or update") {
  CHECK(read_request(R"({"action":"list"})").action == Action::list);
  CHECK(read_request(R"({"action":"create","items":[]})").action == Action::create);
  CHECK_THROWS_WITH_AS(read_request(R"({"action":"delete"})"),
                       doctest::Contains("'action' must be create, update or list"), TodoError);
  CHECK_THROWS_WITH_AS(read_request(R"({"action":"update"})"),
                       doctest::Contains("'update' needs 'items', an array"), TodoError);
  CHECK_THROWS_WITH_AS(read_request(R"({"action":"list","extra":1})"),
                       doctest::Contains("unknown field 'extra'"), TodoError);
  CHECK_THROWS_WITH_AS(read_request(R"({"action":)"), doctest::Contains("invalid JSON"), TodoError);
}

TEST_CASE("todo json: the list reads back as it was written") {
  const auto list = sample();
  const auto back = amplifier::todo::items_from_json(amplifier::todo::items_to_json(list), "x");
  REQUIRE(back.size() == 3);
  CHECK(back[2].id == "ship");
  CHECK(back[1].status == Status::in_progress);
  CHECK_THROWS_AS(amplifier::todo::items_from_json(json::parse(R"([{"id":"1"}])"), "x"),
                  amplifier::todo::TodoError);
}

}  // namespace
}  // namespace tool_todo
