// Cost of learning torch's facts from its files (env::probe_torch) on Debian's
// python3-torch, against the ~1 s an `import torch` costs, and of its parts:
// reading libc10 and libtorch_cpu's dynamic tables, and finding the pybind11
// id in libtorch_python. Files are in the page cache after the first run, so
// these are warm figures.

#include <benchmark/benchmark.h>

#include <filesystem>

#include "binary/cxx_abi.hpp"
#include "binary/elf.hpp"
#include "env/torch.hpp"

namespace {

namespace fs = std::filesystem;
const fs::path site = "/usr/lib/python3/dist-packages";
const fs::path lib = site / "torch" / "lib";

void BM_ProbeTorchDebian(benchmark::State& state) {
  for (auto _ : state) {
    auto facts = flashfit::env::probe_torch({site});
    if (!facts.cxx11_abi.known()) state.SkipWithError("torch ABI not found");
    benchmark::DoNotOptimize(facts);
  }
}
BENCHMARK(BM_ProbeTorchDebian)->Unit(benchmark::kMillisecond);

void BM_ReadElfLibc10(benchmark::State& state) {
  for (auto _ : state) {
    auto elf = flashfit::binary::read_elf(lib / "libc10.so");
    benchmark::DoNotOptimize(elf);
  }
}
BENCHMARK(BM_ReadElfLibc10)->Unit(benchmark::kMicrosecond);

void BM_ReadElfLibtorchCpu(benchmark::State& state) {
  for (auto _ : state) {
    auto elf = flashfit::binary::read_elf(lib / "libtorch_cpu.so");
    benchmark::DoNotOptimize(elf);
  }
}
BENCHMARK(BM_ReadElfLibtorchCpu)->Unit(benchmark::kMillisecond);

void BM_ClassifyLibtorchCpuAbi(benchmark::State& state) {
  auto elf = flashfit::binary::read_elf(lib / "libtorch_cpu.so");
  if (!elf) {
    state.SkipWithError("cannot read libtorch_cpu");
    return;
  }
  for (auto _ : state) {
    auto evidence = flashfit::binary::classify_cxx_abi(elf->defined_symbols);
    benchmark::DoNotOptimize(evidence);
  }
}
BENCHMARK(BM_ClassifyLibtorchCpuAbi)->Unit(benchmark::kMillisecond);

void BM_FindPybind11Id(benchmark::State& state) {
  for (auto _ : state) {
    auto ids = flashfit::binary::find_strings_with_prefix(lib / "libtorch_python.so",
                                                          "__pybind11_internals_v", 4);
    benchmark::DoNotOptimize(ids);
  }
}
BENCHMARK(BM_FindPybind11Id)->Unit(benchmark::kMicrosecond);

}  // namespace
