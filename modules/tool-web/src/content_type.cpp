#include "content_type.hpp"

#include "amplifier/module_support/file_tools.hpp"

#include <boost/algorithm/string/case_conv.hpp>
#include <boost/algorithm/string/trim.hpp>

#include <cctype>

namespace tool_web {

namespace {

std::string lower(std::string_view text) {
  return boost::algorithm::to_lower_copy(std::string(text));
}

std::string trim(std::string_view text) { return boost::algorithm::trim_copy(std::string(text)); }

std::string unquote(std::string_view raw) {
  std::string text = trim(raw);
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') &&
      text.back() == text.front())
    text = text.substr(1, text.size() - 2);
  return text;
}

bool has_nul(std::string_view body) {
  return body.substr(0, 4096).find('\0') != std::string_view::npos;
}

bool looks_like_html(std::string_view body) {
  const std::string start = lower(body.substr(0, 512));
  const auto first = start.find_first_not_of(" \t\r\n\xef\xbb\xbf");
  if (first == std::string::npos) return false;
  return start.compare(first, 14, "<!doctype html") == 0 || start.compare(first, 5, "<html") == 0;
}

bool is_json_type(std::string_view type) {
  return type == "application/json" || type.ends_with("+json") || type == "text/json";
}

bool is_textual_type(std::string_view type) {
  if (type.starts_with("text/")) return true;
  for (std::string_view textual :
       {"application/xml", "application/javascript", "application/x-javascript",
        "application/ecmascript", "application/x-yaml", "application/yaml", "application/toml",
        "application/x-sh", "application/sql", "application/graphql", "application/x-ndjson"})
    if (type == textual) return true;
  return type.ends_with("+xml");
}

void append_utf8(std::string &out, unsigned code_point) {
  if (code_point < 0x80) {
    out += static_cast<char>(code_point);
  } else if (code_point < 0x800) {
    out += static_cast<char>(0xC0 | (code_point >> 6));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else {
    out += static_cast<char>(0xE0 | (code_point >> 12));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  }
}

}  // namespace

ContentType parse_content_type(std::string_view header) {
  ContentType type;
  const auto semicolon = header.find(';');
  type.media_type = lower(trim(header.substr(0, semicolon)));
  std::string_view rest = semicolon == std::string_view::npos ? "" : header.substr(semicolon + 1);
  while (!rest.empty()) {
    const auto next = rest.find(';');
    const std::string parameter = trim(rest.substr(0, next));
    rest = next == std::string_view::npos ? "" : rest.substr(next + 1);
    const auto equals = parameter.find('=');
    if (equals != std::string::npos && lower(trim(parameter.substr(0, equals))) == "charset")
      type.charset = lower(unquote(parameter.substr(equals + 1)));
  }
  return type;
}

ContentKind classify(const ContentType &type, std::string_view body) {
  const std::string &media = type.media_type;
  if (media.empty()) {
    if (has_nul(body)) return ContentKind::binary;
    return looks_like_html(body) ? ContentKind::html : ContentKind::text;
  }
  ContentKind kind = ContentKind::binary;
  if (media == "text/html" || media == "application/xhtml+xml")
    kind = ContentKind::html;
  else if (is_json_type(media))
    kind = ContentKind::json;
  else if (is_textual_type(media))
    kind = ContentKind::text;
  return kind != ContentKind::binary && has_nul(body) ? ContentKind::binary : kind;
}

std::string meta_charset(std::string_view html) {
  const std::string start = lower(html.substr(0, 2048));
  const auto at = start.find("charset=");
  if (at == std::string::npos || start.rfind("<meta", at) == std::string::npos) return {};
  std::size_t begin = at + 8;
  while (begin < start.size() && (start[begin] == '"' || start[begin] == '\'')) ++begin;
  std::size_t end = begin;
  while (end < start.size() && (std::isalnum(static_cast<unsigned char>(start[end])) ||
                                start[end] == '-' || start[end] == '_'))
    ++end;
  return start.substr(begin, end - begin);
}

std::string to_utf8(std::string_view body, std::string_view charset) {
  const bool latin1 = charset == "iso-8859-1" || charset == "latin1" || charset == "latin-1" ||
                      charset == "windows-1252" || charset == "cp1252" || charset == "us-ascii" ||
                      charset == "ascii";
  if (!latin1) return tool_filesystem::to_valid_utf8(body);
  std::string out;
  out.reserve(body.size() + body.size() / 8);
  for (const char c : body) append_utf8(out, static_cast<unsigned char>(c));
  return out;
}

}  // namespace tool_web
