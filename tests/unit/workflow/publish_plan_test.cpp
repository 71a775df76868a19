// The pure planner of `flashfit publish`: which wheels go on which pages,
// what is uploaded, what is refused and why (fakes for the inspected wheels).
#include "workflow/publish_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "workflow/publish_fit.hpp"
#include "workflow/publish_pages.hpp"
#include "workflow/publish_sidecar.hpp"

namespace flashfit::workflow {
namespace {

EnvKey key(const std::string& version, std::optional<bool> abi = std::nullopt) {
  auto k = parse_env_key(version, abi);
  EXPECT_TRUE(k.has_value()) << version;
  return *k;
}

PublishCandidate wheel(const std::string& filename, const std::string& sha, bool abi = true) {
  PublishCandidate c;
  c.path = "/in/" + filename;
  c.facts.filename = filename;
  c.facts.project = filename.substr(0, filename.find('-'));
  std::replace(c.facts.project.begin(), c.facts.project.end(), '_', '-');
  c.facts.version = "0.1.0";
  c.facts.metadata_version = "0.1.0";
  c.facts.sha256 = std::string(64, sha.at(0));
  c.facts.size = 10;
  c.facts.cxx11_abi = abi;
  c.metadata = "Metadata-Version: 2.1\nName: x\nVersion: 0.1.0\n\n";
  return c;
}

const PageFile* page(const PublishPlan& plan, const std::string& path) {
  for (const auto& p : plan.pages) {
    if (p.path == path) return &p;
  }
  return nullptr;
}

TEST(PublishFit, ParsesTorchBuildKeys) {
  const auto cu = key("2.9.1+cu128");
  EXPECT_EQ(cu.page_name(), "torch-2.9.1+cu128.html");
  EXPECT_EQ(cu.cuda_major, 12);
  EXPECT_EQ(cu.cuda_minor, 8);
  EXPECT_TRUE(cu.cxx11_abi);
  EXPECT_TRUE(key("2.8.0+cpu").cpu_only);
  EXPECT_FALSE(key("1.13.0a0+gitunknown", true).cuda_major);
  EXPECT_EQ(key("2.5.1", false).page_name(), "torch-2.5.1-cxx11abi0.html");
}

TEST(PublishFit, RefusesBadKeysAndUnknownAbi) {
  EXPECT_FALSE(parse_env_key("not a version", true));
  EXPECT_FALSE(parse_env_key("3", true));
  const auto before_27 = parse_env_key("2.5.1+cu124", std::nullopt);
  ASSERT_FALSE(before_27);
  EXPECT_NE(before_27.error().hint.find("--torch-cxx11-abi"), std::string::npos);
}

TEST(PublishFit, ContradictionsComeFromTheWheelsOwnFacts) {
  auto w = wheel("a-0.1.0-cp311-cp311-linux_x86_64.whl", "a", false).facts;
  const auto debian = key("1.13.0a0+gitunknown", true);
  ASSERT_TRUE(contradiction(w, debian));
  EXPECT_NE(contradiction(w, debian)->find("pre-C++11 ABI"), std::string::npos);
  w.cxx11_abi = true;
  EXPECT_FALSE(contradiction(w, debian));
  w.uses_cuda = true;
  EXPECT_NE(contradiction(w, key("2.8.0+cpu"))->find("CPU build"), std::string::npos);
  w.cuda_major = 11;
  EXPECT_NE(contradiction(w, key("2.8.0+cu128"))->find("CUDA 11"), std::string::npos);
  w.cuda_major = 12;
  w.torch_major = 2;
  w.torch_minor = 7;
  EXPECT_NE(contradiction(w, key("2.8.0+cu128"))->find("torch 2.7"), std::string::npos);
}

TEST(PublishPlan, UnknownTorchGoesOnlyToTheSimpleIndexUnlessPlaced) {
  const auto plan = plan_publish({wheel("a-0.1.0-cp311-cp311-linux_x86_64.whl", "a")}, {}, {});
  ASSERT_EQ(plan.uploads.size(), 1u);
  EXPECT_TRUE(plan.env_pages.empty());
  ASSERT_NE(page(plan, "simple/a/index.html"), nullptr);
  ASSERT_NE(page(plan, "simple/index.html"), nullptr);
  ASSERT_NE(page(plan, "simple/a/index.json"), nullptr);
}

TEST(PublishPlan, ForTorchPlacesFittingWheelsAndRefusesContradictedOnes) {
  PublishOptions options;
  options.for_torch = key("1.13.0a0+gitunknown", true);
  const auto plan =
      plan_publish({wheel("ffext_abi1-0.1.0-cp311-cp311-linux_x86_64.whl", "a", true),
                    wheel("ffext_abi0-0.1.0-cp311-cp311-linux_x86_64.whl", "b", false)},
                   {}, options);
  ASSERT_EQ(plan.uploads.size(), 1u);
  EXPECT_EQ(plan.uploads[0].facts.filename, "ffext_abi1-0.1.0-cp311-cp311-linux_x86_64.whl");
  ASSERT_EQ(plan.refused.size(), 1u);
  EXPECT_NE(plan.refused[0].reason.find("pre-C++11 ABI"), std::string::npos);
  ASSERT_EQ(plan.env_pages.size(), 1u);
  EXPECT_EQ(plan.env_pages[0].page, "torch-1.13.0a0+gitunknown.html");
  EXPECT_EQ(plan.env_pages[0].wheels,
            std::vector<std::string>{"ffext_abi1-0.1.0-cp311-cp311-linux_x86_64.whl"});
  for (const auto& p : plan.pages)
    EXPECT_EQ(p.content.find("ffext_abi0"), std::string::npos) << p.path;
  EXPECT_EQ(page(plan, "simple/ffext-abi0/index.html"), nullptr);
}

TEST(PublishPlan, RepublishIsANoOpAndOtherBytesNeedReplace) {
  const auto first = plan_publish({wheel("a-0.1.0-py3-none-any.whl", "a")}, {}, {});
  ASSERT_EQ(first.uploads.size(), 1u);
  const std::vector<PublishedWheel> existing = {{first.uploads[0].facts, "m"}};
  const auto again = plan_publish({wheel("a-0.1.0-py3-none-any.whl", "a")}, existing, {});
  EXPECT_TRUE(again.uploads.empty());
  EXPECT_EQ(again.unchanged, std::vector<std::string>{"a-0.1.0-py3-none-any.whl"});
  const auto other = plan_publish({wheel("a-0.1.0-py3-none-any.whl", "b")}, existing, {});
  ASSERT_EQ(other.refused.size(), 1u);
  EXPECT_NE(other.refused[0].reason.find("--replace"), std::string::npos);
  PublishOptions replace;
  replace.replace = true;
  const auto replaced = plan_publish({wheel("a-0.1.0-py3-none-any.whl", "b")}, existing, replace);
  ASSERT_EQ(replaced.uploads.size(), 1u);
  EXPECT_NE(page(replaced, "simple/a/index.html")->content.find(std::string(64, 'b')),
            std::string::npos);
  EXPECT_EQ(page(replaced, "simple/a/index.html")->content.find(std::string(64, 'a')),
            std::string::npos);
}

TEST(PublishPlan, AnEnvPageNoWheelNamesAnyMoreIsWrittenEmpty) {
  PublishOptions placed;
  placed.for_torch = key("2.9.1+cu128");
  const auto first = plan_publish({wheel("a-0.1.0-py3-none-any.whl", "a")}, {}, placed);
  ASSERT_NE(page(first, "torch-2.9.1+cu128.html"), nullptr);
  const std::vector<PublishedWheel> existing = {{first.uploads[0].facts, "m"}};
  PublishOptions replace;
  replace.replace = true;
  const std::vector<std::string> root = {".flashfit-publish.lock", "torch-2.9.1+cu128.html",
                                         "notes.html"};
  const auto replaced =
      plan_publish({wheel("a-0.1.0-py3-none-any.whl", "b")}, existing, replace, {root, {}});
  const auto* stale = page(replaced, "torch-2.9.1+cu128.html");
  ASSERT_NE(stale, nullptr);
  EXPECT_EQ(stale->content.find("a-0.1.0"), std::string::npos);
  EXPECT_EQ(stale->content.find(std::string(64, 'a')), std::string::npos);
  EXPECT_EQ(page(replaced, "notes.html"), nullptr);
  EXPECT_EQ(page(replaced, ".flashfit-publish.lock"), nullptr);
}

TEST(PublishPlan, TheSameOriginalOfARewrittenCopyIsUnchanged) {
  auto input = wheel("a-0.1.0+cu12-py3-none-any.whl", "a");
  input.facts.version = input.facts.metadata_version = "0.1.0+cu12";
  input.facts.original_sha256 = std::string(64, 'o');
  const auto first = plan_publish({input}, {}, {});
  ASSERT_EQ(first.uploads.size(), 1u);
  const std::vector<PublishedWheel> existing = {{first.uploads[0].facts, "m"}};
  input.facts.sha256 = std::string(64, 'b');  // an earlier rewrite gave other bytes
  const auto again = plan_publish({input}, existing, {});
  EXPECT_TRUE(again.refused.empty());
  EXPECT_TRUE(again.uploads.empty());
  EXPECT_EQ(again.unchanged, std::vector<std::string>{"a-0.1.0+cu12-py3-none-any.whl"});
  input.facts.original_sha256 = std::string(64, 'p');  // another original: another file
  EXPECT_EQ(plan_publish({input}, existing, {}).refused.size(), 1u);
}

TEST(PublishPlan, VersionsCompareAsPep440Versions) {
  EXPECT_TRUE(same_version("1.0", "1.0.0"));
  EXPECT_TRUE(same_version("1.0+cu12", "1.0.0+cu12"));
  EXPECT_FALSE(same_version("1.0+cu12", "1.0"));
  EXPECT_FALSE(same_version("1.0", "1.1"));
  auto w = wheel("zerodemo-1.0-py3-none-any.whl", "a");
  w.facts.version = "1.0";
  w.facts.metadata_version = "1.0.0";
  const auto plan = plan_publish({w}, {}, {});
  EXPECT_TRUE(plan.refused.empty()) << plan.refused[0].reason;
  EXPECT_EQ(plan.uploads.size(), 1u);
}

TEST(PublishPlan, ANameWhoseRecordCannotBeReadIsTakenUnlessReplace) {
  const TargetState state{{}, {{"a-0.1.0-py3-none-any.whl", "files/a...: schema 2"}}};
  const auto plan = plan_publish({wheel("a-0.1.0-py3-none-any.whl", "a")}, {}, {}, state);
  EXPECT_TRUE(plan.uploads.empty());
  ASSERT_EQ(plan.refused.size(), 1u);
  EXPECT_NE(plan.refused[0].reason.find("cannot be read"), std::string::npos);
  EXPECT_NE(plan.refused[0].reason.find("--replace"), std::string::npos);
  ASSERT_EQ(plan.problems.size(), 1u);
  EXPECT_NE(plan.problems[0].find("on no page it writes"), std::string::npos);
  PublishOptions replace;
  replace.replace = true;
  const auto replaced = plan_publish({wheel("a-0.1.0-py3-none-any.whl", "a")}, {}, replace, state);
  EXPECT_EQ(replaced.uploads.size(), 1u);
  EXPECT_TRUE(replaced.problems.empty());
}

TEST(PublishPlan, PlacingKnownBytesOnAnotherTorchRewritesOnlyTheRecord) {
  const auto first = plan_publish({wheel("a-0.1.0-py3-none-any.whl", "a")}, {}, {});
  const std::vector<PublishedWheel> existing = {{first.uploads[0].facts, "m"}};
  PublishOptions options;
  options.for_torch = key("2.8.0+cpu");
  const auto plan = plan_publish({wheel("a-0.1.0-py3-none-any.whl", "a")}, existing, options);
  ASSERT_EQ(plan.uploads.size(), 1u);
  EXPECT_FALSE(plan.uploads[0].copy_wheel);
  ASSERT_EQ(plan.env_pages.size(), 1u);
  EXPECT_EQ(plan.env_pages[0].wheels.size(), 1u);
}

TEST(PublishPlan, SameNameTwiceInOneRunWithOtherBytesIsRefused) {
  const auto plan = plan_publish(
      {wheel("a-0.1.0-py3-none-any.whl", "a"), wheel("a-0.1.0-py3-none-any.whl", "b")}, {}, {});
  EXPECT_EQ(plan.uploads.size(), 1u);
  ASSERT_EQ(plan.refused.size(), 1u);
}

TEST(PublishPlan, InspectionRefusalsAndInconsistentVersionsAreRefused) {
  auto bad = wheel("a-0.1.0-py3-none-any.whl", "a");
  bad.refusal = "inspect check 'record' failed: 1 member differs from RECORD";
  auto trap = wheel("b-2.8.3+cu12torch2.8cxx11abiTRUE-py3-none-any.whl", "b");
  trap.facts.version = "2.8.3+cu12torch2.8cxx11abitrue";
  trap.facts.metadata_version = "2.8.3";
  const auto plan = plan_publish({bad, trap}, {}, {});
  EXPECT_TRUE(plan.uploads.empty());
  ASSERT_EQ(plan.refused.size(), 2u);
  EXPECT_NE(plan.refused[1].reason.find("inconsistent version"), std::string::npos);
}

TEST(PublishPlan, LabelledWheelsMakeTheirOwnPageAndArchSubsetsGetArchPages) {
  auto full = wheel("f-1.0+cu12torch2.8-cp312-cp312-linux_x86_64.whl", "a");
  full.facts.torch_major = 2;
  full.facts.torch_minor = 8;
  full.facts.uses_cuda = true;
  full.facts.cuda_major = 12;
  full.facts.sass_archs = {80, 90};
  full.facts.ptx_archs = {50};  // JIT for every GPU CUDA 12 supports
  auto subset = wheel("g-1.0+cu12torch2.8-cp312-cp312-linux_x86_64.whl", "b");
  subset.facts.torch_major = 2;
  subset.facts.torch_minor = 8;
  subset.facts.uses_cuda = true;
  subset.facts.cuda_major = 12;
  subset.facts.sass_archs = {90};
  const auto plan = plan_publish({full, subset}, {}, {});
  ASSERT_EQ(plan.env_pages.size(), 2u);  // the torch build's page, then the arch page
  EXPECT_EQ(plan.env_pages[1].page, "torch-2.8+cu12-sm90.html");
  EXPECT_EQ(plan.env_pages[1].wheels, std::vector<std::string>{subset.facts.filename});
  EXPECT_EQ(plan.env_pages[0].page, "torch-2.8+cu12.html");
  EXPECT_EQ(plan.env_pages[0].wheels, std::vector<std::string>{full.facts.filename});
  ASSERT_EQ(plan.env_pages[0].left_out.size(), 1u);
  const auto* arch = page(plan, "torch-2.8+cu12-sm90.html");
  ASSERT_NE(arch, nullptr);
  EXPECT_NE(arch->content.find("g-1.0%2Bcu12torch2.8"), std::string::npos);
  EXPECT_EQ(arch->content.find("f-1.0"), std::string::npos);
}

TEST(PublishFit, PtxCoversOnlyItsArchAndNewer) {
  WheelFacts w;
  const auto cu12 = key("2.9.1+cu128");
  const auto cu13 = key("2.9.1+cu130");
  EXPECT_FALSE(is_arch_limited(w, cu12));  // no kernels: nothing to limit
  w.sass_archs = {90};
  w.ptx_archs = {90};
  EXPECT_TRUE(is_arch_limited(w, cu12));  // sm_80 runs neither
  EXPECT_EQ(arch_page_name(cu12, w), "torch-2.9.1+cu128-sm90-compute90.html");
  w.sass_archs = {80, 90};
  w.ptx_archs = {80};
  EXPECT_TRUE(is_arch_limited(w, cu12));  // sm_75 and older
  w.sass_archs = {75, 80, 86, 89, 90, 100, 120};
  EXPECT_FALSE(is_arch_limited(w, cu13));  // sm_75 is CUDA 13's oldest
  w.ptx_archs = {};
  EXPECT_TRUE(is_arch_limited(w, cu13));  // no PTX: nothing newer runs it
  w.sass_archs = {50};
  w.ptx_archs = {60};
  EXPECT_FALSE(is_arch_limited(w, cu12));
  w.sass_archs = {50};
  w.ptx_archs = {90};
  EXPECT_TRUE(is_arch_limited(w, cu12));  // sm_60 to sm_89: neither
  // CUDA 13 supports sm_110 (Thor): sm_120's PTX does not run there.
  w.sass_archs = {75, 80, 86, 87, 89, 90, 100, 103, 120};
  w.ptx_archs = {120};
  EXPECT_TRUE(is_arch_limited(w, cu13));
  w.sass_archs.push_back(110);
  EXPECT_FALSE(is_arch_limited(w, cu13));
  // A CUDA major the table does not know: no all-GPU claim.
  EXPECT_TRUE(is_arch_limited(w, key("2.99.0+cu140")));
}

TEST(PublishPlan, ASass90Ptx90WheelIsOnlyOnItsArchPage) {
  auto w = wheel("h-1.0+cu12torch2.8-cp312-cp312-linux_x86_64.whl", "a");
  w.facts.torch_major = 2;
  w.facts.torch_minor = 8;
  w.facts.uses_cuda = true;
  w.facts.cuda_major = 12;
  w.facts.sass_archs = {90};
  w.facts.ptx_archs = {90};
  const auto plan = plan_publish({w}, {}, {});
  ASSERT_EQ(plan.env_pages.size(), 2u);
  EXPECT_TRUE(plan.env_pages[0].wheels.empty());
  ASSERT_EQ(plan.env_pages[0].left_out.size(), 1u);
  EXPECT_NE(plan.env_pages[0].left_out[0].find("sm_50"), std::string::npos);
  const auto* arch = page(plan, "torch-2.8+cu12-sm90-compute90.html");
  ASSERT_NE(arch, nullptr);
  EXPECT_NE(arch->content.find("h-1.0%2Bcu12torch2.8"), std::string::npos);
}

TEST(PublishPages, LinksCarryHashEncodingAndMetadata) {
  PublishedWheel w;
  w.facts.filename = "x-1.0+cu12-py3-none-any.whl";
  w.facts.sha256 = std::string(64, 'c');
  w.facts.requires_python = ">=3.8";
  w.facts.version = "1.0+cu12";
  w.facts.project = "x";
  w.facts.metadata_name = "x";
  w.metadata_sha256 = std::string(64, 'd');
  const auto html = simple_project_html("x", {w});
  EXPECT_NE(html.find("href=\"../../files/x-1.0%2Bcu12-py3-none-any.whl#sha256=" +
                      std::string(64, 'c') + "\""),
            std::string::npos);
  EXPECT_NE(html.find("data-requires-python=\"&gt;=3.8\""), std::string::npos);
  EXPECT_NE(html.find("data-core-metadata=\"sha256=" + std::string(64, 'd') + "\""),
            std::string::npos);
  EXPECT_NE(html.find("data-dist-info-metadata=\"sha256="), std::string::npos);
  const auto json = simple_project_json("x", {w});
  EXPECT_NE(json.find("\"api-version\": \"1.1\""), std::string::npos);
  EXPECT_NE(json.find("\"core-metadata\""), std::string::npos);
  EXPECT_EQ(json.find("\"dist-info-metadata\""), std::string::npos);  // pip 23.0 crashes on it
  EXPECT_EQ(html_escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
}

TEST(PublishPages, NoMetadataAttributesWhenMetadataNameIsNotTheNormalisedName) {
  PublishedWheel w;
  w.facts.filename = "flash_attn-2.8.3-py3-none-any.whl";
  w.facts.project = "flash-attn";
  w.facts.sha256 = std::string(64, 'c');
  w.facts.version = "2.8.3";
  w.metadata_sha256 = std::string(64, 'd');
  for (const char* name : {"flash_attn", "Flash-Attn", ""}) {
    w.facts.metadata_name = name;  // pip 23.0 refuses it for "flash-attn"; "": unknown
    const auto html = simple_project_html("flash-attn", {w});
    EXPECT_NE(html.find("flash_attn-2.8.3-py3-none-any.whl#sha256="), std::string::npos);
    EXPECT_EQ(html.find("data-core-metadata"), std::string::npos) << name;
    EXPECT_EQ(html.find("data-dist-info-metadata"), std::string::npos) << name;
    EXPECT_EQ(simple_project_json("flash-attn", {w}).find("core-metadata"), std::string::npos)
        << name;
  }
  w.facts.metadata_name = "flash-attn";
  EXPECT_NE(simple_project_html("flash-attn", {w}).find("data-core-metadata"), std::string::npos);
  EXPECT_NE(simple_project_json("flash-attn", {w}).find("core-metadata"), std::string::npos);
}

TEST(PublishSidecar, RoundTripsAndRefusesForeignRecords) {
  auto c = wheel("a-0.1.0-py3-none-any.whl", "a");
  c.facts.for_torch = {key("2.9.1+cu128")};
  c.facts.sass_archs = {80};
  c.facts.metadata_name = "A";
  const PublishedWheel w{c.facts, std::string(64, 'e')};
  const auto back = parse_sidecar(sidecar_json(w));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->facts.for_torch, c.facts.for_torch);
  EXPECT_EQ(back->facts.sha256, c.facts.sha256);
  EXPECT_EQ(back->facts.sass_archs, c.facts.sass_archs);
  EXPECT_EQ(back->metadata_sha256, w.metadata_sha256);
  EXPECT_EQ(back->facts.metadata_name, "A");
  EXPECT_FALSE(parse_sidecar("{}"));
  EXPECT_FALSE(parse_sidecar("not json"));
  EXPECT_FALSE(parse_sidecar(R"({"schema": 1, "filename": "../x"})"));
}

}  // namespace
}  // namespace flashfit::workflow
