// read_setup_py: literal sources, names and setup_requires out of setup.py
// text, and refusals for what is not (or is hostile) Python.
#include "build/setup_py.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace flashfit::build {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

SetupPyFacts read_ok(std::string_view text) {
  auto facts = read_setup_py(text);
  EXPECT_TRUE(facts) << (facts ? "" : facts.error().message);
  return facts ? *facts : SetupPyFacts{};
}

std::string read_error(std::string_view text) {
  auto facts = read_setup_py(text);
  EXPECT_FALSE(facts);
  if (facts) return "";
  EXPECT_EQ(facts.error().kind, util::ErrorKind::input);
  return facts.error().message;
}

TEST(SetupPy, LiteralKeywordSourcesWithCommentsAndTrailingComma) {
  const auto facts = read_ok(R"py(
from torch.utils.cpp_extension import BuildExtension, CUDAExtension  # CUDAExtension(name="decoy")
ext_modules = []
ext_modules.append(
    CUDAExtension(
        name="flash_attn_2_cuda",
        sources=[
            "csrc/flash_attn/flash_api.cpp",  # the binding
            'csrc/flash_attn/src/flash_fwd_hdim32_fp16_sm80.cu',
            "csrc/flash_attn/src/" "flash_bwd_hdim32_fp16_sm80.cu",
        ],
        extra_compile_args={"nvcc": ["-O3"] + cc_flag},
    )
)
setup(name="flash_attn", setup_requires=["packaging", "psutil", "ninja"])
)py");
  ASSERT_EQ(facts.extensions.size(), 1U);
  const SetupExtension& ext = facts.extensions[0];
  EXPECT_EQ(ext.constructor, "CUDAExtension");
  EXPECT_EQ(ext.line, 5U);
  EXPECT_EQ(ext.name, "flash_attn_2_cuda");
  ASSERT_TRUE(ext.sources);
  EXPECT_THAT(*ext.sources, ElementsAre("csrc/flash_attn/flash_api.cpp",
                                        "csrc/flash_attn/src/flash_fwd_hdim32_fp16_sm80.cu",
                                        "csrc/flash_attn/src/flash_bwd_hdim32_fp16_sm80.cu"));
  ASSERT_TRUE(facts.setup_requires);
  EXPECT_THAT(*facts.setup_requires, ElementsAre("packaging", "psutil", "ninja"));
}

TEST(SetupPy, PositionalArgumentsAndANameBoundOnce) {
  const auto facts = read_ok(R"py(
sources = ["csrc/binding.cpp", "csrc/add.cpp"]
defines = []
setuptools.setup(ext_modules=[CppExtension("ffbuild._C", sources, extra_compile_args=defines)])
)py");
  ASSERT_EQ(facts.extensions.size(), 1U);
  EXPECT_EQ(facts.extensions[0].name, "ffbuild._C");
  ASSERT_TRUE(facts.extensions[0].sources);
  EXPECT_THAT(*facts.extensions[0].sources, ElementsAre("csrc/binding.cpp", "csrc/add.cpp"));
  EXPECT_FALSE(facts.setup_requires);
}

TEST(SetupPy, ComputedSourcesAreNotLiteralAndSayWhy) {
  const auto facts = read_ok(R"py(
renamed_sources = ["csrc/flash_attn_ck/flash_api.cu"] + glob.glob("build/fmha_*wd*.cu")
ext_modules.append(CUDAExtension(name="flash_attn_2_cuda", sources=renamed_sources))
ext_modules.append(CUDAExtension(name="g", sources=glob.glob("csrc/*.cu")))
ext_modules.append(CUDAExtension(name=f"{prefix}_cuda", sources=[f"csrc/{x}.cu"]))
grown = ["a.cu"]
grown.append("b.cu")
ext_modules.append(CUDAExtension("h", grown))
twice = ["a.cu"]
twice = ["b.cu"]
ext_modules.append(CUDAExtension("i", twice))
ext_modules.append(CUDAExtension(**kwargs))
class CUDAExtension(object): pass
def CppExtension(name, sources): return None
)py");
  ASSERT_EQ(facts.extensions.size(), 6U);
  EXPECT_FALSE(facts.extensions[0].sources);
  EXPECT_THAT(facts.extensions[0].not_literal, HasSubstr("renamed_sources is not a literal list"));
  EXPECT_THAT(facts.extensions[1].not_literal, HasSubstr("is not a literal list"));
  EXPECT_FALSE(facts.extensions[2].name);  // an f-string is computed
  EXPECT_THAT(facts.extensions[2].not_literal, HasSubstr("not a plain string"));
  EXPECT_THAT(facts.extensions[3].not_literal, HasSubstr("grown is changed at line 7"));
  EXPECT_THAT(facts.extensions[4].not_literal, HasSubstr("twice is assigned 2 times"));
  EXPECT_THAT(facts.extensions[5].not_literal, HasSubstr("**kwargs"));
}

