// The torch-symbol check against Debian's real libtorch (1.13, C++11 ABI),
// with modules described by their undefined symbols.

#include "binary/torch_symbols.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "binary/demangle.hpp"

namespace flashfit::binary {
namespace {

const std::filesystem::path kDebianTorchLib = "/usr/lib/python3/dist-packages/torch/lib";

ElfFile module_with(std::vector<std::string_view> undefined) {
  ElfFile elf;
  elf.undefined_symbols = SymbolNames(std::move(undefined));
  return elf;
}

TEST(TorchSymbols, RecognisesTorchNamespaces) {
  EXPECT_TRUE(is_torch_symbol(torch_symbols::kCheckFailPreCxx11));
  EXPECT_TRUE(is_torch_symbol("_ZNK2at10TensorBase8toStringEv"));
  EXPECT_TRUE(is_torch_symbol("_ZTVN3c105ErrorE"));
  EXPECT_TRUE(is_torch_symbol("_ZTIN3c1011StorageImplE"));
  EXPECT_TRUE(is_torch_symbol("_ZN5torch8autograd12VariableInfoC1Ev"));
  EXPECT_TRUE(is_torch_symbol(
      "_ZN6caffe28TypeMeta21_typeMetaDataInstanceIfEEPKNS_6detail12TypeMetaDataEv"));
  EXPECT_TRUE(is_torch_symbol("_ZNKR3c106SymInt4exprEv"));
  EXPECT_FALSE(is_torch_symbol("_ZN8pybind116detail11get_internalsEv"));
  EXPECT_FALSE(
      is_torch_symbol("_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_createERmm"));
  EXPECT_FALSE(
      is_torch_symbol("_ZGVN3c1019UndefinedTensorImpl10_singletonE"));  // a guard, module's own
  EXPECT_FALSE(is_torch_symbol("_ZN4c10xEv"));
  EXPECT_FALSE(is_torch_symbol("PyInit_ext"));
  EXPECT_FALSE(is_torch_symbol("_Z"));
  EXPECT_FALSE(is_torch_symbol(""));
}

TEST(TorchSymbols, DemangleIsSafeOnAnything) {
  EXPECT_EQ(demangle("_ZNK2at10TensorBase8toStringEv"), "at::TensorBase::toString() const");
  EXPECT_EQ(demangle("PyInit_ext"), "PyInit_ext");
  EXPECT_EQ(demangle("_Zgarbage((("), "_Zgarbage(((");
  EXPECT_EQ(demangle(""), "");
}

class DebianTorch : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kDebianTorchLib / "libc10.so")) {
      GTEST_SKIP() << "Debian's python3-torch is not installed";
    }
    auto set = read_torch_libraries(kDebianTorchLib);
    ASSERT_TRUE(set) << set.error().message;
    torch_ = std::move(*set);
  }
  TorchLibrarySet torch_;
};

TEST_F(DebianTorch, ReadsTheLibrariesAndTheirAbi) {
  EXPECT_EQ(torch_.abi, CxxAbi::cxx11);
  EXPECT_EQ(torch_.libraries, (std::vector<std::string>{"libc10.so", "libtorch_cpu.so",
                                                        "libtorch.so", "libtorch_python.so"}));
  EXPECT_GT(torch_.defined.size(), 30000u);
  EXPECT_TRUE(torch_.defined.contains(torch_symbols::kCheckFailCxx11));
  EXPECT_FALSE(torch_.defined.contains(torch_symbols::kCheckFailPreCxx11));
}

TEST_F(DebianTorch, NewAbiModuleResolves) {
  auto report = check_torch_symbols(
      module_with({torch_symbols::kCheckFailCxx11, "_ZNK2at10TensorBase8toStringB5cxx11Ev",
                   "_ZN8pybind116detail11get_internalsEv", "memcpy"}),
      torch_);
  EXPECT_EQ(report.checked, 2u);
  EXPECT_TRUE(report.missing.empty());
  EXPECT_EQ(report.diagnosis, SymbolDiagnosis::none);
}

TEST_F(DebianTorch, OldAbiModuleIsAnAbiMismatchListingEveryMiss) {
  auto report = check_torch_symbols(
      module_with({torch_symbols::kCheckFailPreCxx11, "_ZNK2at10TensorBase8toStringEv",
                   "_ZN3c106detail14torchCheckFailEPKcS2_jS2_"}),
      torch_);
  EXPECT_EQ(report.checked, 3u);
  ASSERT_EQ(report.missing.size(), 2u);
  EXPECT_EQ(report.missing[0].symbol, torch_symbols::kCheckFailPreCxx11);
  EXPECT_EQ(report.missing[1].symbol, "_ZNK2at10TensorBase8toStringEv");
  EXPECT_EQ(report.missing[1].demangled, "at::TensorBase::toString() const");
  EXPECT_EQ(report.diagnosis, SymbolDiagnosis::cxx11_abi_mismatch);
  EXPECT_NE(report.explanation.find("_GLIBCXX_USE_CXX11_ABI=0"), std::string::npos)
      << report.explanation;
}

TEST_F(DebianTorch, CudaFunctionsAgainstACpuTorchSayCpuTorch) {
  // c10::cuda::SetDevice(signed char) against Debian's 1.13, a CPU build: no
  // version of a CPU torch defines it; a CUDA build does.
  auto report = check_torch_symbols(
      module_with({"_ZN3c104cuda9SetDeviceEa", torch_symbols::kCheckFailCxx11}), torch_);
  ASSERT_EQ(report.missing.size(), 1u);
  EXPECT_EQ(report.missing[0].demangled, "c10::cuda::SetDevice(signed char)");
  EXPECT_EQ(report.diagnosis, SymbolDiagnosis::cpu_torch);
  EXPECT_NE(report.explanation.find("a CPU build"), std::string::npos) << report.explanation;
}

TEST(TorchSymbols, CudaFunctionsACudaTorchLacksMeanAnotherTorch) {
  // A CUDA torch (it defines c10::cuda functions) without this one: another version.
  TorchLibrarySet torch;
  torch.defined = SymbolNames({"_ZN3c104cuda14current_deviceEv",
                               "_ZN3c106detail14torchCheckFailEPKcS2_jRKNSt7__cxx1112basic_"
                               "stringIcSt11char_traitsIcESaIcEEE"});
  torch.abi = CxxAbi::cxx11;
  auto report = check_torch_symbols(module_with({"_ZN3c104cuda9SetDeviceEa"}), torch);
  ASSERT_EQ(report.missing.size(), 1u);
  EXPECT_EQ(report.diagnosis, SymbolDiagnosis::torch_version_mismatch);
  // A function outside torch's CUDA namespaces, against a CPU torch: another version too.
  torch.defined = SymbolNames({"_ZN3c106detail14torchCheckFailEPKcS2_jPKc"});
  auto other = check_torch_symbols(module_with({"_ZN2at6native3addEv"}), torch);
  EXPECT_EQ(other.diagnosis, SymbolDiagnosis::torch_version_mismatch);
}

TEST(TorchLibraries, MissingOrBrokenLibrariesAreErrors) {
  EXPECT_FALSE(read_torch_libraries("/nonexistent/torch/lib"));
  const auto dir = std::filesystem::temp_directory_path() / "flashfit-torchlib-test";
  std::filesystem::create_directories(dir);
  {
    std::FILE* f = std::fopen((dir / "libc10.so").c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fputs(
        "\x7f"
        "ELF garbage",
        f);
    std::fclose(f);
  }
  auto result = read_torch_libraries(dir);
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, util::ErrorKind::input);
}

}  // namespace
}  // namespace flashfit::binary
