// The command table: one row per command, each implemented in cli/<name>.cpp.

#include "cli/command.hpp"
#include "cli/commands.hpp"

namespace flashfit::cli {

const std::vector<Command>& command_table() {
  static const std::vector<Command> table = {
      {"build", "Build a wheel from source for this environment: planned from real memory and GPUs, supervised, cached",
       define_build},
      {"cache", "List, add, remove or garbage-collect the locally cached wheels (cache list | dir | add | remove | gc)",
       define_cache},
      {"catalog", "List or refresh the catalogs of known release wheels (catalog list | update)",
       define_catalog},
      {"doctor", "Probe the machine, Python, torch, GPUs and toolkit; say what to fix",
       define_doctor},
      {"fallback",
       "Where flashfit_attention is (flash-attn's call, on PyTorch SDPA when flash-attn cannot run) "
       "and how to use or --vendor it",
       define_fallback},
      {"inspect", "Check a wheel, .so or installed package against this torch, libc and GPUs",
       define_inspect},
      {"install", "Install the wheel that fits (inspected, --no-deps, import proven), rolling back on failure",
       define_install},
      {"publish", "Share fitting wheels as a pip index and per-torch find-links pages", define_publish},
      {"resolve", "Pick the prebuilt wheel that fits, explain every rejection, suggest what would fit",
       define_resolve},
      {"tags", "List the wheel tags an interpreter accepts, most preferred first", define_tags},
  };
  return table;
}

}  // namespace flashfit::cli
