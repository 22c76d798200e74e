#include "mcp_server.hpp"

#include "result_mapping.hpp"

#include "amplifier/module_support/json_util.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cstdio>
#include <set>

namespace tool_mcp {
namespace {

namespace json = boost::json;
namespace ms = amplifier::module_support;
using namespace std::chrono_literals;

// A connection that stayed up this long was healthy: the next failure starts the backoff anew.
constexpr auto kStableConnection = 30s;
constexpr int kMaxToolPages = 1000;

// Thrown while connecting: the reason the server is not usable.
class ConnectFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string seconds_text(std::chrono::milliseconds duration) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", duration.count() / 1000.0);
  return text;
}

std::string describe(const RpcOutcome &outcome) {
  switch (outcome.status) {
    case RpcOutcome::Status::ok:
      return "succeeded";
    case RpcOutcome::Status::error:
      return "was answered with error " + std::to_string(outcome.code) + ": " + outcome.message;
    case RpcOutcome::Status::timeout:
      return "timed out";
    case RpcOutcome::Status::cancelled:
      return "was cancelled";
    case RpcOutcome::Status::failed:
    case RpcOutcome::Status::invalid:
      return "failed: " + outcome.message;
  }
  return "failed";
}

const json::object &result_object(const RpcOutcome &outcome, std::string_view method) {
  if (outcome.status != RpcOutcome::Status::ok)
    throw ConnectFailure(std::string(method) + " " + describe(outcome));
  if (!outcome.result.is_object())
    throw ConnectFailure(std::string(method) + " answered with " +
                         std::string(ms::describe_kind(outcome.result)) + ", not an object");
  return outcome.result.get_object();
}

bool supported(std::string_view version) {
  return std::find(std::begin(kProtocolVersions), std::end(kProtocolVersions), version) !=
         std::end(kProtocolVersions);
}

// Tools whose entry is usable (an object with a name), each name once.
void add_valid_tools(const json::array &page, json::array &tools, std::set<std::string> &seen,
                     const LogFn &log) {
  for (const json::value &tool : page) {
    const json::object *object = tool.if_object();
    const std::string_view name = object ? ms::string_at(*object, "name") : std::string_view();
    if (name.empty() || !seen.insert(std::string(name)).second) {
      log(AMP_LOG_WARNING, "tools/list has an entry without a name, or a repeated one; skipped: " +
                               json::serialize(tool).substr(0, 200));
      continue;
    }
    tools.push_back(*object);
  }
}

}  // namespace

McpServer::McpServer(ServerConfig config, Limits limits, ChannelFactory factory,
                     Callbacks callbacks)
    : config_(std::move(config)),
      limits_(limits),
      factory_(std::move(factory)),
      callbacks_(std::move(callbacks)) {}

McpServer::~McpServer() {
  request_stop();
  join();
}

void McpServer::start() {
  supervisor_ = std::thread([this] { supervise(); });
}

bool McpServer::wait_first_attempt(Clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  return changed_.wait_until(lock, deadline, [&] { return first_attempt_done_; });
}

void McpServer::request_stop() {
  std::lock_guard lock(mutex_);
  stopping_ = true;
  changed_.notify_all();
}

void McpServer::join() {
  if (supervisor_.joinable()) supervisor_.join();
}

json::array McpServer::tools() const {
  std::lock_guard lock(mutex_);
  return tools_;
}

std::string McpServer::problem() const {
  std::lock_guard lock(mutex_);
  return problem_;
}

void McpServer::supervise() {
  std::chrono::milliseconds delay = limits_.reconnect_min_delay;
  for (;;) {
    const auto started = Clock::now();
    const bool served = connect_and_serve();
    std::unique_lock lock(mutex_);
    if (stopping_) return;
    if (served && Clock::now() - started > kStableConnection) delay = limits_.reconnect_min_delay;
    next_attempt_ = Clock::now() + delay;
    callbacks_.log(AMP_LOG_WARNING, problem_ + "; reconnecting in " + seconds_text(delay));
    changed_.wait_until(lock, next_attempt_, [&] { return stopping_; });
    if (stopping_) return;
    delay = std::min(delay * 2, limits_.reconnect_max_delay);
  }
}

