// The C++11 ABI of official torch builds, checked against the whole table
// (docs/resolve.md "torch's C++11 ABI", from pytorch/pytorch #142064, #143962,
// #143423, #146200): every official torch minor x CUDA variant (PyTorch's
// release compatibility matrix) x platform, written out here independently of
// resolve/torch_abi.cpp; builds outside the table stay unknown; and the
// property that a pick made under a derived ABI never carries the other ABI.
#include "resolve/torch_abi.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "pkg/variant.hpp"
#include "pkg/wheel_name.hpp"
#include "resolve/gather.hpp"
#include "resolve/resolver.hpp"
#include "targets.hpp"

namespace flashfit::resolve {
namespace {

struct Row {
  std::string minor;               // "2.6"
  std::string patch;               // "2.6.0"
  std::vector<std::string> cudas;  // download.pytorch.org's CUDA builds
};

// PyTorch's release compatibility matrix (stable + experimental CUDA builds).
const std::vector<Row>& official_minors() {
  static const std::vector<Row> rows = {
      {"2.0", "2.0.1", {"cu117", "cu118"}},
      {"2.1", "2.1.2", {"cu118", "cu121"}},
      {"2.2", "2.2.2", {"cu118", "cu121"}},
      {"2.3", "2.3.1", {"cu118", "cu121"}},
      {"2.4", "2.4.1", {"cu118", "cu121", "cu124"}},
      {"2.5", "2.5.1", {"cu118", "cu121", "cu124"}},
      {"2.6", "2.6.0", {"cu118", "cu124", "cu126"}},
      {"2.7", "2.7.1", {"cu118", "cu126", "cu128"}},
      {"2.8", "2.8.0", {"cu126", "cu128", "cu129"}},
      {"2.9", "2.9.1", {"cu126", "cu128", "cu130"}},
      {"2.10", "2.10.0", {"cu126", "cu128", "cu130"}},
      {"2.11", "2.11.0", {"cu126", "cu128", "cu130"}},
  };
  return rows;
}

int minor_number(const std::string& minor) {
  return std::stoi(minor.substr(minor.find('.') + 1));
}

// The table, for x86_64: <= 2.5 pre-C++11; 2.6 pre-C++11 except cu126; >= 2.7
// C++11 on every variant. aarch64: >= 2.7 C++11; older rows are not in it.
std::optional<bool> expected(const std::string& minor, const std::string& label,
                             const std::string& arch) {
  int m = minor_number(minor);
  bool two = minor.rfind("2.", 0) == 0;
  if (two && m >= 7) return true;
  if (arch != "x86_64") return std::nullopt;
  if (two && m == 6) return label == "cu126";
  return false;
}

std::optional<bool> derived(const std::string& version, const std::string& arch) {
  auto d = derive_torch_abi(*pkg::Version::parse(version), arch);
  if (!d) return std::nullopt;
  return d->cxx11_abi;
}

TEST(TorchAbi, EveryOfficialMinorVariantAndPlatform) {
  std::size_t checked = 0;
  for (const Row& row : official_minors()) {
    std::vector<std::string> labels = row.cudas;
    labels.push_back("cpu");
    labels.push_back("");  // the PyPI wheel
    for (const char* arch : {"x86_64", "aarch64"}) {
      for (const std::string& label : labels) {
        std::string version = row.patch + (label.empty() ? "" : "+" + label);
        EXPECT_EQ(derived(version, arch), expected(row.minor, label, arch))
            << version << " on " << arch;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 2u * (4u * 4u + 8u * 5u));  // 2.0-2.3: two CUDA builds; 2.4 on: three
}

TEST(TorchAbi, TheIssuesTorchIsThePreCxx11Build) {
  auto d = derive_torch_abi(*pkg::Version::parse("2.6.0+cu124"), "x86_64");
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->cxx11_abi);
  EXPECT_NE(d->basis.find("derived from torch 2.6.0+cu124"), std::string::npos) << d->basis;
  EXPECT_NE(d->basis.find("CUDA 12.4"), std::string::npos) << d->basis;
  EXPECT_TRUE(derived("2.6.0+cu126", "x86_64").value());
  EXPECT_TRUE(
      derived("2.1.2+cpu.cxx11.abi", "x86_64").value());  // download.pytorch.org/whl/cpu-cxx11-abi
}

TEST(TorchAbi, BuildsOutsideTheTableStayUnknown) {
  for (const char* version : {
           "1.13.0a0+gitunknown",      // Debian's source build
           "2.6.0+git1a2b3c4",         // a +git build
           "2.8.0.dev20250601+cu128",  // a nightly
           "2.7.0rc1+cu126",           // a release candidate
           "2.6.0+cu121",              // a CUDA build 2.6 never had
           "2.6.0+cu12",               // a label without the minor
           "2.6.0+rocm6.2",            // ROCm: not in the table
           "2.6.0+xpu",
           "2.9.1+mycompany",
           "2.9.1.post1+cu128",
           "1!2.9.1+cu128",
       }) {
    EXPECT_FALSE(derive_torch_abi(*pkg::Version::parse(version), "x86_64")) << version;
  }
  EXPECT_FALSE(derive_torch_abi(*pkg::Version::parse("2.9.1+cu128"), ""));  // unknown machine
}

TEST(TorchAbi, WheelLabelsWithTheMajorOnly) {
  using Kind = OfficialTorchBuild::Kind;
  EXPECT_EQ(official_torch_abi({{2, 6}, Kind::cuda, pkg::CudaVersion{12, std::nullopt}, "x86_64"}),
            std::nullopt);
  EXPECT_EQ(official_torch_abi({{2, 5}, Kind::cuda, pkg::CudaVersion{12, std::nullopt}, "x86_64"}),
            false);
  EXPECT_EQ(official_torch_abi({{2, 7}, Kind::cuda, pkg::CudaVersion{12, std::nullopt}, "aarch64"}),
            true);
}

TEST(TorchAbi, FillingTheEnvironmentSaysItWasDerived) {
  env::Environment env;
  env.machine.arch = env::Fact<std::string>::of("x86_64", "uname");
  env.torch.version =
      env::Fact<pkg::Version>::overridden_by(*pkg::Version::parse("2.6.0+cu124"), "--torch");
  env.torch.cxx11_abi = env::Fact<bool>::unknown("not known for the what-if torch");
  fill_derived_torch_abi(env);
  ASSERT_TRUE(env.torch.cxx11_abi.known());
  EXPECT_FALSE(*env.torch.cxx11_abi);
  ResolveTarget t = target_from_environment(env);
  EXPECT_EQ(t.cxx11_abi, false);
  EXPECT_NE(t.cxx11_abi_basis.find("derived from torch 2.6.0+cu124"), std::string::npos);
  // A given ABI is never replaced.
  env.torch.cxx11_abi = env::Fact<bool>::overridden_by(true, "--cxx11-abi");
  fill_derived_torch_abi(env);
  EXPECT_TRUE(*env.torch.cxx11_abi);
  EXPECT_EQ(env.torch.cxx11_abi.source, "--cxx11-abi");
}

// Property: for every official torch x CUDA build x Python, the flash-attn
// pick under the derived ABI carries that ABI (or none is picked).
TEST(TorchAbi, ADerivedAbiPickNeverCarriesTheOtherAbi) {
  RecipeBook book = RecipeBook::built_in();
  const Recipe* recipe = book.find("flash-attn");
  ASSERT_NE(recipe, nullptr);
  Config config;
  SourceFlags flags;
  flags.enable.push_back("community");
  auto plan = plan_sources(recipe, config, flags, std::nullopt);
  ASSERT_TRUE(plan);
  // Indexed by the torch minor in the label: other minors' wheels are rejected on torch anyway,
  // and judging only these keeps the 70 resolves quick.
  std::map<std::string, std::vector<Candidate>> by_torch;
  for (const Candidate& c : gather("flash-attn", recipe, *plan, std::nullopt).candidates) {
    auto name = pkg::parse_wheel_filename(c.filename);
    if (!name) continue;
    auto variant = pkg::decode_variant(name->version.local());
    if (variant.torch) by_torch[variant.torch->str()].push_back(c);
  }
  std::size_t picks = 0;
  for (const Row& row : official_minors()) {
    for (const std::string& label : row.cudas) {
      for (const char* python : {"3.10", "3.12"}) {
        std::string version = row.patch + "+" + label;
        auto d = derive_torch_abi(*pkg::Version::parse(version), "x86_64");
        ASSERT_TRUE(d) << version;
        std::string cuda = label.substr(2, label.size() - 3) + "." + label.substr(label.size() - 1);
        auto target = testing::make_target({.python = python,
                                            .torch = version,
                                            .cuda = cuda,
                                            .abi = d->cxx11_abi,
                                            .gpus = std::vector<std::string>{"8.0"}});
        Resolution r =
            resolve(Request{"flash-attn", {}, "flash-attn"}, recipe, target, by_torch[row.minor]);
        if (!r.selected) continue;
        const Judged& pick = r.candidates[*r.selected];
        ++picks;
        if (pick.cxx11_abi) {
          EXPECT_EQ(*pick.cxx11_abi, d->cxx11_abi)
              << version << " py" << python << ": " << pick.candidate->filename;
        }
        // Every candidate compatible under the derived ABI has it, when its ABI is known.
        for (const Judged& j : r.candidates) {
          if (j.compatible() && j.cxx11_abi) {
            EXPECT_EQ(*j.cxx11_abi, d->cxx11_abi) << j.candidate->filename;
          }
        }
      }
    }
  }
  EXPECT_GT(picks, 20u);
}

}  // namespace
}  // namespace flashfit::resolve
