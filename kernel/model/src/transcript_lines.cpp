// Transcript lines: encoding one message, decoding a whole transcript (either format).
#include "amplifier/legacy.hpp"
#include "amplifier/transcript.hpp"

#include <boost/json/serialize.hpp>

namespace amplifier::transcript {
namespace json = boost::json;

namespace {

json::object origin_json(const Origin &origin) {
  json::object out{{"provider", origin.provider}};
  if (origin.module) out["module"] = *origin.module;
  if (origin.model) out["model"] = *origin.model;
  return out;
}

std::optional<std::string> string_field(const json::object &object, std::string_view key) {
  const json::value *value = object.if_contains(key);
  if (value == nullptr || !value->is_string()) return std::nullopt;
  return std::string(value->get_string());
}

// Origin is advisory (it only decides which blocks a resume may replay), so a damaged one is
// dropped rather than costing the message.
std::optional<Origin> read_origin(const json::object &record) {
  const json::value *value = record.if_contains("origin");
  if (value == nullptr || !value->is_object()) return std::nullopt;
  auto provider = string_field(value->get_object(), "provider");
  if (!provider) return std::nullopt;
  return Origin{*provider, string_field(value->get_object(), "module"),
                string_field(value->get_object(), "model")};
}

struct LineOutcome {
  std::optional<Record> record;
  std::string problem;  // why the line was skipped, when there is no record
  bool newer_format = false;
};

LineOutcome skip(std::string problem, bool newer_format = false) {
  return LineOutcome{std::nullopt, std::move(problem), newer_format};
}

Record record_of(const json::value &message, bool &converted) {
  Record record;
  record.message = read_stored_message(message, &converted);
  record.converted_from_legacy = converted;
  return record;
}

LineOutcome decode_versioned(const json::object &object) {
  const json::value &version = object.at("v");
  if (!version.is_int64() && !version.is_uint64())
    return skip("\"v\" is not an integer format version");
  if (version.to_number<std::int64_t>() > kFormatVersion)
    return skip("written in transcript format " + json::serialize(version) +
                    ", newer than this program reads (" + std::to_string(kFormatVersion) + ")",
                true);
  const json::value *message = object.if_contains("message");
  if (message == nullptr) return skip("the record has no \"message\"");
  bool converted = false;
  Record record = record_of(*message, converted);
  record.origin = read_origin(object);
  record.timestamp = string_field(object, "ts");
  return LineOutcome{std::move(record), {}, false};
}

LineOutcome decode_line(std::string_view text) {
  json::value parsed;
  try {
    parsed = parse_json(text);
  } catch (const ModelError &e) {
    return skip(std::string("not valid JSON (") + e.what() + ")");
  }
  if (!parsed.is_object()) return skip("not a JSON object");
  const json::object &object = parsed.get_object();
  try {
    if (object.contains("v")) return decode_versioned(object);
    if (!object.contains("role")) return skip("neither a transcript record nor a message");
    bool converted = false;
    Record record = record_of(parsed, converted);
    return LineOutcome{std::move(record), {}, false};
  } catch (const ModelError &e) {
    return skip(std::string("not a valid message: ") + e.what());
  }
}

bool is_blank(std::string_view text) {
  return text.find_first_not_of(" \t\r") == std::string_view::npos;
}

}  // namespace

std::string encode_line(const json::value &message, const std::optional<Origin> &origin,
                        std::string_view timestamp) {
  json::object record{{"v", kFormatVersion}};
  if (!timestamp.empty()) record["ts"] = timestamp;
  record["message"] = message;
  if (origin) record["origin"] = origin_json(*origin);
  std::string line = json::serialize(record);
  line.push_back('\n');
  return line;
}

std::string encode_line(const Record &record) {
  return encode_line(record.message, record.origin, record.timestamp.value_or(""));
}

Transcript parse_transcript(std::string_view text) {
  Transcript transcript;
  std::size_t start = 0;
  for (std::size_t number = 1; start < text.size(); ++number) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      // No newline: the write of this line never finished. Whatever it holds is not data,
      // even when it happens to parse.
      transcript.torn_tail = true;
      transcript.skipped.push_back(
          {number, "incomplete last line (" + std::to_string(text.size() - start) +
                       " bytes without a newline): an interrupted write; skipped"});
      break;
    }
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    transcript.intact_bytes = start;
    if (is_blank(line)) continue;
    LineOutcome outcome = decode_line(line);
    if (!outcome.record) {
      if (outcome.newer_format) ++transcript.newer_format_lines;
      transcript.skipped.push_back({number, std::move(outcome.problem)});
      continue;
    }
    outcome.record->line = number;
    if (outcome.record->converted_from_legacy) ++transcript.legacy_records;
    transcript.records.push_back(std::move(*outcome.record));
  }
  return transcript;
}

Transcript load_transcript(const std::filesystem::path &file) {
  return parse_transcript(read_file(file));
}

}  // namespace amplifier::transcript