// False when no connection could be made.
bool McpServer::connect_and_serve() {
  std::shared_ptr<RpcClient> rpc;
  try {
    rpc = connect();
  } catch (const std::exception &e) {
    set_down(e.what());
    return false;
  }
  serve(rpc);
  return true;
}

std::shared_ptr<RpcClient> McpServer::connect() {
  {
    std::lock_guard lock(mutex_);
    connection_lost_ = false;
    relist_ = false;
  }
  RpcClient::Handlers handlers;
  handlers.log = callbacks_.log;
  handlers.on_notification = [this](std::string_view method, const json::object &params) {
    if (method == "notifications/tools/list_changed") {
      std::lock_guard lock(mutex_);
      relist_ = true;
      changed_.notify_all();
    } else if (method == "notifications/message") {
      callbacks_.log(AMP_LOG_DEBUG, "log: " + json::serialize(params).substr(0, 2000));
    }
  };
  handlers.on_closed = [this](const std::string &reason) {
    std::lock_guard lock(mutex_);
    if (!connection_lost_ && rpc_) problem_ = reason;
    connection_lost_ = true;
    changed_.notify_all();
  };
  auto rpc = std::make_shared<RpcClient>(factory_(config_), std::move(handlers));
  try {
    rpc->open();
    handshake(*rpc);
    set_tools(list_tools(*rpc));
  } catch (const std::exception &e) {
    // Known before the process is stopped (which takes a moment), so a caller waiting for the
    // first attempt learns why.
    const std::string reason = "cannot connect to " + rpc->channel().describe() + ": " + e.what();
    set_down(reason);
    rpc->close();
    throw ConnectFailure(reason);
  }
  return rpc;
}

void McpServer::handshake(RpcClient &rpc) {
  const json::object params{{"protocolVersion", kProtocolVersions[0]},
                            {"capabilities", json::object{}},
                            {"clientInfo", {{"name", "amplifier"}, {"version", "0.1.0"}}}};
  auto stop_requested = [this] {
    std::lock_guard lock(mutex_);
    return stopping_;
  };
  // MCP: initialize must not be cancelled; the connection is closed instead.
  RpcOutcome outcome = rpc.request("initialize", params, Clock::now() + limits_.startup_timeout,
                                   stop_requested, false);
  if (outcome.status == RpcOutcome::Status::timeout)
    throw ConnectFailure("no answer to initialize within " + seconds_text(limits_.startup_timeout) +
                         " (tool-mcp startup_timeout_seconds)");
  const json::object &result = result_object(outcome, "initialize");
  const std::string version(ms::string_at(result, "protocolVersion"));
  if (!supported(version))
    throw ConnectFailure(
        "the server speaks MCP protocol version '" + version +
        "', which this client does not (it speaks " + std::string(kProtocolVersions[0]) + ", " +
        std::string(kProtocolVersions[1]) + " and " + std::string(kProtocolVersions[2]) + ")");
  rpc.channel().initialized(version);
  rpc.notify("notifications/initialized");
}

json::array McpServer::list_tools(RpcClient &rpc) {
  json::array tools;
  std::set<std::string> seen, cursors;
  json::object params;
  for (int page = 0; page < kMaxToolPages; ++page) {
    RpcOutcome outcome = rpc.request("tools/list", params, Clock::now() + limits_.startup_timeout);
    const json::object &result = result_object(outcome, "tools/list");
    const json::array *listed = ms::array_at(result, "tools");
    if (!listed) throw ConnectFailure("tools/list answered without a 'tools' array");
    add_valid_tools(*listed, tools, seen, callbacks_.log);
    const std::string cursor(ms::string_at(result, "nextCursor"));
    if (cursor.empty()) return tools;
    if (!cursors.insert(cursor).second) break;  // a cursor seen before would loop for ever
    params = {{"cursor", cursor}};
  }
  callbacks_.log(AMP_LOG_WARNING, "tools/list pagination did not end; keeping what was listed");
  return tools;
}

