#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "util/build_info.hpp"
#include "util/interrupt.hpp"
#include "util/strings.hpp"

namespace flashfit::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Optional;
using ::testing::StartsWith;

constexpr const char* kExitCodes =
    "Exit codes: 0 ok, 1 the task failed, 2 bad usage or unreadable input, 130 interrupted.";

// ---------------------------------------------------------------------------
// suggest_command

TEST(SuggestCommand, TheTableHasTags) {
  bool found = false;
  for (const auto& command : command_table()) found = found || command.name == "tags";
  EXPECT_TRUE(found);
}

TEST(SuggestCommand, CloseTyposFindTheCommand) {
  for (const char* typed : {"tgas",     // transposition
                            "atgs",     // transposition at the start
                            "tasg",     // transposition at the end
                            "tagz",     // substitution
                            "tas",      // deletion
                            "tagss",    // insertion
                            "xtags",    // insertion at the start
                            "tags"}) {  // exact
    EXPECT_THAT(suggest_command(typed), Optional(std::string("tags"))) << typed;
  }
}

TEST(SuggestCommand, PrefixesOfTwoOrMoreCharacters) {
  EXPECT_THAT(suggest_command("ta"), Optional(std::string("tags")));
  EXPECT_THAT(suggest_command("tag"), Optional(std::string("tags")));
  // One letter is too little to guess from (and is 3 edits away).
  EXPECT_EQ(suggest_command("t"), std::nullopt);
}

TEST(SuggestCommand, FarOffNamesGetNoSuggestion) {
  for (const char* typed : {"", "zzzzzz", "gats", "upload", "TAGS", "tg", "sgat", "x", "--tags",
                            "tags-and-more", "a"}) {
    EXPECT_EQ(suggest_command(typed), std::nullopt) << "'" << typed << "'";
  }
}

TEST(SuggestCommand, HostileInputIsHandled) {
  EXPECT_EQ(suggest_command(std::string(100000, 'x')), std::nullopt);
  EXPECT_EQ(suggest_command("\xff\xfe\xfd\xfc"), std::nullopt);
}

// ---------------------------------------------------------------------------
// cli::run, in process

struct Outcome {
  int code = -1;
  std::string out;
  std::string err;
};

Outcome run_cli(const std::vector<std::string>& args) {
  std::vector<const char*> argv{"flashfit"};
  for (const auto& arg : args) argv.push_back(arg.c_str());
  argv.push_back(nullptr);
  Outcome outcome;
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  outcome.code = run(static_cast<int>(argv.size() - 1), argv.data());
  outcome.out = testing::internal::GetCapturedStdout();
  outcome.err = testing::internal::GetCapturedStderr();
  return outcome;
}

TEST(CliRun, Version) {
  const auto r = run_cli({"--version"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, std::string("flashfit ") + util::kVersion + "\n");
  EXPECT_EQ(std::string(util::kVersion), "0.1.0");
  EXPECT_EQ(r.err, "");
}

TEST(CliRun, Help) {
  for (const char* flag : {"--help", "-h"}) {
    const auto r = run_cli({flag});
    EXPECT_EQ(r.code, 0) << flag;
    EXPECT_THAT(r.out, HasSubstr("Usage: flashfit")) << flag;
    EXPECT_THAT(r.out, HasSubstr("tags")) << flag;
    EXPECT_THAT(r.out, HasSubstr("List the wheel tags an interpreter accepts")) << flag;
    EXPECT_THAT(r.out, HasSubstr(kExitCodes)) << flag;
    EXPECT_EQ(r.err, "") << flag;
  }
}

TEST(CliRun, CommandHelp) {
  const auto r = run_cli({"tags", "--help"});
  EXPECT_EQ(r.code, 0);
  for (const char* text : {"--python", "--json", "--sys-tags", kExitCodes}) {
    EXPECT_THAT(r.out, HasSubstr(text));
  }
  EXPECT_EQ(r.err, "");
}

TEST(CliRun, NoCommandIsAUsageErrorWithHelpOnStderr) {
  const auto r = run_cli({});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("Usage: flashfit"));
}

