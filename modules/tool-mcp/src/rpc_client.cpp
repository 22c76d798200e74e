#include "rpc_client.hpp"

#include "amplifier/module_support/json_util.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace tool_mcp {
namespace {

namespace json = boost::json;
namespace ms = amplifier::module_support;
using namespace std::chrono_literals;

constexpr std::size_t kDroppedLogged = 5;
constexpr std::int64_t kMethodNotFound = -32601;

std::optional<RequestId> id_of(const json::object &message) {
  const json::value *id = message.if_contains("id");
  if (!id) return std::nullopt;
  if (id->is_int64()) return id->get_int64();
  if (id->is_uint64()) return static_cast<RequestId>(id->get_uint64());
  if (id->is_string()) {  // a server that echoes ids as strings
    try {
      return std::stoll(std::string(id->get_string()));
    } catch (...) {
    }
  }
  return std::nullopt;
}

RpcOutcome failure(RpcOutcome::Status status, std::string message) {
  RpcOutcome outcome;
  outcome.status = status;
  outcome.message = std::move(message);
  return outcome;
}

RpcOutcome error_outcome(const json::value &error) {
  RpcOutcome outcome;
  outcome.status = RpcOutcome::Status::error;
  if (!error.is_object()) {
    outcome.message = "the server answered with a malformed error: " + json::serialize(error);
    return outcome;
  }
  outcome.code = ms::count_at(error.get_object(), "code").value_or(0);
  outcome.message = std::string(ms::string_at(error.get_object(), "message"));
  if (outcome.message.empty()) outcome.message = "(no message)";
  return outcome;
}

}  // namespace

RpcClient::RpcClient(std::unique_ptr<Channel> channel, Handlers handlers)
    : channel_(std::move(channel)), handlers_(std::move(handlers)) {}

RpcClient::~RpcClient() { close(); }

void RpcClient::open() {
  ChannelEvents events;
  events.on_message = [this](std::string_view text) { on_message(text); };
  events.on_closed = [this](const std::string &reason) { on_closed(reason); };
  events.on_request_ended = [this](RequestId id, const std::optional<std::string> &failure) {
    on_request_ended(id, failure);
  };
  channel_->open(std::move(events));
}

RpcOutcome RpcClient::request(std::string_view method, json::object params,
                              Clock::time_point deadline, const std::function<bool()> &cancelled,
                              bool cancellable) {
  RequestId id;
  {
    std::lock_guard lock(mutex_);
    if (closed_) return failure(RpcOutcome::Status::failed, closed_reason_);
    id = next_id_++;
    pending_.emplace(id, std::nullopt);
  }
  json::object message{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.empty()) message["params"] = std::move(params);
  channel_->send(json::serialize(message), id);

  std::unique_lock lock(mutex_);
  for (;;) {
    auto &slot = pending_.at(id);
    if (slot) {
      RpcOutcome outcome = std::move(*slot);
      pending_.erase(id);
      return outcome;
    }
    const bool timed_out = Clock::now() >= deadline;
    if (timed_out || (cancelled && cancelled())) {
      pending_.erase(id);
      lock.unlock();
      give_up(id, timed_out ? "timeout" : "cancelled by the user", cancellable);
      return failure(timed_out ? RpcOutcome::Status::timeout : RpcOutcome::Status::cancelled,
                     timed_out ? "timed out" : "cancelled");
    }
    settled_.wait_until(lock, std::min(deadline, Clock::now() + 50ms));
  }
}

void RpcClient::give_up(RequestId id, std::string_view reason, bool cancellable) {
  channel_->abandon(id);
  if (cancellable) notify("notifications/cancelled", {{"requestId", id}, {"reason", reason}});
}

