// A history fork: a new session holding a stored session's conversation through one of its
// turns (`amplifier sessions fork ID [--at TURN]`). The original is only read. The fork records
// where it came from in its metadata (extra "forked_from": {"session", "turn"}), which
// `sessions show` prints. Nothing is mounted here, so no hook hears of it; serve, which opens
// the fork it makes, announces session:fork (SessionOptions::forked_from).
#pragma once
#include "amplifier/session_query.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace amplifier::host {

struct ForkResult {
  std::string id;              // the new session's
  std::int64_t turn = 0;       // the last turn it holds
  std::size_t messages = 0;    // how many messages it holds
};

// From a store on files (context-persistent): the transcript's lines are copied as they are,
// byte for byte, up to the first line of turn `at` + 1 (all of them without `at`). Throws
// std::runtime_error naming the problem (no such session, a turn it does not have).
ForkResult fork_session_files(const std::filesystem::path &store, const std::string &id,
                              std::optional<std::int64_t> at);

// From a context module's store (context-postgres): read, cut, imported under a new id with
// each message's origin. Throws SessionQueryError / std::runtime_error naming the problem.
ForkResult fork_session_in(const ContextSessionStore &store, const std::string &id,
                           std::optional<std::int64_t> at);

// The "forked_from" a session's metadata records, when it is a fork: {session, turn}.
struct ForkOrigin {
  std::string session;
  std::int64_t turn = 0;
};
std::optional<ForkOrigin> fork_origin_of(const boost::json::object &metadata_extra);

}  // namespace amplifier::host
