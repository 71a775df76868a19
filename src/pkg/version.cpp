#include "pkg/version.hpp"

#include "pkg/version_grammar.hpp"
#include "util/strings.hpp"

namespace flashfit::pkg {

namespace {

using detail::compare_numbers;
using detail::normalize_number;

std::strong_ordering to_ordering(int c) {
  return c < 0 ? std::strong_ordering::less
               : (c > 0 ? std::strong_ordering::greater : std::strong_ordering::equal);
}

// packaging compares releases with trailing zeros removed (1.0 == 1.0.0).
std::size_t significant_length(const std::vector<std::string>& release) {
  std::size_t n = release.size();
  while (n > 0 && release[n - 1] == "0") --n;
  return n;
}

int compare_release(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const std::size_t la = significant_length(a);
  const std::size_t lb = significant_length(b);
  for (std::size_t i = 0; i < la && i < lb; ++i) {
    if (const int c = compare_numbers(a[i], b[i])) return c;
  }
  return la == lb ? 0 : (la < lb ? -1 : 1);
}

// The pre-release slot of packaging's _cmpkey: a dev-only release sorts
// below every pre-release (rank 0), a real pre-release compares by letter
// then number (rank 1), and no pre-release sorts above both (rank 2).
int pre_rank(const std::optional<std::pair<std::string, std::string>>& pre,
             const std::optional<std::string>& post, const std::optional<std::string>& dev) {
  if (!pre && !post && dev) return 0;
  return pre ? 1 : 2;
}

}  // namespace

const Version::Parts& Version::parts() const {
  static const Parts zero;
  return parts_ ? *parts_ : zero;
}

namespace {

// A run of digits at `at` that is its own normal form ("0", or no leading
// zero): its length, 0 when there is none or it would need normalising.
std::size_t plain_number(std::string_view text, std::size_t at) {
  std::size_t end = at;
  while (end < text.size() && detail::is_digit(text[end])) ++end;
  if (end == at || (text[at] == '0' && end - at > 1)) return 0;
  return end - at;
}

}  // namespace

bool Version::parse_plain(std::string_view text, Parts& out) {
  // Room for the usual shape at once (2.5.1, +cu118torch1.12 / 5cxx11abitrue),
  // not a growth series per version.
  out.release.reserve(4);
  std::size_t at = 0;
  for (;;) {
    const std::size_t n = plain_number(text, at);
    if (n == 0) return false;
    out.release.emplace_back(text.substr(at, n));
    at += n;
    if (at == text.size() || text[at] != '.' || at + 1 == text.size() ||
        !detail::is_digit(text[at + 1]))
      break;
    ++at;
  }
  constexpr std::string_view kPost = ".post";
  if (text.substr(at, kPost.size()) == kPost) {
    at += kPost.size();
    const std::size_t n = plain_number(text, at);
    if (n == 0) return false;
    out.post.emplace(text.substr(at, n));
    at += n;
  }
  if (at == text.size()) return true;
  if (text[at] != '+') return false;
  ++at;
  out.local.reserve(2);
  for (;;) {
    std::size_t end = at;
    bool numeric = true;
    while (end < text.size() && detail::is_alnum(text[end])) {
      numeric = numeric && detail::is_digit(text[end]);
      ++end;
    }
    if (end == at || (numeric && text[at] == '0' && end - at > 1)) return false;
    LocalPart& part =
        out.local.emplace_back(LocalPart{numeric, std::string(text.substr(at, end - at))});
    if (!numeric) {
      for (char& c : part.text) c = detail::to_lower(c);
    }
    if (end == text.size()) return true;
    if (text[end] != '.') return false;
    at = end + 1;
  }
}

util::Result<Version> Version::parse(std::string_view text) {
  // Built where it will live: a catalog's distinct versions are parsed by the
  // thousand, and a Parts moved in is a second copy of each of its strings' headers.
  auto parts = std::make_shared<Parts>();
  Parts& v = *parts;
  const auto parsed = [&] {
    Version version;
    version.parts_ = std::move(parts);
    return version;
  };
  if (parse_plain(text, v)) return parsed();
  v = Parts{};  // what the one-pass reader took before it gave up
  detail::ScanError error;
  detail::Scanned scanned;
  const auto context = [&] { return "version '" + util::printable(text) + "'"; };
  if (!detail::check_ascii(text, "a version", error) ||
      !detail::scan_version(text, 0, detail::GrammarOptions{}, scanned, error)) {
    return util::input_error(std::move(error.message), context(),
                             "PEP 440 versions look like 1.2.3, 2.0rc1, 1.0.post1, 1!2.0 or "
                             "2.8.3+cu12torch2.8");
  }
  if (!scanned.epoch.empty()) v.epoch = normalize_number(scanned.epoch);
  v.release.reserve(scanned.release_count);
  for (std::size_t start = 0; start <= scanned.release.size();) {
    auto end = scanned.release.find('.', start);
    if (end == std::string_view::npos) end = scanned.release.size();
    v.release.push_back(normalize_number(scanned.release.substr(start, end - start)));
    start = end + 1;
  }
  if (scanned.has_pre) {
    static constexpr const char* kLetters[] = {"a", "b", "rc"};
    v.pre.emplace(kLetters[static_cast<int>(scanned.pre_kind)],
                  normalize_number(scanned.pre_number));
  }
  if (scanned.has_post) v.post = normalize_number(scanned.post_number);
  if (scanned.has_dev) v.dev = normalize_number(scanned.dev_number);
  if (!scanned.local.empty()) {
    std::size_t start = 0;
    const std::string_view local = scanned.local;
    while (start <= local.size()) {
      std::size_t end = start;
      while (end < local.size() && !detail::is_separator(local[end])) ++end;
      const auto part = local.substr(start, end - start);
      bool numeric = true;
      for (char c : part) numeric = numeric && detail::is_digit(c);
      v.local.push_back(
          LocalPart{numeric, numeric ? normalize_number(part) : util::ascii_lower(part)});
      start = end + 1;
    }
  }
  return parsed();
}

std::string Version::format(bool with_local, bool strip_trailing_zero) const {
  const Parts& p = parts();
  std::string out;
  if (p.epoch != "0") {
    out += p.epoch;
    out += '!';
  }
  std::size_t n = p.release.size();
  if (strip_trailing_zero) {
    while (n > 1 && p.release[n - 1] == "0") --n;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (i != 0) out += '.';
    out += p.release[i];
  }
  if (p.pre) {
    out += p.pre->first;
    out += p.pre->second;
  }
  if (p.post) {
    out += ".post";
    out += *p.post;
  }
  if (p.dev) {
    out += ".dev";
    out += *p.dev;
  }
  if (with_local && !p.local.empty()) {
    out += '+';
    out += local();
  }
  return out;
}

std::string Version::str() const {
  return format(true, false);
}
std::string Version::public_str() const {
  return format(false, false);
}
std::string Version::canonical_str(bool strip_trailing_zero) const {
  return format(true, strip_trailing_zero);
}

std::string Version::base_str() const {
  const Parts& p = parts();
  std::string out = p.epoch == "0" ? std::string() : p.epoch + "!";
  for (std::size_t i = 0; i < p.release.size(); ++i) {
    if (i != 0) out += '.';
    out += p.release[i];
  }
  return out;
}

bool Version::is_prerelease() const {
  return parts().pre.has_value() || parts().dev.has_value();
}
bool Version::is_postrelease() const {
  return parts().post.has_value();
}
bool Version::is_devrelease() const {
  return parts().dev.has_value();
}
bool Version::has_local() const {
  return !parts().local.empty();
}

std::string Version::local() const {
  const std::vector<LocalPart>& local = parts().local;
  std::string out;
  for (std::size_t i = 0; i < local.size(); ++i) {
    if (i != 0) out += '.';
    out += local[i].text;
  }
  return out;
}

Version Version::without_local() const {
  if (!has_local()) return *this;
  auto copy = std::make_shared<Parts>(parts());
  copy->local.clear();
  Version v;
  v.parts_ = std::move(copy);
  return v;
}

bool Version::same_base(const Version& other) const {
  return parts().epoch == other.parts().epoch &&
         compare_release(parts().release, other.parts().release) == 0;
}

std::strong_ordering operator<=>(const Version& a, const Version& b) {
  if (const auto c = a.compare_public(b); std::is_neq(c)) return c;

  // No local label sorts below any label; within labels, part by part, an
  // alphanumeric part sorts below a numeric one, and a shorter label that is
  // a prefix of a longer one sorts first.
  const auto& la = a.parts().local;
  const auto& lb = b.parts().local;
  for (std::size_t i = 0; i < la.size() && i < lb.size(); ++i) {
    if (la[i].numeric != lb[i].numeric) return la[i].numeric <=> lb[i].numeric;
    const int c =
        la[i].numeric ? compare_numbers(la[i].text, lb[i].text) : la[i].text.compare(lb[i].text);
    if (c != 0) return to_ordering(c);
  }
  return la.size() <=> lb.size();
}

std::strong_ordering Version::compare_public(const Version& other) const {
  if (parts_ && parts_ == other.parts_) return std::strong_ordering::equal;
  const Parts& a = parts();
  const Parts& b = other.parts();
  if (const int c = compare_numbers(a.epoch, b.epoch)) return to_ordering(c);
  if (const int c = compare_release(a.release, b.release)) return to_ordering(c);

  const int ra = pre_rank(a.pre, a.post, a.dev);
  const int rb = pre_rank(b.pre, b.post, b.dev);
  if (ra != rb) return ra <=> rb;
  if (ra == 1) {
    // "a" < "b" < "rc" as strings, which is also their alphabetical order.
    if (a.pre->first != b.pre->first) return a.pre->first <=> b.pre->first;
    if (const int c = compare_numbers(a.pre->second, b.pre->second)) return to_ordering(c);
  }

  // No post-release sorts below any post-release.
  if (a.post.has_value() != b.post.has_value()) return a.post.has_value() <=> b.post.has_value();
  if (a.post) {
    if (const int c = compare_numbers(*a.post, *b.post)) return to_ordering(c);
  }

  // No dev-release sorts above any dev-release.
  if (a.dev.has_value() != b.dev.has_value()) return b.dev.has_value() <=> a.dev.has_value();
  if (a.dev) {
    if (const int c = compare_numbers(*a.dev, *b.dev)) return to_ordering(c);
  }
  return std::strong_ordering::equal;
}

}  // namespace flashfit::pkg