void McpServer::serve(const std::shared_ptr<RpcClient> &rpc) {
  {
    std::lock_guard lock(mutex_);
    rpc_ = rpc;
    problem_.clear();
    first_attempt_done_ = true;
    changed_.notify_all();
  }
  callbacks_.log(AMP_LOG_INFO, "connected to " + rpc->channel().describe() + ", " +
                                   std::to_string(tools().size()) + " tools");
  callbacks_.on_tools_changed();
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || connection_lost_ || relist_; });
    if (stopping_ || connection_lost_) break;
    relist_ = false;
    lock.unlock();
    try {
      set_tools(list_tools(*rpc));
      callbacks_.on_tools_changed();
    } catch (const std::exception &e) {
      callbacks_.log(AMP_LOG_WARNING, std::string("listing the tools again failed: ") + e.what());
    }
    lock.lock();
  }
  const std::string reason = stopping_ ? "stopped" : problem_;
  rpc_.reset();
  lock.unlock();
  rpc->close();
  set_down(reason);
}

void McpServer::set_tools(json::array tools) {
  std::lock_guard lock(mutex_);
  tools_ = std::move(tools);
}

void McpServer::set_down(const std::string &reason) {
  std::lock_guard lock(mutex_);
  problem_ = reason;
  first_attempt_done_ = true;
  changed_.notify_all();
}

std::shared_ptr<RpcClient> McpServer::wait_connected(Clock::time_point deadline,
                                                     const std::function<bool()> &cancelled) {
  std::unique_lock lock(mutex_);
  // A connection that died a moment ago is not used: the call waits for the next one.
  auto connected = [&] { return rpc_ && !connection_lost_ && !rpc_->is_closed(); };
  while (!connected() && !stopping_ && Clock::now() < deadline && !cancelled())
    changed_.wait_until(lock, std::min(deadline, Clock::now() + 50ms));
  return connected() ? rpc_ : nullptr;
}

CallOutcome McpServer::call_tool(const std::string &tool, json::object arguments,
                                 const std::function<bool()> &cancelled) {
  const auto now = Clock::now();
  const auto deadline = now + limits_.call_timeout;
  const ResultContext context{config_.name, tool, limits_.max_output_chars};
  std::shared_ptr<RpcClient> rpc =
      wait_connected(std::min(deadline, now + limits_.startup_timeout), cancelled);
  if (cancelled()) return {true, {}};
  if (!rpc)
    return {false,
            failure_result("server_unavailable",
                           "MCP server '" + config_.name + "' is not connected (" + problem() +
                               "); it is reconnected with backoff, so a "
                               "later call may succeed",
                           context)};
  RpcOutcome outcome = rpc->request(
      "tools/call", {{"name", tool}, {"arguments", std::move(arguments)}}, deadline, cancelled);
  if (outcome.status == RpcOutcome::Status::cancelled) return {true, {}};
  if (outcome.status == RpcOutcome::Status::ok && outcome.result.is_object())
    return {false, map_call_result(outcome.result.get_object(), context)};
  return {false, failure_for(outcome, tool)};
}

std::string McpServer::failure_for(const RpcOutcome &outcome, const std::string &tool) const {
  const ResultContext context{config_.name, tool, limits_.max_output_chars};
  const std::string subject = "MCP tool '" + tool + "' of server '" + config_.name + "'";
  switch (outcome.status) {
    case RpcOutcome::Status::timeout:
      return failure_result("timeout",
                            subject + " timed out after " + seconds_text(limits_.call_timeout) +
                                " (tool-mcp timeout_seconds); the server was told to cancel it",
                            context);
    case RpcOutcome::Status::error:
      return failure_result("server_error",
                            subject + ": the server answered with error " +
                                std::to_string(outcome.code) + ": " + outcome.message,
                            context);
    case RpcOutcome::Status::failed:
      return failure_result("server_unavailable", subject + " failed: " + outcome.message, context);
    case RpcOutcome::Status::invalid:
      return failure_result("protocol", subject + ": " + outcome.message, context);
    default:
      return failure_result("protocol",
                            subject + ": the server's answer is not a tool result (" +
                                std::string(ms::describe_kind(outcome.result)) + ")",
                            context);
  }
}

}  // namespace tool_mcp
