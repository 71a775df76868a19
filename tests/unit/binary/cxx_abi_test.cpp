// The C++11 string ABI from mangled names: single names, fixtures built with
// each _GLIBCXX_USE_CXX11_ABI value, and Debian's torch (ABI=1).
#include "binary/cxx_abi.hpp"

#include <gtest/gtest.h>

namespace fs = std::filesystem;
using namespace flashfit;
using binary::CxxAbi;

namespace {
fs::path debian_lib(const char* name) {
  return fs::canonical(fs::path("/usr/lib/python3/dist-packages/torch/lib") / name);
}
}  // namespace

TEST(CxxAbi, SingleNames) {
  using binary::symbol_abi;
  namespace ts = binary::torch_symbols;
  EXPECT_EQ(symbol_abi(ts::kCheckFailCxx11), CxxAbi::cxx11);
  EXPECT_EQ(symbol_abi(ts::kCheckFailPreCxx11), CxxAbi::pre_cxx11);
  EXPECT_EQ(symbol_abi(ts::kErrorCtorCxx11), CxxAbi::cxx11);
  EXPECT_EQ(symbol_abi(ts::kErrorCtorPreCxx11), CxxAbi::pre_cxx11);
  EXPECT_EQ(symbol_abi("_ZNK2at10TensorBase8toStringB5cxx11Ev"), CxxAbi::cxx11);
  EXPECT_EQ(symbol_abi("_ZNK2at10TensorBase8toStringEv"), CxxAbi::unknown);
  EXPECT_EQ(symbol_abi("_ZNSs4_Rep10_M_disposeERKSaIcE"), CxxAbi::pre_cxx11);
  EXPECT_EQ(symbol_abi("_ZNKSs4sizeEv"), CxxAbi::pre_cxx11);
  // The const char* overload exists under both ABIs.
  EXPECT_EQ(symbol_abi("_ZN3c106detail14torchCheckFailEPKcS2_jS2_"), CxxAbi::unknown);
  EXPECT_EQ(symbol_abi("memcpy"), CxxAbi::unknown);
  EXPECT_EQ(symbol_abi("not_mangled_RKSs"), CxxAbi::unknown);
  EXPECT_EQ(binary::to_string(CxxAbi::pre_cxx11), "pre-cxx11");
}

TEST(CxxAbi, CountsAndMixedSets) {
  auto only_new = binary::classify_cxx_abi(binary::SymbolNames(
      {binary::torch_symbols::kCheckFailCxx11, "_ZNK2at10TensorBase8toStringB5cxx11Ev", "memcpy"}));
  EXPECT_EQ(only_new.abi, CxxAbi::cxx11);
  EXPECT_EQ(only_new.new_count, 2u);
  EXPECT_FALSE(only_new.sample.empty());

  auto mixed = binary::classify_cxx_abi(binary::SymbolNames(
      {binary::torch_symbols::kCheckFailCxx11, binary::torch_symbols::kCheckFailPreCxx11}));
  EXPECT_EQ(mixed.abi, CxxAbi::unknown);
  EXPECT_NE(mixed.reason.find("mixed"), std::string::npos);

  auto none = binary::classify_cxx_abi(binary::SymbolNames({"memcpy", "_Z3addii"}));
  EXPECT_EQ(none.abi, CxxAbi::unknown);
  EXPECT_TRUE(none.sample.empty());
  EXPECT_NE(none.reason.find("no symbol"), std::string::npos);
}

TEST(CxxAbi, FixturesBuiltWithEachAbi) {
  auto abi0 = binary::read_elf(FLASHFIT_FIXTURE_C10_ABI0);
  auto abi1 = binary::read_elf(FLASHFIT_FIXTURE_C10_ABI1);
  ASSERT_TRUE(abi0 && abi1);

  auto old_torch = binary::torch_cxx_abi(*abi0);
  EXPECT_EQ(old_torch.abi, CxxAbi::pre_cxx11) << old_torch.reason;
  EXPECT_EQ(old_torch.sample, binary::torch_symbols::kCheckFailPreCxx11);
  EXPECT_TRUE(abi0->defined_symbols.contains(binary::torch_symbols::kErrorCtorPreCxx11));

  auto new_torch = binary::torch_cxx_abi(*abi1);
  EXPECT_EQ(new_torch.abi, CxxAbi::cxx11) << new_torch.reason;
  EXPECT_EQ(new_torch.sample, binary::torch_symbols::kCheckFailCxx11);
  EXPECT_TRUE(abi1->defined_symbols.contains(binary::torch_symbols::kErrorCtorCxx11));

  // What the extension side needs: its undefined libstdc++ string members.
  EXPECT_EQ(binary::classify_cxx_abi(abi0->undefined_symbols).abi, CxxAbi::pre_cxx11);
  EXPECT_EQ(binary::classify_cxx_abi(abi1->undefined_symbols).abi, CxxAbi::cxx11);
  EXPECT_EQ(binary::classify_cxx_abi(abi0->defined_symbols).abi, CxxAbi::pre_cxx11);
  EXPECT_EQ(binary::classify_cxx_abi(abi1->defined_symbols).abi, CxxAbi::cxx11);

  auto plain = binary::read_elf(FLASHFIT_FIXTURE_PLAIN_C);
  ASSERT_TRUE(plain);
  EXPECT_EQ(binary::torch_cxx_abi(*plain).abi, CxxAbi::unknown);
}

TEST(CxxAbi, DebianTorchIsCxx11) {
  auto c10 = binary::read_elf(debian_lib("libc10.so"));
  ASSERT_TRUE(c10);
  auto evidence = binary::torch_cxx_abi(*c10);
  EXPECT_EQ(evidence.abi, CxxAbi::cxx11);
  EXPECT_EQ(evidence.sample, binary::torch_symbols::kCheckFailCxx11);

  auto cpu = binary::read_elf(debian_lib("libtorch_cpu.so"));
  ASSERT_TRUE(cpu);
  auto counted = binary::classify_cxx_abi(cpu->defined_symbols);
  EXPECT_EQ(counted.abi, CxxAbi::cxx11) << counted.reason << " / " << counted.sample;
  EXPECT_GT(counted.new_count, 1000u);
  EXPECT_EQ(counted.old_count, 0u);
  // libtorch_cpu has no probe symbol of its own: the fallback counts.
  EXPECT_EQ(binary::torch_cxx_abi(*cpu).abi, CxxAbi::cxx11);
}
