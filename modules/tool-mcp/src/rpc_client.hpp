// JSON-RPC 2.0 over a Channel, as an MCP client speaks it: numbered requests answered by id,
// notifications both ways, and the few requests a server may send us (ping is answered; the
// rest get "method not found", since this client declares no such capability).
//
// Whatever the server sends is checked: text that is not JSON, or JSON that is not JSON-RPC,
// is logged and dropped (a server printing to stdout by mistake must not break the session);
// a response to a pending request that has neither result nor error fails that request with a
// protocol error. No server input can crash the client or make a request wait past its
// deadline.
#pragma once
#include "channel.hpp"

#include "amplifier_sdk.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

namespace tool_mcp {

using Clock = std::chrono::steady_clock;
using LogFn = std::function<void(amp_log_level level, const std::string &message)>;

struct RpcOutcome {
  enum class Status {
    ok,         // `result` holds the result
    error,      // the server answered with a JSON-RPC error: `code`, `message`
    timeout,    // the deadline passed (the server was told to cancel, when cancellable)
    cancelled,  // the caller cancelled (likewise)
    failed,     // the connection failed: `message`
    invalid,    // the answer was not valid JSON-RPC: `message`
  };
  Status status = Status::failed;
  boost::json::value result;
  std::int64_t code = 0;
  std::string message;
};

class RpcClient {
 public:
  struct Handlers {
    // A notification from the server (`params` empty when it had none). Runs on the channel's
    // thread: it must not make requests itself.
    std::function<void(std::string_view method, const boost::json::object &params)> on_notification;
    // The connection is gone; every request still waiting has failed with `reason`.
    std::function<void(const std::string &reason)> on_closed;
    LogFn log;
  };

  RpcClient(std::unique_ptr<Channel> channel, Handlers handlers);
  ~RpcClient();
  RpcClient(const RpcClient &) = delete;
  RpcClient &operator=(const RpcClient &) = delete;

  // Opens the channel; throws with the reason.
  void open();
  // Sends a request and waits for its answer, until `deadline` or until `cancelled` (polled
  // every 50 ms) returns true. A request given up is announced to the server with
  // notifications/cancelled when `cancellable` (MCP forbids it for initialize).
  RpcOutcome request(std::string_view method, boost::json::object params,
                     Clock::time_point deadline, const std::function<bool()> &cancelled = {},
                     bool cancellable = true);
  void notify(std::string_view method, boost::json::object params = {});
  // Closes the channel; requests still waiting fail. Idempotent.
  void close();
  bool is_closed() const;
  Channel &channel() { return *channel_; }

 private:
  void on_message(std::string_view text);
  void on_one(const boost::json::value &message);
  void on_response(const boost::json::object &message);
  void on_server_request(const boost::json::object &message);
  void on_request_ended(RequestId id, const std::optional<std::string> &failure);
  void on_closed(const std::string &reason);
  void settle(RequestId id, RpcOutcome outcome);
  void give_up(RequestId id, std::string_view reason, bool cancellable);
  void drop(std::string_view what, std::string_view text);

  std::unique_ptr<Channel> channel_;
  Handlers handlers_;
  mutable std::mutex mutex_;
  std::condition_variable settled_;
  std::map<RequestId, std::optional<RpcOutcome>> pending_;  // nullopt until answered
  RequestId next_id_ = 1;
  bool closed_ = false;
  std::string closed_reason_;
  std::size_t dropped_ = 0;  // messages dropped so far (the first few are logged)
};

}  // namespace tool_mcp
