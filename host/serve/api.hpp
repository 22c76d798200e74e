// The routes of `amplifier serve` and what each does. handle() never throws: every failure is
// a JSON error response naming the problem.
#pragma once
#include "api_types.hpp"
#include "metrics.hpp"
#include "served_session.hpp"
#include "session_factory.hpp"

#include <boost/json/array.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace amplifier::host::serve {

// What one client may make the server hold (a client is not trusted: README "Security").
struct ApiLimits {
  std::size_t max_sessions = 2000;             // --max-sessions: sessions held at once
  std::size_t max_metadata_bytes = 16 * 1024;  // --max-metadata-bytes: a session's metadata, as JSON
};

class Api {
 public:
  Api(SessionFactory &factory, SessionRegistry &sessions, Metrics &metrics,
      ApiLimits limits = {});

  // Blocking work (loading a plan's modules, ending a session) happens here: call it from a
  // worker thread, not from an I/O thread.
  ApiResponse handle(const ApiRequest &request);

  Metrics &metrics() { return metrics_; }

  // From now on no session or turn starts (503); running turns go on. A session a request
  // creates or reopens from now on is never registered (adopt).
  void stop_accepting();
  // Two counts the drain waits on, each held as a token by the HTTP server:
  //  - a request, from when it is read until its answer is written (an event stream's answer
  //    is counted apart, HttpServer::open_streams): before the connections close, so the 503
  //    of a request that was opening a session (a reopen waits for another server's lease)
  //    reaches its client;
  //  - its work, from before it is queued for a worker until handle() has returned: the Api
  //    must outlive every such token, after the server has stopped too.
  std::shared_ptr<void> track_request();
  std::shared_ptr<void> track_work();
  std::size_t requests_in_flight() const { return in_flight_.load(); }
  std::size_t requests_working() const { return working_.load(); }

  // What another server sent a session held here (SessionFactory::on_store_event): a cancel
  // {"type":"cancel","level"} or an approval's answer {"type":"approval","approval_id",
  // "decision"}, which a client sent to that server. Anything else is ignored.
  void apply_signal(const std::string &id, const boost::json::object &signal);

  // Every route as "METHOD /path/{param}" (`amplifier serve --routes`; the test of the OpenAPI
  // document compares them).
  std::vector<std::string> routes() const;

  // Whether `method path` is a route anyone may call without the bearer token: /healthz and
  // the web page's files, which hold no data.
  bool is_public(std::string_view method, std::string_view path) const;

 private:
  using Params = std::vector<std::string>;  // the path's {parameters}, in order
  using Handler = std::function<ApiResponse(const ApiRequest &, const Params &)>;
  struct Route {
    std::string method;
    std::vector<std::string> pattern;  // path segments; "{x}" matches any one segment
    Handler handler;
    bool is_public;  // answered without the bearer token
  };

  void add(std::string method, std::string_view path, Handler handler);
  void add_public(std::string method, std::string_view path, Handler handler);
  ApiResponse dispatch(const ApiRequest &request);
  std::shared_ptr<ServedSession> session_or_404(const std::string &id) const;
  // The session held here, else the one the default plan's store keeps (reopened here).
  std::shared_ptr<ServedSession> session_or_reopen(const std::string &id);
  bool forward_signal(const std::string &id, boost::json::object signal);
  void check_accepting() const;
  // Registers a session this request created or reopened; 503 when a drain began meanwhile.
  void adopt(const std::shared_ptr<ServedSession> &session, bool created);

  ApiResponse create_session(const ApiRequest &request);
  ApiResponse list_sessions(const ApiRequest &request);
  boost::json::array all_sessions() const;
  void append_stored_sessions(boost::json::array &list, const std::set<std::string> &held) const;
  // How many of a shared store's sessions GET /v1/sessions adds, newest first.
  static constexpr std::int64_t kStoredSessionsListed = 200;
  ApiResponse show_session(const std::string &id);
  ApiResponse show_stored_session(const std::string &id);
  ApiResponse delete_session(const std::string &id);
  void delete_stored_session(const std::string &id, bool held);
  ApiResponse post_message(const ApiRequest &request, const std::string &id);
  ApiResponse cancel(const ApiRequest &request, const std::string &id);
  ApiResponse set_mode(const ApiRequest &request, const std::string &id);
  ApiResponse steer(const ApiRequest &request, const std::string &id);
  ApiResponse fork_session(const ApiRequest &request, const std::string &id);
  // The mode `name` names for `session` (null: "off"); 400 naming the modes there are.
  static std::shared_ptr<const SessionMode> mode_of(const ServedSession &session, const std::string &name);
  ApiResponse answer_approval(const ApiRequest &request, const Params &params);
  ApiResponse chat_completions(const ApiRequest &request);  // api_chat.cpp

  SessionFactory &factory_;
  SessionRegistry &sessions_;
  Metrics &metrics_;
  const ApiLimits limits_;
  std::atomic<bool> draining_{false};
  std::mutex adopt_mutex_;  // draining_ is set, and a session registered, under it
  std::atomic<std::size_t> in_flight_{0};
  std::atomic<std::size_t> working_{0};
  std::mutex reopen_mutex_;  // one reopen at a time: two would contend for one lease
  std::vector<Route> routes_;
};

// The OpenAPI 3.1 document of every route (openapi.cpp).
const std::string &openapi_document();

}  // namespace amplifier::host::serve
