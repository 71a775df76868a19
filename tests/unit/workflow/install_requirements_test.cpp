// install -r's plan: which lines go to the installer unchanged, which
// packages flashfit takes with which pin, what a marker leaves out, the
// sources from the files, and the file the installer is run with.
#include "workflow/install_requirements.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "../memory_files.hpp"

namespace flashfit::workflow {
namespace {

using MemoryFiles = testing::MemoryFiles;

pkg::MarkerEnvironment linux_311() {
  pkg::MarkerEnvironment m;
  *m.find("python_version") = "3.11";
  *m.find("python_full_version") = "3.11.2";
  *m.find("sys_platform") = "linux";
  *m.find("platform_system") = "Linux";
  *m.find("platform_machine") = "x86_64";
  *m.find("os_name") = "posix";
  *m.find("implementation_name") = "cpython";
  *m.find("platform_python_implementation") = "CPython";
  return m;
}

pkg::RequirementsFile parse(const std::string& text, const std::string& name = "r.txt",
                            MemoryFiles* reader = nullptr) {
  MemoryFiles none;
  auto file = pkg::parse_requirements_file(text, name, reader ? *reader : none);
  EXPECT_TRUE(file) << file.error().message;
  return file ? *file : pkg::RequirementsFile{};
}

util::Result<InstallRequirementsPlan> plan(const std::vector<pkg::RequirementsFile>& files,
                                           const resolve::SourceFlags& flags = {}) {
  return plan_install_requirements(files, resolve::RecipeBook::built_in(), linux_311(), flags);
}

TEST(InstallRequirementsPlan, InstallerLinesStayAsWrittenAndRecipeLinesAreTaken) {
  MemoryFiles reader;
  reader.files["base.txt"] = "einops>=0.7 --hash=sha256:" + std::string(64, 'a') + "\n";
  auto file = parse(
      "# a project's requirements\n"
      "-r base.txt\n"
      "numpy>=1.24 \\\n"
      "  ; python_version >= '3.9'\n"
      "flash-attn @ https://h/flash_attn-2.8.3%2Bcu12torch2.6cxx11abiFALSE-cp310-cp310-"
      "linux_x86_64.whl\n"
      "mamba-ssm>=2.2\n"
      "requests\n",
      "r.txt", &reader);
  auto result = plan({file});
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_EQ(result->installer.size(), 3u);
  EXPECT_EQ(result->installer[0].text, "einops>=0.7");
  EXPECT_EQ(result->installer[1].text, "numpy>=1.24 ; python_version >= '3.9'");
  EXPECT_EQ(result->installer[2].text, "requests");

  ASSERT_EQ(result->flashfit.size(), 2u);
  const TakenPackage& fa = result->flashfit[0];
  EXPECT_EQ(fa.recipe, "flash-attn");
  EXPECT_EQ(fa.form, RecipeLineForm::wheel_url);
  // Another environment's file: its public version is the pin, its label is not.
  EXPECT_EQ(fa.spec, "flash-attn==2.8.3");
  ASSERT_TRUE(fa.url);
  EXPECT_NE(fa.url->find("cu12torch2.6"), std::string::npos);
  EXPECT_EQ(fa.where, "r.txt:5");
  EXPECT_EQ(result->flashfit[1].spec, "mamba-ssm>=2.2");
  EXPECT_EQ(result->flashfit[1].form, RecipeLineForm::spec);
  EXPECT_EQ(result->flashfit[1].where, "r.txt:6");

  // The installer's file: every line it gets, hashes kept, none of flashfit's.
  const auto text = installer_requirements_text(*result, "");
  EXPECT_NE(text.find("einops>=0.7 --hash=sha256:" + std::string(64, 'a')), std::string::npos);
  EXPECT_NE(text.find("\nrequests\n"), std::string::npos);
  EXPECT_EQ(text.find("flash-attn"), std::string::npos) << text;
  EXPECT_EQ(text.find("flash_attn"), std::string::npos) << text;
  EXPECT_EQ(text.find("mamba"), std::string::npos) << text;
}

TEST(InstallRequirementsPlan, SdistsAndPathsPinTheirVersion) {
  auto result = plan(
      {parse("./dist/causal_conv1d-1.5.0.post8.tar.gz\n"
             "/wheels/flash_attn-2.7.4+cu12torch2.5cxx11abiTRUE-cp311-cp311-linux_x86_64.whl\n")});
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_EQ(result->flashfit.size(), 2u);
  EXPECT_EQ(result->flashfit[0].form, RecipeLineForm::sdist);
  EXPECT_EQ(result->flashfit[0].spec, "causal-conv1d==1.5.0.post8");
  EXPECT_EQ(result->flashfit[1].form, RecipeLineForm::wheel_url);
  EXPECT_EQ(result->flashfit[1].spec, "flash-attn==2.7.4");
  EXPECT_TRUE(result->installer.empty());
  EXPECT_EQ(installer_requirements_text(*result, ""), "");
}

TEST(InstallRequirementsPlan, AFalseMarkerSkipsARecipeLine) {
  auto result = plan({parse(
      "flash-attn==2.8.3 ; python_version < '3.10'\n"
      "flash-attn==2.7.4 ; python_version >= '3.10'\n"
      "https://h/causal_conv1d-1.5.0-cp311-cp311-linux_x86_64.whl ; sys_platform == 'win32'\n")});
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_EQ(result->flashfit.size(), 1u);
  EXPECT_EQ(result->flashfit[0].spec, "flash-attn==2.7.4");
  ASSERT_EQ(result->skipped.size(), 2u);
  EXPECT_EQ(result->skipped[0].where, "r.txt:1");
  EXPECT_EQ(result->skipped[1].where, "r.txt:3");
}

TEST(InstallRequirementsPlan, CommandLineSpecsJoinTheFiles) {
  auto result = plan({parse("numpy\n"), parse("flash-attn>=2.6\n", "<command line>")});
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_EQ(result->flashfit.size(), 1u);
  EXPECT_EQ(result->flashfit[0].where, "<command line>:1");
  EXPECT_EQ(result->installer.size(), 1u);
}

TEST(InstallRequirementsPlan, ARecipePackageTwiceWithDifferentPinsIsAnError) {
  auto result = plan({parse("flash-attn==2.8.3\nnumpy\n"), parse("flash-attn==2.7.4\n", "b.txt")});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, util::ErrorKind::input);
  EXPECT_EQ(result.error().context, "b.txt:1");
  EXPECT_NE(result.error().message.find("r.txt:1"), std::string::npos) << result.error().message;
  // The same pin twice (an include repeated) is one package.
  auto same = plan({parse("flash-attn==2.8.3\n"), parse("flash_attn==2.8.3\n", "b.txt")});
  ASSERT_TRUE(same) << same.error().message;
  EXPECT_EQ(same->flashfit.size(), 1u);
}

TEST(InstallRequirementsPlan, AMarkerThatCannotBeEvaluatedNamesTheLine) {
  // Parses; fails to evaluate: a version comparison on a value that is not a
  // version (packaging raises InvalidVersion there).
  pkg::MarkerEnvironment markers = linux_311();
  *markers.find("platform_release") = "6.1.0-debian-amd64";
  auto result = plan_install_requirements({parse("numpy\nflash-attn ; platform_release >= '5'\n")},
                                          resolve::RecipeBook::built_in(), markers, {});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, util::ErrorKind::input);
  EXPECT_EQ(result.error().context, "r.txt:2");
}

