// tool-web: the `web_fetch` tool. GETs an http(s) URL over the shared transport and returns
// the page as readable text (fetch_call.hpp for the exchange and its limits, html_text.hpp for
// the conversion). Bad input and every refusal or failure are tool results with success
// false and a message naming the problem; an immediate cancellation ends the call `cancelled`.
//
// THREADS: execute runs on the host's workers and only starts the fetch; the fetch runs on the
// library's shared I/O thread. The call table's destructor cancels and waits for the fetches
// still running, so nothing of an instance reaches the host after it is destroyed.
#include "fetch_call.hpp"
#include "page_result.hpp"
#include "web_config.hpp"
#include "web_url.hpp"

#include "amplifier/module_support/json_util.hpp"
#include "amplifier/provider/call_table.hpp"
#include "amplifier_sdk.hpp"

#include <boost/json/serialize.hpp>

namespace tool_web {
namespace {

namespace json = boost::json;
namespace ms = amplifier::module_support;

// Input the model sent that cannot be fetched: for the model to read.
class BadInput : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct FetchInput {
  WebUrl url;
  std::size_t max_chars = 0;
};

json::object web_fetch_spec(const WebConfig &config) {
  const std::string description =
      "Fetch a web page (http or https) and return it as readable text: HTML is converted "
      "(scripts, styles and navigation dropped; headings, lists and code kept; links as "
      "[text](absolute URL)), JSON and plain text come as they are. Redirects are followed "
      "(at most " +
      std::to_string(config.max_redirects) +
      "). The text is cut at max_chars characters (default " + std::to_string(config.max_chars) +
      ") with a note saying so. Binary content (images, PDFs, archives) is refused" +
      (config.addresses.allow_private ? "." : ", and so are private and local network addresses.");
  return {
      {"name", "web_fetch"},
      {"description", description},
      {"parameters",
       {{"type", "object"},
        {"properties",
         {{"url",
           {{"type", "string"}, {"minLength", 1}, {"description", "The http(s) URL to fetch"}}},
          {"max_chars",
           {{"type", "integer"},
            {"minimum", 1},
            {"maximum", config.max_chars_limit},
            {"description", "Characters of text to return at most"}}}}},
        {"required", json::array{"url"}},
        {"additionalProperties", false}}},
  };
}

FetchInput read_input(std::string_view input_json, const WebConfig &config) {
  json::object input;
  try {
    input = ms::parse_json_object(input_json, "web_fetch input");
  } catch (const std::invalid_argument &e) {
    throw BadInput(e.what());
  }
  for (const auto &[key, value] : input)
    if (key != "url" && key != "max_chars")
      throw BadInput("web_fetch: unknown parameter '" + std::string(key) + "' (url, max_chars)");
  const json::value *url = input.if_contains("url");
  if (!url || !url->is_string())
    throw BadInput(std::string("web_fetch: 'url' must be a string") +
                   (url ? ", got " + std::string(ms::describe_kind(*url)) : " and is missing"));
  FetchInput out;
  std::string problem;
  auto parsed = parse_web_url(url->get_string(), problem);
  if (!parsed) throw BadInput("web_fetch: " + problem);
  out.url = std::move(*parsed);
  out.max_chars = config.max_chars;
  if (const json::value *max = input.if_contains("max_chars"); max && !max->is_null()) {
    if (!ms::is_integral(*max) || ms::to_int64(*max) < 1 ||
        static_cast<std::uint64_t>(ms::to_int64(*max)) > config.max_chars_limit)
      throw BadInput("web_fetch: 'max_chars' must be an integer from 1 to " +
                     std::to_string(config.max_chars_limit) + ", got " + json::serialize(*max));
    out.max_chars = static_cast<std::size_t>(ms::to_int64(*max));
  }
  return out;
}

class WebTool final : public amp::sdk::ToolModule {
 public:
  WebTool(amp::sdk::Host host, std::string_view config_json)
      : ToolModule(host),
        config_(read_web_config(host, config_json)),
        calls_(host, "tool-web", client_options(config_)) {}

  std::string list_tools() override {
    return json::serialize(json::array{web_fetch_spec(config_)});
  }

  void execute(amp_call_id call, std::string_view tool, std::string_view input_json) override {
    if (tool != "web_fetch") {
      host().call_fail(call, "not_found", "tool-web has no tool '" + std::string(tool) + "'",
                       AMP_NOT_FOUND);
      return;
    }
    if (calls_.cancelled_before_start(call)) return;
    FetchInput input;
    try {
      input = read_input(input_json, config_);
    } catch (const BadInput &e) {
      host().call_finish(call, AMP_OK, failure_result(e.what()));
      return;
    }
    auto fetch =
        std::make_shared<FetchCall>(host(), call, config_, std::move(input.url), input.max_chars);
    calls_.start_http(call, fetch);
  }

  void cancel(amp_call_id call, amp_cancel_level level) override { calls_.cancel(call, level); }

 private:
  const WebConfig config_;
  amplifier::provider::CallTable calls_;  // after config_: its calls read it until they end
};

}  // namespace
}  // namespace tool_web

AMP_DEFINE_MODULE(
    tool_web::WebTool, "tool-web", "0.1.0",
    "web_fetch: an http(s) page as readable text, with size, redirect and address limits");
