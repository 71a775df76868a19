// flashfit cache list|dir|add|remove|gc: the local wheel cache (docs/cache.md).
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/colour.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "net/progress.hpp"
#include "store/backup_reclaim.hpp"
#include "store/cache_entry_json.hpp"
#include "store/run_temp_gc.hpp"
#include "store/wheel_cache.hpp"
#include "util/paths.hpp"
#include "util/strings.hpp"
#include "util/utc_time.hpp"
#include "workflow/undo.hpp"

namespace flashfit::cli {
namespace {

using nlohmann::json;

struct CacheCliOptions {
  CLI::App* list = nullptr;
  CLI::App* dir = nullptr;
  CLI::App* add = nullptr;
  CLI::App* remove = nullptr;
  CLI::App* gc = nullptr;
  std::string wheel;  // add: a path or URL
  std::optional<std::string> sha256;
  std::string target;  // remove: sha256 or file name
  int keep_days = 30;
  bool dry_run = false;
  bool json = false;
  bool quiet = false;
};

util::Result<store::WheelCache> open_cache() {
  const auto root = util::require_cache_root();
  if (!root) return tl::unexpected(root.error());
  return store::WheelCache::open(*root);
}

// The entry as entry.json holds it, and where it lies and whether it is installed;
// each inspection also says its verdict in a word.
json listed_entry_json(const store::CacheEntry& e) {
  json out = store::entry_json(e);
  out["installed"] = store::entry_installed(e);
  out["path"] = e.path.string();
  if (out.contains("inspections") && out["inspections"].is_array()) {
    for (json& r : out["inspections"])
      r["verdict"] = r.value("compatible", false) ? "compatible" : "incompatible";
  }
  return out;
}

std::string dump(const json& doc) {
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

// "today", "3 h ago", "12 d ago"; the stored time itself when it cannot be read.
std::string ago(const std::string& iso) {
  std::tm parts{};
  if (iso.size() != 20 || ::strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%SZ", &parts) == nullptr) {
    return iso.empty() ? "-" : util::printable(iso, 24);
  }
  const double seconds = std::difftime(std::time(nullptr), ::timegm(&parts));
  if (seconds < 3600) return "< 1 h ago";
  if (seconds < 86400) return fmt::format("{} h ago", static_cast<long>(seconds / 3600));
  return fmt::format("{} d ago", static_cast<long>(seconds / 86400));
}

void print_warnings(const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) std::fprintf(stderr, "flashfit: warning: %s\n", w.c_str());
}

std::string entry_text(const store::CacheEntry& e) {
  return fmt::format("{} {}\n  file    {}\n  sha256  {}\n  size    {}\n  path    {}\n", e.package,
                     e.version, e.filename, e.sha256, net::format_bytes(e.size), e.path.string());
}

// The inspect verdicts recorded per entry (install and build record them, one
// per environment the bytes were judged against), newest last.
std::string verdicts_text(const std::vector<store::CacheEntry>& entries) {
  std::string out;
  for (const auto& e : entries) {
    if (e.inspections.empty()) continue;
    out += fmt::format("  {} {} ({})\n", util::printable(e.package, 60),
                       util::printable(e.version, 80), util::printable(e.filename, 120));
    for (const store::InspectRecord& r : e.inspections) {
      out += fmt::format("    {} {}{} ({})\n",
                         r.compatible ? paint(Paint::good, "ok  ") : paint(Paint::bad, "FAIL"),
                         util::printable(r.environment, 200),
                         r.compatible ? "" : ": " + util::printable(r.summary, 300), ago(r.at));
    }
  }
  return out.empty() ? out : "\ninspect verdicts (per environment judged):\n" + out;
}

util::Result<int> run_list(store::WheelCache& cache, const CacheCliOptions& options) {
  std::vector<std::string> warnings;
  const auto entries = cache.list(&warnings);
  print_warnings(warnings);
  std::uint64_t total = 0;
  for (const auto& e : entries) total += e.size;
  if (options.json) {
    json rows = json::array();
    for (const auto& e : entries) rows.push_back(listed_entry_json(e));
    write_stdout(dump({{"cache_dir", cache.root().string()},
                       {"entries", rows},
                       {"total_bytes", total},
                       {"warnings", warnings}}));
    return 0;
  }
  if (entries.empty()) {
    write_stdout(fmt::format("no cached wheels in {}\n", cache.root().string()));
    return 0;
  }
  std::vector<std::array<std::string, 6>> rows = {
      {"PACKAGE", "VERSION", "SIZE", "SOURCE", "LAST USED", "INSTALLED"}};
  for (const auto& e : entries) {
    rows.push_back({util::printable(e.package, 60), util::printable(e.version, 80),
                    net::format_bytes(e.size), util::printable(store::to_string(e.origin), 20),
                    ago(e.last_used_at), store::entry_installed(e) ? "yes" : "no"});
  }
  std::array<std::size_t, 6> width{};
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += i + 1 < row.size() ? fmt::format("{:<{}}  ", row[i], width[i]) : row[i];
    }
    out += line + "\n";
  }
  out += fmt::format("{} wheel(s), {}\n", entries.size(), net::format_bytes(total));
  out += verdicts_text(entries);
  write_stdout(out);
  return 0;
}

