// Transcript lines: encoding one message, decoding a whole transcript (either format).
#include "amplifier/legacy.hpp"
#include "amplifier/transcript.hpp"
#include "line_reader.hpp"

#include <boost/json/serialize.hpp>

namespace amplifier::transcript {
namespace json = boost::json;

json::object origin_json(const Origin &origin) {
  json::object out{{"provider", origin.provider}};
  if (origin.module) out["module"] = *origin.module;
  if (origin.model) out["model"] = *origin.model;
  return out;
}

namespace {

std::optional<std::string> string_field(const json::object &object, std::string_view key) {
  const json::value *value = object.if_contains(key);
  if (value == nullptr || !value->is_string()) return std::nullopt;
  return std::string(value->get_string());
}

}  // namespace

// Origin is advisory (it only decides which blocks a resume may replay), so a damaged one is
// dropped rather than costing the message.
std::optional<Origin> origin_from_json(const json::value &value) {
  if (!value.is_object()) return std::nullopt;
  auto provider = string_field(value.get_object(), "provider");
  if (!provider) return std::nullopt;
  return Origin{*provider, string_field(value.get_object(), "module"),
                string_field(value.get_object(), "model")};
}

namespace {

std::optional<Origin> read_origin(const json::object &record) {
  const json::value *value = record.if_contains("origin");
  return value == nullptr ? std::nullopt : origin_from_json(*value);
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

namespace {

// Turns lines, wherever they come from (a text in memory, a file read line by line), into
// records and the transcript's account of everything else.
class Decoder {
 public:
  explicit Decoder(Transcript &summary) : summary_(summary) {}

  // A line that ended with '\n': `end` is the offset just past that '\n'.
  std::optional<Record> complete_line(std::size_t number, std::string_view line,
                                      std::uint64_t end) {
    summary_.intact_bytes = end;
    if (is_blank(line)) return std::nullopt;
    LineOutcome outcome = decode_line(line);
    if (!outcome.record) {
      if (outcome.newer_format) ++summary_.newer_format_lines;
      summary_.skipped.push_back({number, std::move(outcome.problem)});
      return std::nullopt;
    }
    outcome.record->line = number;
    if (outcome.record->converted_from_legacy) ++summary_.legacy_records;
    return std::move(outcome.record);
  }

  // No newline: the write of this line never finished. Whatever it holds is not data, even
  // when it happens to parse.
  void torn_tail(std::size_t number, std::uint64_t bytes) {
    summary_.torn_tail = true;
    summary_.skipped.push_back({number, "incomplete last line (" + std::to_string(bytes) +
                                            " bytes without a newline): an interrupted write; "
                                            "skipped"});
  }

 private:
  Transcript &summary_;
};

[[noreturn]] void throw_history_too_large(const std::filesystem::path &file, std::uint64_t size,
                                          std::uint64_t limit) {
  throw TranscriptLimitError(
      file.string() + " is " + std::to_string(size) + " bytes, more than max_history_bytes (" +
          std::to_string(limit) +
          " bytes), so it is not loaded into memory; raise max_history_bytes to load it, or "
          "start a new session (the transcript stays as it is)",
      "max_history_bytes", limit);
}

}  // namespace

Transcript parse_transcript(std::string_view text) {
  Transcript transcript;
  Decoder decoder(transcript);
  std::size_t start = 0;
  for (std::size_t number = 1; start < text.size(); ++number) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      decoder.torn_tail(number, text.size() - start);
      break;
    }
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (auto record = decoder.complete_line(number, line, start))
      transcript.records.push_back(std::move(*record));
  }
  return transcript;
}

Transcript read_transcript(const std::filesystem::path &file,
                           const std::function<bool(Record &&)> &on_record,
                           const ReadLimits &limits) {
  detail::LineReader reader(file, limits.max_line_bytes);
  const std::uint64_t history_limit = limits.max_history_bytes;
  if (history_limit != 0 && reader.size_at_open() > history_limit)
    throw_history_too_large(file, reader.size_at_open(), history_limit);
  Transcript transcript;
  Decoder decoder(transcript);
  std::uint64_t consumed = 0;
  for (std::size_t number = 1;; ++number) {
    const auto line = reader.next();
    if (!line) break;
    consumed += line->bytes;
    // The file may have grown since it was opened.
    if (history_limit != 0 && consumed > history_limit)
      throw_history_too_large(file, consumed, history_limit);
    if (!line->complete) {
      decoder.torn_tail(number, line->bytes);
      break;
    }
    auto record = decoder.complete_line(number, line->text, consumed);
    if (record && !on_record(std::move(*record))) break;
  }
  return transcript;
}

Transcript load_transcript(const std::filesystem::path &file, const ReadLimits &limits) {
  std::vector<Record> records;
  Transcript transcript = read_transcript(
      file,
      [&](Record &&record) {
        records.push_back(std::move(record));
        return true;
      },
      limits);
  transcript.records = std::move(records);
  return transcript;
}

}  // namespace amplifier::transcript
