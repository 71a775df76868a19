// Page generation of `flashfit publish` (docs/publish.md): every page of a
// tree of N wheels from their variant records (plan_pages, pure). Goal: under
// 50 ms for 5,000 wheels. Figures in bench/README.md.
#include <benchmark/benchmark.h>
#include <fmt/core.h>

#include "workflow/publish_fit.hpp"
#include "workflow/publish_plan.hpp"

namespace {

using flashfit::workflow::PublishedWheel;

// N wheels over 50 projects, a third labelled for torch 2.8 / CUDA 12, a third
// placed on torch 2.9.1+cu128, a third without a known torch.
std::vector<PublishedWheel> tree(int n) {
  const auto placed = *flashfit::workflow::parse_env_key("2.9.1+cu128", std::nullopt);
  std::vector<PublishedWheel> out;
  for (int i = 0; i < n; ++i) {
    PublishedWheel w;
    auto& f = w.facts;
    f.project = fmt::format("project-{}", i % 50);
    f.version = fmt::format("1.{}.0+cu12torch2.8cxx11abiTRUE", i);
    f.filename = fmt::format("project_{}-{}-cp312-cp312-linux_x86_64.whl", i % 50, f.version);
    f.sha256 = std::string(64, 'a');
    f.size = 1 << 20;
    f.requires_python = ">=3.9";
    f.cxx11_abi = true;
    f.uses_cuda = true;
    f.cuda_major = 12;
    f.sass_archs = {80, 90};
    f.ptx_archs = {90};
    if (i % 3 == 0) {
      f.torch_major = 2;
      f.torch_minor = 8;
    } else if (i % 3 == 1) {
      f.torch_major = 2;
      f.torch_minor = 9;
      f.for_torch = {placed};
    }
    w.metadata_sha256 = std::string(64, 'b');
    out.push_back(std::move(w));
  }
  return out;
}

void BM_PlanPages(benchmark::State& state) {
  const auto wheels = tree(static_cast<int>(state.range(0)));
  std::size_t bytes = 0;
  for (auto _ : state) {
    flashfit::workflow::PublishPlan plan;
    flashfit::workflow::plan_pages(wheels, plan);
    bytes = 0;
    for (const auto& p : plan.pages) bytes += p.content.size();
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["page_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_PlanPages)->Arg(500)->Arg(5000)->Unit(benchmark::kMillisecond);

}  // namespace
