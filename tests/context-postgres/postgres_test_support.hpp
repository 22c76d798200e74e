// Helpers for the context-postgres tests: one PostgreSQL server for the whole suite (started on
// first use, stopped at exit), a fresh database per test, and plans whose context is
// context-postgres on it.
#pragma once
#include "context_test_support.hpp"
#include "pg_test_server.hpp"

#include <atomic>
#include <memory>
#include <string>

namespace pgtest {

// The suite's server. A machine without a usable PostgreSQL fails every test with the reason
// (never a skip: a suite that silently tests nothing would hide a broken setup).
inline amp_test::PgTestServer &server() {
  static std::string failure;
  static std::unique_ptr<amp_test::PgTestServer> instance = [] {
    try {
      return std::make_unique<amp_test::PgTestServer>(std::vector<std::string>{"fsync=off"});
    } catch (const std::exception &e) {
      failure = e.what();
      return std::unique_ptr<amp_test::PgTestServer>();
    }
  }();
  if (!instance) FAIL("no PostgreSQL test server: " << failure);
  return *instance;
}

// A database of its own for one test.
inline std::string fresh_database() {
  static std::atomic<int> counter{0};
  return server().create_database("t" + std::to_string(::getpid()) + "_" +
                                  std::to_string(counter++));
}

inline std::string query(const std::string &dsn, const std::string &sql) {
  return amp_test::PgTestServer::query_value(dsn, sql);
}

inline long count_messages(const std::string &dsn, const std::string &session_id) {
  return std::stol(query(
      dsn, "SELECT count(*) FROM amplifier_messages WHERE session_id = '" + session_id + "'"));
}

// The context entry of a plan: context-postgres on `dsn`, plus `extra` JSON config keys.
inline std::string postgres_context(const std::string &dsn, const std::string &extra = "") {
  return "{\"dsn\": " + boost::json::serialize(boost::json::value(dsn)) +
         (extra.empty() ? "" : ", " + extra) + "}";
}

inline std::string postgres_plan(const std::string &dsn, const std::string &rest = "",
                                 const std::string &extra = "") {
  return "session:\n  orchestrator: loop-basic\n  context:\n    module: context-postgres\n"
         "    config: " +
         postgres_context(dsn, extra) + "\n" + rest;
}

}  // namespace pgtest
