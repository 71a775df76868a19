// parse_recipe on bad input: every mistake is an input error that names the
// file and the key path; hostile input never crashes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "resolve/embedded.hpp"
#include "resolve/recipe.hpp"

namespace flashfit::resolve {
namespace {

constexpr const char* kHead = R"([package]
name = "demo"
[[source]]
name = "upstream"
repository = "owner/demo"
url_template = "https://example.com/{tag}/{filename}"
)";

// The error for `body` appended to a valid head (or alone when `whole`).
util::Error error_for(const std::string& body, bool whole = false) {
  auto recipe = parse_recipe(whole ? body : kHead + body, "recipes/demo.toml");
  if (recipe) {
    ADD_FAILURE() << "parsed:\n" << body;
    return {};
  }
  EXPECT_EQ(recipe.error().kind, util::ErrorKind::input);
  EXPECT_EQ(recipe.error().context, "recipes/demo.toml");
  return recipe.error();
}

std::string message_for(const std::string& body, bool whole = false) {
  return error_for(body, whole).message;
}

TEST(RecipeErrors, WrongTypeNamesKeyPathAndFile) {
  const util::Error error = error_for(R"(
[[release]]
gpu_archs = ["8.0"]
[[release]]
gpu_archs = ["8.0", 80]
)");
  EXPECT_EQ(
      error.message,
      "release[1].gpu_archs[1]: expected a string like \"8.0\" or \"9.0@11.8\", got an integer "
      "(line 11)");
  EXPECT_EQ(util::render(error).find("flashfit: recipes/demo.toml: release[1].gpu_archs[1]: "), 0U);

  EXPECT_NE(
      message_for("[[release]]\ngpu_archs = [\"8\"]\n")
          .find(
              "release[0].gpu_archs[0]: expected a string like \"8.0\" or \"9.0@11.8\", got \"8\""),
      std::string::npos);
  EXPECT_NE(message_for("[[release]]\ngpu_archs = \"8.0\"\n")
                .find("release[0].gpu_archs: expected an array"),
            std::string::npos);
  EXPECT_NE(message_for("[[release]]\nptx = \"no\"\ngpu_archs=[]\n")
                .find("release[0].ptx: expected true or false"),
            std::string::npos);
  EXPECT_NE(message_for("[build]\ndefault_threads = \"4\"\n")
                .find("build.default_threads: expected an integer"),
            std::string::npos);
  EXPECT_NE(message_for("[[release]]\nmin_glibc = 2.32\n")
                .find("release[0].min_glibc: expected a string like \"2.32\", got a float"),
            std::string::npos);
  EXPECT_NE(message_for("package = 3\n", true).find("package: expected a table, got an integer"),
            std::string::npos);
  EXPECT_NE(
      message_for("[release]\npython = \">=3\"\n").find("release: expected [[release]] blocks"),
      std::string::npos);
  EXPECT_NE(
      message_for("[[release]]\ncuda_tokens = { 12 = 122 }\n").find("release[0].cuda_tokens.12"),
      std::string::npos);
  EXPECT_NE(message_for("[[release]]\ncuda_tokens = { twelve = \"cu12\" }\n")
                .find("release[0].cuda_tokens.twelve"),
            std::string::npos);
  EXPECT_NE(message_for("[[release]]\nmin_compute_capability = \"sm_80\"\n")
                .find("release[0].min_compute_capability"),
            std::string::npos);
}

TEST(RecipeErrors, UnknownKeysAreErrorsWithSuggestions) {
  util::Error error = error_for("[[release]]\ngpu_arch = [\"8.0\"]\n");
  EXPECT_NE(error.message.find("release[0].gpu_arch: unknown key"), std::string::npos);
  EXPECT_EQ(error.hint, "did you mean 'gpu_archs'?");
  error = error_for("[pakage]\nname = \"x\"\n", true);
  EXPECT_NE(error.message.find("pakage: unknown key"), std::string::npos);
  EXPECT_EQ(error.hint, "did you mean 'package'?");
  EXPECT_NE(message_for("[build]\nnvcc_threads = 2\n").find("build.nvcc_threads: unknown key"),
            std::string::npos);
  EXPECT_NE(message_for("[[known_broken]]\nversions=\">=1\"\nreason=\"x\"\nglob=\"*\"\n")
                .find("known_broken[0].glob"),
            std::string::npos);
  EXPECT_NE(
      message_for(
          "[[build.arch_token]]\ntoken=\"80\"\nmin_cc=\"8.0\"\nmax_cc=\"8.9\"\nnvcc=\"1.0\"\n")
          .find("build.arch_token[0].nvcc: unknown key"),
      std::string::npos);
  EXPECT_NE(message_for("[package]\nname = \"x\"\nversion = \"1\"\n", true)
                .find("package.version: unknown key"),
            std::string::npos);
}

TEST(RecipeErrors, BadSpecifiers) {
  EXPECT_NE(message_for("[[release]]\nversions = \">=2.8,<\"\npython=\">=3\"\n")
                .find("release[0].versions: invalid version specifier \">=2.8,<\""),
            std::string::npos);
  EXPECT_NE(message_for("[[release]]\npython = \"3.9\"\n")
                .find("release[0].python: invalid version specifier"),
            std::string::npos);
  EXPECT_NE(message_for("[[release]]\ncuda = \"~=12\"\ntorch=\">=2\"\n").find("release[0].cuda"),
            std::string::npos);
  EXPECT_NE(message_for("[[known_broken]]\nversions = \"=>2.8\"\nreason = \"x\"\n")
                .find("known_broken[0].versions"),
            std::string::npos);
  EXPECT_NE(message_for("[[known_broken]]\nversions = \">=2\"\ntorch = \"2.6\"\nreason = \"x\"\n")
                .find("known_broken[0].torch"),
            std::string::npos);
}

TEST(RecipeErrors, Sources) {
  EXPECT_NE(
      message_for(
          "[[source]]\nname = \"upstream\"\nrepository = \"a/b\"\nurl_template = \"{filename}\"\n")
          .find("source[1].name: duplicate source name \"upstream\""),
      std::string::npos);
  EXPECT_NE(message_for("[[release]]\nsources = [\"upstrem\"]\npython = \">=3\"\n")
                .find("release[0].sources[0]: unknown source \"upstrem\""),
            std::string::npos);
  EXPECT_NE(message_for("[[known_broken]]\nversions=\">=1\"\nsources = [\"x\"]\nreason = \"r\"\n")
                .find("known_broken[0].sources[0]"),
            std::string::npos);
  auto source = [](const std::string& fields) {
    return message_for("[package]\nname = \"demo\"\n[[source]]\n" + fields, true);
  };
  EXPECT_NE(source("name = \"cache\"\nrepository = \"a/b\"\nurl_template = \"{filename}\"\n")
                .find("reserved"),
            std::string::npos);
  EXPECT_NE(source("name = \"Up Stream\"\nrepository = \"a/b\"\nurl_template = \"{filename}\"\n")
                .find("not a valid source name"),
            std::string::npos);
  EXPECT_NE(source("name = \"u\"\nrepository = \"a\"\nurl_template = \"{filename}\"\n")
                .find("source[0].repository"),
            std::string::npos);
  EXPECT_NE(
      source("name = \"u\"\nurl_template = \"{filename}\"\n").find("source[0].repository: missing"),
      std::string::npos);
  EXPECT_NE(
      source(
          "name = \"u\"\nrepository = \"a/b\"\nurl_template = \"https://x/{version}/{filename}\"\n")
          .find("source[0].url_template: unknown placeholder {version}"),
      std::string::npos);
  EXPECT_NE(source("name = \"u\"\nrepository = \"a/b\"\nurl_template = \"https://x/{tag}\"\n")
                .find("must contain {filename}"),
            std::string::npos);
  EXPECT_NE(source("name = \"u\"\nrepository = \"a/b\"\nurl_template = \"{filename}\"\napi_url = "
                   "\"{api/x\"\n")
                .find("source[0].api_url"),
            std::string::npos);
  EXPECT_NE(source("name = \"u\"\nrepository = \"a/b\"\nurl_template = \"{filename}\"\nlabels = "
                   "\"community\"\nabi = \"label\"\n")
                .find("source[0].abi"),
            std::string::npos);
  EXPECT_NE(
      source("name = \"u\"\nrepository = \"a/b\"\nurl_template = \"{filename}\"\nabi = \"maybe\"\n")
          .find("unknown ABI rule"),
      std::string::npos);
  EXPECT_NE(
      source(
          "name = \"u\"\nrepository = \"a/b\"\nurl_template = \"{filename}\"\nlabels = \"cuda\"\n")
          .find("unknown label dialect"),
      std::string::npos);
  EXPECT_NE(
      source("name = \"u\"\nrepository = \"a/b\"\nurl_template = \"{filename}\"\nkind = \"pypi\"\n")
          .find("unknown source kind"),
      std::string::npos);
  EXPECT_NE(source("name = \"u\"\nrepository = \"a/b\"\nurl_template = \"{filename}\"\ncatalog = "
                   "\"../x.tsv\"\n")
                .find("source[0].catalog"),
            std::string::npos);
}

TEST(RecipeErrors, PackageAndBlocks) {
  EXPECT_NE(message_for("", true).find("missing [package]"), std::string::npos);
  EXPECT_NE(message_for("[package]\nsummary = \"x\"\n", true).find("package.name: missing"),
            std::string::npos);
  EXPECT_NE(
      message_for("[package]\nname = \"-bad-\"\n", true).find("not a valid distribution name"),
      std::string::npos);
  EXPECT_NE(message_for("[package]\nname = \"\"\n", true).find("package.name: must not be empty"),
            std::string::npos);
  EXPECT_NE(message_for("[package]\nname = \"x\"\naliases = [\"a b\"]\n", true)
                .find("package.aliases[0]"),
            std::string::npos);
  EXPECT_NE(message_for("[package]\nname = \"x\"\nbinary_module = \"x-y\"\n", true)
                .find("package.binary_module"),
            std::string::npos);
  EXPECT_NE(message_for("[[release]]\nversions = \">=1\"\n").find("release[0]: sets no facts"),
            std::string::npos);
  EXPECT_NE(message_for("[[release]]\nptx = true\n").find("release[0].ptx: ptx needs gpu_archs"),
            std::string::npos);
  EXPECT_NE(
      message_for("[[known_broken]]\nreason = \"x\"\n").find("known_broken[0].versions: missing"),
      std::string::npos);
  EXPECT_NE(
      message_for("[[known_broken]]\nversions = \">=1\"\n").find("known_broken[0].reason: missing"),
      std::string::npos);
}

TEST(RecipeErrors, Build) {
  const std::string token =
      "[[build.arch_token]]\ntoken = \"80\"\nmin_cc = \"8.0\"\nmax_cc = \"8.9\"\n";
  EXPECT_NE(
      message_for("[build]\narch_variable = \"ARCHS\"\ndefault_archs = [\"86\"]\n" + token)
          .find("build.default_archs[0]: \"86\" is not one of the [[build.arch_token]] tokens"),
      std::string::npos);
  EXPECT_NE(message_for(token).find("arch tokens need build.arch_variable"), std::string::npos);
  EXPECT_NE(message_for("[build]\narch_variable = \"A\"\n" + token + token)
                .find("build.arch_token[1].token: duplicate"),
            std::string::npos);
  EXPECT_NE(message_for("[build]\narch_variable = \"A\"\n[[build.arch_token]]\ntoken = "
                        "\"80\"\nmin_cc = \"8.9\"\nmax_cc = \"8.0\"\n")
                .find("build.arch_token[0].max_cc"),
            std::string::npos);
  EXPECT_NE(message_for("[build]\narch_variable = \"A\"\n[[build.arch_token]]\ntoken = "
                        "\"80\"\nmin_cc = \"8.0\"\nmax_cc = \"9.0\"\n")
                .find("build.arch_token[0].max_cc"),
            std::string::npos);
  EXPECT_NE(message_for("[build]\narch_variable = \"A\"\n[[build.arch_token]]\ntoken = \"80\"\n")
                .find("needs both min_cc and max_cc"),
            std::string::npos);
  EXPECT_NE(message_for("[build]\nenv = { \"BAD NAME\" = \"1\" }\n").find("build.env.BAD NAME"),
            std::string::npos);
  EXPECT_NE(message_for("[build]\nenv = { A = 1 }\n").find("build.env.A: expected a string"),
            std::string::npos);
  EXPECT_NE(message_for("[build]\narch_variable = \"1X\"\n").find("build.arch_variable"),
            std::string::npos);
  EXPECT_NE(message_for("[build]\ndefault_threads = 0\n")
                .find("build.default_threads: expected 1 to 256"),
            std::string::npos);
  EXPECT_NE(
      message_for("[build]\nmemory_per_thread_gib = -1\n").find("build.memory_per_thread_gib"),
      std::string::npos);
  EXPECT_NE(message_for("[build]\nmemory_per_thread_gib = nan\n").find("finite"),
            std::string::npos);
  EXPECT_NE(
      message_for("[build]\nbuild_requires = [\"torch>=2\"]\n").find("build.build_requires[0]"),
      std::string::npos);
}

TEST(RecipeErrors, TruncatedText) {
  const std::string full(find_embedded(embedded_recipes(), "flash-attn.toml")->text);
  // In the middle of the first [[source]] block's url_template string.
  const std::size_t cut = full.find("url_template = \"https://github.com/") + 30;
  EXPECT_NE(message_for(full.substr(0, cut), true).find("invalid TOML at line"), std::string::npos);
  // Every prefix gives an answer (a recipe or an error), never a crash.
  for (std::size_t length = 0; length < full.size(); length += 37) {
    auto recipe = parse_recipe(full.substr(0, length), "cut.toml");
    if (!recipe) {
      EXPECT_EQ(recipe.error().kind, util::ErrorKind::input);
    }
  }
}

TEST(RecipeErrors, HostileInput) {
  // Huge: over the 1 MiB limit, refused before parsing.
  EXPECT_NE(message_for(std::string(kHead) + "# " + std::string(2 * 1024 * 1024, 'x') + "\n", true)
                .find("file too large"),
            std::string::npos);
  // Deep nesting: toml++ caps it; the answer is an error.
  EXPECT_NE(message_for("x = " + std::string(100000, '['), true).find("invalid TOML"),
            std::string::npos);
  std::string tables = "x = ";
  for (int i = 0; i < 5000; ++i) tables += "{a = ";
  EXPECT_NE(message_for(tables, true).find("invalid TOML"), std::string::npos);
  // NUL bytes in the text, and NUL or control characters smuggled in through escapes.
  EXPECT_NE(
      message_for(std::string(kHead) + std::string("[[release]]\0python = \">=3\"\n", 27), true)
          .find("NUL byte at line 7"),
      std::string::npos);
  EXPECT_NE(message_for("[package]\nname = \"demo\"\nsummary = \"a\\u0000b\"\n", true)
                .find("package.summary: control character \\x00"),
            std::string::npos);
  EXPECT_NE(message_for("[[release]]\npython = \">=3\"\nnote = \"\\u001b[31mred\"\n")
                .find("control character \\x1b"),
            std::string::npos);
  // Not text at all, and invalid UTF-8.
  EXPECT_NE(message_for("\x7f"
                        "ELF\x02\x01\x01",
                        true)
                .find("invalid TOML"),
            std::string::npos);
  EXPECT_NE(message_for("[package]\nname = \"\xff\xfe\"\n", true).find("invalid TOML"),
            std::string::npos);
  // Very many blocks are refused, not ground through.
  std::string many = kHead;
  for (int i = 0; i < 10001; ++i) many += "[[release]]\npython=\">=3\"\n";
  EXPECT_NE(message_for(many, true).find("too many [[release]] blocks"), std::string::npos);
  // A very long key or value stays printable in the message.
  const std::string long_key(5000, 'k');
  EXPECT_LT(message_for("[package]\nname = \"x\"\n" + long_key + " = 1\n", true).size(), 300U);
}

TEST(RecipeErrors, MutatedBuiltInsNeverCrash) {
  const std::string full(find_embedded(embedded_recipes(), "flash-attn.toml")->text);
  std::uint32_t state = 12345;
  auto next = [&] {
    state = state * 1103515245U + 12345U;
    return state >> 8;
  };
  const char noise[] = {'[', ']',  '"',  '=', '\n', '{', '}', ',',
                        '.', '\0', '\\', '#', 'x',  '9', '@'};
  for (int round = 0; round < 400; ++round) {
    std::string text = full;
    for (int edit = 0; edit < 3; ++edit) {
      text[next() % text.size()] = noise[next() % sizeof noise];
    }
    auto recipe = parse_recipe(text, "mutated.toml");
    if (!recipe) {
      EXPECT_EQ(recipe.error().kind, util::ErrorKind::input);
      EXPECT_FALSE(recipe.error().message.empty());
    }
  }
}

}  // namespace
}  // namespace flashfit::resolve

