#include "pg_test_server.hpp"

#include "process.hpp"

#include <libpq-fe.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <pwd.h>
#include <unistd.h>

namespace amp_test {
namespace fs = std::filesystem;

namespace {

constexpr const char *kSuperuser = "amplifier";
constexpr const char *kDefaultBin = "/usr/lib/postgresql/15/bin";
constexpr const char *kServerUser = "nobody";

fs::path binaries() {
  const char *configured = std::getenv("AMP_PG_BIN");
  return configured && *configured ? fs::path(configured) : fs::path(kDefaultBin);
}

const struct passwd &server_account() {
  const struct passwd *account = ::getpwnam(kServerUser);
  if (!account)
    throw std::runtime_error(std::string("PostgreSQL cannot run as root and there is no '") +
                             kServerUser + "' user to run it as");
  return *account;
}

}  // namespace

PgTestServer::PgTestServer(std::vector<std::string> settings)
    : bin_(binaries()), settings_(std::move(settings)) {
  if (!fs::exists(bin_ / "initdb") || !fs::exists(bin_ / "pg_ctl"))
    throw std::runtime_error("no PostgreSQL server binaries in " + bin_.string() +
                             " (install the Debian package postgresql, see "
                             "scripts/install-deps.sh, or set AMP_PG_BIN)");
  if (::geteuid() == 0) {
    const struct passwd &account = server_account();
    if (::chown(dir_.path().c_str(), account.pw_uid, account.pw_gid) != 0)
      throw std::runtime_error("cannot hand " + dir_.path().string() + " to " + kServerUser);
  }
  run_checked(as_server_user({(bin_ / "initdb").string(), "-D", (dir_ / "data").string(), "-U",
                              kSuperuser, "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"}),
              "initdb");
  start();
}

PgTestServer::~PgTestServer() {
  if (!running_) return;
  // Immediate: the data is thrown away with the directory.
  (void)run_process(as_server_user({(bin_ / "pg_ctl").string(), "-D", (dir_ / "data").string(),
                                    "stop", "-m", "immediate", "-w"}));
}

std::vector<std::string> PgTestServer::as_server_user(std::vector<std::string> argv) const {
  if (::geteuid() != 0) return argv;
  const struct passwd &account = server_account();
  std::vector<std::string> wrapped{"setpriv", "--reuid=" + std::to_string(account.pw_uid),
                                   "--regid=" + std::to_string(account.pw_gid), "--clear-groups",
                                   "--"};
  wrapped.insert(wrapped.end(), argv.begin(), argv.end());
  return wrapped;
}

void PgTestServer::run_checked(const std::vector<std::string> &argv,
                               const std::string &what) const {
  ProcessOptions options;
  options.working_dir = dir_.path().string();  // the server user may not enter ours
  options.env = {{"LC_ALL", "C"}};
  options.timeout = std::chrono::seconds(60);
  const ProcessResult result = run_process(argv, options);
  if (result.exit_code != 0)
    throw std::runtime_error("cannot start a PostgreSQL test server: " + what + " failed (exit " +
                             std::to_string(result.exit_code) + "): " + result.err + result.out +
                             log_tail());
}

std::string PgTestServer::log_tail() const {
  std::ifstream in(dir_ / "server.log");
  std::stringstream text;
  text << in.rdbuf();
  std::string log = text.str();
  return log.empty() ? ""
                     : "\nserver log:\n" + log.substr(log.size() > 2000 ? log.size() - 2000 : 0);
}

void PgTestServer::start() {
  std::string options = "-c listen_addresses='' -c unix_socket_directories=" + dir_.path().string();
  for (const auto &setting : settings_) options += " -c " + setting;
  run_checked(
      as_server_user({(bin_ / "pg_ctl").string(), "-D", (dir_ / "data").string(), "-l",
                      (dir_ / "server.log").string(), "-o", options, "-w", "-t", "60", "start"}),
      "pg_ctl start");
  running_ = true;
}

void PgTestServer::stop() {
  run_checked(as_server_user({(bin_ / "pg_ctl").string(), "-D", (dir_ / "data").string(), "stop",
                              "-m", "fast", "-w", "-t", "60"}),
              "pg_ctl stop");
  running_ = false;
}

std::string PgTestServer::dsn(const std::string &database) const {
  return "host=" + dir_.path().string() + " port=5432 user=" + kSuperuser + " dbname=" + database;
}

std::string PgTestServer::create_database(const std::string &name) {
  query_value(dsn(), "CREATE DATABASE " + name);
  return dsn(name);
}

std::string PgTestServer::query_value(const std::string &dsn, const std::string &sql) {
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn(PQconnectdb(dsn.c_str()), &PQfinish);
  if (PQstatus(conn.get()) != CONNECTION_OK)
    throw std::runtime_error("cannot connect to the test server (" + dsn +
                             "): " + PQerrorMessage(conn.get()));
  std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(conn.get(), sql.c_str()), &PQclear);
  const ExecStatusType status = PQresultStatus(result.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)
    throw std::runtime_error(sql + ": " + PQresultErrorMessage(result.get()));
  if (status != PGRES_TUPLES_OK || PQntuples(result.get()) == 0) return "";
  return PQgetvalue(result.get(), 0, 0);
}

}  // namespace amp_test
