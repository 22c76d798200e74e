#include "pg_connection.hpp"

#include <array>
#include <exception>

namespace context_postgres {

namespace {

// Classes of SQLSTATE that mean the server, not the statement, is the problem: 08 connection
// exceptions, and 57P01-57P03 (shut down by an administrator, crash shutdown, cannot connect
// now: starting up or shutting down).
bool server_gone(std::string_view sqlstate) {
  return sqlstate.starts_with("08") || sqlstate == "57P01" || sqlstate == "57P02" ||
         sqlstate == "57P03";
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

std::string or_default(const char *value, const char *fallback) {
  return value && *value ? value : fallback;
}

struct ParamArrays {
  std::vector<const char *> values;
  explicit ParamArrays(const std::vector<Param> &params) {
    values.reserve(params.size());
    for (const Param &param : params) values.push_back(param ? param->c_str() : nullptr);
  }
};

// Server notices ("relation already exists, skipping") are for people at a psql prompt; libpq
// would print them on the host's stderr.
void ignore_notice(void *, const char *) {}

bool succeeded(const PGresult *result) {
  const ExecStatusType status = PQresultStatus(result);
  return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_SINGLE_TUPLE;
}

}  // namespace

DatabaseError::DatabaseError(DatabaseErrorKind kind, const std::string &message,
                             std::string sqlstate)
    : std::runtime_error(std::string(kind_label(kind)) + ": " + message),
      kind_(kind),
      sqlstate_(std::move(sqlstate)),
      detail_(message) {}

std::string_view kind_label(DatabaseErrorKind kind) {
  // In the order of DatabaseErrorKind.
  static constexpr std::array<std::string_view, 4> kLabels = {
      "database unavailable", "session busy", "database conflict", "database error"};
  return kLabels.at(static_cast<std::size_t>(kind));
}

std::string_view PgResult::text(int row, int column) const {
  return std::string_view(PQgetvalue(result_.get(), row, column),
                          static_cast<std::size_t>(PQgetlength(result_.get(), row, column)));
}

long PgResult::affected() const {
  const char *count = PQcmdTuples(result_.get());
  return count && *count ? std::stol(count) : 0;
}

std::string describe_target(PGconn *conn) {
  std::string host = or_default(PQhost(conn), "the default socket");
  return "database '" + or_default(PQdb(conn), "?") + "' on " + host + ":" +
         or_default(PQport(conn), "5432") + " as '" + or_default(PQuser(conn), "?") + "'";
}

std::unique_ptr<PgConnection> PgConnection::open(const ConnectSettings &settings) {
  const std::string timeout = std::to_string(settings.connect_timeout_seconds);
  // Our defaults come first: the dsn, expanded in place of "dbname", overrides them.
  const std::array<const char *, 5> keys{"connect_timeout", "application_name", "client_encoding",
                                         "dbname", nullptr};
  const std::array<const char *, 5> values{timeout.c_str(), "amplifier context-postgres", "UTF8",
                                           settings.dsn.c_str(), nullptr};
  PGconn *conn = PQconnectdbParams(keys.data(), values.data(), /*expand_dbname=*/1);
  if (conn == nullptr)
    throw DatabaseError(DatabaseErrorKind::unavailable, "libpq could not allocate a connection");
  std::string target = describe_target(conn);
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string reason = trimmed(PQerrorMessage(conn));
    PQfinish(conn);
    throw DatabaseError(DatabaseErrorKind::unavailable,
                        "cannot connect to PostgreSQL " + target + ": " + reason);
  }
  PQsetNoticeProcessor(conn, &ignore_notice, nullptr);
  return std::unique_ptr<PgConnection>(new PgConnection(conn, std::move(target)));
}

PgConnection::~PgConnection() { PQfinish(conn_); }

std::vector<std::string> PgConnection::take_notifications() {
  std::vector<std::string> payloads;
  while (PGnotify *notification = PQnotifies(conn_)) {
    payloads.emplace_back(notification->extra ? notification->extra : "");
    PQfreemem(notification);
  }
  return payloads;
}

DatabaseError PgConnection::error_for(std::string_view doing, const PGresult *result) const {
  const char *state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  std::string sqlstate = state ? state : "";
  std::string reason = trimmed(result ? PQresultErrorMessage(result) : PQerrorMessage(conn_));
  if (reason.empty()) reason = trimmed(PQerrorMessage(conn_));
  DatabaseErrorKind kind = DatabaseErrorKind::failed;
  if (!healthy() || server_gone(sqlstate))
    kind = DatabaseErrorKind::unavailable;
  else if (sqlstate == "23505")
    kind = DatabaseErrorKind::conflict;
  return DatabaseError(kind, std::string(doing) + " in PostgreSQL " + target_ + ": " + reason,
                       sqlstate);
}

PgResult PgConnection::exec(std::string_view doing, const std::string &sql,
                            const std::vector<Param> &params) {
  ParamArrays arrays(params);
  PGresult *raw = PQexecParams(conn_, sql.c_str(), static_cast<int>(params.size()), nullptr,
                               arrays.values.data(), nullptr, nullptr, 0);
  PgResult result(raw);
  if (raw == nullptr || !succeeded(raw)) throw error_for(doing, raw);
  return result;
}

void PgConnection::exec_script(std::string_view doing, const std::string &sql) {
  PGresult *raw = PQexec(conn_, sql.c_str());
  PgResult result(raw);
  if (raw == nullptr || !succeeded(raw)) throw error_for(doing, raw);
}

void PgConnection::stream(std::string_view doing, const std::string &sql,
                          const std::vector<Param> &params,
                          const std::function<void(const PgResult &row)> &on_row) {
  ParamArrays arrays(params);
  if (!PQsendQueryParams(conn_, sql.c_str(), static_cast<int>(params.size()), nullptr,
                         arrays.values.data(), nullptr, nullptr, 0))
    throw error_for(doing, nullptr);
  PQsetSingleRowMode(conn_);
  // Every result is read to the end, even after a failure, so the connection stays usable.
  std::exception_ptr failure;
  while (PGresult *raw = PQgetResult(conn_)) {
    PgResult result(raw);
    if (failure) continue;
    if (!succeeded(raw)) {
      failure = std::make_exception_ptr(error_for(doing, raw));
      continue;
    }
    if (PQresultStatus(raw) != PGRES_SINGLE_TUPLE) continue;  // the closing empty result
    try {
      on_row(result);
    } catch (...) {
      failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
}

Transaction::Transaction(PgConnection &connection) : connection_(connection) {
  connection_.exec("starting a transaction", "BEGIN");
}

Transaction::~Transaction() {
  if (!open_ || !connection_.healthy()) return;
  try {
    connection_.exec("rolling back", "ROLLBACK");
  } catch (const DatabaseError &) {  // the server went away: the transaction went with it
  }
}

void Transaction::commit(std::string_view doing) {
  open_ = false;
  connection_.exec(doing, "COMMIT");
}

}  // namespace context_postgres
