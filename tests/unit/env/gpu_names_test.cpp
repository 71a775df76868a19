#include "env/gpu_names.hpp"

#include <gtest/gtest.h>

#include <set>

using namespace flashfit::env;

namespace {
MajorMinor ok(std::string_view text) {
  auto cc = parse_gpu(text);
  EXPECT_TRUE(cc) << text << ": " << (cc ? "" : cc.error().message);
  return cc ? *cc : MajorMinor{};
}
}  // namespace

TEST(GpuNames, CapabilityForms) {
  EXPECT_EQ(ok("8.9"), (MajorMinor{8, 9}));
  EXPECT_EQ(ok("sm_89"), (MajorMinor{8, 9}));
  EXPECT_EQ(ok("sm89"), (MajorMinor{8, 9}));
  EXPECT_EQ(ok("89"), (MajorMinor{8, 9}));
  EXPECT_EQ(ok("SM_90"), (MajorMinor{9, 0}));
  EXPECT_EQ(ok("sm_120"), (MajorMinor{12, 0}));
  EXPECT_EQ(ok("103"), (MajorMinor{10, 3}));
  EXPECT_EQ(ok(" 10.0 "), (MajorMinor{10, 0}));
}

TEST(GpuNames, NamesInTheFormsPeopleWriteThem) {
  EXPECT_EQ(ok("L4"), (MajorMinor{8, 9}));
  EXPECT_EQ(ok("l4"), (MajorMinor{8, 9}));
  EXPECT_EQ(ok("A100"), (MajorMinor{8, 0}));
  EXPECT_EQ(ok("A10G"), (MajorMinor{8, 6}));
  EXPECT_EQ(ok("T4"), (MajorMinor{7, 5}));
  EXPECT_EQ(ok("V100"), (MajorMinor{7, 0}));
  EXPECT_EQ(ok("H100"), (MajorMinor{9, 0}));
  EXPECT_EQ(ok("H200"), (MajorMinor{9, 0}));
  EXPECT_EQ(ok("B200"), (MajorMinor{10, 0}));
  EXPECT_EQ(ok("RTX 4090"), (MajorMinor{8, 9}));
  EXPECT_EQ(ok("rtx-4090"), (MajorMinor{8, 9}));
  EXPECT_EQ(ok("RTX4090"), (MajorMinor{8, 9}));
  EXPECT_EQ(ok("NVIDIA GeForce RTX 5090"), (MajorMinor{12, 0}));
  EXPECT_EQ(ok("Tesla T4"), (MajorMinor{7, 5}));
  EXPECT_EQ(ok("NVIDIA L40S"), (MajorMinor{8, 9}));
}

TEST(GpuNames, EveryNameAndTokenParsesToItsOwnCapability) {
  std::set<std::string> tokens;
  for (const auto& gpu : gpu_names()) {
    EXPECT_EQ(ok(gpu.name), gpu.capability) << gpu.name;
    const auto token = gpu_name_token(gpu.name);
    EXPECT_EQ(token.find(' '), std::string::npos);
    EXPECT_EQ(ok(token), gpu.capability) << token;
    EXPECT_TRUE(tokens.insert(token).second) << "duplicate " << token;
  }
}

TEST(GpuNames, UnknownNamesGetDidYouMean) {
  auto typo = parse_gpu("H1000");
  ASSERT_FALSE(typo);
  EXPECT_EQ(typo.error().kind, flashfit::util::ErrorKind::usage);
  EXPECT_NE(typo.error().message.find("'H1000'"), std::string::npos);
  EXPECT_NE(typo.error().hint.find("did you mean H100"), std::string::npos) << typo.error().hint;

  auto rtx = parse_gpu("RTX 4900");
  ASSERT_FALSE(rtx);
  EXPECT_NE(rtx.error().hint.find("RTX-4090"), std::string::npos) << rtx.error().hint;

  auto far = parse_gpu("toaster");
  ASSERT_FALSE(far);
  EXPECT_EQ(far.error().hint.find("did you mean"), std::string::npos);
  EXPECT_NE(far.error().hint.find("accepted:"), std::string::npos);
}

TEST(GpuNames, NumbersThatAreNoCapabilityAreRefused) {
  for (const char* bad : {"", "8", "sm_8", "9999", "0.0", "99.0", "8.9.1", "sm_8x", "-", "8,9"}) {
    auto cc = parse_gpu(bad);
    EXPECT_FALSE(cc) << bad;
    if (!cc) {
      EXPECT_EQ(cc.error().hint.find("did you mean"), std::string::npos) << bad;
    }
  }
}

#ifdef FLASHFIT_DATA_DIR
// docs/gpus.md documents the table; the two must not drift apart.
#include <fstream>
#include <regex>
#include <sstream>

TEST(GpuNames, TheDocumentedTableIsTheTable) {
  std::ifstream file(std::string(FLASHFIT_DATA_DIR) + "/../docs/gpus.md");
  ASSERT_TRUE(file) << "cannot read docs/gpus.md";
  std::set<std::string> documented, table;
  const std::regex row(R"(^\| ([^|]+) \| (\d+\.\d+) \| [^|]+ \|$)");
  for (std::string line; std::getline(file, line);) {
    std::smatch m;
    if (std::regex_match(line, m, row)) documented.insert(m[1].str() + "=" + m[2].str());
  }
  for (const auto& gpu : gpu_names())
    table.insert(std::string(gpu.name) + "=" + gpu.capability.str());
  EXPECT_EQ(documented, table);
}
#endif
