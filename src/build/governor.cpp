// The memory governor's policy (governor.hpp): admission by expected peak,
// pressure from measured headroom and recent growth, recovery oldest first.
// decide() makes no system call, so every rule is tested with made-up samples;
// apply() is the only part that touches processes.
#include "build/governor.hpp"

#include <fmt/format.h>
#include <fnmatch.h>
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <set>

namespace flashfit::build {
namespace {

// A learned estimate is a peak that was seen, and the next worker of that kind
// may compile a larger file.
constexpr double kLearnedMargin = 1.10;
// Headroom a resume leaves unused, as a fraction of the budget.
constexpr double kResumeSpare = 0.01;

std::string size_text(std::uint64_t bytes) {
  constexpr double kMiB = 1024.0 * 1024.0;
  const double mib = static_cast<double>(bytes) / kMiB;
  if (mib >= 1024.0) return fmt::format("{:.1f} GiB", mib / 1024.0);
  return fmt::format("{:.0f} MiB", mib);
}

std::uint64_t with_margin(std::uint64_t peak) {
  return static_cast<std::uint64_t>(static_cast<double>(peak) * kLearnedMargin);
}

std::uint64_t saturating_sub(std::uint64_t a, std::uint64_t b) {
  return a > b ? a - b : 0;
}

bool is_stopped_state(char state) {
  return state == 'T' || state == 't';
}

}  // namespace

const UnitClass* unit_class_of(const std::vector<UnitClass>& classes,
                               const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    if (arg.find('\0') != std::string::npos) continue;
    std::string_view name = arg;
    if (const std::size_t slash = name.rfind('/'); slash != std::string_view::npos)
      name.remove_prefix(slash + 1);
    // nvcc's temp files: tmpxft_<8 hex>_<8 hex>-<n>_<unit stem>.<phase suffix>
    if (name.rfind("tmpxft_", 0) == 0) {
      const std::size_t dash = name.find('-');
      const std::size_t under = dash == std::string_view::npos ? dash : name.find('_', dash);
      if (under == std::string_view::npos) continue;
      name.remove_prefix(under + 1);
    }
    if (name.empty()) continue;
    const std::string file(name);
    for (const UnitClass& c : classes) {
      for (const std::string& pattern : c.patterns) {
        std::string stem = pattern;
        if (stem.size() > 3 && stem.compare(stem.size() - 3, 3, ".cu") == 0)
          stem.replace(stem.size() - 3, 3, "*");
        if (::fnmatch(stem.c_str(), file.c_str(), 0) == 0) return &c;
      }
    }
  }
  return nullptr;
}

MemoryGovernor::MemoryGovernor(GovernorConfig config) : config_(std::move(config)) {
  if (config_.low_water_fraction < 0 || !(config_.low_water_fraction < 1)) {
    config_.low_water_fraction = 0.05;  // also catches NaN
  }
}

