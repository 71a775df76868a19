#pragma once
// PEP 440 version specifiers (`== != <= >= < > ~= ===`, wildcards, local
// versions, pre-release exclusion), matching packaging 23.0's Specifier and
// SpecifierSet exactly.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/version.hpp"
#include "util/error.hpp"

namespace flashfit::pkg {

class Specifier {
 public:
  // packaging's per-operator grammar: ".*" and "+local" only after == and
  // !=, two release segments after ~=, anything but whitespace, ';' and ')'
  // after ===. NUL and non-ASCII bytes are rejected (packaging lets them
  // into "===" text).
  static util::Result<Specifier> parse(std::string_view text);

  const std::string& op() const { return op_; }
  const std::string& version_text() const { return version_; }
  std::string str() const { return op_ + version_; }

  // Whether pre-releases are admitted when the caller does not say
  // (packaging's Specifier.prereleases). For "===" text that is not a
  // version packaging raises; this says false.
  bool allows_prereleases() const;

  // packaging's Specifier.contains(item, prereleases).
  bool contains(const Version& candidate, std::optional<bool> prereleases = std::nullopt) const;

 private:
  enum class Kind {
    compatible,
    equal,
    not_equal,
    less_equal,
    greater_equal,
    less,
    greater,
    arbitrary
  };

  bool equal(const Version& candidate) const;
  bool prefix_match(const Version& candidate) const;
  // packaging's _canonical_spec: what makes two specifiers the same one.
  std::string identity() const;

  Kind kind_ = Kind::equal;
  std::string op_;
  std::string version_;
  // The version after the operator; for a wildcard, the part before ".*";
  // empty only for a "===" whose text is not a PEP 440 version.
  std::optional<Version> parsed_;
  bool wildcard_ = false;
  // Wildcard and ~=: the prefix a candidate's split version must start with,
  // and how many of its leading items are release numbers.
  std::vector<std::string> prefix_;
  std::size_t prefix_release_ = 0;

  friend class SpecifierSet;
};

class SpecifierSet {
 public:
  // Comma-separated; empty text is the set that admits every final release.
  static util::Result<SpecifierSet> parse(std::string_view text);

  const std::vector<Specifier>& specifiers() const { return specifiers_; }
  bool empty() const { return specifiers_.empty(); }
  // Sorted by str(), joined with ',': as str(SpecifierSet).
  std::string str() const;

  // packaging's SpecifierSet.prereleases: nullopt when the set is empty.
  std::optional<bool> allows_prereleases() const;

  // packaging's SpecifierSet.contains(item, prereleases).
  bool contains(const Version& candidate, std::optional<bool> prereleases = std::nullopt) const;

  // packaging's SpecifierSet.filter: keeps order; if nothing but pre-releases
  // match and pre-releases were not decided, returns those.
  std::vector<Version> filter(const std::vector<Version>& candidates,
                              std::optional<bool> prereleases = std::nullopt) const;
  // The same specifiers, as written, in the same order (what parsing the
  // same text gives: its answers and its messages are then the same).
  friend bool operator==(const SpecifierSet& a, const SpecifierSet& b);

 private:
  std::vector<Specifier> specifiers_;
};

}  // namespace flashfit::pkg
