#include "pkg/specifier.hpp"

#include <algorithm>
#include <array>
#include <compare>
#include <unordered_set>

#include "pkg/version_grammar.hpp"
#include "util/strings.hpp"

namespace flashfit::pkg {

namespace {

using detail::is_digit;
using detail::is_py_space;

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return is_digit(c); });
}

// packaging's `^([0-9]+)((?:a|b|c|rc)[0-9]+)$` (case-sensitive): where to
// cut "0rc1" into "0" and "rc1", or 0 when the item is not of that shape.
std::size_t pre_cut(std::string_view item) {
  std::size_t i = 0;
  while (i < item.size() && is_digit(item[i])) ++i;
  if (i == 0 || i == item.size()) return 0;
  std::size_t j = i;
  if (item[j] == 'r' && j + 1 < item.size() && item[j + 1] == 'c') {
    j += 2;
  } else if (item[j] == 'a' || item[j] == 'b' || item[j] == 'c') {
    j += 1;
  } else {
    return 0;
  }
  return all_digits(item.substr(j)) ? i : 0;
}

// packaging's _version_split: split on '.', and pretend there is a dot
// between a release number and a pre-release glued to it ("0rc1").
std::vector<std::string> split_version(std::string_view text) {
  std::vector<std::string> out;
  for (auto item : util::split(text, '.')) {
    if (const auto cut = pre_cut(item)) {
      out.emplace_back(item.substr(0, cut));
      out.emplace_back(item.substr(cut));
    } else {
      out.emplace_back(item);
    }
  }
  return out;
}

std::size_t leading_release_items(const std::vector<std::string>& items) {
  std::size_t n = 0;
  while (n < items.size() && all_digits(items[n])) ++n;
  return n;
}

// packaging's _is_not_suffix, on the raw (not normalised, case-kept) text.
bool is_not_suffix(std::string_view item) {
  for (std::string_view prefix : {"dev", "a", "b", "rc", "post"}) {
    if (util::starts_with(item, prefix)) return false;
  }
  return true;
}

// packaging.utils.canonicalize_version on a string: normalised when it is a
// version, returned unchanged when it is not.
std::string canonicalize(std::string_view text, bool strip_trailing_zero) {
  auto parsed = Version::parse(text);
  return parsed ? parsed->canonical_str(strip_trailing_zero) : std::string(text);
}

}  // namespace

