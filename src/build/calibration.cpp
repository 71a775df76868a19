// This machine's CUDA compile speed: one fixed unit compiled once per nvcc
// version and CPU, its CPU time cached as one line of text.
#include "build/calibration.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cctype>
#include <charconv>
#include <cmath>

#include "util/atomic_file.hpp"
#include "util/paths.hpp"
#include "util/process.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"

namespace flashfit::build {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr auto kTimeout = 120s;
// The flags of the measurement behind every recipe's calibration_seconds:
// change them (or the source) and those figures must be measured again.
constexpr const char* kArch = "arch=compute_80,code=sm_80";

double seconds_of(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

double children_cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_CHILDREN, &usage);
  return seconds_of(usage.ru_utime) + seconds_of(usage.ru_stime);
}

// "13.0.88 <cpu>\n<seconds>": the key is repeated so that a hash collision
// (or a hand-edited file) cannot hand one machine another's figure.
std::optional<double> read_cached(const fs::path& file, const std::string& key) {
  auto text = util::read_small_file(file, 4096);
  if (!text) return std::nullopt;
  const auto lines = util::split(*text, '\n');
  if (lines.size() < 2 || lines[0] != key) return std::nullopt;
  const std::string_view number = util::trim(lines[1]);
  double value = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size() || !(value > 0 && value < 3600))
    return std::nullopt;
  return value;
}

}  // namespace

const char* calibration_source() {
  return R"(// flashfit's calibration unit: templated tiles the compiler unrolls, like a kernel library's.
template <int N, typename T>
__global__ void tile(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int n) {
  __shared__ T sa[N][N + 1];
  __shared__ T sb[N][N + 1];
  T acc[N / 8][N / 8] = {};
  const int tx = threadIdx.x % 8, ty = threadIdx.x / 8;
  for (int k0 = 0; k0 < n; k0 += N) {
#pragma unroll
    for (int i = 0; i < N; ++i) {
      sa[i][threadIdx.x % N] = a[(blockIdx.y * N + i) * n + k0 + threadIdx.x % N];
      sb[i][threadIdx.x % N] = b[(k0 + i) * n + blockIdx.x * N + threadIdx.x % N];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < N; ++k)
#pragma unroll
      for (int i = 0; i < N / 8; ++i)
#pragma unroll
        for (int j = 0; j < N / 8; ++j) acc[i][j] += sa[ty * (N / 8) + i][k] * sb[k][tx * (N / 8) + j];
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < N / 8; ++i)
#pragma unroll
    for (int j = 0; j < N / 8; ++j) c[(blockIdx.y * N + ty * (N / 8) + i) * n + blockIdx.x * N + tx * (N / 8) + j] = acc[i][j];
}
template __global__ void tile<32, float>(const float*, const float*, float*, int);
template __global__ void tile<64, float>(const float*, const float*, float*, int);
template __global__ void tile<32, double>(const double*, const double*, double*, int);
)";
}

std::string describe_cpu() {
  std::string model;
  if (auto text = util::read_small_file("/proc/cpuinfo", std::size_t{4} << 20)) {
    for (std::string_view line : util::split(*text, '\n')) {
      if (!util::starts_with(line, "model name")) continue;
      const std::size_t colon = line.find(':');
      if (colon != std::string_view::npos)
        model = util::printable(util::trim(line.substr(colon + 1)), 100);
      break;
    }
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  const int cpus = ::sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 0;
  if (model.empty()) model = "unknown CPU";
  return cpus > 0 ? fmt::format("{} x {}", model, cpus) : model;
}

fs::path calibration_cache_file(const fs::path& cache_root, const std::string& nvcc_version,
                                const std::string& cpu) {
  const std::string digest = util::sha256_hex(nvcc_version + "\n" + cpu);
  return cache_root / "calibration" / (digest.substr(0, 16) + ".txt");
}

std::optional<Calibration> cached_calibration(const fs::path& cache_root,
                                              const std::string& nvcc_version) {
  Calibration out;
  out.nvcc_version = nvcc_version;
  out.cpu = describe_cpu();
  auto cached = read_cached(calibration_cache_file(cache_root, nvcc_version, out.cpu),
                            nvcc_version + " " + out.cpu);
  if (!cached) return std::nullopt;
  out.cpu_seconds = *cached;
  out.cached = true;
  return out;
}

util::Result<Calibration> calibrate(const fs::path& nvcc, const std::string& nvcc_version,
                                    const fs::path& cache_root) {
  if (auto cached = cached_calibration(cache_root, nvcc_version)) return *cached;
  Calibration out;
  out.nvcc_version = nvcc_version;
  out.cpu = describe_cpu();
  const std::string key = nvcc_version + " " + out.cpu;
  const fs::path file = calibration_cache_file(cache_root, nvcc_version, out.cpu);

  std::error_code ec;
  const fs::path dir = cache_root / "tmp" / fmt::format("calibration-{}", ::getpid());
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  if (ec)
    return util::fail(util::ErrorKind::failed,
                      "cannot create " + dir.string() + ": " + ec.message());
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ignored;
      fs::remove_all(dir, ignored);
    }
  } cleanup{dir};
  if (auto written = util::write_file_atomic(dir / "calibration.cu", calibration_source());
      !written) {
    return tl::unexpected(written.error());
  }
  util::ProcessSpec spec;
  spec.argv = {nvcc.string(),    "-O3", "-std=c++17",   "-gencode", kArch, "-c",
               "calibration.cu", "-o",  "calibration.o"};
  spec.cwd = dir;
  spec.set_env = {{"TMPDIR", dir.string()}};
  spec.timeout = kTimeout;
  const double before = children_cpu_seconds();
  auto run = util::run_process(spec);
  const double spent = children_cpu_seconds() - before;
  if (!run) return tl::unexpected(run.error());
  if (!run->succeeded()) {
    std::string last;
    for (std::string_view line : util::split(run->err.empty() ? run->out : run->err, '\n')) {
      if (!util::trim(line).empty()) last = std::string(util::trim(line));
    }
    return util::fail(
        util::ErrorKind::failed,
        fmt::format("nvcc could not compile the calibration unit ({}){}", run->describe(),
                    last.empty() ? "" : ": " + util::printable(last)),
        nvcc.string());
  }
  out.cpu_seconds = std::round(spent * 100) / 100;
  if (util::ensure_cache_dir(cache_root, file.parent_path())) {
    // A cache that cannot be written costs the next plan a few seconds, nothing more.
    (void)util::write_file_atomic(file, fmt::format("{}\n{:.2f}\n", key, out.cpu_seconds));
  }
  return out;
}

}  // namespace flashfit::build
