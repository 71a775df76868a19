// How long the supported-tag list takes to build and how fast a wheel's tags
// are ranked against it: `flashfit tags` builds one list, the resolver ranks
// every candidate file of every index page against it.

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "pkg/tag.hpp"
#include "pkg/tags.hpp"

namespace {

using flashfit::pkg::InterpreterTagFacts;
using flashfit::pkg::TagRules;

// Debian 12's CPython 3.11 on glibc 2.36 x86_64: 913 tags (sys_tags), 914 (pip).
InterpreterTagFacts debian_python311() {
  InterpreterTagFacts facts;
  facts.implementation = "cpython";
  facts.python_major = 3;
  facts.python_minor = 11;
  facts.py_version_nodot = "311";
  facts.py_debug = false;
  facts.with_pymalloc = true;
  facts.soabi = "cpython-311-x86_64-linux-gnu";
  facts.system = "Linux";
  facts.platform = "linux-x86_64";
  facts.glibc = flashfit::pkg::LibcVersion{2, 36};
  return facts;
}

void supported_tags_list(benchmark::State& state) {
  const auto facts = debian_python311();
  const auto rules = state.range(0) == 0 ? TagRules::packaging_21_3_sys_tags
                                         : TagRules::pip_packaging_21_3;
  std::size_t count = 0;
  for (auto _ : state) {
    auto tags = flashfit::pkg::supported_tags(facts, rules);
    count = tags.size();
    benchmark::DoNotOptimize(tags.data());
  }
  state.counters["tags"] = static_cast<double>(count);
}
BENCHMARK(supported_tags_list)->Arg(0)->Arg(1)->ArgName("pip");

// The list plus its lookup table: what a command pays once.
void supported_tags_indexed(benchmark::State& state) {
  const auto facts = debian_python311();
  for (auto _ : state) {
    flashfit::pkg::SupportedTags supported(flashfit::pkg::supported_tags(facts));
    benchmark::DoNotOptimize(&supported);
  }
}
BENCHMARK(supported_tags_indexed);

// A community wheel's compressed set (3 tags), best one at index 8.
void best_rank_three_tags(benchmark::State& state) {
  const flashfit::pkg::SupportedTags supported(flashfit::pkg::supported_tags(debian_python311()));
  const auto wheel = flashfit::pkg::parse_tag_set(
                         "cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64."
                         "manylinux_2_28_x86_64")
                         .value();
  for (auto _ : state) {
    auto rank = supported.best_rank(wheel);
    benchmark::DoNotOptimize(rank);
  }
}
BENCHMARK(best_rank_three_tags);

// Three tags none of which is supported (another CPython): the common case
// on a page with wheels for every Python.
void best_rank_three_unsupported(benchmark::State& state) {
  const flashfit::pkg::SupportedTags supported(flashfit::pkg::supported_tags(debian_python311()));
  const auto wheel = flashfit::pkg::parse_tag_set(
                         "cp312-cp312-manylinux2014_x86_64.manylinux_2_17_x86_64."
                         "manylinux_2_28_x86_64")
                         .value();
  for (auto _ : state) {
    auto rank = supported.best_rank(wheel);
    benchmark::DoNotOptimize(rank);
  }
}
BENCHMARK(best_rank_three_unsupported);

// Parsing the file name's tag field as well, as the resolver does per file.
void parse_and_rank(benchmark::State& state) {
  const flashfit::pkg::SupportedTags supported(flashfit::pkg::supported_tags(debian_python311()));
  const std::string tag_set = "cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64";
  for (auto _ : state) {
    auto rank = supported.best_rank(flashfit::pkg::parse_tag_set(tag_set).value());
    benchmark::DoNotOptimize(rank);
  }
}
BENCHMARK(parse_and_rank);

}  // namespace
