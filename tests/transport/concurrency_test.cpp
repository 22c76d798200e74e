// Many concurrent streams on one io thread: the design goal that 1,000 streaming calls do not
// need 1,000 threads.
#include "test_support.hpp"

#include "amplifier/loopback/loopback_server.hpp"

#include <atomic>
#include <mutex>
#include <set>

namespace amplifier::transport {
namespace {

using loopback::LoopbackServer;
using loopback::ScriptedResponse;
using namespace std::chrono_literals;

TEST_CASE("concurrency: 1,000 concurrent streaming calls complete on one io thread") {
  constexpr int kCalls = 1000;
  const std::string stream = "event: a\ndata: {\"n\":1}\n\nevent: b\ndata: {\"n\":2}\n\nevent: c\ndata: {\"n\":3}\n\n";
  LoopbackServer server;
  ScriptedResponse paced = ScriptedResponse::sse(stream, {24});
  paced.piece_interval = 20ms;  // the streams overlap: every call is open at the same time
  server.set_default_response(paced);

  testing::ClientThread thread;
  struct Totals {
    std::mutex mutex;
    std::set<std::thread::id> callback_threads;
    std::atomic<int> events{0};
    std::atomic<int> successes{0};
    std::atomic<int> completed{0};
    std::atomic<int> max_in_flight{0};
    std::atomic<int> in_flight{0};
    std::promise<void> all_done;
  };
  auto totals = std::make_shared<Totals>();
  auto all_done = totals->all_done.get_future();
  for (int i = 0; i < kCalls; ++i) {
    CallHandlers handlers;
    handlers.on_head = [totals](const ResponseHead &, CallControl &) {
      const int now = ++totals->in_flight;
      int seen = totals->max_in_flight.load();
      while (now > seen && !totals->max_in_flight.compare_exchange_weak(seen, now)) {
      }
    };
    handlers.on_event = [totals](const SseEvent &, CallControl &control) {
      ++totals->events;
      control.mark_content_delivered();
      std::lock_guard lock(totals->mutex);
      totals->callback_threads.insert(std::this_thread::get_id());
    };
    handlers.on_complete = [totals](CallResult result) {
      --totals->in_flight;
      if (!result.error) ++totals->successes;
      if (++totals->completed == kCalls) totals->all_done.set_value();
    };
    CallSpec spec = testing::fast_retry_spec(server.base_url() + "/v1/messages");
    spec.retry.max_retries = 0;
    start_call(thread.client(), std::move(spec), std::move(handlers));
  }
  testing::wait_for(all_done, std::chrono::seconds(240));
  CHECK(totals->successes == kCalls);
  CHECK(totals->events == 3 * kCalls);
  CHECK(totals->callback_threads == std::set<std::thread::id>{thread.thread_id()});
  CHECK(totals->max_in_flight > 100);  // they really were concurrent
  CHECK(server.requests().size() == static_cast<std::size_t>(kCalls));
}

}  // namespace
}  // namespace amplifier::transport