std::vector<GovernorAction> MemoryGovernor::decide(const std::vector<ProcessSample>& group,
                                                   int root_pid,
                                                   std::optional<std::uint64_t> machine_available) {
  ++stats_.samples;
  std::uint64_t total = 0;
  std::set<int> parents;
  std::map<int, const ProcessSample*> present;
  for (const auto& p : group) {
    total = total > UINT64_MAX - p.rss_bytes ? UINT64_MAX : total + p.rss_bytes;
    parents.insert(p.ppid);
    present[p.pid] = &p;
  }
  stats_.peak_group_bytes = std::max(stats_.peak_group_bytes, total);

  // Workers that are gone finished: their peak is what the next worker of
  // their kind is expected to reach. One that went while paused was killed
  // (a stopped process cannot exit) and says nothing about that.
  for (auto it = tracked_.begin(); it != tracked_.end();) {
    const auto found = present.find(it->first);
    if (found == present.end() || found->second->start_ticks != it->second.start_ticks) {
      if (!it->second.paused) {
        auto& learned = finished_peak_by_comm_[it->second.kind_key];
        learned = std::max(learned, it->second.peak_rss);
        finished_peak_ = std::max(finished_peak_, it->second.peak_rss);
      }
      it = tracked_.erase(it);
    } else {
      ++it;
    }
  }
  if (finished_peak_ > 0) stats_.learned_estimate_bytes = with_margin(finished_peak_);

  // Workers are the leaves of the group. One that starts a child of its own is
  // a driver (nvcc between phases) and stops being one, unless it is paused:
  // the governor must still resume it.
  for (const auto& p : group) {
    if (p.pid == root_pid || p.pid <= 0) continue;
    // A child that still has its parent's name has not exec'd yet: stopping
    // a vfork child there (posix_spawn) would freeze its parent (ninja) too.
    const auto parent = present.find(p.ppid);
    const bool unexeced = parent != present.end() && parent->second->comm == p.comm;
    const bool leaf = parents.count(p.pid) == 0 && !unexeced;
    auto it = tracked_.find(p.pid);
    if (it == tracked_.end()) {
      if (!leaf) continue;
      Tracked t;
      t.start_ticks = p.start_ticks;
      t.rss = p.rss_bytes;
      t.peak_rss = p.rss_bytes;
      t.growth = p.rss_bytes;  // grew from nothing within the last interval
      t.comm = p.comm;
      t.kind_key = p.comm;
      t.configured = config_.worker_estimate_bytes;
      if (!config_.unit_classes.empty() && config_.worker_args) {
        if (const UnitClass* c = unit_class_of(config_.unit_classes, config_.worker_args(p.pid))) {
          t.kind_key = p.comm + "/" + c->kind;
          if (c->estimate_bytes > 0) t.configured = c->estimate_bytes;
        }
      }
      t.stopped = is_stopped_state(p.state);
      tracked_.emplace(p.pid, std::move(t));
      continue;
    }
    Tracked& t = it->second;
    if (!leaf && !t.paused) {
      tracked_.erase(it);
      continue;
    }
    t.growth = saturating_sub(p.rss_bytes, t.rss);
    t.rss = p.rss_bytes;
    t.peak_rss = std::max(t.peak_rss, p.rss_bytes);
    t.comm = p.comm;
    t.stopped = is_stopped_state(p.state);
  }

  std::vector<std::pair<int, Tracked*>> workers;  // oldest first
  std::map<std::string, std::uint64_t> live_peak_by_comm;
  for (auto& [pid, t] : tracked_) {
    workers.emplace_back(pid, &t);
    auto& peak = live_peak_by_comm[t.kind_key];
    peak = std::max(peak, t.peak_rss);
  }
  std::sort(workers.begin(), workers.end(), [](const auto& a, const auto& b) {
    return a.second->start_ticks != b.second->start_ticks
               ? a.second->start_ticks < b.second->start_ticks
               : a.first < b.first;
  });

  // The configured or learned peak for this kind of worker (0: none yet). A
  // configured estimate that finished workers confirm (their peak up to it,
  // within the margin) stands; otherwise their peak plus the margin replaces it.
  auto base_estimate = [&](const Tracked& t) -> std::uint64_t {
    const auto& configured = t.configured;
    if (auto it = finished_peak_by_comm_.find(t.kind_key); it != finished_peak_by_comm_.end()) {
      const std::uint64_t learned = with_margin(it->second);
      if (configured && *configured >= it->second && *configured <= learned) return *configured;
      return learned;
    }
    return configured.value_or(0);
  };
  // Nothing says how far such a worker grows: only one of them runs at a time.
  auto unknown = [&](const Tracked& t) { return base_estimate(t) == 0; };
  auto expected_growth = [&](const Tracked& t) {
    const std::uint64_t peak =
        std::max({base_estimate(t), live_peak_by_comm[t.kind_key], t.peak_rss});
    return saturating_sub(peak, t.rss);
  };
  // Growth no estimate accounts for: a worker past its estimate (or without
  // one) is expected to go on as it did over the last interval, for two more
  // (a loaded machine delays the next sample).
  auto unexpected_growth = [&](const Tracked& t) -> std::uint64_t {
    const std::uint64_t base = base_estimate(t);
    return base == 0 || t.rss > base ? 2 * t.growth : 0;
  };
  auto running = [](const Tracked& t) { return !t.paused && !t.stopped; };

  std::vector<GovernorAction> actions;
  auto pause = [&](int pid, Tracked& t, std::string why) {
    t.paused = true;
    ++stats_.pauses;
    actions.push_back({GovernorAction::Kind::pause, pid, t.comm, std::move(why)});
  };
  auto resume = [&](int pid, Tracked& t, std::string why) {
    t.paused = false;
    ++stats_.resumes;
    actions.push_back({GovernorAction::Kind::resume, pid, t.comm, std::move(why)});
  };
  auto note_paused = [&] {
    std::size_t count = 0;
    for (const auto& [pid, t] : workers) count += t->paused ? 1 : 0;
    stats_.max_paused = std::max(stats_.max_paused, count);
  };

  std::optional<std::uint64_t> headroom;
  if (config_.budget_bytes > 0) headroom = saturating_sub(config_.budget_bytes, total);
  if (machine_available) {
    const std::uint64_t room = saturating_sub(*machine_available, config_.reserve_bytes);
    headroom = headroom ? std::min(*headroom, room) : room;
  }
  if (!headroom) {
    // Nothing to measure against: holding workers would be a guess, and a
    // guess that never ends.
    for (auto& [pid, t] : workers) {
      if (t->paused) resume(pid, *t, "no memory budget and no available-memory figure");
    }
    return actions;
  }
  const std::uint64_t scale =
      config_.budget_bytes > 0 ? config_.budget_bytes : total + machine_available.value_or(0);
  const auto low_water =
      static_cast<std::uint64_t>(static_cast<double>(scale) * config_.low_water_fraction);

  std::size_t running_count = 0, unknown_running = 0;
  std::uint64_t need = 0, unexpected = 0;
  for (const auto& [pid, t] : workers) {
    if (!running(*t)) continue;
    ++running_count;
    unknown_running += unknown(*t) ? 1 : 0;
    need += expected_growth(*t);
    unexpected += unexpected_growth(*t);
  }

  // Admission and pressure: pause the youngest running workers that still
  // grow, until the expected growth fits and the projection clears the
  // low-water mark, or one is left.
  bool paused_any = false;
  for (auto it = workers.rbegin(); it != workers.rend() && running_count > 1; ++it) {
    Tracked& t = *it->second;
    if (!running(t)) continue;
    const bool over_estimate = need > *headroom;
    const bool pressure = unexpected > 0 && *headroom < low_water + unexpected;
    const bool crowded = unknown(t) && unknown_running > 1;
    if (!over_estimate && !pressure && !crowded) {
      if (unknown_running > 1) continue;  // an older one of unknown size may be second
      break;
    }
    const std::uint64_t g = expected_growth(t);
    // At its expected peak: pausing it would only hold its memory longer.
    if (g == 0 && unexpected_growth(t) == 0) continue;
    std::string why =
        over_estimate ? fmt::format("headroom {} < expected growth {} of {} running workers",
                                    size_text(*headroom), size_text(need), running_count)
        : pressure
            ? fmt::format("headroom {} under the low-water mark {} plus unexpected growth {}",
                          size_text(*headroom), size_text(low_water), size_text(unexpected))
            : fmt::format("no memory estimate for {} yet: one at a time until one finishes",
                          t.comm);
    pause(it->first, t, std::move(why));
    paused_any = true;
    --running_count;
    unknown_running -= unknown(t) ? 1 : 0;
    need -= g;
    unexpected -= unexpected_growth(t);
  }

  // Recovery, oldest first, only in a tick that paused nothing, and with 1% of
  // the budget to spare, so that noise in the samples does not pause a worker
  // again at once.
  if (!paused_any) {
    const auto spare = static_cast<std::uint64_t>(static_cast<double>(scale) * kResumeSpare);
    const std::uint64_t room = saturating_sub(*headroom, spare + unexpected);
    for (auto& [pid, t] : workers) {
      if (!t->paused) continue;
      if (unknown(*t) && unknown_running > 0) continue;
      const std::uint64_t g = expected_growth(*t);
      if (need + g > room) continue;
      need += g;
      ++running_count;
      unknown_running += unknown(*t) ? 1 : 0;
      resume(pid, *t,
             fmt::format("headroom {} covers expected growth {} with {} to spare",
                         size_text(*headroom), size_text(need), size_text(spare)));
    }
  }

  // Progress above all: one worker always runs.
  if (running_count == 0) {
    for (auto& [pid, t] : workers) {
      if (!t->paused) continue;
      resume(pid, *t, "no worker is running");
      break;
    }
  }
  note_paused();
  return actions;
}

void MemoryGovernor::apply(const std::vector<GovernorAction>& actions) {
  for (const auto& action : actions) {
    if (action.pid <= 0) continue;  // never a group or every process
    const int sig = action.kind == GovernorAction::Kind::pause ? SIGSTOP : SIGCONT;
    ::kill(action.pid, sig);  // ESRCH: it finished meanwhile, nothing to do
  }
}

std::vector<int> MemoryGovernor::paused() const {
  std::vector<int> out;
  for (const auto& [pid, t] : tracked_) {
    if (t.paused) out.push_back(pid);
  }
  return out;
}

}  // namespace flashfit::build
