// The command table: one row per command, each implemented in cli/<name>.cpp.

#include "cli/commands.hpp"

#include "cli/command.hpp"

namespace flashfit::cli {

const std::vector<Command>& command_table() {
  static const std::vector<Command> table = {
      {"build",
       "Build a wheel from source for this environment: planned from real memory and GPUs, "
       "supervised, cached",
       define_build},
      {"cache",
       "List, add, remove or garbage-collect the locally cached wheels (cache list | dir | add | "
       "remove | gc)",
       define_cache},
      {"catalog", "List or refresh the catalogs of known release wheels (catalog list | update)",
       define_catalog},
      {"completion",
       "Print the shell completion script for bash, zsh or fish (source <(flashfit completion "
       "bash))",
       define_completion},
      {"config",
       "Show the config file, recipe directories, sources and cache in effect, and where each came "
       "from",
       define_config},
      {"doctor", "Probe the machine, Python, torch, GPUs and toolkit; say what to fix",
       define_doctor},
      {"fallback",
       "Where flashfit_attention is (flash-attn's call, on PyTorch SDPA when flash-attn cannot "
       "run) "
       "and how to use or --vendor it",
       define_fallback},
      {"help", "Show the help of flashfit or of a command (help resolve), or its man page (--man)",
       define_help},
      {"inspect", "Check a wheel, .so or installed package against this torch, libc and GPUs",
       define_inspect},
      {"install",
       "Install the wheel that fits (inspected, --no-deps, import proven), rolling back on failure",
       define_install},
      {"lock",
       "Pin a requirements file for this environment: the fitting variant's URL and sha256, "
       "pip's resolution for the rest; --check says whether a lock still fits",
       define_lock},
      {"publish", "Share fitting wheels as a pip index and per-torch find-links pages",
       define_publish},
      {"resolve",
       "Pick the prebuilt wheel that fits, explain every rejection, suggest what would fit",
       define_resolve},
      {"tags", "List the wheel tags an interpreter accepts, most preferred first", define_tags},
      {"uninstall",
       "Remove an installed package (backed up first, its removal proven, restored on failure)",
       define_uninstall},
  };
  return table;
}

}  // namespace flashfit::cli