void RpcClient::notify(std::string_view method, json::object params) {
  if (is_closed()) return;
  json::object message{{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.empty()) message["params"] = std::move(params);
  channel_->send(json::serialize(message), std::nullopt);
}

void RpcClient::close() {
  {
    std::lock_guard lock(mutex_);
    if (!closed_) closed_reason_ = "the connection to the server was closed";
  }
  channel_->close();
  on_closed(closed_reason_);
}

bool RpcClient::is_closed() const {
  std::lock_guard lock(mutex_);
  return closed_;
}

void RpcClient::on_closed(const std::string &reason) {
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    closed_ = true;
    closed_reason_ = reason;
    for (auto &[id, slot] : pending_)
      if (!slot) slot = failure(RpcOutcome::Status::failed, reason);
  }
  settled_.notify_all();
  if (handlers_.on_closed) handlers_.on_closed(reason);
}

void RpcClient::on_request_ended(RequestId id, const std::optional<std::string> &failure_reason) {
  settle(id, failure(RpcOutcome::Status::failed,
                     failure_reason ? *failure_reason
                                    : "the server ended the exchange without answering"));
}

// Only the first outcome of a request counts: an answer after a failure is dropped.
void RpcClient::settle(RequestId id, RpcOutcome outcome) {
  {
    std::lock_guard lock(mutex_);
    auto it = pending_.find(id);
    if (it == pending_.end() || it->second) return;
    it->second = std::move(outcome);
  }
  settled_.notify_all();
}

void RpcClient::drop(std::string_view what, std::string_view text) {
  if (dropped_++ >= kDroppedLogged) return;
  handlers_.log(AMP_LOG_WARNING,
                "dropped " + std::string(what) + ": " + std::string(text.substr(0, 200)) +
                    (dropped_ == kDroppedLogged ? " (further ones not logged)" : ""));
}

void RpcClient::on_message(std::string_view text) {
  json::error_code ec;
  json::value message = json::parse(text, ec);
  if (ec) return drop("output that is not JSON", text);
  if (message.is_array()) {  // a batch (2025-03-26)
    for (const json::value &item : message.get_array()) on_one(item);
    return;
  }
  on_one(message);
}

void RpcClient::on_one(const json::value &message) {
  if (!message.is_object())
    return drop("a JSON-RPC message that is not an object", json::serialize(message));
  const json::object &object = message.get_object();
  const bool has_method = ms::string_at(object, "method").size() > 0;
  if (has_method && object.contains("id")) return on_server_request(object);
  if (has_method) {
    static const json::object kNoParams;
    const json::object *params = ms::object_at(object, "params");
    if (handlers_.on_notification)
      handlers_.on_notification(ms::string_at(object, "method"), params ? *params : kNoParams);
    return;
  }
  if (object.contains("id")) return on_response(object);
  drop("a message that is neither request, notification nor response", json::serialize(message));
}

void RpcClient::on_response(const json::object &message) {
  const std::optional<RequestId> id = id_of(message);
  if (!id) return drop("a response with an id this client never sent", json::serialize(message));
  if (const json::value *error = message.if_contains("error"))
    return settle(*id, error_outcome(*error));
  const json::value *result = message.if_contains("result");
  if (!result)
    return settle(*id, failure(RpcOutcome::Status::invalid,
                               "the server sent an invalid JSON-RPC response (neither result "
                               "nor error)"));
  RpcOutcome outcome;
  outcome.status = RpcOutcome::Status::ok;
  outcome.result = *result;
  settle(*id, std::move(outcome));
}

// Runs on the channel's thread; the answer is only queued for sending, never awaited.
void RpcClient::on_server_request(const json::object &message) {
  const std::string_view method = ms::string_at(message, "method");
  json::object answer{{"jsonrpc", "2.0"}, {"id", message.at("id")}};
  if (method == "ping")
    answer["result"] = json::object{};
  else
    answer["error"] = {
        {"code", kMethodNotFound},
        {"message", "amplifier's MCP client does not support " + std::string(method)}};
  channel_->send(json::serialize(answer), std::nullopt);
}

}  // namespace tool_mcp