util::Result<Specifier> Specifier::parse(std::string_view text) {
  const auto context = [&] { return "specifier '" + util::printable(text) + "'"; };
  // A pointer, not a std::string: built only when an error is returned.
  const char* const hint =
      "a specifier is an operator (~= == != <= >= < > ===) and a version, as in '>=2.6' or "
      "'==2.8.*'";
  detail::ScanError error;
  if (!detail::check_ascii(text, "a specifier", error)) {
    return util::input_error(std::move(error.message), context(), hint);
  }
  std::size_t p = 0;
  while (p < text.size() && is_py_space(text[p])) ++p;

  // "===" before "==", and two-character operators before "<" and ">": the
  // regex backtracks to the shorter one, but the shorter one then leaves an
  // '=' where a version must start, so longest-first is the same answer.
  struct Operator {
    const char* text;
    Kind kind;
  };
  static constexpr std::array<Operator, 8> kOperators{{{"===", Kind::arbitrary},
                                                       {"~=", Kind::compatible},
                                                       {"==", Kind::equal},
                                                       {"!=", Kind::not_equal},
                                                       {"<=", Kind::less_equal},
                                                       {">=", Kind::greater_equal},
                                                       {"<", Kind::less},
                                                       {">", Kind::greater}}};
  const Operator* op = nullptr;
  for (const auto& candidate : kOperators) {
    if (util::starts_with(text.substr(p), std::string_view(candidate.text))) {
      op = &candidate;
      break;
    }
  }
  if (op == nullptr) {
    std::string message =
        p == text.size()
            ? std::string(text.empty() ? "empty specifier" : "the specifier is only whitespace")
            : "expected an operator (~= == != <= >= < > ===) at position " + std::to_string(p) +
                  ", found '" + util::printable(text.substr(p, 1)) + "'";
    return util::input_error(std::move(message), context(), hint);
  }

  Specifier spec;
  spec.kind_ = op->kind;
  spec.op_ = op->text;
  p += spec.op_.size();

  if (spec.kind_ == Kind::arbitrary) {
    // Anything but whitespace, ';' and ')' (which end a requirement's
    // version part); it is compared as a string, and may even be empty.
    while (p < text.size() && is_py_space(text[p])) ++p;
    const std::size_t begin = p;
    while (p < text.size() && !is_py_space(text[p]) && text[p] != ';' && text[p] != ')') ++p;
    const std::size_t end = p;
    while (p < text.size() && is_py_space(text[p])) ++p;
    if (p != text.size()) {
      const std::string message =
          end != p ? "whitespace inside the '===' version at position " + std::to_string(end)
                   : detail::quote(text.substr(p, 1)) + " at position " + std::to_string(p) +
                         " is not allowed in a '===' version";
      return util::input_error(message, context(), hint);
    }
    spec.version_ = std::string(text.substr(begin, end - begin));
    if (auto v = Version::parse(spec.version_)) spec.parsed_ = std::move(*v);
    return spec;
  }

  detail::GrammarOptions options;
  options.operator_name = op->text;
  const bool equality = spec.kind_ == Kind::equal || spec.kind_ == Kind::not_equal;
  options.allow_local = equality;
  options.allow_wildcard = equality;
  options.min_release = spec.kind_ == Kind::compatible ? 2 : 1;
  detail::Scanned scanned;
  if (!detail::scan_version(text, p, options, scanned, error)) {
    return util::input_error(std::move(error.message), context(), hint);
  }
  spec.version_ = std::string(text.substr(scanned.begin, scanned.end - scanned.begin));
  spec.wildcard_ = scanned.wildcard;

  const std::string_view version_text =
      spec.wildcard_ ? std::string_view(spec.version_).substr(0, spec.version_.size() - 2)
                     : std::string_view(spec.version_);
  auto parsed = Version::parse(version_text);
  if (!parsed) {  // the grammars agree, so this would be a bug in the scanner
    return util::fail(util::ErrorKind::internal, parsed.error().message, context());
  }
  spec.parsed_ = std::move(*parsed);

  if (spec.wildcard_) {
    spec.prefix_ = split_version(spec.parsed_->str());
  } else if (spec.kind_ == Kind::compatible) {
    // ~=X.Y.Z is >=X.Y.Z together with ==X.Y.*; packaging cuts the prefix
    // from the text as written, so do the same (it differs for odd
    // spellings such as "1.0.A1", whose case keeps "A1" out of the suffixes).
    std::vector<std::string> kept;
    for (auto& item : split_version(spec.version_)) {
      if (!is_not_suffix(item)) break;
      kept.push_back(std::move(item));
    }
    kept.pop_back();  // at least two release items precede any suffix
    spec.prefix_ = split_version(canonicalize(util::join(kept, "."), false));
  }
  spec.prefix_release_ = leading_release_items(spec.prefix_);
  return spec;
}

bool Specifier::allows_prereleases() const {
  switch (kind_) {
    case Kind::equal:
    case Kind::greater_equal:
    case Kind::less_equal:
    case Kind::compatible:
    case Kind::arbitrary:
      // For "===" text that is not a version packaging raises here; we say
      // no (see the intended differences in specifier_test.cpp).
      return parsed_ && parsed_->is_prerelease();
    default:
      return false;
  }
}

// Wildcard matching as packaging does it: compare the split, trailing-zero
// stripped public version, zero-padded to the prefix's release length.
bool Specifier::prefix_match(const Version& candidate) const {
  const auto items = split_version(candidate.format(false, true));
  const std::size_t release = leading_release_items(items);
  const std::size_t pad = prefix_release_ > release ? prefix_release_ - release : 0;
  if (items.size() + pad < prefix_.size()) return false;
  for (std::size_t i = 0; i < prefix_.size(); ++i) {
    const bool padded = i >= release && i < release + pad;
    if (padded ? prefix_[i] != "0" : prefix_[i] != items[i < release ? i : i - pad]) return false;
  }
  return true;
}

bool Specifier::equal(const Version& candidate) const {
  if (wildcard_) return prefix_match(candidate);
  // A specifier without a local label ignores the candidate's label.
  if (!parsed_->has_local()) return std::is_eq(candidate.compare_public(*parsed_));
  return candidate == *parsed_;
}

