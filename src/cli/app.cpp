// The command-line frame: global flags, the command table, "did you mean",
// and the one place where errors become messages and exit codes.

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <exception>
#include <memory>
#include <sstream>

#include "build/gate.hpp"
#include "build/sentinel.hpp"
#include "cli/colour.hpp"
#include "cli/command.hpp"
#include "cli/nvcc_wrap.hpp"
#include "cli/usage_errors.hpp"
#include "util/build_info.hpp"
#include "util/dynamic_library.hpp"
#include "util/interrupt.hpp"
#include "util/strings.hpp"
#include "util/verbosity.hpp"

namespace flashfit::cli {
namespace {

constexpr const char* kExitCodes =
    "Exit codes: 0 ok, 1 the task failed, 2 bad usage or unreadable input, 130 interrupted.";

// The first argument that is not an option names the command. flashfit has no
// global option that takes a value, so this needs no knowledge of CLI11.
std::optional<std::string_view> typed_command(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") return std::nullopt;
    if (!arg.empty() && arg.front() != '-') return arg;
  }
  return std::nullopt;
}

bool is_known_command(std::string_view name) {
  for (const auto& command : command_table()) {
    if (command.name == name) return true;
  }
  return false;
}

int report(const util::Error& error) {
  std::fprintf(stderr, "%s\n", util::render(error).c_str());
  return util::exit_code(error.kind);
}

struct GlobalFlags {
  bool quiet = false;
  bool verbose = false;
};

}  // namespace

CommandTree::CommandTree() : app(std::make_unique<CLI::App>()) {}
CommandTree::~CommandTree() = default;

std::unique_ptr<CommandTree> make_command_tree(std::optional<std::string_view> only) {
  auto tree = std::make_unique<CommandTree>();
  CLI::App& app = *tree->app;
  app.name("flashfit");
  app.description(
      "flashfit: find, verify, install or build the flash-attn wheel that fits this machine.");
  app.set_version_flag("-V,--version", std::string("flashfit ") + util::kVersion);
  app.require_subcommand(0, 1);
  app.footer(kExitCodes);
  // Global flags work after the command too (flashfit doctor -q): subcommands
  // hand what they do not know to their parent, and what nobody knows lands
  // here as extras, reported by flashfit with a suggestion.
  app.fallthrough();
  app.allow_extras();
  auto globals = std::make_shared<GlobalFlags>();
  app.add_flag("-q,--quiet", globals->quiet,
               "Print only the answer and errors: no progress, no notes")
      ->group("Global options");
  app.add_flag("-v,--verbose", globals->verbose,
               "Trace each probe step, HTTP request and child process, with times, on stderr")
      ->group("Global options");
  app.parse_complete_callback([globals] {
    util::set_verbosity(globals->verbose ? util::Verbosity::verbose
                        : globals->quiet ? util::Verbosity::quiet
                                         : util::Verbosity::normal);
  });

  for (const auto& command : command_table()) {
    CLI::App* sub = app.add_subcommand(std::string(command.name), std::string(command.summary));
    sub->footer(kExitCodes);
    if (command.hidden) sub->group("");
    tree->runners.emplace_back(sub,
                               !only || *only == command.name ? command.define(*sub) : Runner{});
  }
  return tree;
}

