#include "todo_store.hpp"

#include "amplifier/module_support/json_util.hpp"
#include "amplifier/module_support/session_facts.hpp"
#include "amplifier/transcript.hpp"

#include <boost/json/serialize.hpp>

#include <stdexcept>

namespace tool_todo {

namespace json = boost::json;
namespace ms = amplifier::module_support;
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kMaxFileBytes = 4 << 20;
constexpr int kFormatVersion = 1;

}  // namespace

std::optional<fs::path> todo_file_for(std::string_view transcript_capability) {
  json::object capability;
  try {
    capability = ms::parse_json_object(transcript_capability, "session.transcript");
  } catch (const std::invalid_argument &) {
    return std::nullopt;
  }
  const std::string_view transcript = ms::string_at(capability, "transcript");
  if (transcript.empty()) return std::nullopt;
  return fs::path(transcript).parent_path() / "todo.json";
}

std::vector<amplifier::todo::Item> TodoStore::load() const {
  if (!file_) return {};
  std::error_code error;
  if (!fs::exists(*file_, error)) return {};
  const std::string what = file_->string();
  const json::object saved =
      ms::parse_json_object(amplifier::transcript::read_file(*file_, kMaxFileBytes), what);
  const json::value *items = saved.if_contains("items");
  if (!items) throw std::runtime_error(what + " has no 'items'");
  return amplifier::todo::items_from_json(*items, what + ": items");
}

void TodoStore::save(const std::vector<amplifier::todo::Item> &items) const {
  if (!file_) return;
  const json::object saved{{"v", kFormatVersion},
                           {"updated", ms::now_iso8601()},
                           {"items", amplifier::todo::items_to_json(items)}};
  fs::create_directories(file_->parent_path());  // a session folder not written to yet
  amplifier::transcript::replace_file_atomically(*file_, json::serialize(saved), true);
}

}  // namespace tool_todo
