#pragma once
// Shell completion scripts rendered from the command tree (cli/help_model):
// commands, options, and the words their values complete to (recipe names
// for SPEC, source names for --source, GPU names for --gpu, files, choices).

#include <string>
#include <vector>

#include "cli/help_model.hpp"

namespace flashfit::cli {

struct CompletionWords {
  std::vector<std::string> recipes;  // package names with a built-in recipe
  std::vector<std::string> sources;  // release source names of those recipes
  std::vector<std::string> gpus;     // GPU name tokens (RTX-4090) and sm_XY forms
};

// One flattened command of the tree, for the renderers.
struct CompletionCommand {
  std::string path;                        // "cache list"; "" for flashfit itself
  std::vector<const OptionHelp*> options;  // its own and its parents' (fallthrough)
  std::vector<const OptionHelp*> positionals;
  std::vector<const CommandHelp*> subcommands;
  const CommandHelp* help = nullptr;
};
std::vector<CompletionCommand> flatten_for_completion(const CommandHelp& root);

std::string bash_completion(const CommandHelp& root, const CompletionWords& words,
                            const std::string& version);
std::string zsh_completion(const CommandHelp& root, const CompletionWords& words,
                           const std::string& version);
std::string fish_completion(const CommandHelp& root, const CompletionWords& words,
                            const std::string& version);

}  // namespace flashfit::cli
