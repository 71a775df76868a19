// flashfit tags: placeholder until the tag generator lands (see issue 2).

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"

namespace flashfit::cli {

Runner define_tags(CLI::App& app) {
  return []() -> util::Result<int> {
    return util::fail(util::ErrorKind::failed, "not implemented yet");
  };
  (void)app;
}

}  // namespace flashfit::cli
