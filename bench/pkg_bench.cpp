// Throughput of the PEP 440 / 427 parsers and comparisons in pkg/.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "pkg/specifier.hpp"
#include "pkg/version.hpp"
#include "pkg/wheel_name.hpp"

namespace {

using flashfit::pkg::SpecifierSet;
using flashfit::pkg::Version;

constexpr const char* kSimple = "2.8.3";
constexpr const char* kComplex = "1!2.0.0rc1.post2.dev3+cu12torch2.8cxx11abiTRUE";
constexpr const char* kWheel =
    "flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp312-cp312-linux_x86_64.whl";

Version must_parse(const char* text) {
  auto v = Version::parse(text);
  if (!v) std::abort();
  return *v;
}

SpecifierSet must_parse_set(const char* text) {
  auto s = SpecifierSet::parse(text);
  if (!s) std::abort();
  return *s;
}

void BM_VersionParseSimple(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(Version::parse(kSimple));
}
BENCHMARK(BM_VersionParseSimple);

void BM_VersionParseComplex(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(Version::parse(kComplex));
}
BENCHMARK(BM_VersionParseComplex);

void BM_VersionStrComplex(benchmark::State& state) {
  const auto v = must_parse(kComplex);
  for (auto _ : state) benchmark::DoNotOptimize(v.str());
}
BENCHMARK(BM_VersionStrComplex);

void BM_VersionCompareSimple(benchmark::State& state) {
  const auto a = must_parse("2.8.3");
  const auto b = must_parse("2.8.3.0");
  for (auto _ : state) benchmark::DoNotOptimize(a <=> b);
}
BENCHMARK(BM_VersionCompareSimple);

void BM_VersionCompareComplex(benchmark::State& state) {
  const auto a = must_parse(kComplex);
  const auto b = must_parse("1!2.0.0rc1.post2.dev3+cu12torch2.10cxx11abiTRUE");
  for (auto _ : state) benchmark::DoNotOptimize(a <=> b);
}
BENCHMARK(BM_VersionCompareComplex);

void BM_SpecifierSetParse(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(SpecifierSet::parse(">=2.5.8, <2.9, !=2.7.0"));
}
BENCHMARK(BM_SpecifierSetParse);

// The resolver's question: does this candidate satisfy the user's range?
void BM_SpecifierContainsRange(benchmark::State& state) {
  const auto set = must_parse_set(">=2.5.8,<2.9,!=2.7.0");
  const auto v = must_parse("2.8.3+cu12torch2.8cxx11abiTRUE");
  for (auto _ : state) benchmark::DoNotOptimize(set.contains(v));
}
BENCHMARK(BM_SpecifierContainsRange);

void BM_SpecifierContainsWildcard(benchmark::State& state) {
  const auto set = must_parse_set("==2.8.*");
  const auto v = must_parse("2.8.3+cu12torch2.8cxx11abiTRUE");
  for (auto _ : state) benchmark::DoNotOptimize(set.contains(v));
}
BENCHMARK(BM_SpecifierContainsWildcard);

void BM_SpecifierContainsCompatible(benchmark::State& state) {
  const auto set = must_parse_set("~=2.8.0");
  const auto v = must_parse("2.8.3");
  for (auto _ : state) benchmark::DoNotOptimize(set.contains(v));
}
BENCHMARK(BM_SpecifierContainsCompatible);

void BM_WheelFilenameParse(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(flashfit::pkg::parse_wheel_filename(kWheel));
}
BENCHMARK(BM_WheelFilenameParse);

}  // namespace
