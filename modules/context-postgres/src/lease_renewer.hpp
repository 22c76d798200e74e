// One thread that renews the leases of every session a process holds on one database, each
// every third of its duration: a server with a thousand sessions open has one renewing thread,
// not a thousand.
//
// THREADS: thread-safe. remove() returns only once the lease is no longer being renewed, so
// the lease can be destroyed right after it.
#pragma once
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace context_postgres {

class LeaseRenewer {
 public:
  using Clock = std::chrono::steady_clock;
  using Renew = std::function<void()>;

  LeaseRenewer() = default;
  ~LeaseRenewer();  // stops the thread; every lease must have been removed
  LeaseRenewer(const LeaseRenewer &) = delete;
  LeaseRenewer &operator=(const LeaseRenewer &) = delete;

  // Runs `renew` every `period` from now on (the thread starts with the first lease), until
  // remove(key).
  void add(const void *key, std::chrono::milliseconds period, Renew renew);
  void remove(const void *key);

 private:
  struct Entry {
    std::chrono::milliseconds period;
    Clock::time_point due;
    Renew renew;
  };
  void run();
  // The next entry due by now, or none; caller holds the mutex.
  std::map<const void *, Entry>::iterator next_due(Clock::time_point now);

  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<const void *, Entry> leases_;
  const void *renewing_ = nullptr;  // the lease whose renewal runs right now, unlocked
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace context_postgres
