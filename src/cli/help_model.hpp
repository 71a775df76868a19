#pragma once
// The command tree as a plain value, read from the CLI11 apps the commands
// define: the one source that --help, the man pages and the shell completions
// are rendered from, so none of them can drift from what the parser accepts.

#include <string>
#include <vector>

namespace CLI {  // NOLINT(readability-identifier-naming): CLI11's namespace
class App;
}

namespace flashfit::cli {

// What a value completes to. Taken from the option's value name (its CLI11
// type name), so a command declares it once: `->type_name("GPU")`.
enum class ValueKind {
  none,     // free text (a version, a URL, a number)
  recipe,   // SPEC: a package name flashfit has a recipe for (or a file)
  source,   // SOURCE: a release source named by the recipes
  gpu,      // GPU: a GPU name or compute capability
  file,     // FILE, WHEEL, TARGET, PATH: a path
  dir,      // DIR
  program,  // PYTHON: an executable on PATH or a path
  command,  // COMMAND: one of flashfit's commands
  choice,   // {a,b,c}: one of the listed words
};

struct OptionHelp {
  std::vector<std::string> long_names;   // without dashes: "gpu"
  std::vector<std::string> short_names;  // without the dash: "q"
  std::string name;                      // positional's name, "spec"
  std::string value_name;                // "GPU", "" for a flag
  std::string description;
  std::string group;  // "" = the command's own options
  bool positional = false;
  bool required = false;
  bool repeatable = false;
  ValueKind kind = ValueKind::none;
  std::vector<std::string> choices;  // for ValueKind::choice

  bool takes_value() const { return positional || !value_name.empty(); }
  // "--gpu", else "-q".
  std::string display() const;
};

struct CommandHelp {
  std::vector<std::string> path;  // {"cache", "list"}; empty for flashfit itself
  std::string summary;
  std::string footer;
  std::vector<OptionHelp> options;       // the command's own flags and options
  std::vector<OptionHelp> positionals;   // in order
  std::vector<CommandHelp> subcommands;  // hidden ones left out
  bool requires_subcommand = false;

  // "flashfit cache list"
  std::string full_name() const;
  // "flashfit-cache-list", the man page's name
  std::string page_name() const;
};

// Reads `app` and its subcommands. Options inherited by fallthrough (the
// global ones) stay on the root; hidden subcommands and options are skipped.
CommandHelp describe_command_tree(const CLI::App& app);

// The value kind a CLI11 type name stands for, with the words of a {a,b} choice.
ValueKind value_kind_of(const std::string& value_name, std::vector<std::string>* choices);

}  // namespace flashfit::cli