TEST(InstallRequirementsPlan, SourcesFromTheFilesJoinTheFlagsAndGoToTheInstaller) {
  resolve::SourceFlags flags;
  flags.find_links.push_back("/flag/links");
  auto result = plan({parse("--index-url https://idx/simple\n"
                            "--extra-index-url https://extra/simple\n"
                            "-f /file/links\n"
                            "--pre\n"
                            "tqdm\n"),
                      parse("-f /file/links\n", "b.txt")},
                     flags);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->sources.index_url, "https://idx/simple");
  EXPECT_EQ(result->sources.extra_index_urls, std::vector<std::string>{"https://extra/simple"});
  EXPECT_EQ(result->sources.find_links, (std::vector<std::string>{"/flag/links", "/file/links"}));
  const auto text = installer_requirements_text(*result, "");
  EXPECT_NE(text.find("--index-url https://idx/simple\n"), std::string::npos) << text;
  EXPECT_NE(text.find("--find-links /flag/links\n--find-links /file/links\n"), std::string::npos);
  EXPECT_NE(text.find("\n--pre\n"), std::string::npos) << text;

  // A flag's --index-url wins over the file's.
  resolve::SourceFlags mine;
  mine.index_url = "https://mine/simple";
  auto flagged = plan({parse("--index-url https://idx/simple\ntqdm\n")}, mine);
  ASSERT_TRUE(flagged);
  EXPECT_EQ(flagged->sources.index_url, "https://mine/simple");
}

