#include "util/interrupt.hpp"

#include <atomic>
#include <csignal>

namespace flashfit::util {
namespace {
std::atomic<bool> g_interrupted{false};

extern "C" void on_signal(int) {
  g_interrupted.store(true);
}
}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: blocking calls return EINTR and see the flag
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool interrupted() {
  return g_interrupted.load();
}
void set_interrupted(bool value) {
  g_interrupted.store(value);
}

}  // namespace flashfit::util
