// bad-invalid-json: a provider that breaks the JSON contract of the asynchronous calls.
// Config `mode` picks the fault:
//   "finish"      (default) the terminal payload on AMP_OK is truncated JSON;
//   "wrong-shape" the terminal payload on AMP_OK is valid JSON but not a ChatResponse object;
//   "error"       the call fails (AMP_ERROR) with a payload that is not JSON;
//   "event"       one stream event is truncated JSON; the call then finishes correctly with
//                 the text "intact after a broken event".
#include "test_module_support.hpp"

#include <stdexcept>
#include <string>

namespace {

enum class Fault { TruncatedFinish, WrongShapeFinish, InvalidErrorPayload, TruncatedEvent };

Fault parse_fault(const std::optional<std::string> &mode_json) {
  if (!mode_json || *mode_json == R"("finish")") return Fault::TruncatedFinish;
  if (*mode_json == R"("wrong-shape")") return Fault::WrongShapeFinish;
  if (*mode_json == R"("error")") return Fault::InvalidErrorPayload;
  if (*mode_json == R"("event")") return Fault::TruncatedEvent;
  throw std::runtime_error("unknown mode " + *mode_json +
                           " (expected \"finish\", \"wrong-shape\", \"error\" or \"event\")");
}

class InvalidJsonProvider final : public amp::sdk::ProviderModule {
 public:
  InvalidJsonProvider(amp::sdk::Host host, std::string_view)
      : ProviderModule(host), fault_(parse_fault(this->host().config("mode"))) {}

  std::string info() override { return amp_test::provider_info_json("bad-invalid-json"); }

  // Overridden although the default would do: the SDK takes `&M::list_models`, which does

  // not deduce when the function is inherited.

  std::string list_models() override { return "[]"; }

  void complete(amp_call_id call, std::string_view) override {
    const auto &h = host();
    switch (fault_) {
      case Fault::TruncatedFinish:
        h.call_finish(call, AMP_OK, R"({"content":[{"type":"text","text":"trunc)");
        break;
      case Fault::WrongShapeFinish:
        h.call_finish(call, AMP_OK, "[1,2,3]");
        break;
      case Fault::InvalidErrorPayload:
        h.call_finish(call, AMP_ERROR, "provider fell over <html>502</html>");
        break;
      case Fault::TruncatedEvent:
        h.call_event(call, R"({"type":"content_block_start","index":0,"block":{"type":"text"}})");
        h.call_event(call, R"({"type":"content_block_delta","index":0,"delta":{"type":"te)");
        h.call_event(call, amp_test::text_delta_event_json("intact after a broken event"));
        h.call_event(call,
                     R"({"type":"content_block_end","index":0,"block":{"type":"text","text":)"
                     R"("intact after a broken event"}})");
        h.call_finish(call, AMP_OK, amp_test::text_response_json("intact after a broken event"));
        break;
    }
  }

 private:
  Fault fault_;
};

}  // namespace

AMP_DEFINE_MODULE(InvalidJsonProvider, "bad-invalid-json", "1.0.0",
                  "Test module: a provider that reports invalid JSON")