TEST(InstallRequirementsPlan, ConstraintsGoToTheInstallersConstraintFile) {
  MemoryFiles reader;
  reader.files["c.txt"] = "numpy<2\nflash-attn<2.8\n";
  auto result = plan({parse("-c c.txt\nnumpy\n", "r.txt", &reader)});
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->constraints.size(), 2u);
  EXPECT_TRUE(result->flashfit.empty());
  const auto text = installer_requirements_text(*result, "/tmp/c.txt");
  EXPECT_NE(text.find("-c /tmp/c.txt\n"), std::string::npos) << text;
  EXPECT_EQ(installer_constraints_text(*result), "numpy<2\nflash-attn<2.8\n");
}

// pip honours a constraint on any package it installs; flashfit's pick for a
// package it takes honours it too.
TEST(InstallRequirementsPlan, AConstraintNarrowsARecipePackagesPin) {
  MemoryFiles reader;
  reader.files["c.txt"] = "Flash_Attn==2.6.3\ncausal-conv1d<1.5 ; python_version < '3'\nnumpy<2\n";
  auto result =
      plan({parse("-c c.txt\nnumpy\nflash-attn\ncausal-conv1d>=1.0\n", "r.txt", &reader)});
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_EQ(result->flashfit.size(), 2u);
  EXPECT_EQ(result->flashfit[0].spec, "flash-attn==2.6.3");
  ASSERT_EQ(result->flashfit[0].notes.size(), 1u);
  EXPECT_EQ(result->flashfit[0].notes[0], "constrained by c.txt:1 (flash-attn==2.6.3)");
  // A constraint whose marker is false here narrows nothing.
  EXPECT_EQ(result->flashfit[1].spec, "causal-conv1d>=1.0");
  // Joined with the line's own pin: a constraint it contradicts leaves no version.
  reader.files["c.txt"] = "flash-attn<2.7\n";
  auto both = plan({parse("-c c.txt\nflash-attn==2.8.3\n", "r.txt", &reader)});
  ASSERT_TRUE(both);
  EXPECT_EQ(both->flashfit[0].spec, "flash-attn==2.8.3,<2.7");
  EXPECT_EQ(installer_constraints_text(*both), "flash-attn<2.7\n");
}

// pip installs "git+...#egg=flash-attn" as flash-attn, from a clone: flashfit
// takes it like any other form, unpinned (a VCS ref is no version), and says so.
TEST(InstallRequirementsPlan, SourcesThatSayNoVersionAreTakenUnpinned) {
  auto result = plan({parse(
      "git+https://github.com/Dao-AILab/flash-attention.git@v2.7.4#egg=flash_attn&subdirectory=x\n"
      "causal-conv1d @ git+https://github.com/Dao-AILab/causal-conv1d@v1.5.0\n"
      "git+https://example.org/other.git#egg=numpy\n")});
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_EQ(result->flashfit.size(), 2u);
  EXPECT_EQ(result->flashfit[0].recipe, "flash-attn");
  EXPECT_EQ(result->flashfit[0].spec, "flash-attn");
  EXPECT_EQ(result->flashfit[0].form, RecipeLineForm::source);
  ASSERT_EQ(result->flashfit[0].notes.size(), 1u);
  EXPECT_NE(result->flashfit[0].notes[0].find("pin a version (flash-attn==X)"), std::string::npos);
  EXPECT_EQ(result->flashfit[1].spec, "causal-conv1d");
  EXPECT_EQ(result->flashfit[1].form, RecipeLineForm::source);
  // Not a recipe package: the installer's, as written.
  ASSERT_EQ(result->installer.size(), 1u);
}

