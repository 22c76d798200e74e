// One libpq connection, its results, and the errors context-postgres reports.
//
// Every failure becomes a DatabaseError whose kind says what the caller can do about it:
// `unavailable` (the server cannot be reached or went away: worth reconnecting and trying
// again), `busy` (another host holds the session), `conflict` (a unique constraint: someone
// else wrote the same row) or `failed` (anything else: a bad query or schema, not retried).
// The message always names the database (never the password) and what was being done.
//
// THREADS: a connection is used by one thread at a time (the pool hands it out).
#pragma once
#include <libpq-fe.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace context_postgres {

enum class DatabaseErrorKind { unavailable, busy, conflict, failed };

class DatabaseError : public std::runtime_error {
 public:
  DatabaseError(DatabaseErrorKind kind, const std::string &message, std::string sqlstate = {});
  DatabaseErrorKind kind() const noexcept { return kind_; }
  const std::string &sqlstate() const noexcept { return sqlstate_; }
  // The message without its leading kind label.
  const std::string &detail() const noexcept { return detail_; }

 private:
  DatabaseErrorKind kind_;
  std::string sqlstate_;
  std::string detail_;
};

// The word a message starts with for each kind ("database unavailable", "session busy", ...).
std::string_view kind_label(DatabaseErrorKind kind);

// A query parameter: text, or SQL NULL.
using Param = std::optional<std::string>;

class PgResult {
 public:
  explicit PgResult(PGresult *result) : result_(result, &PQclear) {}
  int rows() const { return PQntuples(result_.get()); }
  bool is_null(int row, int column) const { return PQgetisnull(result_.get(), row, column) != 0; }
  std::string_view text(int row, int column) const;
  // Rows an INSERT, UPDATE or DELETE touched.
  long affected() const;

 private:
  std::unique_ptr<PGresult, decltype(&PQclear)> result_;
};

struct ConnectSettings {
  std::string dsn;  // a conninfo string or URI; empty: libpq's PG* variables and defaults
  int connect_timeout_seconds = 5;
};

class PgConnection {
 public:
  // Throws DatabaseError (unavailable) naming the database and libpq's reason.
  static std::unique_ptr<PgConnection> open(const ConnectSettings &settings);
  ~PgConnection();
  PgConnection(const PgConnection &) = delete;
  PgConnection &operator=(const PgConnection &) = delete;

  // Runs one statement. `doing` says what for, in the error ("appending message 7").
  PgResult exec(std::string_view doing, const std::string &sql,
                const std::vector<Param> &params = {});
  // Runs several statements separated by ';' (no parameters: the simple query protocol).
  void exec_script(std::string_view doing, const std::string &sql);
  // Runs a query and hands its rows to `on_row` one at a time (libpq's single-row mode), so a
  // large result is never held whole.
  void stream(std::string_view doing, const std::string &sql, const std::vector<Param> &params,
              const std::function<void(const PgResult &row)> &on_row);

  // False once the server has gone away; the pool then opens a new connection.
  bool healthy() const { return PQstatus(conn_) == CONNECTION_OK; }
  // "database 'x' on /tmp/sock:5432 as 'user'": for messages.
  const std::string &target() const noexcept { return target_; }

  // For a connection that LISTENs: its socket (to poll), reading what arrived (false when
  // the connection broke), and the payloads of the notifications read, oldest first.
  int socket() const { return PQsocket(conn_); }
  bool consume_input() { return PQconsumeInput(conn_) == 1; }
  std::vector<std::string> take_notifications();

 private:
  PgConnection(PGconn *conn, std::string target) : conn_(conn), target_(std::move(target)) {}
  DatabaseError error_for(std::string_view doing, const PGresult *result) const;

  PGconn *conn_;
  std::string target_;
};

// A transaction on one connection: BEGIN now, COMMIT with commit(), ROLLBACK when left
// without one (an exception), so a failed statement never leaves the connection inside an
// aborted transaction for its next user.
class Transaction {
 public:
  explicit Transaction(PgConnection &connection);
  ~Transaction();
  Transaction(const Transaction &) = delete;
  Transaction &operator=(const Transaction &) = delete;
  void commit(std::string_view doing);

 private:
  PgConnection &connection_;
  bool open_ = true;
};

// Describes where a connection goes (host, port, database, user; never the password).
std::string describe_target(PGconn *conn);

}  // namespace context_postgres
