#include "shared_database.hpp"

#include "schema.hpp"

#include <map>
#include <tuple>

namespace context_postgres {
namespace {

using Key = std::tuple<std::string, int, std::size_t, int, long long>;

Key key_of(const ConnectSettings &settings, std::size_t pool_size, RetryPolicy retry) {
  return {settings.dsn, settings.connect_timeout_seconds, pool_size, retry.attempts,
          static_cast<long long>(retry.backoff.count())};
}

// Held weakly: an instance ends with the last session using it.
struct Registry {
  std::mutex mutex;
  std::map<Key, std::weak_ptr<SharedDatabase>> open;
};

Registry &registry() {
  static Registry instance;
  return instance;
}

}  // namespace

std::shared_ptr<SharedDatabase> SharedDatabase::open(const ConnectSettings &settings,
                                                     std::size_t pool_size, RetryPolicy retry) {
  Registry &r = registry();
  std::lock_guard lock(r.mutex);
  std::erase_if(r.open, [](const auto &entry) { return entry.second.expired(); });
  std::weak_ptr<SharedDatabase> &slot = r.open[key_of(settings, pool_size, retry)];
  if (auto existing = slot.lock()) return existing;
  auto created = std::make_shared<SharedDatabase>(settings, pool_size, retry);
  slot = created;
  return created;
}

std::string SharedDatabase::prepare() {
  std::promise<std::string> outcome;
  std::shared_future<std::string> attempt;
  bool starts = false;
  {
    std::lock_guard lock(prepare_mutex_);
    if (prepared_) return *prepared_;
    starts = !preparing_.valid();
    if (starts) preparing_ = outcome.get_future().share();
    attempt = preparing_;
  }
  if (starts) migrate(outcome);
  return attempt.get();
}

void SharedDatabase::migrate(std::promise<std::string> &outcome) {
  try {
    std::string target = pool_.run("preparing the schema", [](PgConnection &connection) {
      migrate_schema(connection);
      return connection.target();
    });
    {
      std::lock_guard lock(prepare_mutex_);
      prepared_ = target;
      preparing_ = {};
    }
    outcome.set_value(std::move(target));
  } catch (...) {
    {
      std::lock_guard lock(prepare_mutex_);
      preparing_ = {};  // the next session tries again
    }
    outcome.set_exception(std::current_exception());
  }
}

}  // namespace context_postgres
