#include "install/cached_verdict.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <system_error>
#include <vector>

#include "util/sha256.hpp"
#include "util/strings.hpp"
#include "util/utc_time.hpp"

namespace flashfit::install {

std::string first_failure(const binary::InspectReport& report) {
  auto from = [](const std::vector<binary::Check>& checks) -> std::string {
    for (const binary::Check& c : checks) {
      if (c.status == binary::CheckStatus::fail) {
        return c.id + ": " + c.summary + (c.details.empty() ? "" : " (" + c.details.front() + ")");
      }
    }
    return "";
  };
  if (auto s = from(report.checks); !s.empty()) return s;
  for (const binary::ModuleReport& m : report.modules) {
    if (auto s = from(m.checks); !s.empty()) return m.member + ": " + s;
  }
  return "incompatible";
}

namespace {

// A file's identity without reading it: a reinstalled or rebuilt library
// changes at least one of these.
std::string file_identity(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return path.string() + " missing";
  return fmt::format("{} {} {} {} {}.{}", path.string(), st.st_dev, st.st_ino, st.st_size,
                     st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

// Every input the inspect checks read from the host, in one canonical text:
// platform (arch, glibc and its override, the loader's search: LD_LIBRARY_PATH,
// ld.so.cache, default dirs, preloaded dirs, $LIB/$PLATFORM), the interpreter
// (its tag list, module suffix, install dir), torch (installed or not, version,
// C++11 ABI, pybind11 id, which libraries were read, each one's identity and
// the size of their symbol set), the GPUs and the driver's CUDA.
std::string host_inputs(const env::Environment& env, const binary::LoadHost& host) {
  std::string out;
  auto line = [&](std::string_view key, std::string_view value) {
    out.append(key).append("=").append(value).append("\n");
  };
  line("arch", host.arch.value_or("? " + host.arch_unknown_reason));
  line("libc",
       env.machine.libc.known() ? env.machine.libc->name + " " + env.machine.libc->version : "?");
  line("glibc-override", host.glibc_override.value_or(""));
  for (const std::string& dir : host.search.ld_library_path) line("ld-library-path", dir);
  for (const binary::LdCacheEntry& e : host.search.ld_cache) {
    line("ld-cache", fmt::format("{} {} {} {}", e.soname, e.path, e.flags, e.hwcap));
  }
  for (const auto& dir : host.search.default_dirs) line("default-dir", dir.string());
  for (const binary::PreloadedDir& p : host.search.preloaded)
    line("preloaded", p.dir.string() + " " + p.label);
  line("lib-token", host.search.lib_token);
  line("platform-token", host.search.platform_token);
  line("interpreter", host.interpreter);
  if (host.tags) {
    std::string tags;
    for (const pkg::Tag& t : host.tags->tags()) tags += t.str() + " ";
    line("tags", tags);
  } else {
    line("tags", "? " + host.tags_unknown_reason);
  }
  line("ext-suffix", host.ext_suffix.value_or("?"));
  line("install-dir", host.install_dir ? host.install_dir->string() : "?");
  line("torch-installed", host.torch_installed ? "yes" : "no");
  line("torch-version", host.torch_version.value_or("?"));
  line("torch-abi", std::to_string(static_cast<int>(host.torch_abi)));
  line("torch-pybind11", host.torch_pybind11_id.value_or("?"));
  // torch's libraries by the identity of every file in their directory, not
  // by what was read from them: the symbols come from these same bytes, and
  // the key is then known before they are read (tens of ms for a CUDA torch),
  // which a reused verdict never needs.
  if (host.torch_installed && env.torch.library_dir.known() && !env.torch.version.overridden) {
    std::vector<std::string> files;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(*env.torch.library_dir, ec), end; !ec && it != end;
         it.increment(ec)) {
      files.push_back(file_identity(it->path()));
    }
    std::sort(files.begin(), files.end());
    for (const std::string& f : files) line("torch-library", f);
  } else {
    line("torch-libraries", "? " + host.torch_unknown_reason);
  }
  if (host.gpus) {
    for (const binary::GpuTarget& g : *host.gpus)
      line("gpu", fmt::format("{}.{}", g.major, g.minor));
  } else {
    line("gpus", "? " + host.gpus_unknown_reason);
  }
  line("driver-cuda", host.driver_cuda
                          ? fmt::format("{}.{}", host.driver_cuda->major, host.driver_cuda->minor)
                          : std::string("?"));
  return out;
}

}  // namespace

std::string environment_key(const env::Environment& env, const binary::LoadHost& host) {
  std::vector<std::string> parts;
  if (env.python.version.known()) parts.push_back("python " + env.python.version->str());
  if (env.torch.version.known()) parts.push_back("torch " + env.torch.version->str());
  if (env.torch.cxx11_abi.known())
    parts.push_back(*env.torch.cxx11_abi ? "cxx11abi" : "pre-cxx11abi");
  if (env.gpu.gpus.known()) {
    for (const auto& g : *env.gpu.gpus) {
      if (g.capability.known()) parts.push_back("sm " + g.capability->str());
    }
  }
  // The readable part is for people; the digest is what must match.
  parts.push_back("inputs " + util::sha256_hex(host_inputs(env, host)).substr(0, 16));
  return util::join(parts, ", ");
}

std::optional<store::InspectRecord> recorded_verdict(const store::CacheEntry& entry,
                                                     const std::string& key) {
  std::optional<store::InspectRecord> found;
  for (const store::InspectRecord& r : entry.inspections) {
    if (r.environment == key) found = r;  // the latest
  }
  return found;
}

util::Result<CachedVerdict> inspect_cached(store::WheelCache& cache, store::CacheEntry& entry,
                                           const env::Environment& environment,
                                           const binary::LoadHost& host,
                                           const std::filesystem::path& work_dir) {
  CachedVerdict out;
  const std::string key = environment_key(environment, host);
  if (auto recorded = recorded_verdict(entry, key)) {
    out.record = std::move(*recorded);
    out.reused = true;
    return out;
  }
  auto report = binary::inspect_wheel(entry.path, host, {work_dir, {}});
  if (!report) return tl::unexpected(report.error());
  // torch first when a module of the wheel calls into torch; a plain package is imported alone.
  bool calls_torch =
      std::any_of(report->modules.begin(), report->modules.end(),
                  [](const binary::ModuleReport& m) { return m.torch && m.torch->checked > 0; });
  out.record = store::InspectRecord{key, report->compatible(),
                                    report->compatible() ? "compatible" : first_failure(*report),
                                    util::now_utc(), calls_torch};
  entry.inspections.push_back(out.record);
  (void)cache.update(entry);
  out.report = std::move(*report);
  return out;
}

}  // namespace flashfit::install