namespace flashfit::resolve {
namespace {

TEST(RecipeErrors, UnitKindsAndSourcesAreChecked) {
  const std::string measured =
      "[build.measured]\nmachine = \"m\"\nnvcc = \"13.0\"\ncalibration_seconds = 2.5\n";
  const std::string kind =
      "[[build.unit_kind]]\nname = \"fwd\"\nmatch = [\"f_*.cu\"]\nseconds = 100\npeak_gib = 4\n";
  // A valid table parses, and kind_of finds the first match by file name.
  auto ok = parse_recipe(std::string(kHead) +
                             "[build]\nextension = \"ext_cuda\"\nsources = [\"csrc/*.cu\"]\n" +
                             measured + kind,
                         "recipes/demo.toml");
  ASSERT_TRUE(ok) << util::render(ok.error());
  EXPECT_EQ(ok->build.extension, "ext_cuda");
  ASSERT_NE(ok->build.kind_of("csrc/f_1.cu"), nullptr);
  EXPECT_EQ(ok->build.kind_of("csrc/f_1.cu")->name, "fwd");
  EXPECT_EQ(ok->build.kind_of("csrc/g_1.cu"), nullptr);
  EXPECT_DOUBLE_EQ(ok->build.measured->calibration_seconds, 2.5);

  EXPECT_THAT(message_for("[build]\nextension = \"not a module\"\n"),
              ::testing::HasSubstr("build.extension"));
  EXPECT_THAT(message_for("[build]\nsources = [\"../x/*.cu\"]\n"),
              ::testing::HasSubstr("inside the source tree"));
  EXPECT_THAT(message_for("[build]\nsources = [\"/abs/*.cu\"]\n"),
              ::testing::HasSubstr("inside the source tree"));
  EXPECT_THAT(message_for("[build]\n" + kind),
              ::testing::HasSubstr("unit kinds need [build.measured]"));
  EXPECT_THAT(message_for("[build]\n" + measured + kind + kind),
              ::testing::HasSubstr("duplicate kind \"fwd\""));
  EXPECT_THAT(message_for("[build]\n" + measured +
                          "[[build.unit_kind]]\nname = \"a\"\nmatch = [\"x/y.cu\"]\n"),
              ::testing::HasSubstr("no '/'"));
  EXPECT_THAT(message_for("[build]\n" + measured +
                          "[[build.unit_kind]]\nname = \"a\"\nmatch = []\nseconds = 1\n"),
              ::testing::HasSubstr("at least one match pattern"));
  EXPECT_THAT(
      message_for(
          "[build]\n" + measured +
          "[[build.unit_kind]]\nname = \"a\"\nmatch = [\"*.cu\"]\nseconds = -5\npeak_gib = 1\n"),
      ::testing::HasSubstr("build.unit_kind[0].seconds: expected seconds above 0"));
  EXPECT_THAT(message_for("[build]\n" + measured +
                          "[[build.unit_kind]]\nname = \"a\"\nmatch = [\"*.cu\"]\nseconds = 5\n"),
              ::testing::HasSubstr("needs both seconds and peak_gib"));
  EXPECT_THAT(message_for("[build]\n[build.measured]\nnvcc = \"13.0\"\n"),
              ::testing::HasSubstr("machine"));
  EXPECT_THAT(message_for("[build]\n[build.measured]\nmachine = \"m\"\nnvcc = \"thirteen\"\n"),
              ::testing::HasSubstr("build.measured.nvcc"));
  EXPECT_THAT(message_for("[build]\n[build.measured]\nmachine = \"m\"\ncalibration_seconds = 0\n"),
              ::testing::HasSubstr("calibration_seconds"));
}

}  // namespace
}  // namespace flashfit::resolve
