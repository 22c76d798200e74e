#include "amplifier/process/child.hpp"

#include <dirent.h>
#include <signal.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace amplifier::process {
namespace {

// The state field and process group of /proc/<pid>/stat, or false when unreadable.
bool read_stat(const char *pid, char &state, long &group) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%s/stat", pid);
  std::ifstream in(path);
  std::string text;
  if (!std::getline(in, text)) return false;
  // "pid (comm) state ppid pgrp ..."; comm may contain spaces and ')', so parse after the last.
  const std::size_t close = text.rfind(')');
  if (close == std::string::npos) return false;
  long parent = 0;
  return std::sscanf(text.c_str() + close + 1, " %c %ld %ld", &state, &parent, &group) == 3;
}

}  // namespace

bool process_group_alive(pid_t group) {
  DIR *proc = ::opendir("/proc");
  if (!proc) return ::kill(-group, 0) == 0;
  bool alive = false;
  while (const dirent *entry = ::readdir(proc)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    char state = 0;
    long member_group = 0;
    if (read_stat(entry->d_name, state, member_group) && member_group == group &&
        state != 'Z' && state != 'X') {
      alive = true;
      break;
    }
  }
  ::closedir(proc);
  return alive;
}

}  // namespace amplifier::process
