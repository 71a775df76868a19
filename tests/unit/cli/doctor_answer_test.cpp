// doctor's answer per package (cli/doctor_answer): decided from facts, never
// claiming an import that was not checked.
#include "cli/doctor_answer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace flashfit::cli {
namespace {

using ::testing::HasSubstr;

install::ImportCheck import_result(bool ok) {
  install::ImportCheck check;
  check.torch_ok = true;
  check.torch_version = "2.9.1";
  check.modules.push_back({"flash_attn_2_cuda", ok, ok ? "" : "ImportError: undefined symbol"});
  return check;
}

struct Fixture {
  resolve::Candidate good, bad;
  resolve::Resolution fits, none;
  Fixture() {
    good.filename = "flash_attn-2.8.3+cu12torch2.9cxx11abiTRUE-cp312-cp312-linux_x86_64.whl";
    good.source = "upstream";
    bad.filename = "flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp312-cp312-linux_x86_64.whl";
    bad.source = "upstream";
    resolve::Judged j;
    j.candidate = &good;
    fits.candidates = {j};
    fits.selected = 0;
    resolve::Judged r;
    r.candidate = &bad;
    r.reasons.push_back({resolve::ReasonCode::torch, "built for torch 2.8, not 2.9"});
    none.candidates = {r};
    none.suggestions.push_back(
        {resolve::SuggestionKind::version, "flash-attn 2.8.2 fits", std::string("flashfit x")});
  }
};

TEST(DoctorAnswer, InstalledAndCheckedWorks) {
  PackageFacts facts;
  facts.package = "flash-attn";
  facts.installed_version = "2.8.3";
  facts.import_check = import_result(true);
  PackageAnswer a = decide_answer(facts);
  EXPECT_EQ(a.kind, AnswerKind::works);
  EXPECT_EQ(a.importable, std::optional<bool>(true));
  EXPECT_THAT(a.summary, HasSubstr("imports flash_attn_2_cuda"));
}

// An import does not touch the GPU: a package whose kernels cannot run here
// is installed and importable, not "works", and the next step is the fallback.
TEST(DoctorAnswer, ImportsButCannotRunIsNotWorks) {
  PackageFacts facts;
  facts.package = "flash-attn";
  facts.installed_version = "2.8.3";
  facts.import_check = import_result(true);
  facts.cannot_run = "there is no NVIDIA GPU here (no NVIDIA driver)";
  facts.fallback_command = "flashfit fallback";
  PackageAnswer a = decide_answer(facts);
  EXPECT_EQ(a.kind, AnswerKind::installed);
  EXPECT_EQ(a.importable, std::optional<bool>(true));
  EXPECT_THAT(a.summary, HasSubstr("imports flash_attn_2_cuda, but its kernels cannot run here: "
                                   "there is no NVIDIA GPU here"));
  EXPECT_EQ(a.command, std::optional<std::string>("flashfit fallback"));
}

env::GpuDevice device(int major, int minor) {
  env::GpuDevice d;
  d.capability = env::Fact<env::ComputeCapability>::of({major, minor}, "NVML");
  return d;
}

TEST(DoctorAnswer, KernelsCannotRunOnlyWhenKnown) {
  resolve::Recipe recipe;
  recipe.name = "flash-attn";
  recipe.needs_cuda = true;
  resolve::ReleaseFacts old_release, new_release;
  old_release.min_compute_capability = "8.0";
  new_release.min_compute_capability = "9.0";
  recipe.releases = {new_release, old_release};
  env::Environment e;
  e.torch.cuda = env::Fact<env::ToolkitBuild>::of(env::ToolkitBuild::of("12.8"), "version.py");
  e.gpu.presence = env::GpuPresence::gpus_found;
  e.gpu.gpus = env::Fact<std::vector<env::GpuDevice>>::of({device(8, 9)}, "NVML");
  EXPECT_EQ(kernels_cannot_run(&recipe, e), std::nullopt);
  e.gpu.gpus = env::Fact<std::vector<env::GpuDevice>>::of({device(7, 5), device(8, 0)}, "NVML");
  EXPECT_EQ(kernels_cannot_run(&recipe, e), std::nullopt);  // one GPU reaches 8.0
  e.gpu.gpus = env::Fact<std::vector<env::GpuDevice>>::of({device(7, 5), device(7, 0)}, "NVML");
  EXPECT_THAT(
      kernels_cannot_run(&recipe, e).value_or(""),
      HasSubstr("no GPU here can run flash-attn (it runs on compute capability 8.0 or newer)"));
  e.gpu.gpus = env::Fact<std::vector<env::GpuDevice>>::unknown("NVML failed");
  e.gpu.presence = env::GpuPresence::unknown;
  EXPECT_EQ(kernels_cannot_run(&recipe, e), std::nullopt);  // unknown is not "cannot"
  e.torch.cuda = env::Fact<env::ToolkitBuild>::of(env::ToolkitBuild::none_built(), "version.py");
  EXPECT_EQ(kernels_cannot_run(&recipe, e),
            std::optional<std::string>("torch here is a CPU build"));
  e.gpu.presence = env::GpuPresence::no_driver;
  e.gpu.summary = "no NVIDIA driver";
  EXPECT_THAT(kernels_cannot_run(&recipe, e).value_or(""), HasSubstr("no NVIDIA GPU here"));
  // A ROCm torch has no NVIDIA driver and no CUDA: not said to be unable to run.
  e.torch.hip = env::Fact<env::ToolkitBuild>::of(env::ToolkitBuild::of("6.2.41133"), "version.py");
  EXPECT_EQ(kernels_cannot_run(&recipe, e), std::nullopt);
  e.torch.hip = env::Fact<env::ToolkitBuild>::of(env::ToolkitBuild::none_built(), "version.py");
  // A maximum every release keeps (FlashAttention-3's 9.0): a Blackwell GPU is above it.
  resolve::ReleaseFacts bounded;
  bounded.max_compute_capability = "9.0";
  recipe.releases.push_back(bounded);
  e.gpu.presence = env::GpuPresence::gpus_found;
  e.torch.cuda = env::Fact<env::ToolkitBuild>::of(env::ToolkitBuild::of("12.8"), "version.py");
  e.gpu.gpus = env::Fact<std::vector<env::GpuDevice>>::of({device(12, 0)}, "NVML");
  EXPECT_THAT(kernels_cannot_run(&recipe, e).value_or(""),
              HasSubstr("(it runs on compute capability 8.0 to 9.0)"));
  e.gpu.gpus = env::Fact<std::vector<env::GpuDevice>>::of({device(12, 0), device(9, 0)}, "NVML");
  EXPECT_EQ(kernels_cannot_run(&recipe, e), std::nullopt);
  // One GPU below the range and one above it: none runs it, as resolve's suggestions say too.
  e.gpu.gpus = env::Fact<std::vector<env::GpuDevice>>::of({device(7, 0), device(12, 0)}, "NVML");
  EXPECT_THAT(kernels_cannot_run(&recipe, e).value_or(""), HasSubstr("no GPU here can run"));
  // A GPU whose compute capability is unknown may be the one that runs it.
  auto unknown = device(7, 0);
  unknown.capability = env::Fact<env::ComputeCapability>::unknown("NVML failed");
  e.gpu.gpus = env::Fact<std::vector<env::GpuDevice>>::of({device(7, 0), unknown}, "NVML");
  EXPECT_EQ(kernels_cannot_run(&recipe, e), std::nullopt);
  recipe.needs_cuda = false;
  EXPECT_EQ(kernels_cannot_run(&recipe, e), std::nullopt);
  EXPECT_EQ(kernels_cannot_run(nullptr, e), std::nullopt);
}

TEST(DoctorAnswer, InstalledButUncheckedNeverSaysImports) {
  Fixture f;
  PackageFacts facts;
  facts.package = "flash-attn";
  facts.installed_version = "2.8.3";
  facts.import_skipped = "what-if flags describe another environment";
  facts.resolution = &f.fits;
  facts.install_command = "flashfit install flash-attn";
  PackageAnswer a = decide_answer(facts);
  EXPECT_EQ(a.kind, AnswerKind::fits);
  EXPECT_EQ(a.importable, std::nullopt);
  EXPECT_THAT(a.summary, HasSubstr("import not checked: what-if flags"));
  EXPECT_THAT(a.summary, ::testing::Not(HasSubstr("imports")));
}

TEST(DoctorAnswer, AFailingImportIsANoteAndTheResolutionAnswers) {
  Fixture f;
  PackageFacts facts;
  facts.package = "flash-attn";
  facts.installed_version = "2.8.3";
  facts.import_check = import_result(false);
  facts.resolution = &f.fits;
  facts.install_command = "flashfit install flash-attn";
  PackageAnswer a = decide_answer(facts);
  EXPECT_EQ(a.kind, AnswerKind::fits);
  EXPECT_EQ(a.importable, std::optional<bool>(false));
  EXPECT_THAT(a.summary, HasSubstr("its import fails"));
  ASSERT_FALSE(a.notes.empty());
  EXPECT_THAT(a.notes.front(), HasSubstr("undefined symbol"));
  EXPECT_EQ(a.command, std::optional<std::string>("flashfit install flash-attn"));
}

TEST(DoctorAnswer, NothingFitsSaysWhyAndTheNextStep) {
  Fixture f;
  PackageFacts facts;
  facts.package = "flash-attn";
  facts.resolution = &f.none;
  facts.install_command = "flashfit install flash-attn";
  PackageAnswer a = decide_answer(facts);
  EXPECT_EQ(a.kind, AnswerKind::none_fits);
  EXPECT_THAT(a.summary, HasSubstr("not installed; no wheel fits"));
  EXPECT_THAT(a.summary, HasSubstr("built for torch 2.8, not 2.9"));
  EXPECT_THAT(a.summary, HasSubstr("next: [version] flash-attn 2.8.2 fits"));
  EXPECT_EQ(a.command, std::optional<std::string>("flashfit x"));  // the suggestion's, not install
  EXPECT_EQ(a.wheel, std::nullopt);
}

TEST(DoctorAnswer, NoCandidatesAndUnreachableSources) {
  resolve::Resolution empty;
  PackageFacts facts;
  facts.package = "flash-attn";
  facts.resolution = &empty;
  facts.unreachable = {"upstream: unreachable: timeout"};
  facts.offline_reason = "--offline";
  PackageAnswer a = decide_answer(facts);
  EXPECT_EQ(a.kind, AnswerKind::none_fits);
  EXPECT_THAT(a.summary, HasSubstr("no wheel of it is offered"));
  ASSERT_EQ(a.notes.size(), 2u);
  EXPECT_THAT(a.notes[0], HasSubstr("network unavailable for upstream"));
  EXPECT_THAT(a.notes[1], HasSubstr("--offline: no network source was consulted"));
  EXPECT_EQ(a.command, std::nullopt);
}

TEST(DoctorAnswer, AResolveErrorIsUnknown) {
  PackageFacts facts;
  facts.package = "x";
  facts.error = "no index answered";
  PackageAnswer a = decide_answer(facts);
  EXPECT_EQ(a.kind, AnswerKind::unknown);
  EXPECT_THAT(a.summary, HasSubstr("could not be resolved: no index answered"));
  EXPECT_EQ(answer_json({a})[0]["answer"], "unknown");
  EXPECT_THAT(answer_text({a}), HasSubstr("  x: not installed; could not be resolved"));
}

}  // namespace
}  // namespace flashfit::cli
