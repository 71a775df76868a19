// flashfit completion bash|zsh|fish: the completion script for a shell,
// rendered from the same command tree the parser runs on.

#include "cli/completion.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "env/gpu_names.hpp"
#include "resolve/recipe.hpp"
#include "util/build_info.hpp"
#include "util/strings.hpp"

namespace flashfit::cli {
namespace {

// The built-in recipes only: a completion script is generated at build time,
// where the user's config must not leak into the package.
CompletionWords completion_words() {
  CompletionWords words;
  const auto book = resolve::RecipeBook::built_in();
  for (const auto& recipe : book.recipes()) {
    words.recipes.push_back(recipe.name);
    for (const auto& source : recipe.sources) words.sources.push_back(source.name);
  }
  std::vector<env::MajorMinor> capabilities;
  for (const auto& gpu : env::gpu_names()) {
    words.gpus.push_back(env::gpu_name_token(gpu.name));
    capabilities.push_back(gpu.capability);
  }
  std::sort(capabilities.begin(), capabilities.end());
  capabilities.erase(std::unique(capabilities.begin(), capabilities.end()), capabilities.end());
  for (const auto& cc : capabilities) words.gpus.push_back(cc.str());
  for (auto* list : {&words.recipes, &words.sources}) {
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
  return words;
}

}  // namespace

std::string completion_script(const CLI::App& root, const std::string& shell) {
  const auto tree = describe_command_tree(root);
  const auto words = completion_words();
  const std::string version = std::string("flashfit ") + util::kVersion;
  if (shell == "bash") return bash_completion(tree, words, version);
  if (shell == "zsh") return zsh_completion(tree, words, version);
  return fish_completion(tree, words, version);
}

Runner define_completion(CLI::App& app) {
  auto shell = std::make_shared<std::string>();
  app.add_option("shell", *shell, "The shell: bash, zsh or fish")
      ->type_name("{bash,zsh,fish}")
      ->required();
  CLI::App* self = &app;
  return [shell, self]() -> util::Result<int> {
    if (*shell != "bash" && *shell != "zsh" && *shell != "fish") {
      return util::fail(util::ErrorKind::usage,
                        "no completion for the shell '" + util::printable(*shell) + "'", "",
                        "give bash, zsh or fish");
    }
    write_stdout(completion_script(*self->get_parent(), *shell));
    return 0;
  };
}

}  // namespace flashfit::cli