TEST(SetupPy, StringsAndCommentsHideNothing) {
  // "CUDAExtension(" inside strings, docstrings and comments is no call.
  const auto facts = read_ok(R"py(
"""CUDAExtension(name="x", sources=["a.cu"])"""
msg = 'CUDAExtension(name="y", sources=["b.cu"])'
# CUDAExtension(name="z", sources=["c.cu"])
path = r"C:\new\table"
escaped = "a\"b" '\\'
)py");
  EXPECT_TRUE(facts.extensions.empty());
}

TEST(SetupPy, BadInputIsAClearErrorNamingTheLine) {
  EXPECT_THAT(read_error("x = 1\ny = \"open\n"), HasSubstr("setup.py line 2: unterminated string"));
  EXPECT_THAT(read_error("x = '''never closed\n\n"), HasSubstr("line 1: unterminated string"));
  EXPECT_THAT(read_error("setup(\n  name='x',\n"), HasSubstr("'(' is never closed"));
  EXPECT_THAT(read_error("x = [1, 2)\n"), HasSubstr("line 1: unbalanced ')'"));
  EXPECT_THAT(read_error(std::string("x = 1\0\n", 7)), HasSubstr("NUL byte"));
  EXPECT_THAT(read_error("x = 1\x01\n"), HasSubstr("control character"));
  EXPECT_THAT(read_error(std::string(200 * 1024 * 6, ' ')), HasSubstr("larger than 1 MiB"));
  EXPECT_THAT(read_error(std::string(500, '(') + std::string(500, ')')),
              HasSubstr("nested more than 200 deep"));
  // Listed paths that leave the tree or hide bytes are refused, not counted.
  EXPECT_THAT(read_error("CUDAExtension('m', ['/etc/passwd'])"),
              HasSubstr("\"/etc/passwd\" is an absolute path"));
  EXPECT_THAT(read_error("CUDAExtension('m', ['csrc/../../x.cu'])"),
              HasSubstr("leaves the source tree"));
  EXPECT_THAT(read_error("CUDAExtension('m', ['a\\tb.cu'])"), HasSubstr("control character"));
  EXPECT_THAT(read_error("CUDAExtension('m', [''])"), HasSubstr("is empty"));
  std::string huge = "CUDAExtension('m', [";
  for (int i = 0; i < 10001; ++i) huge += "'a.cu',";
  huge += "])";
  EXPECT_THAT(read_error(huge), HasSubstr("more than 10000 entries"));
}

TEST(SetupPy, HostileBytesInAMessageAreEscaped) {
  const std::string message = read_error("CUDAExtension('m', ['/\x1b[31mred.cu'])");
  EXPECT_EQ(message.find('\x1b'), std::string::npos);
  EXPECT_THAT(message, HasSubstr("\\x1b"));
}

