// metadata.json of a stored session, timestamps and one-line previews.
#include "amplifier/session_store.hpp"

#include "parsers.hpp"

#include <boost/json/serialize.hpp>

#include <chrono>
#include <ctime>
#include <system_error>

namespace amplifier::session_store {
namespace json = boost::json;
namespace fs = std::filesystem;
using detail::JsonPath;

namespace {

std::int64_t count_field(const json::object &object, std::string_view key, const JsonPath &path) {
  return detail::optional_int(object, key, path).value_or(0);
}

std::vector<Degradation> degradations_field(const json::object &object, const JsonPath &path) {
  const json::value *list = detail::present(object, "degradations");
  if (list == nullptr) return {};
  return detail::parse_array<Degradation>(*list, path.child("degradations"),
                                          detail::parse_degradation);
}

bool is_utf8_continuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

}  // namespace

json::object to_json(const SessionMetadata &metadata) {
  json::object out{{"session_id", metadata.session_id},
                   {"created", metadata.created},
                   {"updated", metadata.updated}};
  detail::put(out, "provider", metadata.provider);
  detail::put(out, "provider_module", metadata.provider_module);
  detail::put(out, "model", metadata.model);
  out["turn_count"] = metadata.turn_count;
  out["message_count"] = metadata.message_count;
  detail::put(out, "parent_id", metadata.parent_id);
  detail::put(out, "preview", metadata.preview);
  if (!metadata.degradations.empty()) {
    json::array list;
    for (const auto &degradation : metadata.degradations) list.push_back(amplifier::to_json(degradation));
    out["degradations"] = std::move(list);
  }
  if (!metadata.labels.empty()) out["labels"] = metadata.labels;
  detail::put_extra(out, metadata.extra);
  return out;
}

SessionMetadata metadata_from_json(const json::value &value) {
  const JsonPath path;
  const json::object &object = detail::expect_object(value, path);
  SessionMetadata metadata;
  metadata.session_id = detail::required_string(object, "session_id", path, "session metadata");
  metadata.created = detail::optional_string(object, "created", path).value_or("");
  metadata.updated = detail::optional_string(object, "updated", path).value_or(metadata.created);
  metadata.provider = detail::optional_string(object, "provider", path);
  metadata.provider_module = detail::optional_string(object, "provider_module", path);
  metadata.model = detail::optional_string(object, "model", path);
  metadata.turn_count = count_field(object, "turn_count", path);
  metadata.message_count = count_field(object, "message_count", path);
  metadata.parent_id = detail::optional_string(object, "parent_id", path);
  metadata.preview = detail::optional_string(object, "preview", path);
  metadata.degradations = degradations_field(object, path);
  if (const json::value *labels = detail::present(object, "labels"))
    metadata.labels = detail::expect_object(*labels, path.child("labels"));
  metadata.extra = detail::unknown_fields(
      object, {"session_id", "created", "updated", "provider", "provider_module", "model",
               "turn_count", "message_count", "parent_id", "preview", "degradations", "labels"});
  return metadata;
}

std::optional<SessionMetadata> read_metadata(const fs::path &file) {
  std::error_code error;
  if (!fs::exists(file, error)) return std::nullopt;
  const std::string text = transcript::read_file(file, kMaxMetadataBytes);
  try {
    return metadata_from_json(parse_json(text));
  } catch (const ModelError &e) {
    throw ModelError(file.string(), e.what());
  }
}

void write_metadata(const fs::path &file, const SessionMetadata &metadata, bool sync) {
  transcript::replace_file_atomically(file, json::serialize(to_json(metadata)) + "\n", sync);
}

std::string utc_timestamp_now() {
  using namespace std::chrono;
  const auto now = system_clock::now();
  const std::time_t seconds = system_clock::to_time_t(now);
  const auto millis = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  char text[80];  // sized for any int the format could print, so no truncation is possible
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(millis));
  return text;
}

std::string one_line_preview(std::string_view text, std::size_t max_chars) {
  std::string line;
  std::size_t chars = 0;
  bool pending_space = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char byte = static_cast<unsigned char>(text[i]);
    if (byte == ' ' || byte == '\n' || byte == '\t' || byte == '\r') {
      pending_space = !line.empty();
      continue;
    }
    const bool starts_char = !is_utf8_continuation(byte);
    if (starts_char && chars + (pending_space ? 1 : 0) >= max_chars) return line + "...";
    if (pending_space) {
      line.push_back(' ');
      ++chars;
      pending_space = false;
    }
    if (starts_char) ++chars;
    line.push_back(static_cast<char>(byte));
  }
  return line;
}

std::string first_prompt(const std::vector<transcript::Record> &records) {
  for (const auto &record : records) {
    const json::object *message = record.message.if_object();
    const json::value *role = message ? message->if_contains("role") : nullptr;
    if (!role || !role->is_string() || role->get_string() != "user") continue;
    try {
      return from_json<Message>(record.message).text();
    } catch (const ModelError &) {  // records are validated when read; nothing to preview
      return {};
    }
  }
  return {};
}

}  // namespace amplifier::session_store