namespace {

// The commands that read the whole tree (help, man pages, completions).
bool reads_other_commands(std::string_view name) {
  return name == "help" || name == "completion";
}

// Parses argv with `tree` and runs the parsed command. With `lazy` (a tree of
// only the typed command's options), nullopt unless the parse succeeded,
// named that command alone and left nothing over: help, errors and anything
// that reaches another command are then left to the full tree, which words
// them as always.
std::optional<int> parse_and_run(CommandTree& tree, int argc, const char* const* argv, bool lazy) {
  CLI::App& app = *tree.app;
  const auto path = command_path(app, argc, argv);
  const CLI::App& command = path.empty() ? app : *path.back();
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    if (lazy) return std::nullopt;
    // --help and --version.
    std::ostringstream out, err;
    app.exit(e, out, err);
    std::fputs(out.str().c_str(), stdout);
    return 0;
  } catch (const CLI::ParseError& e) {
    if (lazy) return std::nullopt;
    // "cache lst": the missing subcommand is the word nobody took.
    if (const auto extras = app.remaining(true); !extras.empty()) {
      return report(unexpected_arguments(command, extras));
    }
    return report(usage_error(e, command));
  }
  if (const auto extras = app.remaining(true); !extras.empty()) {
    if (lazy) return std::nullopt;
    return report(unexpected_arguments(command, extras));
  }
  if (lazy) {
    for (auto& [sub, runner] : tree.runners) {
      if (sub->parsed() && !runner) return std::nullopt;
    }
  }

  for (auto& [sub, runner] : tree.runners) {
    if (!sub->parsed()) continue;
    auto result = runner();
    if (util::interrupted()) {
      // Keep what the command said about its way out ("interrupted; restored 0.9").
      if (!result && result.error().kind == util::ErrorKind::interrupted) {
        return report(std::move(result).error().with_context(sub->get_name()));
      }
      return report(util::Error{util::ErrorKind::interrupted, "interrupted", "", ""});
    }
    if (!result) return report(std::move(result).error().with_context(sub->get_name()));
    return *result;
  }
  if (lazy) return std::nullopt;

  std::fputs(app.help().c_str(), stderr);
  return util::exit_code(util::ErrorKind::usage);
}

int run_parsed(int argc, const char* const* argv) {
  init_colour();
  const auto typed = typed_command(argc, argv);
  if (typed && !is_known_command(*typed)) {
    util::Error error{util::ErrorKind::usage, "unknown command '" + util::printable(*typed) + "'",
                      "", ""};
    if (auto suggestion = suggest_command(*typed)) {
      error.hint = "did you mean '" + *suggestion + "'?";
    } else {
      error.hint = "run 'flashfit --help' for the list of commands";
    }
    return report(error);
  }
  if (typed && !reads_other_commands(*typed)) {
    if (auto code = parse_and_run(*make_command_tree(*typed), argc, argv, true)) return *code;
  }
  return *parse_and_run(*make_command_tree(), argc, argv, false);
}

}  // namespace

std::optional<std::string> suggest_command(std::string_view typed) {
  std::vector<std::string> names;
  for (const auto& command : command_table()) {
    if (!command.hidden) names.emplace_back(command.name);
  }
  return closest_name(typed, names);
}

int run(int argc, const char* const* argv) {
  // The build's internal nvcc wrapper: everything after its `--` is nvcc's.
  if (argc >= 2 && std::string_view(argv[1]) == kNvccWrapCommand)
    return run_nvcc_wrap(std::vector<std::string>(argv + 2, argv + argc));
  // The watch over a build of this process's (build/sentinel.hpp).
  if (argc >= 2 && std::string_view(argv[1]) == build::kSentinelCommand)
    return build::run_sentinel(std::vector<std::string>(argv + 2, argv + argc));
  // The gate a build starts behind, until its sentinel runs (build/gate.hpp).
  if (argc >= 2 && std::string_view(argv[1]) == build::kGateCommand)
    return build::run_gate(std::vector<std::string>(argv + 2, argv + argc));
  build::register_sentinel_executable("/proc/self/exe");
  util::install_interrupt_handlers();
  // A reader that goes away (flashfit tags | head) must not kill us mid-write.
  std::signal(SIGPIPE, SIG_IGN);
  // No exception may escape main, and none may reach the user without context.
  try {
    return run_parsed(argc, argv);
  } catch (const util::LibraryUnavailable& e) {
    return report(e.error());
  } catch (const std::exception& e) {
    return report(util::Error{util::ErrorKind::internal, e.what(), "unexpected exception", ""});
  } catch (...) {
    return report(
        util::Error{util::ErrorKind::internal, "unknown exception", "unexpected exception", ""});
  }
}

}  // namespace flashfit::cli
