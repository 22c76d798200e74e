// Task<T>: the coroutine type an agent turn is written in, so that a turn reads top to bottom
// like the loop it is, yet holds no thread while it waits for a provider, a tool or a timer.
//
// A Task is lazy: it starts when awaited, and its caller resumes when it finishes (symmetric
// transfer, so chains of tasks never grow the stack). An exception escaping the body is
// rethrown at the co_await. `spawn` starts a Task<void> that nobody awaits; the orchestrator
// calls it from execute() and returns at once.
//
// Where a task resumes after a wait is decided by the awaitable it waited on (TurnSignal
// resumes on the host's worker pool), never by Task itself.
#pragma once
#include <coroutine>
#include <exception>
#include <optional>
#include <utility>

namespace amplifier::orchestrator {

template <class T = void>
class Task;

namespace detail {

struct PromiseBase {
  std::coroutine_handle<> continuation = std::noop_coroutine();
  std::exception_ptr error;

  std::suspend_always initial_suspend() const noexcept { return {}; }

  // Hands control to whoever awaited the task (or to nobody: a noop coroutine).
  struct FinalAwaiter {
    bool await_ready() const noexcept { return false; }
    template <class Promise>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> done) const noexcept {
      return done.promise().continuation;
    }
    void await_resume() const noexcept {}
  };
  FinalAwaiter final_suspend() const noexcept { return {}; }
  void unhandled_exception() noexcept { error = std::current_exception(); }
};

template <class T>
struct Promise : PromiseBase {
  std::optional<T> value;
  Task<T> get_return_object() noexcept;
  template <class U>
  void return_value(U &&result) {
    value.emplace(std::forward<U>(result));
  }
};

template <>
struct Promise<void> : PromiseBase {
  Task<void> get_return_object() noexcept;
  void return_void() const noexcept {}
};

}  // namespace detail

template <class T>
class [[nodiscard]] Task {
 public:
  using promise_type = detail::Promise<T>;
  using Handle = std::coroutine_handle<promise_type>;

  Task(Task &&other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Task &operator=(Task &&other) noexcept {
    if (this != &other) {
      if (handle_) handle_.destroy();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  Task(const Task &) = delete;
  Task &operator=(const Task &) = delete;
  ~Task() {
    if (handle_) handle_.destroy();
  }

  bool await_ready() const noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) noexcept {
    handle_.promise().continuation = awaiting;
    return handle_;
  }
  T await_resume() {
    if (handle_.promise().error) std::rethrow_exception(handle_.promise().error);
    if constexpr (!std::is_void_v<T>) return std::move(*handle_.promise().value);
  }

 private:
  friend struct detail::Promise<T>;
  explicit Task(Handle handle) noexcept : handle_(handle) {}
  Handle handle_;
};

namespace detail {

template <class T>
Task<T> Promise<T>::get_return_object() noexcept {
  return Task<T>(std::coroutine_handle<Promise<T>>::from_promise(*this));
}

inline Task<void> Promise<void>::get_return_object() noexcept {
  return Task<void>(std::coroutine_handle<Promise<void>>::from_promise(*this));
}

// The frame that runs a spawned task: starts at once, frees itself at the end.
struct Detached {
  struct promise_type {
    Detached get_return_object() const noexcept { return {}; }
    std::suspend_never initial_suspend() const noexcept { return {}; }
    std::suspend_never final_suspend() const noexcept { return {}; }
    void return_void() const noexcept {}
    // A spawned task must handle its own failures (a turn turns them into its outcome).
    void unhandled_exception() const noexcept { std::terminate(); }
  };
};

inline Detached run_detached(Task<void> task) { co_await std::move(task); }

}  // namespace detail

// Starts `task` now, on this thread, up to its first wait; it then runs wherever its waits
// resume it, and frees itself when done. The task must not let an exception escape.
inline void spawn(Task<void> task) { detail::run_detached(std::move(task)); }

}  // namespace amplifier::orchestrator