TEST(InstallRequirementsPlan, NotesSayWhatFlashfitDoesNotCarryOver) {
  auto result =
      plan({parse("flash-attn[triton]==2.8.3 --hash=sha256:" + std::string(64, 'b') + "\n")});
  ASSERT_TRUE(result) << result.error().message;
  ASSERT_EQ(result->flashfit.size(), 1u);
  EXPECT_EQ(result->flashfit[0].spec, "flash-attn==2.8.3");
  EXPECT_EQ(result->flashfit[0].notes.size(), 2u);
}

// The first compiled package's import check starts before the lines' run
// only where it can overlap it and torch is there to preload.
TEST(InstallRequirementsPreload, OnlyForARealRunWithLinesCompiledPackagesAndTorch) {
  auto both = plan({parse("numpy\nflash-attn\n")});
  ASSERT_TRUE(both);
  EXPECT_TRUE(preload_check_before_lines(*both, false, true));
  EXPECT_FALSE(preload_check_before_lines(*both, true, true));    // a dry run installs nothing
  EXPECT_FALSE(preload_check_before_lines(*both, false, false));  // no torch to import yet
  auto lines_only = plan({parse("numpy\neinops\n")});
  ASSERT_TRUE(lines_only);
  EXPECT_FALSE(preload_check_before_lines(*lines_only, false, true));  // nothing to check
  // No lines: the compiled package's own install overlaps its check with its pip run.
  auto compiled_only = plan({parse("flash-attn\n")});
  ASSERT_TRUE(compiled_only);
  EXPECT_FALSE(preload_check_before_lines(*compiled_only, false, true));
}

// The lines' run takes the first compiled package's wheel only with torch
// installed and held, and only where nothing in the lines could make the
// shared run fail for the wheel's sake or means to change torch.
TEST(InstallRequirementsShare, TorchHeldAtTheInstalledVersion) {
  auto both = plan({parse("numpy\nflash-attn\n")});
  ASSERT_TRUE(both);
  EXPECT_EQ(shared_run_pins(*both, false, "2.9.1+cu128"), "torch==2.9.1+cu128\n");
  EXPECT_EQ(shared_run_pins(*both, false, "1.13.0a0+gitunknown"), "torch==1.13.0a0+gitunknown\n");
  EXPECT_EQ(shared_run_pins(*both, false, "2.9.01"), "torch==2.9.1\n");  // normalised
  EXPECT_FALSE(shared_run_pins(*both, true, "2.9.1"));     // a dry run installs nothing
  EXPECT_FALSE(shared_run_pins(*both, false, ""));         // no torch to hold
  EXPECT_FALSE(shared_run_pins(*both, false, "2.9.1 x"));  // a version pip cannot pin
  auto lines_only = plan({parse("numpy\neinops\n")});
  ASSERT_TRUE(lines_only);
  EXPECT_FALSE(shared_run_pins(*lines_only, false, "2.9.1"));  // no wheel to share with
  auto compiled_only = plan({parse("flash-attn\n")});
  ASSERT_TRUE(compiled_only);
  EXPECT_FALSE(shared_run_pins(*compiled_only, false, "2.9.1"));  // no lines to share with
}

TEST(InstallRequirementsShare, NotWhenTheLinesNameTorchHashesOrUnreadOptions) {
  const std::string hash = " --hash=sha256:" + std::string(64, 'c');
  MemoryFiles reader;
  reader.files["c.txt"] = "Torch<3\n";
  for (const std::string& text :
       {std::string("torch==2.10\nflash-attn\n"), std::string("TORCH\nflash-attn\n"),
        std::string("https://download.pytorch.org/whl/cu124/"
                    "torch-2.6.0%2Bcu124-cp311-cp311-linux_x86_64.whl\nnumpy\nflash-attn\n"),
        std::string("./wheels/Torch-2.6.0-cp311-cp311-linux_x86_64.whl\nnumpy\nflash-attn\n"),
        "numpy" + hash + "\nflash-attn\n", "numpy\nflash-attn==2.8.3" + hash + "\n",
        std::string("-c c.txt\nnumpy\nflash-attn\n"),
        std::string("--prefer-binary\nnumpy\nflash-attn\n")}) {
    auto planned = plan({parse(text, "r.txt", &reader)});
    ASSERT_TRUE(planned) << text;
    EXPECT_FALSE(shared_run_pins(*planned, false, "2.9.1")) << text;
  }
  // Other constraints and index options do not stop it.
  reader.files["c.txt"] = "numpy<2\n";
  auto fine = plan(
      {parse("--index-url https://mine/simple\n-c c.txt\nnumpy\nflash-attn\n", "r.txt", &reader)});
  ASSERT_TRUE(fine);
  EXPECT_EQ(shared_run_pins(*fine, false, "2.9.1"), "torch==2.9.1\n");
}

