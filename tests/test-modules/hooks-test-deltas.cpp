// hooks-test-deltas: a typed delta hook (ABI 1.5 hook_register_delta) that writes down every
// content_block:delta it is given, one line each, for the tests of that path in process and
// behind `isolation: process`:
//   typed <block_index> <kind> <text>     a delta given typed
//   json <delta.type, or "partial">       a delta given as JSON (to the fallback handler)
// Config: {record: PATH (required), json_fallback: true, rewrite: false}. With `rewrite`, a
// JSON hook of its own at a lower priority first replaces every text delta's text with
// "REWRITTEN:<text>" (a `modify`, as hooks-redaction's), so the typed hook sees a payload
// another hook modified. The first line written is "registered <status>".
#include "amplifier_sdk.hpp"

#include <boost/json.hpp>

#include <fstream>
#include <mutex>
#include <string>

namespace {

namespace json = boost::json;

class HooksTestDeltas final : public amp::sdk::HookModule {
 public:
  HooksTestDeltas(amp::sdk::Host host, std::string_view config_json) : HookModule(host) {
    const json::object config = json::parse(config_json).as_object();
    record_.open(std::string(config.at("record").as_string()), std::ios::app);
    const bool fallback = !config.contains("json_fallback") || config.at("json_fallback").as_bool();
    if (config.contains("rewrite") && config.at("rewrite").as_bool())
      this->host().hook_register("content_block:delta", 10, "hooks-test-deltas-rewrite",
                                 &HooksTestDeltas::rewrite, this);
    const amp_status status = this->host().hook_register_delta(
        20, "hooks-test-deltas", &HooksTestDeltas::on_delta, fallback ? &HooksTestDeltas::on_json : nullptr,
        this);
    write("registered " + std::to_string(static_cast<int>(status)));
  }

 private:
  void write(const std::string &line) {
    std::lock_guard lock(mutex_);
    record_ << line << '\n' << std::flush;
  }

  static amp_status on_delta(void *self, const amp_hook_delta *delta) {
    static_cast<HooksTestDeltas *>(self)->write(
        "typed " + std::to_string(delta->block_index) + " " +
        std::to_string(static_cast<int>(delta->kind)) + " " +
        std::string(amp::sdk::from_amp(delta->text)));
    return AMP_OK;
  }

  static amp_status on_json(void *self, amp_str, amp_str data_json, amp_writer *) {
    const json::object data = json::parse(amp::sdk::from_amp(data_json)).as_object();
    const json::value *delta = data.if_contains("delta");
    const std::string type = delta && delta->is_object() && delta->as_object().contains("type")
                                 ? std::string(delta->as_object().at("type").as_string())
                                 : "partial";
    static_cast<HooksTestDeltas *>(self)->write("json " + type);
    return AMP_OK;
  }

  static amp_status rewrite(void *, amp_str, amp_str data_json, amp_writer *result) {
    json::object data = json::parse(amp::sdk::from_amp(data_json)).as_object();
    json::value *delta = data.if_contains("delta");
    if (!delta || !delta->is_object() || delta->as_object().if_contains("type") == nullptr ||
        delta->as_object().at("type") != "text")
      return AMP_OK;
    json::object &fields = delta->as_object();
    fields["text"] = "REWRITTEN:" + std::string(fields.at("text").as_string());
    amp::sdk::write_to(result, json::serialize(json::object{{"action", "modify"}, {"data", data}}));
    return AMP_OK;
  }

  std::mutex mutex_;
  std::ofstream record_;
};

}  // namespace

AMP_DEFINE_MODULE(HooksTestDeltas, "hooks-test-deltas", "1.0.0",
                  "Test hook: records the content deltas it is given typed or as JSON")
