// The renderers of the command tree: roff escaping in man pages, value kinds
// from type names, and completion scripts built from a hand-made tree.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli/completion.hpp"
#include "cli/help_model.hpp"
#include "cli/manpage.hpp"

namespace flashfit::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

CommandHelp sample_tree() {
  CommandHelp root;
  root.summary = "flashfit: test tree";
  OptionHelp quiet;
  quiet.long_names = {"quiet"};
  quiet.short_names = {"q"};
  quiet.description = "Say less";
  quiet.group = "Global options";
  root.options.push_back(quiet);
  CommandHelp resolve;
  resolve.path = {"resolve"};
  resolve.summary = ".starts with a dot and has a \\ backslash";
  resolve.footer = "Exit codes: 0 ok";
  OptionHelp gpu;
  gpu.long_names = {"gpu"};
  gpu.value_name = "GPU";
  gpu.kind = ValueKind::gpu;
  gpu.repeatable = true;
  gpu.group = "Options";
  gpu.description = "A GPU; 'quoted' [bracketed]: colon";
  resolve.options.push_back(gpu);
  OptionHelp spec;
  spec.positional = true;
  spec.name = "spec";
  spec.value_name = "SPEC";
  spec.kind = ValueKind::recipe;
  spec.required = true;
  spec.description = "What to resolve";
  resolve.positionals.push_back(spec);
  root.subcommands.push_back(resolve);
  return root;
}

TEST(ManPage, EscapesRoffAndNamesThePage) {
  const auto tree = sample_tree();
  const auto page = man_page(tree.subcommands[0], tree, "flashfit 9.9");
  EXPECT_THAT(page, HasSubstr(".TH FLASHFIT\\-RESOLVE 1"));
  EXPECT_THAT(page,
              HasSubstr("flashfit\\-resolve \\- \\&.starts with a dot and has a \\e backslash"));
  EXPECT_THAT(page, HasSubstr("\\fB\\-\\-gpu\\fR \\fIGPU\\fR ..."));
  EXPECT_THAT(page, HasSubstr("\\fISPEC\\fR"));
  EXPECT_THAT(page, HasSubstr(".SH GLOBAL OPTIONS"));
  EXPECT_THAT(page, HasSubstr("\\fB\\-q\\fR, \\fB\\-\\-quiet\\fR"));
  EXPECT_THAT(page, HasSubstr(".SH EXIT STATUS\nExit codes: 0 ok"));
  // No line of the page starts with a stray request from the text.
  EXPECT_THAT(page, Not(HasSubstr("\n.starts")));
  const auto pages = man_pages(tree, "flashfit 9.9");
  ASSERT_EQ(pages.size(), 2u);
  EXPECT_EQ(pages[0].first, "flashfit.1");
  EXPECT_EQ(pages[1].first, "flashfit-resolve.1");
  // The root page does not repeat "flashfit:" after its name.
  EXPECT_THAT(pages[0].second, HasSubstr("flashfit \\- test tree"));
}

TEST(ValueKinds, FromTypeNames) {
  std::vector<std::string> choices;
  EXPECT_EQ(value_kind_of("SPEC", &choices), ValueKind::recipe);
  EXPECT_EQ(value_kind_of("PACKAGE", &choices), ValueKind::recipe);
  EXPECT_EQ(value_kind_of("GPU", &choices), ValueKind::gpu);
  EXPECT_EQ(value_kind_of("SOURCE", &choices), ValueKind::source);
  EXPECT_EQ(value_kind_of("DIR", &choices), ValueKind::dir);
  EXPECT_EQ(value_kind_of("PYTHON", &choices), ValueKind::program);
  EXPECT_EQ(value_kind_of("TEXT", &choices), ValueKind::none);
  EXPECT_EQ(value_kind_of("{}", &choices), ValueKind::none);
  EXPECT_EQ(value_kind_of("{bash,zsh}", &choices), ValueKind::choice);
  EXPECT_EQ(choices, (std::vector<std::string>{"bash", "zsh"}));
}

TEST(Completion, ScriptsCarryTheTreeAndTheWords) {
  const auto tree = sample_tree();
  CompletionWords words{{"flash-attn"}, {"upstream"}, {"L4", "8.9"}};
  const auto bash = bash_completion(tree, words, "flashfit 9.9");
  EXPECT_THAT(bash, HasSubstr("\"\") echo \"resolve\" ;;"));
  // Global options are offered under every command.
  EXPECT_THAT(bash, HasSubstr("\"resolve\") echo \"-q --quiet --gpu\" ;;"));
  EXPECT_THAT(bash, HasSubstr("\"resolve|--gpu\") echo \"gpu\" ;;"));
  EXPECT_THAT(bash, HasSubstr("\"resolve\") echo \"recipe\" ;;"));
  EXPECT_THAT(bash, HasSubstr("compgen -W \"L4 8.9 none\""));
  EXPECT_THAT(bash, HasSubstr("complete -F _flashfit flashfit"));
  const auto zsh = zsh_completion(tree, words, "flashfit 9.9");
  // Quotes, brackets and colons in descriptions are escaped for _arguments.
  EXPECT_THAT(
      zsh,
      HasSubstr("'*--gpu=[A GPU; '\\''quoted'\\'' \\[bracketed\\]\\: colon]:GPU:_flashfit_gpus'"));
  EXPECT_THAT(zsh, HasSubstr("_flashfit__resolve() {"));
  const auto fish = fish_completion(tree, words, "flashfit 9.9");
  EXPECT_THAT(
      fish,
      HasSubstr("complete -c flashfit -n '__flashfit_using resolve' -l gpu -r -a 'L4 8.9 none'"));
  EXPECT_THAT(fish, HasSubstr("-d 'A GPU; \\'quoted\\' [bracketed]: colon'"));
}

}  // namespace
}  // namespace flashfit::cli