TEST(CliRun, UnknownCommandWithSuggestion) {
  const auto r = run_cli({"tgas"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "flashfit: unknown command 'tgas'\n  hint: did you mean 'tags'?\n");
}

TEST(CliRun, UnknownCommandWithoutSuggestion) {
  const auto r = run_cli({"zzzzzz"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "flashfit: unknown command 'zzzzzz'\n  hint: run 'flashfit --help' for the list of "
            "commands\n");
}

TEST(CliRun, UnknownCommandIsFoundBehindOptions) {
  const auto r = run_cli({"--verbose", "tgas", "--python", "x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("unknown command 'tgas'"));
}

TEST(CliRun, UnknownCommandIsQuotedSafely) {
  const auto r = run_cli({"\x1b[2Jtgas"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown command '\\x1b[2Jtgas'"));
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos);
}

TEST(CliRun, BadOptionsAreUsageErrors) {
  const std::vector<std::vector<std::string>> cases = {
      {"tags", "--bogus"},  {"--bogus"},           {"tags", "positional"},
      {"tags", "--python"}, {"tags", "--python="}, {"tags", "--python", ""},
  };
  for (const auto& args : cases) {
    const auto r = run_cli(args);
    const std::string shown = util::join(args, " ");
    EXPECT_EQ(r.code, 2) << shown;
    EXPECT_EQ(r.out, "") << shown;
    EXPECT_THAT(r.err, StartsWith("flashfit: ")) << shown;
    EXPECT_THAT(r.err, Not(HasSubstr("internal error"))) << shown;
  }
}

TEST(CliRun, MissingInterpreterIsExitTwo) {
  const auto r = run_cli({"tags", "--python", "/nonexistent/python3"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "flashfit: tags: --python: no executable interpreter at '/nonexistent/python3'\n"
            "  hint: pass --python with the path of a Python 3 interpreter\n");
}

TEST(CliRun, TagsRunsTheRealInterpreter) {
  const auto r = run_cli({"tags", "--python", FLASHFIT_TEST_PYTHON});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto lines = util::split(r.out, '\n');
  ASSERT_GT(lines.size(), 100u);
  EXPECT_EQ(lines.back(), "");  // ends with a newline
  EXPECT_THAT(std::string(lines.front()), StartsWith("cp3"));
}

// An interrupt that arrives while the interpreter runs is exit 130.
TEST(CliRun, InterruptedIsExit130) {
  util::set_interrupted(true);
  const auto r = run_cli({"tags", "--python", FLASHFIT_TEST_PYTHON});
  util::set_interrupted(false);
  EXPECT_EQ(r.code, 130);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("interrupted"));
}

// ---------------------------------------------------------------------------
// make_command_tree

// A tree for one typed command defines that command alone: the others keep
// their name and summary (the root's help lists them) and have no options,
// subcommands or runner.
TEST(CommandTree, ATreeForOneCommandDefinesOnlyThatOne) {
  const auto full = make_command_tree();
  const auto lazy = make_command_tree("cache");
  ASSERT_EQ(full->runners.size(), command_table().size());
  ASSERT_EQ(lazy->runners.size(), command_table().size());
  std::size_t left_out = 0;  // the other commands' options, --help aside
  for (std::size_t i = 0; i < command_table().size(); ++i) {
    const std::string name(command_table()[i].name);
    const auto& [sub, runner] = lazy->runners[i];
    const CLI::App* whole = full->runners[i].first;
    EXPECT_TRUE(full->runners[i].second) << name;
    EXPECT_EQ(sub->get_name(), name);
    EXPECT_EQ(sub->get_description(), whole->get_description()) << name;
    EXPECT_EQ(sub->get_group(), whole->get_group()) << name;
    if (name == "cache") {
      EXPECT_TRUE(runner);
      EXPECT_EQ(sub->get_options().size(), whole->get_options().size());
      EXPECT_EQ(sub->get_subcommands({}).size(), whole->get_subcommands({}).size());
      EXPECT_GT(sub->get_subcommands({}).size(), 2U);
    } else {
      EXPECT_FALSE(runner) << name;
      EXPECT_TRUE(sub->get_subcommands({}).empty()) << name;
      EXPECT_EQ(sub->get_options().size(), 1U) << name;  // its --help alone
      left_out += whole->get_options().size() - 1;
    }
  }
  EXPECT_GT(left_out, 50U);
  EXPECT_EQ(lazy->app->help(), full->app->help());
}

// What reaches past the typed command is answered by the full tree: help,
// errors and nested commands read as they always did (never an internal error
// from a command that was not defined).
TEST(CliRun, ACommandParsedAloneAnswersAsTheFullTree) {
  const auto help = run_cli({"cache", "--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_THAT(help.out, HasSubstr("gc"));
  const auto nested = run_cli({"cache", "lst"});
  EXPECT_EQ(nested.code, 2);
  EXPECT_THAT(nested.err, HasSubstr("cache"));
  for (const std::vector<std::string>& args : {std::vector<std::string>{"tags", "cache", "list"},
                                               {"tags", "help"},
                                               {"-q", "tags", "--bogus"},
                                               {"help", "cache", "gc"},
                                               {"completion", "bash"}}) {
    const auto r = run_cli(args);
    const std::string shown = util::join(args, " ");
    EXPECT_THAT(r.err, Not(HasSubstr("internal error"))) << shown;
    EXPECT_THAT(r.err, Not(HasSubstr("bad_function_call"))) << shown;
  }
  const auto completion = run_cli({"completion", "bash"});
  EXPECT_EQ(completion.code, 0);
  EXPECT_THAT(completion.out, HasSubstr("--sys-tags"));  // another command's option
}

}  // namespace
}  // namespace flashfit::cli