// causal-conv1d 1.7.0's shape: version-guarded appends inside `else:` of a
// HIP check, and a fixed --threads.
TEST(SetupPyGencode, VersionGuardsPickTheTargetsPerNvcc) {
  const auto facts = read_ok(R"py(
def append_nvcc_threads(nvcc_extra_args):
    return nvcc_extra_args + ["--threads", "4"]
if HIP_BUILD:
    cc_flag.append("--offload-arch=gfx90a")
else:
    if bare_metal_version < Version("11.6"):
        raise RuntimeError("too old")
    else:
        cc_flag.append("-gencode")
        cc_flag.append("arch=compute_70,code=sm_70")
    cc_flag.append("-gencode")
    cc_flag.append("arch=compute_80,code=sm_80")
    if bare_metal_version >= Version("11.8"):
        cc_flag.append("-gencode")
        cc_flag.append("arch=compute_90,code=sm_90")
    if bare_metal_version >= Version("13.0"):
        cc_flag += ["-gencode", "arch=compute_110,code=sm_110"]
    cc_flag.append("-gencode")
    cc_flag.append("arch=compute_80,code=compute_80")
)py");
  ASSERT_EQ(facts.gencode.size(), 5U);
  EXPECT_EQ(facts.gencode[0].min_nvcc, "11.6");  // the else of `< 11.6`
  EXPECT_EQ(facts.gencode[1].min_nvcc, "");
  EXPECT_EQ(facts.gencode[2].min_nvcc, "11.8");
  EXPECT_EQ(facts.gencode[2].line, 16U);
  EXPECT_EQ(facts.nvcc_threads, 4U);
  EXPECT_THAT(gencode_for_nvcc(facts.gencode, 11, 7), ElementsAre("sm_70", "sm_80", "compute_80"));
  EXPECT_THAT(gencode_for_nvcc(facts.gencode, 12, 4),
              ElementsAre("sm_70", "sm_80", "sm_90", "compute_80"));
  EXPECT_THAT(gencode_for_nvcc(facts.gencode, 13, 0),
              ElementsAre("sm_70", "sm_80", "sm_90", "sm_110", "compute_80"));
  EXPECT_THAT(gencode_for_nvcc(facts.gencode, 11, 5), ElementsAre("sm_80", "compute_80"));
}

// causal-conv1d 1.5.3's guards: `<=` and `>` on the MAJOR.MINOR setup.py
// reads from nvcc, exact at the bound (nvcc 12.9 keeps sm_53; 12.8 has no sm_103).
TEST(SetupPyGencode, InclusiveAndStrictGuardsAreExactAtTheBound) {
  const auto facts = read_ok(R"py(
if bare_metal_version <= Version("12.9"):
    cc_flag.append("arch=compute_53,code=sm_53")
cc_flag.append("arch=compute_75,code=sm_75")
if bare_metal_version > Version("12.8"):
    cc_flag.append("arch=compute_103,code=sm_103")
)py");
  ASSERT_EQ(facts.gencode.size(), 3U);
  EXPECT_EQ(facts.gencode[0].below_nvcc, "12.10");
  EXPECT_EQ(facts.gencode[2].min_nvcc, "12.9");
  EXPECT_THAT(gencode_for_nvcc(facts.gencode, 12, 9), ElementsAre("sm_53", "sm_75", "sm_103"));
  EXPECT_THAT(gencode_for_nvcc(facts.gencode, 12, 8), ElementsAre("sm_53", "sm_75"));
  EXPECT_THAT(gencode_for_nvcc(facts.gencode, 13, 0), ElementsAre("sm_75", "sm_103"));
}

TEST(SetupPyGencode, EveryCodeOfABracketedListCounts) {
  const auto facts = read_ok(R"py(
cc_flag += ["-gencode", "arch=compute_80,code=[sm_80,compute_80]"]
cc_flag += ["-gencode", "arch=compute_90,code=[sm_90,oops;x]"]
)py");
  EXPECT_THAT(gencode_for_nvcc(facts.gencode, 13, 0), ElementsAre("sm_80", "compute_80"));
}

TEST(SetupPyGencode, ComputedOrMalformedValuesAreNotCounted) {
  const auto facts = read_ok(R"py(
cc_flag.append(f"arch=compute_{cc},code=sm_{cc}")
cc_flag.append("arch=compute_80")
cc_flag.append("arch=compute_80,code=sm_8;rm -rf")
cc_flag.append("-arch=sm_80")
flags = ["--threads", str(n)]
)py");
  EXPECT_TRUE(facts.gencode.empty());
  EXPECT_FALSE(facts.nvcc_threads);
  EXPECT_TRUE(gencode_for_nvcc(facts.gencode, 13, 0).empty());
}

}  // namespace
}  // namespace flashfit::build
