#include "page_result.hpp"

#include "content_type.hpp"
#include "html_text.hpp"

#include "amplifier/module_support/json_util.hpp"
#include "amplifier/module_support/tool_result.hpp"

#include <boost/json/serialize.hpp>

namespace tool_web {

namespace json = boost::json;
namespace ms = amplifier::module_support;

namespace {

const char *kind_name(ContentKind kind) {
  switch (kind) {
    case ContentKind::html:
      return "html";
    case ContentKind::json:
      return "json";
    case ContentKind::text:
      return "text";
    case ContentKind::binary:
      break;
  }
  return "binary";
}

struct Converted {
  std::string title;
  std::string text;
  bool cut_at_depth = false;
};

Converted convert(const FetchedPage &page, const ContentType &type, ContentKind kind) {
  if (kind != ContentKind::html) return {{}, to_utf8(page.body, type.charset)};
  const std::string charset = type.charset.empty() ? meta_charset(page.body) : type.charset;
  HtmlPage html = html_to_text(to_utf8(page.body, charset), page.final_url);
  return {std::move(html.title), std::move(html.text), html.cut_at_depth};
}

std::string notes(const FetchedPage &page, const TextLimits &limits, const Converted &converted,
                  std::size_t shown, std::size_t total) {
  std::string out;
  if (converted.cut_at_depth)
    out += "\n\n[The page nests elements more than " + std::to_string(kMaxNesting) +
           " deep: the rest of it was not converted.]";
  if (shown < total)
    out += "\n\n[Cut: showing " + std::to_string(shown) + " of " + std::to_string(total) +
           " characters (max_chars " + std::to_string(limits.max_chars) +
           "). Ask again with a larger max_chars, up to " + std::to_string(limits.max_chars_limit) +
           ", for more.]";
  if (page.body_cut)
    out += "\n\n[The response is larger than " + std::to_string(limits.max_body_bytes) +
           " bytes (max_body_bytes): only its beginning was read.]";
  return out;
}

}  // namespace

std::string page_result(const FetchedPage &page, const TextLimits &limits) {
  const ContentType type = parse_content_type(page.content_type);
  const ContentKind kind = classify(type, page.body);
  json::object extra{{"url", page.requested_url},
                     {"final_url", page.final_url},
                     {"status", page.status},
                     {"content_type", page.content_type}};
  if (kind == ContentKind::binary) {
    const std::string what = type.media_type.empty() ? "binary data" : type.media_type;
    return failure_result("web_fetch: " + page.final_url + " is " + what +
                              ", which is not text; only HTML, text, JSON and XML are fetched",
                          std::move(extra));
  }
  Converted converted = convert(page, type, kind);
  const std::size_t total = ms::utf8_length(converted.text);
  const std::size_t keep = ms::utf8_prefix_chars(converted.text, limits.max_chars);
  const std::size_t shown = ms::utf8_length(std::string_view(converted.text).substr(0, keep));
  std::string output;
  if (!converted.title.empty()) output += "Title: " + converted.title + "\n";
  output += "URL: " + page.final_url + "\n\n";
  output += std::string_view(converted.text).substr(0, keep);
  output += notes(page, limits, converted, shown, total);
  json::array redirects;
  for (const auto &url : page.redirects) redirects.emplace_back(url);
  extra["title"] = converted.title;
  extra["kind"] = kind_name(kind);
  extra["redirects"] = std::move(redirects);
  extra["total_chars"] = total;
  extra["truncated"] = shown < total;
  extra["body_truncated"] = page.body_cut;
  return ms::tool_result(true, output, std::move(extra));
}

std::string failure_result(const std::string &message, json::object extra) {
  return ms::tool_result(false, message, std::move(extra));
}

}  // namespace tool_web