util::Result<int> run_add(store::WheelCache& cache, const CacheCliOptions& options) {
  const std::string lower = util::ascii_lower(options.wheel.substr(0, 8));
  const bool url = util::starts_with(lower, "http://") || util::starts_with(lower, "https://") ||
                   util::starts_with(lower, "file://");
  if (!url && options.sha256) {
    return util::fail(util::ErrorKind::usage,
                      "--sha256 is for URLs; a local wheel is hashed as it is copied");
  }
  net::DownloadRequest download;
  download.quiet = options.quiet;
  auto entry =
      url ? cache.fetch(options.wheel, options.sha256, store::EntryOrigin::added(), download)
          : cache.add(options.wheel, store::EntryOrigin::added());
  if (!entry) return tl::unexpected(entry.error());
  write_stdout(options.json ? dump(listed_entry_json(*entry)) : "cached " + entry_text(*entry));
  return 0;
}

bool looks_like_sha256(const std::string& text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return std::isxdigit(static_cast<unsigned char>(c)) != 0;
         });
}

util::Result<int> run_remove(store::WheelCache& cache, const CacheCliOptions& options) {
  std::optional<store::CacheEntry> found = cache.find_sha256(options.target);
  if (!found && looks_like_sha256(options.target)) {
    // Possibly a damaged entry list() skips: remove() still can.
    if (auto removed = cache.remove(options.target); !removed)
      return tl::unexpected(removed.error());
    const std::string sha = util::ascii_lower(options.target);
    write_stdout(options.json ? dump({{"removed", {{"sha256", sha}}}})
                              : fmt::format("removed {}\n", sha));
    return 0;
  }
  if (!found) {
    std::vector<store::CacheEntry> matches;
    for (auto& e : cache.list()) {
      if (e.filename == options.target) matches.push_back(std::move(e));
    }
    if (matches.size() > 1) {
      std::string shas;
      for (const auto& e : matches) shas += " " + e.sha256;
      return util::fail(util::ErrorKind::usage,
                        fmt::format("{} cached wheels are named {}", matches.size(),
                                    util::printable(options.target)),
                        {}, "remove one by its sha256:" + shas);
    }
    if (matches.empty()) {
      return util::input_error(fmt::format("no cached wheel has the sha256 or file name '{}'",
                                           util::printable(options.target)),
                               {}, "`flashfit cache list` shows what is cached");
    }
    found = std::move(matches.front());
  }
  if (auto removed = cache.remove(found->sha256); !removed) return tl::unexpected(removed.error());
  write_stdout(options.json ? dump({{"removed", listed_entry_json(*found)}})
                            : fmt::format("removed {} ({}, sha256 {})\n", found->filename,
                                          net::format_bytes(found->size), found->sha256));
  return 0;
}

// What install --undo needs from backups/: the backup last-install.json names.
store::UndoRecordFacts undo_record_facts(const std::filesystem::path& cache_root) {
  store::UndoRecordFacts facts;
  auto record = workflow::read_install_record(cache_root);
  if (!record) {
    facts.unreadable = true;
    std::fprintf(stderr, "flashfit: warning: %s: every backup is kept\n",
                 record.error().message.c_str());
  } else if (*record && (*record)->replaced) {
    std::filesystem::path dir = (*record)->replaced->dir;
    if (dir.filename().empty()) dir = dir.parent_path();
    facts.backup_name = dir.filename().string();
  }
  return facts;
}

