// An io_context with its own thread, stopped and joined on destruction.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include <thread>

namespace amplifier::loopback {

class IoThread {
 public:
  IoThread() : work_(io_.get_executor()), thread_([this] { io_.run(); }) {}
  ~IoThread() { stop(); }
  IoThread(const IoThread &) = delete;
  IoThread &operator=(const IoThread &) = delete;

  boost::asio::io_context &io() { return io_; }
  void stop() {
    work_.reset();
    io_.stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::thread thread_;
};

}  // namespace amplifier::loopback
