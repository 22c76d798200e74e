// A throwaway PostgreSQL server for tests and benchmarks: initdb and pg_ctl in a temporary
// directory, listening only on a Unix socket in that directory (no TCP port), stopped and
// removed at the end.
//
// PostgreSQL refuses to run as root, so when this process is root (as the tests are here and in
// CI) the server runs as `nobody` (setpriv), with the directory chowned to it; root can still
// reach the socket. The binaries come from $AMP_PG_BIN, else /usr/lib/postgresql/15/bin (Debian
// postgresql-15). When no usable server can be started the constructor throws, saying why and
// what to install: callers fail rather than skip.
#pragma once
#include "temp_files.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace amp_test {

class PgTestServer {
 public:
  // `settings`: extra server settings ("fsync=off", ...), passed as -c NAME=VALUE.
  explicit PgTestServer(std::vector<std::string> settings = {});
  ~PgTestServer();
  PgTestServer(const PgTestServer &) = delete;
  PgTestServer &operator=(const PgTestServer &) = delete;

  // pg_ctl stop -m fast / pg_ctl start -w: a database restart, as a test of outages needs.
  void stop();
  void start();

  // A libpq conninfo string for `database` on this server (as its superuser).
  std::string dsn(const std::string &database = "postgres") const;
  // Creates a fresh database and returns its dsn.
  std::string create_database(const std::string &name);

  // Runs one SQL statement on `dsn` and returns the first column of the first row ("" when
  // none). Throws std::runtime_error with the server's message.
  static std::string query_value(const std::string &dsn, const std::string &sql);

  const std::filesystem::path &directory() const { return dir_.path(); }

 private:
  std::vector<std::string> as_server_user(std::vector<std::string> argv) const;
  void run_checked(const std::vector<std::string> &argv, const std::string &what) const;
  std::string log_tail() const;

  TempDir dir_{"amp-pg"};
  std::filesystem::path bin_;
  std::vector<std::string> settings_;
  bool running_ = false;
};

}  // namespace amp_test
