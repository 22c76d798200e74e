#include "release_listener.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cerrno>
#include <optional>
#include <chrono>

namespace context_postgres {
namespace {

// How long the listener waits before connecting again after its connection failed.
constexpr std::chrono::milliseconds kReconnectPause{1000};
// How long the first watch waits for the listening connection.
constexpr std::chrono::milliseconds kFirstListenWait{2000};
// PostgreSQL refuses a notification payload of 8000 bytes or more.
constexpr std::size_t kMaxPayloadBytes = 7900;

}  // namespace

void request_release(PgConnection &connection, const std::string &session_id) {
  connection.exec("asking the holder of session " + session_id + " to let go",
                  "SELECT pg_notify($1, $2)", {std::string(kReleaseChannel), session_id});
}

void send_signal(PgConnection &connection, const std::string &session_id,
                 const boost::json::object &signal) {
  const std::string payload = boost::json::serialize(
      boost::json::object{{"session_id", session_id}, {"signal", signal}});
  if (payload.size() > kMaxPayloadBytes)
    throw DatabaseError(DatabaseErrorKind::failed,
                        "a signal of " + std::to_string(payload.size()) +
                            " bytes is larger than a notification may be");
  connection.exec("signalling the holder of session " + session_id, "SELECT pg_notify($1, $2)",
                  {std::string(kReleaseChannel), payload});
}

ReleaseListener::~ReleaseListener() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (wake_fd_ >= 0) {
    const std::uint64_t one = 1;
    (void)!::write(wake_fd_, &one, sizeof one);
  }
  if (thread_.joinable()) thread_.join();
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void ReleaseListener::watch(const void *key, std::string session_id, Callback callback) {
  std::unique_lock lock(mutex_);
  watches_[key] = Watch{std::move(session_id), std::move(callback)};
  if (!thread_.joinable()) {
    wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    thread_ = std::thread([this] { run(); });
  }
  // The first session waits (a moment) for the LISTEN, so a host asking for it right away is
  // heard; askers also ask again (SessionLease::acquire) in case this one was missed.
  changed_.wait_for(lock, kFirstListenWait, [this] { return listening_ || stopping_; });
}

void ReleaseListener::unwatch(const void *key) {
  std::unique_lock lock(mutex_);
  watches_.erase(key);
  changed_.wait(lock, [&] { return calling_ != key; });
}

void ReleaseListener::deliver(const std::vector<std::string> &payloads) {
  for (const auto &payload : payloads) {
    // A bare id asks for the session; an object carries a signal for it.
    std::string session_id = payload;
    std::optional<boost::json::object> signal;
    if (payload.starts_with('{')) {
      boost::json::error_code error;
      boost::json::value parsed = boost::json::parse(payload, error);
      const boost::json::object *object = error ? nullptr : parsed.if_object();
      const boost::json::value *id = object ? object->if_contains("session_id") : nullptr;
      const boost::json::value *sent = object ? object->if_contains("signal") : nullptr;
      if (!id || !id->is_string() || !sent || !sent->is_object()) continue;
      session_id = std::string(id->get_string());
      signal = sent->get_object();
    }
    std::unique_lock lock(mutex_);
    for (auto it = watches_.begin(); it != watches_.end(); ++it) {
      if (it->second.session_id != session_id) continue;
      const void *key = it->first;
      Callback callback = it->second.callback;
      calling_ = key;
      lock.unlock();
      callback(signal ? &*signal : nullptr);
      lock.lock();
      calling_ = nullptr;
      changed_.notify_all();
      break;  // one session id, one holder in this process
    }
  }
}

// Connects and LISTENs, then waits on the socket (and the stop eventfd); a connection that
// fails is opened again after a pause, so a database restart does not end the listening.
void ReleaseListener::run() {
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
    }
    std::unique_ptr<PgConnection> connection;
    try {
      connection = PgConnection::open(settings_);
      connection->exec("listening for release requests",
                       "LISTEN " + std::string(kReleaseChannel));
      std::lock_guard lock(mutex_);
      listening_ = true;
      changed_.notify_all();
    } catch (const DatabaseError &) {
      connection.reset();
    }
    while (connection) {
      pollfd fds[2] = {{connection->socket(), POLLIN, 0}, {wake_fd_, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0 && errno != EINTR) break;
      if (fds[1].revents) return;
      if (!fds[0].revents) continue;
      if (!connection->consume_input() || !connection->healthy()) break;
      deliver(connection->take_notifications());
    }
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, kReconnectPause, [this] { return stopping_; });
  }
}

}  // namespace context_postgres
