// hooks-test-ask: asks the user before the tools its config names run (a tool:pre ask_user),
// for tests of the approval path that do not depend on hooks-approval.
// Config: {tools: ["c_upper"], timeout_seconds: 30}.
#include "amplifier_sdk.hpp"

#include <boost/json.hpp>

#include <set>
#include <string>

namespace {

namespace json = boost::json;

class HooksTestAsk final : public amp::sdk::HookModule {
 public:
  HooksTestAsk(amp::sdk::Host host, std::string_view config_json) : HookModule(host) {
    json::value config = json::parse(config_json.empty() ? "{}" : config_json);
    if (const json::object *o = config.if_object()) {
      if (auto *tools = o->if_contains("tools"); tools && tools->is_array())
        for (const auto &t : tools->get_array())
          if (t.is_string()) tools_.emplace(t.get_string());
      if (auto *t = o->if_contains("timeout_seconds")) timeout_ = t->to_number<double>();
    }
    this->host().hook_register("tool:pre", 0, "hooks-test-ask", &HooksTestAsk::on_tool_pre, this);
  }

 private:
  static amp_status on_tool_pre(void *self, amp_str, amp_str data_json, amp_writer *result) {
    auto *me = static_cast<HooksTestAsk *>(self);
    try {
      json::value data = json::parse(amp::sdk::from_amp(data_json));
      const json::value *tool = data.as_object().if_contains("tool_name");
      if (!tool || !tool->is_string() || !me->tools_.contains(std::string(tool->get_string())))
        return AMP_OK;
      json::object answer{{"action", "ask_user"},
                          {"approval_prompt", "Allow tool " + std::string(tool->get_string()) + "?"},
                          {"approval_timeout", me->timeout_},
                          {"approval_default", "deny"}};
      amp::sdk::write_to(result, json::serialize(answer));
      return AMP_OK;
    } catch (...) {
      return AMP_ERROR;
    }
  }

  std::set<std::string, std::less<>> tools_;
  double timeout_ = 30;
};

}  // namespace

AMP_DEFINE_MODULE(HooksTestAsk, "hooks-test-ask", "1.0.0",
                  "Test hook: asks for approval before the configured tools run")