// pip runs a file with one --hash in hash-checking mode: the lines left to it
// stay in that mode when the hashed line is one flashfit takes.
TEST(InstallRequirementsInstaller, AHashedLineFlashfitTakesKeepsPipsHashCheckingMode) {
  const std::string hash = " --hash=sha256:" + std::string(64, 'c');
  auto hashed = plan({parse("numpy\nflash-attn==2.8.3" + hash + "\n")});
  ASSERT_TRUE(hashed);
  EXPECT_NE(installer_requirements_text(*hashed, "").find("\n--require-hashes\n"),
            std::string::npos);
  // A hashed recipe line its marker skips here still puts pip in that mode.
  auto skipped = plan({parse("numpy\nflash-attn==2.8.3 ; sys_platform == 'win32'" + hash + "\n")});
  ASSERT_TRUE(skipped);
  ASSERT_EQ(skipped->skipped.size(), 1u);
  EXPECT_NE(installer_requirements_text(*skipped, "").find("\n--require-hashes\n"),
            std::string::npos);
  auto plain = plan({parse("numpy\nflash-attn==2.8.3\n")});
  ASSERT_TRUE(plain);
  EXPECT_EQ(installer_requirements_text(*plain, "").find("--require-hashes"), std::string::npos);
}

// An editable line is a requirement pip installs: the installer runs for it,
// with its file, even when flashfit took every other line.
TEST(InstallRequirementsInstaller, RunsForAnEditableLineAlone) {
  for (const std::string& editable :
       {std::string("-e ./localpkg"), std::string("-e./localpkg"),
        std::string("--editable ./localpkg"), std::string("--edit=./localpkg")}) {
    auto planned = plan({parse(editable + "\nflash-attn\n")});
    ASSERT_TRUE(planned) << editable << ": " << planned.error().message;
    EXPECT_TRUE(planned->installer.empty()) << editable;
    EXPECT_TRUE(installer_runs(*planned)) << editable;
    // Written in its long form, as the parser renders every passed-through option.
    EXPECT_NE(installer_requirements_text(*planned, "").find("\n--editable=./localpkg\n"),
              std::string::npos)
        << editable;
  }
  // An option that installs nothing does not make a run of its own.
  auto options_only = plan({parse("--pre\nflash-attn\n")});
  ASSERT_TRUE(options_only);
  EXPECT_FALSE(installer_runs(*options_only));
  EXPECT_EQ(installer_requirements_text(*options_only, ""), "");
}

TEST(InstallRequirementsPlan, HashCheckingModeFromAnyHashedLineOrRequireHashes) {
  const std::string hash = " --hash=sha256:" + std::string(64, 'a') + "\n";
  const auto mode = [](const std::string& text) {
    auto result = plan({parse(text)});
    EXPECT_TRUE(result) << text << ": " << result.error().message;
    return result && hash_checking(*result);
  };
  EXPECT_FALSE(mode("numpy\nflash-attn==2.8.3\n"));
  EXPECT_TRUE(mode("numpy==2.1.0" + hash + "flash-attn==2.8.3\n"));
  EXPECT_TRUE(mode("numpy\nflash-attn==2.8.3" + hash));
  // A recipe line its marker skips here still turns pip's mode on.
  EXPECT_TRUE(mode("numpy\nflash-attn==2.8.3 ; sys_platform == 'win32'" + hash));
  EXPECT_TRUE(mode("--require-hashes\nnumpy\n"));
}

}  // namespace
}  // namespace flashfit::workflow