util::Result<int> run_gc(store::WheelCache& cache, const CacheCliOptions& options) {
  const auto keep = std::chrono::hours(24) * options.keep_days;
  auto report = cache.gc(keep, options.dry_run);
  if (!report) return tl::unexpected(report.error());
  const auto cache_root = cache.root().parent_path();
  const auto backups =
      store::gc_backups(cache_root, undo_record_facts(cache_root), keep, options.dry_run);
  const auto run_temps = store::gc_run_temps(cache_root, keep, options.dry_run);
  const std::uint64_t freed = report->freed_bytes + backups.freed_bytes + run_temps.freed_bytes;
  auto run_temp_reason = [](store::RunTempVerdict verdict) {
    return verdict == store::RunTempVerdict::reclaim_pid_reused ? "pid-reused" : "owner-gone";
  };
  if (options.json) {
    json removed = json::array();
    for (const auto& e : report->removed_entries) {
      removed.push_back({{"sha256", e.sha256},
                         {"filename", e.filename.empty() ? json(nullptr) : json(e.filename)},
                         {"package", e.package},
                         {"version", e.version},
                         {"size", e.size}});
    }
    json stale = json::array();
    for (const auto& b : backups.reclaimed) {
      stale.push_back({{"name", b.name},
                       {"path", b.path.string()},
                       {"reason", std::string(store::to_string(b.verdict))},
                       {"bytes", b.bytes},
                       {"modified_at", util::format_utc(b.modified)}});
    }
    json orphans = json::array();
    for (const auto& t : run_temps.reclaimed) {
      orphans.push_back({{"name", t.name},
                         {"path", t.path.string()},
                         {"reason", run_temp_reason(t.verdict)},
                         {"bytes", t.bytes},
                         {"modified_at", util::format_utc(t.modified)}});
    }
    write_stdout(dump({{"dry_run", options.dry_run},
                       {"keep_days", options.keep_days},
                       {"removed", removed},
                       {"kept", report->kept},
                       {"temp_files_removed", report->temp_files_removed},
                       {"stale_backups", stale},
                       {"backups_kept", backups.kept},
                       {"stale_run_dirs", orphans},
                       {"freed_bytes", freed}}));
    return 0;
  }
  const char* verb = options.dry_run ? "would remove" : "removed";
  std::string out;
  for (const auto& e : report->removed_entries) {
    out += e.filename.empty() ? fmt::format("{} unreadable entry {}\n", verb, e.sha256)
                              : fmt::format("{} {} ({}, last used {})\n", verb, e.filename,
                                            net::format_bytes(e.size), ago(e.last_used_at));
  }
  for (const auto& b : backups.reclaimed) {
    out += fmt::format(
        "{} stale backup {} ({}, {}, last changed {})\n", verb, b.name, net::format_bytes(b.bytes),
        b.verdict == store::BackupVerdict::reclaim_pid_reused    ? "its pid is another program now"
        : b.verdict == store::BackupVerdict::reclaim_record_temp ? "a write that never finished"
                                                                 : "its process is gone",
        ago(util::format_utc(b.modified)));
  }
  for (const auto& t : run_temps.reclaimed) {
    out += fmt::format("{} the work directory of a killed run {} ({}, {}, last changed {})\n", verb,
                       t.name, net::format_bytes(t.bytes),
                       t.verdict == store::RunTempVerdict::reclaim_pid_reused
                           ? "its pid is another program now"
                           : "its process is gone",
                       ago(util::format_utc(t.modified)));
  }
  out += fmt::format(
      "{} {} wheel(s), {} temporary file(s), {} stale backup(s) and {} run directory(ies), {} "
      "{}; kept {} wheel(s)\n",
      verb, report->removed, report->temp_files_removed, backups.reclaimed.size(),
      run_temps.reclaimed.size(), options.dry_run ? "would free" : "freed",
      net::format_bytes(freed), report->kept);
  write_stdout(out);
  return 0;
}

util::Result<int> run_cache(const CacheCliOptions& options) {
  auto cache = open_cache();
  if (!cache) return tl::unexpected(cache.error());
  if (options.dir->parsed()) {
    write_stdout(options.json ? dump({{"cache_dir", cache->root().string()}})
                              : cache->root().string() + "\n");
    return 0;
  }
  if (options.add->parsed()) return run_add(*cache, options);
  if (options.remove->parsed()) return run_remove(*cache, options);
  if (options.gc->parsed()) return run_gc(*cache, options);
  return run_list(*cache, options);
}

}  // namespace

Runner define_cache(CLI::App& app) {
  auto options = std::make_shared<CacheCliOptions>();
  app.require_subcommand(1);
  options->list = app.add_subcommand(
      "list", "Show the cached wheels: package, version, size, source, last use");
  options->dir = app.add_subcommand("dir", "Print the cache's wheel directory");
  options->add = app.add_subcommand("add", "Copy a local wheel (or fetch a URL) into the cache");
  options->remove = app.add_subcommand("remove", "Remove a cached wheel by sha256 or file name");
  options->gc =
      app.add_subcommand("gc", "Remove unused wheels, stale temp files and orphaned backups");
  options->list->add_flag("--json", options->json, "Print JSON");
  options->dir->add_flag("--json", options->json, "Print JSON: {\"cache_dir\": ...}");
  options->add
      ->add_option("wheel", options->wheel, "A .whl file, or an http(s):// or file:// URL of one")
      ->type_name("WHEEL")
      ->required();
  options->add->add_option("--sha256", options->sha256, "The sha256 a URL's file must have")
      ->type_name("SHA256");
  options->add->add_flag("--json", options->json, "Print JSON");
  options->add->add_flag("-q,--quiet", options->quiet, "No download progress on stderr");
  options->remove->add_option("target", options->target, "The wheel's sha256 or file name")
      ->type_name("SHA256|NAME")
      ->required();
  options->remove->add_flag("--json", options->json, "Print JSON");
  options->gc
      ->add_option("--keep-days", options->keep_days, "Keep wheels used within this many days")
      ->type_name("DAYS")
      ->capture_default_str()
      ->check(CLI::Range(0, 36500));
  options->gc->add_flag("--dry-run", options->dry_run, "Only say what would be removed");
  options->gc->add_flag("--json", options->json, "Print JSON");
  return [options]() { return run_cache(*options); };
}

}  // namespace flashfit::cli