bool Specifier::contains(const Version& candidate, std::optional<bool> prereleases) const {
  const bool admit_pre = prereleases.has_value() ? *prereleases : allows_prereleases();
  if (candidate.is_prerelease() && !admit_pre) return false;
  const Version* spec = parsed_ ? &*parsed_ : nullptr;
  // Only "===" may lack a version; a default-constructed Specifier admits nothing.
  if (spec == nullptr && kind_ != Kind::arbitrary) return false;
  switch (kind_) {
    case Kind::compatible:
      return std::is_gteq(candidate.compare_public(*spec)) && prefix_match(candidate);
    case Kind::equal:
      return equal(candidate);
    case Kind::not_equal:
      return !equal(candidate);
    case Kind::less_equal:
      return std::is_lteq(candidate.compare_public(*spec));
    case Kind::greater_equal:
      return std::is_gteq(candidate.compare_public(*spec));
    case Kind::less:
      // <3.1 must not admit 3.1.dev0 unless the specifier is a pre-release.
      if (!(candidate < *spec)) return false;
      return spec->is_prerelease() || !candidate.is_prerelease() || !candidate.same_base(*spec);
    case Kind::greater:
      // >3.1 must admit neither 3.1.post1 (unless asked for) nor 3.1+local.
      if (!(candidate > *spec)) return false;
      if (!spec->is_postrelease() && candidate.is_postrelease() && candidate.same_base(*spec)) {
        return false;
      }
      return !(candidate.has_local() && candidate.same_base(*spec));
    case Kind::arbitrary:
      return candidate.str() == util::ascii_lower(version_);
  }
  return false;
}

std::string Specifier::identity() const {
  std::string key = op_;
  key += '\0';
  if (!wildcard_ && parsed_) {
    key += parsed_->canonical_str(kind_ != Kind::compatible);
  } else {
    key += version_;
  }
  return key;
}

util::Result<SpecifierSet> SpecifierSet::parse(std::string_view text) {
  const auto context = [&] { return "specifier set '" + util::printable(text) + "'"; };
  detail::ScanError error;
  if (!detail::check_ascii(text, "a specifier set", error)) {
    return util::input_error(std::move(error.message), context());
  }
  SpecifierSet set;
  std::unordered_set<std::string> seen;
  std::size_t index = 0;
  for (auto item : util::split(text, ',')) {
    ++index;
    item = detail::strip_py_space(item);
    if (item.empty()) continue;
    auto spec = Specifier::parse(item);
    if (!spec) {
      return tl::unexpected(
          std::move(spec.error()).with_context(context() + ", item " + std::to_string(index)));
    }
    // A set, as in packaging: of two equal specifiers the first one stays.
    if (seen.insert(spec->identity()).second) set.specifiers_.push_back(std::move(*spec));
  }
  return set;
}

std::string SpecifierSet::str() const {
  std::vector<std::string> parts;
  parts.reserve(specifiers_.size());
  for (const auto& s : specifiers_) parts.push_back(s.str());
  std::sort(parts.begin(), parts.end());
  return util::join(parts, ",");
}

std::optional<bool> SpecifierSet::allows_prereleases() const {
  if (specifiers_.empty()) return std::nullopt;
  return std::any_of(specifiers_.begin(), specifiers_.end(),
                     [](const Specifier& s) { return s.allows_prereleases(); });
}

bool SpecifierSet::contains(const Version& candidate, std::optional<bool> prereleases) const {
  if (!prereleases) prereleases = allows_prereleases();
  if (!prereleases.value_or(false) && candidate.is_prerelease()) return false;
  return std::all_of(specifiers_.begin(), specifiers_.end(),
                     [&](const Specifier& s) { return s.contains(candidate, prereleases); });
}

std::vector<Version> SpecifierSet::filter(const std::vector<Version>& candidates,
                                          std::optional<bool> prereleases) const {
  if (!prereleases) prereleases = allows_prereleases();
  std::vector<Version> kept;
  if (!specifiers_.empty()) {
    // Each Specifier.filter gets bool(prereleases), so its own "only
    // pre-releases matched" fallback can never fire here.
    for (const auto& v : candidates) {
      if (contains(v, prereleases.value_or(false))) kept.push_back(v);
    }
    return kept;
  }
  // No specifiers: final releases pass; pre-releases pass only when asked
  // for, or when undecided and there is nothing else.
  std::vector<Version> pre_only;
  for (const auto& v : candidates) {
    if (v.is_prerelease() && !prereleases.value_or(false)) {
      if (kept.empty()) pre_only.push_back(v);
    } else {
      kept.push_back(v);
    }
  }
  if (kept.empty() && !prereleases.has_value()) return pre_only;
  return kept;
}

bool operator==(const SpecifierSet& a, const SpecifierSet& b) {
  return std::equal(a.specifiers_.begin(), a.specifiers_.end(), b.specifiers_.begin(),
                    b.specifiers_.end(), [](const Specifier& x, const Specifier& y) {
                      return x.op() == y.op() && x.version_text() == y.version_text();
                    });
}

}  // namespace flashfit::pkg
