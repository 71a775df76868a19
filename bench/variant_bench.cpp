// Decode throughput of pkg::decode_variant over every wheel label in data/.
// The resolver decodes each candidate's label once, so this bounds what label
// decoding adds per candidate. Reported as time per label (the per_label column).

#include <benchmark/benchmark.h>

#include <fstream>
#include <string>
#include <vector>

#include "pkg/variant.hpp"

namespace {

// URLs may spell '+' as %2B. Built afresh rather than with string::replace,
// which trips a false -Wrestrict in g++ 12 at -O3.
std::string unescape_plus(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 3, "%2B") == 0 || text.compare(i, 3, "%2b") == 0) {
      out += '+';
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// The local labels (text between '+' and the next '-') of the wheel names in a
// data file; `column` picks the tab-separated field, the URL basename is used
// as the file name.
std::vector<std::string> labels_from(const std::string& path, std::size_t column) {
  std::ifstream in(path);
  std::vector<std::string> labels;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::size_t start = 0;
    for (std::size_t i = 0; i < column; ++i) start = line.find('\t', start) + 1;
    std::string name = line.substr(start, line.find('\t', start) - start);
    name = name.substr(name.rfind('/') + 1);
    name = unescape_plus(name);
    const std::size_t plus = name.find('+');
    if (plus == std::string::npos) continue;
    labels.push_back(name.substr(plus + 1, name.find('-', plus) - plus - 1));
  }
  return labels;
}

const std::vector<std::string>& official() {
  static const auto labels = labels_from(FLASHFIT_DATA_DIR "/flash-attn-official-wheels.tsv", 1);
  return labels;
}

const std::vector<std::string>& community() {
  static const auto labels = labels_from(FLASHFIT_DATA_DIR "/flash-attn-community-wheels.tsv", 0);
  return labels;
}

// Both files, lower-cased as Version::local() hands them over.
const std::vector<std::string>& all_lowered() {
  static const auto labels = [] {
    std::vector<std::string> all = official();
    all.insert(all.end(), community().begin(), community().end());
    for (auto& label : all) {
      for (auto& c : label) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      }
    }
    return all;
  }();
  return labels;
}

// Near misses that walk deep before failing, plus plain junk.
const std::vector<std::string>& unknown() {
  static const std::vector<std::string> labels = {
      "cu12torch2.8cxx11abiyes",
      "cu128torch2.10gitxyz",
      "rocm62torch2.5triton",
      "20251229.cu128torch291cxx11abitrue.58fe37",
      "pt21cu",
      "cpu",
      "abc",
      "cu12torch2.",
  };
  return labels;
}

void decode_all(benchmark::State& state, const std::vector<std::string>& labels) {
  if (labels.empty()) {
    state.SkipWithError("no labels: data files not found");
    return;
  }
  for (auto _ : state) {
    for (const auto& label : labels) {
      auto decoded = flashfit::pkg::decode_variant(label);
      benchmark::DoNotOptimize(decoded);
    }
  }
  const auto total = static_cast<double>(labels.size()) * static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<int64_t>(total));
  state.counters["labels"] = static_cast<double>(labels.size());
  // Seconds per label; printed with an SI prefix ("54.1ns").
  state.counters["per_label"] =
      benchmark::Counter(total, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void bm_decode_official(benchmark::State& state) {
  decode_all(state, official());
}
void bm_decode_community(benchmark::State& state) {
  decode_all(state, community());
}
void bm_decode_all_lowered(benchmark::State& state) {
  decode_all(state, all_lowered());
}
void bm_decode_unknown(benchmark::State& state) {
  decode_all(state, unknown());
}

BENCHMARK(bm_decode_official);
BENCHMARK(bm_decode_community);
BENCHMARK(bm_decode_all_lowered);
BENCHMARK(bm_decode_unknown);

}  // namespace
