#include "env/what_if.hpp"

#include <gtest/gtest.h>

using namespace flashfit::env;

namespace {
WhatIf parse_ok(const WhatIfOptions& o) {
  auto w = parse_what_if(o);
  EXPECT_TRUE(w) << (w ? "" : w.error().message);
  return w ? *w : WhatIf{};
}
}  // namespace

TEST(WhatIf, NothingGivenMeansProbeEverything) {
  auto w = parse_ok({});
  EXPECT_FALSE(w.any());
  EXPECT_TRUE(w.describe().empty());
}

TEST(WhatIf, TorchLabelImpliesItsCuda) {
  WhatIfOptions o;
  o.torch = "2.8.0+cu128";
  auto w = parse_ok(o);
  ASSERT_TRUE(w.torch);
  EXPECT_EQ(w.torch->str(), "2.8.0+cu128");
  ASSERT_TRUE(w.cuda && *w.cuda);
  EXPECT_EQ((*w.cuda)->str(), "12.8");

  o.torch = "2.9.1+cpu";
  w = parse_ok(o);
  ASSERT_TRUE(w.cuda);
  EXPECT_FALSE(*w.cuda) << "a +cpu torch has no CUDA";

  o.torch = "2.9.1";
  w = parse_ok(o);
  EXPECT_FALSE(w.cuda) << "a plain version says nothing about CUDA";
}

TEST(WhatIf, ExplicitCudaWinsOverTheLabel) {
  WhatIfOptions o;
  o.torch = "2.8.0+cu128";
  o.cuda = "12.6";
  auto w = parse_ok(o);
  EXPECT_EQ((*w.cuda)->str(), "12.6");
  o.cuda = "NONE";
  w = parse_ok(o);
  ASSERT_TRUE(w.cuda);
  EXPECT_FALSE(*w.cuda);
}

TEST(WhatIf, GpusAbiDriverGlibcArch) {
  WhatIfOptions o;
  o.gpu = "8.0,8.9";
  o.cxx11_abi = "FALSE";
  o.driver = "570.124.06";
  o.glibc = "2.31";
  o.arch = "aarch64";
  o.python_version = "3.12";
  auto w = parse_ok(o);
  ASSERT_TRUE(w.gpus);
  ASSERT_EQ(w.gpus->size(), 2u);
  EXPECT_EQ((*w.gpus)[1], (MajorMinor{8, 9}));
  EXPECT_EQ(w.cxx11_abi, false);
  EXPECT_EQ(w.driver, "570.124.06");
  EXPECT_EQ(w.glibc->str(), "2.31");
  EXPECT_EQ(w.arch, "aarch64");
  EXPECT_EQ(w.python_version->str(), "3.12");
  const auto text = w.describe();
  ASSERT_EQ(text.size(), 6u);
  EXPECT_EQ(text[0], "--python-version 3.12");
  EXPECT_EQ(text[1], "--cxx11-abi FALSE");
  EXPECT_EQ(text[2], "--gpu 8.0,8.9");

  o = {};
  o.gpu = "none";
  w = parse_ok(o);
  ASSERT_TRUE(w.gpus);
  EXPECT_TRUE(w.gpus->empty());
  EXPECT_EQ(w.describe()[0], "--gpu none");
}

TEST(WhatIf, BadValuesAreUsageErrorsNamingTheFlagAndTheForms) {
  struct Case {
    std::optional<std::string> WhatIfOptions::*field;
    const char* value;
    const char* flag;
  };
  const Case cases[] = {
      {&WhatIfOptions::python_version, "3", "--python-version"},
      {&WhatIfOptions::python_version, "2.7", "--python-version"},
      {&WhatIfOptions::python_version, "3.12.1", "--python-version"},
      {&WhatIfOptions::torch, "2.8.0+", "--torch"},
      {&WhatIfOptions::torch, "", "--torch"},
      {&WhatIfOptions::cuda, "cu128", "--cuda"},
      {&WhatIfOptions::cuda, "12", "--cuda"},
      {&WhatIfOptions::cxx11_abi, "yes", "--cxx11-abi"},
      {&WhatIfOptions::gpu, "8.0,", "--gpu"},
      {&WhatIfOptions::gpu, "sm_8", "--gpu"},
      {&WhatIfOptions::gpu, "H1000", "--gpu"},
      {&WhatIfOptions::gpu, "99999.0", "--gpu"},
      {&WhatIfOptions::driver, "570", "--driver"},
      {&WhatIfOptions::driver, "570.x.1", "--driver"},
      {&WhatIfOptions::glibc, "2.3x", "--glibc"},
      {&WhatIfOptions::glibc, "3.1", "--glibc"},
      {&WhatIfOptions::arch, "x86-64", "--arch"},
      {&WhatIfOptions::arch, "x86_64 ", "--arch"},
  };
  for (const auto& c : cases) {
    WhatIfOptions o;
    o.*c.field = c.value;
    auto w = parse_what_if(o);
    ASSERT_FALSE(w) << c.flag << " " << c.value;
    EXPECT_EQ(w.error().kind, flashfit::util::ErrorKind::usage);
    EXPECT_NE(w.error().message.find(c.flag), std::string::npos) << w.error().message;
    EXPECT_NE(w.error().hint.find("accepted:"), std::string::npos);
  }
}

TEST(WhatIf, MajorMinorIsStrict) {
  EXPECT_EQ(parse_major_minor("12.8"), (MajorMinor{12, 8}));
  EXPECT_EQ(parse_major_minor(" 9.0 "), (MajorMinor{9, 0}));
  EXPECT_FALSE(parse_major_minor(""));
  EXPECT_FALSE(parse_major_minor("12"));
  EXPECT_FALSE(parse_major_minor("12."));
  EXPECT_FALSE(parse_major_minor(".8"));
  EXPECT_FALSE(parse_major_minor("1.2.3"));
  EXPECT_FALSE(parse_major_minor("123456.1"));
  EXPECT_FALSE(parse_major_minor("-1.0"));
  EXPECT_FALSE(parse_major_minor("\xc2\xb9.0"));
}
