#pragma once
// SIGINT/SIGTERM become a flag that long-running work polls, so children are
// stopped and temp files removed before flashfit exits with 130.

namespace flashfit::util {

void install_interrupt_handlers();
bool interrupted();
// Tests use this to simulate Ctrl-C without sending a signal.
void set_interrupted(bool value);

}  // namespace flashfit::util
